//! `highrise attach PID`: loads the Java agent (`agents/java`) into a JVM that is already
//! running, so its city appears in the running viewer. A CPython process gets the Python agent
//! instead (`attach_python.rs`, through gdb).
//!
//! How: `jcmd PID JVMTI.agent_load AGENT.jar "OPTIONS"` (JDK 9 and later load a Java agent jar
//! this way and call its `agentmain`, which retransforms the classes already loaded). The agent
//! jar is `--agent-jar`, else `$HIGHRISE_JAVA_AGENT`, else the one `agents/java/build.sh`
//! builds in this repository (built on demand when missing). `jcmd` is `--jcmd`, else
//! `$JAVA_HOME/bin/jcmd`, else `jcmd` on the `PATH`; it must be run by the JVM's user.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context};
use clap::Args;

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

/// Runs `highrise attach` on a JVM (or a process that may be one): loads the Java agent.
pub fn run(args: AttachArgs) -> anyhow::Result<()> {
    let options = agent_options(&args)?;
    let jar = agent_jar(&args)?;
    let jcmd = jcmd_path(&args);
    let output = Command::new(&jcmd)
        .arg(args.pid.to_string())
        .arg("JVMTI.agent_load")
        .arg(&jar)
        // jcmd splits unquoted arguments at '=' and spaces; quoted, the string reaches the agent.
        .arg(format!("\"{options}\""))
        .output()
        .with_context(|| format!("running {} (is a JDK installed?)", jcmd.display()))?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    match (output.status.success(), jcmd_return_code(&stdout)) {
        (true, Some(0)) => {
            println!(
                "loaded the highrise agent into JVM {} (connecting to {}; agent jar {})",
                args.pid,
                args.addr,
                jar.display()
            );
            Ok(())
        }
        _ => bail!(
            "jcmd could not load the agent into JVM {} ({}):\n{}{}",
            args.pid,
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
fn agent_jar(args: &AttachArgs) -> anyhow::Result<PathBuf> {
    let chosen = args
        .agent_jar
        .clone()
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

fn jcmd_path(args: &AttachArgs) -> PathBuf {
    if let Some(jcmd) = &args.jcmd {
        return jcmd.clone();
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
