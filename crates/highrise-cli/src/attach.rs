//! `highrise attach PID`: loads the Java agent (`agents/java`) into a JVM that is already
//! running, so its city appears in the running viewer. A CPython process gets the Python agent
//! instead (`attach_python.rs`, through gdb).
//!
//! How: `jcmd PID JVMTI.agent_load AGENT.jar "OPTIONS"` (JDK 9 and later load a Java agent jar
//! this way and call its `agentmain`). By default (`--mode sampled`) the agent rewrites nothing:
//! it reads the loaded classes' definitions from their class files and samples the threads with
//! the JVM's own sampler (JFR); `--mode exact` or `auto` retransform the loaded classes with
//! probes. `highrise detach PID` loads the jar again with `detach`: the session ends and every
//! class gets its original code back. The agent
//! jar is `--agent-jar`, else `$HIGHRISE_JAVA_AGENT`, else the one `agents/java/build.sh`
//! builds in this repository (built on demand when missing). `jcmd` is `--jcmd`, else
//! `$JAVA_HOME/bin/jcmd`, else `jcmd` on the `PATH`; it must be run by the JVM's user.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context};
use clap::{Args, ValueEnum};

/// How an attached agent measures (the agents' `mode` option).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum AttachMode {
    /// No probes: the threads' stacks sampled every 10 ms (JFR in a JVM, the agent's sampler
    /// thread in CPython); the program runs as it did. Elevations are estimates, calls uncounted.
    Sampled,
    /// Probes until they cost too much, then samples.
    Auto,
    /// Probes in every profiled method: every call counted, whatever it costs the program.
    Exact,
}

impl AttachMode {
    /// The agents' spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            AttachMode::Sampled => "sampled",
            AttachMode::Auto => "auto",
            AttachMode::Exact => "exact",
        }
    }
}

/// The jar `agents/java/build.sh` builds in this repository.
const REPO_AGENT_JAR: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../agents/java/build/highrise-agent.jar"
);
/// The script that builds it.
const REPO_BUILD_SCRIPT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../agents/java/build.sh");

/// Arguments of `highrise attach`.
#[derive(Debug, Args)]
pub struct AttachArgs {
    /// The process id of the running JVM or CPython (3.11–3.13) program.
    pub pid: u32,
    /// Where the viewer listens; the agent connects there.
    #[arg(long, default_value_t = format!("127.0.0.1:{}", highrise_protocol::DEFAULT_PORT))]
    pub addr: String,
    /// The viewer's token, for a viewer on another machine listening beyond loopback (default:
    /// this command's HIGHRISE_TOKEN; the JVM's own environment is the one it started with).
    #[arg(long, value_name = "TOKEN")]
    pub token: Option<String>,
    /// Profile only these packages or classes (each matches itself and everything under it);
    /// repeatable. Default: every class outside the JDK.
    #[arg(long)]
    pub include: Vec<String>,
    /// Never profile these packages or classes; repeatable.
    #[arg(long)]
    pub exclude: Vec<String>,
    /// The program name the viewer shows (default: the JVM's main class or jar).
    #[arg(long)]
    pub program: Option<String>,
    /// A version label (e.g. a git commit) shown next to the program.
    #[arg(long)]
    pub label: Option<String>,
    /// How to measure: `sampled` (the default: what the JVM's own sampler or py-spy costs, next
    /// to nothing), `auto` or `exact` (probes in every profiled method: every call counted, at a
    /// cost a big program feels). `--lossless` implies `exact`.
    #[arg(long, value_enum)]
    pub mode: Option<AttachMode>,
    /// Make the program wait instead of dropping events when the agent's buffers are full.
    #[arg(long)]
    pub lossless: bool,
    /// Do not count allocations (the agent counts every `new` in profiled code by default).
    #[arg(long)]
    pub no_alloc: bool,
    /// The agent jar (default: $HIGHRISE_JAVA_AGENT, else this repository's built jar).
    #[arg(long)]
    pub agent_jar: Option<PathBuf>,
    /// The jcmd executable (default: $JAVA_HOME/bin/jcmd, else jcmd on the PATH).
    #[arg(long)]
    pub jcmd: Option<PathBuf>,
}

impl AttachArgs {
    /// The mode the agent will run in: `--mode`, else exact with `--lossless`, else sampled.
    pub fn effective_mode(&self) -> AttachMode {
        match (self.mode, self.lossless) {
            (Some(mode), _) => mode,
            (None, true) => AttachMode::Exact,
            (None, false) => AttachMode::Sampled,
        }
    }
}

/// Arguments of `highrise detach`.
#[derive(Debug, Args)]
pub struct DetachArgs {
    /// The process id of the JVM or CPython program a `highrise attach` profiles.
    pub pid: u32,
    /// The agent jar (default: $HIGHRISE_JAVA_AGENT, else this repository's built jar).
    #[arg(long)]
    pub agent_jar: Option<PathBuf>,
    /// The jcmd executable (default: $JAVA_HOME/bin/jcmd, else jcmd on the PATH).
    #[arg(long)]
    pub jcmd: Option<PathBuf>,
}

/// Runs `highrise attach` on a JVM (or a process that may be one): loads the Java agent.
pub fn run(args: AttachArgs) -> anyhow::Result<()> {
    let options = agent_options(&args)?;
    let jar = agent_jar(args.agent_jar.as_deref())?;
    load_agent(args.pid, &jar, &options, args.jcmd.as_deref())?;
    println!(
        "loaded the highrise agent into JVM {} ({}; connecting to {}; agent jar {})",
        args.pid,
        mode_line(&args),
        args.addr,
        jar.display()
    );
    Ok(())
}

/// Runs `highrise detach` on a JVM: the agent ends its session and restores every class.
pub fn run_detach(args: DetachArgs) -> anyhow::Result<()> {
    let jar = agent_jar(args.agent_jar.as_deref())?;
    load_agent(args.pid, &jar, "detach", args.jcmd.as_deref())?;
    println!(
        "detached the highrise agent from JVM {}: its session ended, its sampler stopped and every \
         class it rewrote has its original code (the JVM's stderr says what it did)",
        args.pid
    );
    Ok(())
}

/// What the attach measures, for its one line.
fn mode_line(args: &AttachArgs) -> &'static str {
    match args.effective_mode() {
        AttachMode::Sampled => "sampled by the JVM's own sampler, no probes: the program runs as it did",
        AttachMode::Auto => "auto: probes until they cost too much, then samples",
        AttachMode::Exact => {
            "exact: every call of every profiled method, probes retransformed into every loaded class"
        }
    }
}

/// `jcmd PID JVMTI.agent_load JAR "OPTIONS"`: the agent's `agentmain` runs with `options`.
fn load_agent(pid: u32, jar: &Path, options: &str, jcmd: Option<&Path>) -> anyhow::Result<()> {
    let jcmd = jcmd_path(jcmd);
    let output = Command::new(&jcmd)
        .arg(pid.to_string())
        .arg("JVMTI.agent_load")
        .arg(jar)
        // jcmd splits unquoted arguments at '=' and spaces; quoted, the string reaches the agent.
        .arg(format!("\"{options}\""))
        .output()
        .with_context(|| format!("running {} (is a JDK installed?)", jcmd.display()))?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    match (output.status.success(), jcmd_return_code(&stdout)) {
        (true, Some(0)) => Ok(()),
        _ => bail!(
            "jcmd could not load the agent into JVM {pid} ({}):\n{}{}",
            output.status,
            stdout.trim_end(),
            stderr.trim_end()
        ),
    }
}

/// The agent's option string: `addr=..,include=..,...` (the separator is a comma).
fn agent_options(args: &AttachArgs) -> anyhow::Result<String> {
    let token = args.token.clone().or_else(highrise_ingest::token_from_env);
    let mut parts = vec![("addr", args.addr.as_str())];
    if let Some(token) = &token {
        parts.push(("token", token));
    }
    parts.extend(args.include.iter().map(|p| ("include", p.as_str())));
    parts.extend(args.exclude.iter().map(|p| ("exclude", p.as_str())));
    if let Some(program) = &args.program {
        parts.push(("program", program));
    }
    if let Some(label) = &args.label {
        parts.push(("label", label));
    }
    match (args.mode, args.lossless) {
        (Some(mode), _) => parts.push(("mode", mode.as_str())),
        // lossless alone asks for every event: the agent makes it exact
        (None, true) => {}
        (None, false) => parts.push(("mode", AttachMode::Sampled.as_str())),
    }
    if args.lossless {
        parts.push(("lossless", "true"));
    }
    if args.no_alloc {
        parts.push(("alloc", "off"));
    }
    let mut out = Vec::with_capacity(parts.len());
    for (key, value) in parts {
        if value.contains([',', '"', '\'']) || value.chars().any(char::is_control) {
            bail!("--{key} {value:?}: commas, quotes and control characters cannot be passed to the agent");
        }
        out.push(format!("{key}={value}"));
    }
    Ok(out.join(","))
}

/// The agent jar as an absolute path (the JVM resolves relative paths against its own directory).
fn agent_jar(chosen: Option<&Path>) -> anyhow::Result<PathBuf> {
    let chosen = chosen
        .map(Path::to_path_buf)
        .or_else(|| std::env::var_os("HIGHRISE_JAVA_AGENT").map(PathBuf::from));
    let jar = match chosen {
        Some(jar) => jar,
        None => {
            let jar = PathBuf::from(REPO_AGENT_JAR);
            if !jar.is_file() {
                build_repo_agent()?;
            }
            jar
        }
    };
    if !jar.is_file() {
        bail!("the Java agent jar {} does not exist", jar.display());
    }
    jar.canonicalize()
        .with_context(|| format!("resolving {}", jar.display()))
}

fn build_repo_agent() -> anyhow::Result<()> {
    eprintln!("building the Java agent ({REPO_BUILD_SCRIPT})");
    let status = Command::new("bash")
        .arg(REPO_BUILD_SCRIPT)
        .status()
        .context("running the Java agent's build.sh")?;
    if !status.success() {
        bail!("{REPO_BUILD_SCRIPT} failed ({status}); pass --agent-jar or set HIGHRISE_JAVA_AGENT");
    }
    Ok(())
}

fn jcmd_path(chosen: Option<&Path>) -> PathBuf {
    if let Some(jcmd) = chosen {
        return jcmd.to_path_buf();
    }
    if let Some(home) = std::env::var_os("JAVA_HOME") {
        let jcmd = Path::new(&home).join("bin").join("jcmd");
        if jcmd.is_file() {
            return jcmd;
        }
    }
    PathBuf::from("jcmd")
}

/// jcmd prints `return code: N` for JVMTI.agent_load; 0 is success.
fn jcmd_return_code(stdout: &str) -> Option<i64> {
    stdout
        .lines()
        .find_map(|line| line.trim().strip_prefix("return code:"))
        .and_then(|code| code.trim().parse().ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args() -> AttachArgs {
        AttachArgs {
            pid: 1,
            addr: "127.0.0.1:7878".into(),
            token: None,
            include: vec!["com.example".into(), "org.demo.Main".into()],
            exclude: vec!["com.example.gen".into()],
            program: Some("shop".into()),
            label: None,
            mode: None,
            lossless: true,
            no_alloc: true,
            agent_jar: None,
            jcmd: None,
        }
    }

    #[test]
    fn options_are_comma_separated_key_values() {
        assert_eq!(
            agent_options(&args()).unwrap(),
            "addr=127.0.0.1:7878,include=com.example,include=org.demo.Main,\
             exclude=com.example.gen,program=shop,lossless=true,alloc=off"
        );
    }

    #[test]
    fn an_attach_is_sampled_unless_asked() {
        let mut a = args();
        a.lossless = false;
        assert!(agent_options(&a)
            .unwrap()
            .ends_with(",mode=sampled,alloc=off"));
        a.mode = Some(AttachMode::Exact);
        assert!(agent_options(&a)
            .unwrap()
            .ends_with(",mode=exact,alloc=off"));
    }

    #[test]
    fn a_token_goes_after_the_address() {
        let mut a = args();
        a.token = Some("0123abcd".into());
        assert!(agent_options(&a)
            .unwrap()
            .starts_with("addr=127.0.0.1:7878,token=0123abcd,include="));
    }

    #[test]
    fn values_that_would_split_the_options_are_refused() {
        let mut a = args();
        a.program = Some("a,b".into());
        assert!(agent_options(&a).is_err());
        a.program = Some("say \"hi\"".into());
        assert!(agent_options(&a).is_err());
    }

    #[test]
    fn jcmd_return_code_is_read() {
        assert_eq!(jcmd_return_code("4242:\nreturn code: 0\n"), Some(0));
        assert_eq!(jcmd_return_code("4242:\nreturn code: 100\n"), Some(100));
        assert_eq!(
            jcmd_return_code("com.sun.tools.attach.AttachNotSupportedException"),
            None
        );
    }
}
