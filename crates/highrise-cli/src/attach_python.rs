//! `highrise attach PID` for a running CPython (3.11–3.13): starts the Python agent
//! (`agents/python`) inside it, so its city appears in the running viewer.
//!
//! How: gdb attaches and runs `attach_python/inject.py`, which maps one page (`mmap`: a system
//! call, no allocator lock), writes a one-line `exec(...)` of a small script file into it and
//! queues that line with `Py_AddPendingCall(PyRun_SimpleString, line)`, then detaches. It calls
//! them by hand on a thread stopped where the vector registers hold nothing live (after a
//! system call, or at the entry of a hot interpreter function), saving and restoring only the
//! general registers: gdb's own `call` restores the whole XSAVE state, which gdb 13 cannot write
//! on CPUs with Intel AMX (its buffer is smaller than the kernel's). The
//! interpreter runs pending calls on its main thread at its next safe point, holding the GIL, as
//! `memray attach` arranges too (it dlopens a helper library instead). The script deletes
//! itself and starts a thread that imports `highrise_agent` (the target's own, else this
//! repository's `agents/python`) and calls `highrise_agent.start(...)`, so the main thread is
//! held up only for the thread's start; the agent then profiles every thread (checked on
//! 3.11, 3.12 and 3.13 by `agents/python/tests/test_attach.py`).
//!
//! What it needs: gdb (Debian's `gdb`), permission to trace the process (same user, and
//! `kernel.yama.ptrace_scope` ≤ 1 or root), and an interpreter that exports
//! `Py_AddPendingCall` and `PyRun_SimpleString` (every CPython build does). The main thread must
//! come back to Python code for the agent to start (a main thread blocked in `join()` starts it
//! when the join returns). The page (4 KiB) stays mapped.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context};

use crate::attach::{AttachArgs, AttachMode};

/// This repository's Python agent package directory (what `sys.path` needs to import it).
const REPO_AGENT_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../agents/python");

/// What kind of program `pid` runs: from its executable's name and its mapped libraries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Runtime {
    Jvm,
    /// CPython, with the version its executable or `libpython` names when known ("3.12").
    Python(Option<String>),
    /// Neither (its libraries were readable and name no JVM or libpython).
    Other(String),
    /// Its libraries could not be read (another user's process): try the JVM way.
    Unknown,
}

/// Reads `/proc/PID/exe` and `/proc/PID/maps`; `Unknown` when neither says.
pub fn runtime_of(pid: u32) -> anyhow::Result<Runtime> {
    let proc_dir = PathBuf::from(format!("/proc/{pid}"));
    if !proc_dir.exists() {
        bail!("no process {pid}");
    }
    let exe = std::fs::read_link(proc_dir.join("exe"))
        .map(|path| path.to_string_lossy().into_owned())
        .unwrap_or_default();
    let Ok(maps) = std::fs::read_to_string(proc_dir.join("maps")) else {
        return Ok(Runtime::Unknown);
    };
    Ok(runtime_from(&exe, &maps))
}

/// [`runtime_of`] on the executable path and the maps' text.
pub fn runtime_from(exe: &str, maps: &str) -> Runtime {
    if maps.contains("/libjvm.so") {
        return Runtime::Jvm;
    }
    let python_version = |name: &str| {
        let start = name.find("python")? + "python".len();
        let version: String = name[start..]
            .chars()
            .take_while(|c| c.is_ascii_digit() || *c == '.')
            .collect();
        let version = version.trim_end_matches('.');
        version.contains('.').then(|| version.to_string())
    };
    let exe_name = Path::new(exe)
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default();
    let libpython = maps
        .lines()
        .filter_map(|line| line.split_whitespace().nth(5))
        .find(|path| path.contains("/libpython3"));
    if let Some(lib) = libpython {
        let name = Path::new(lib)
            .file_name()
            .unwrap_or_default()
            .to_string_lossy();
        return Runtime::Python(python_version(&name));
    }
    if exe_name.starts_with("python3") {
        return Runtime::Python(python_version(&exe_name));
    }
    if exe.is_empty() && maps.is_empty() {
        return Runtime::Unknown;
    }
    Runtime::Other(exe.to_string())
}

/// A Python string literal for `text` (for the generated script).
fn py_str(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            c if (c as u32) < 0x20 || c == '\u{7f}' => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The script the target runs (as its main thread's pending call).
pub fn agent_script(args: &AttachArgs, script_path: &Path, agent_dir: &Path) -> String {
    let token = args.token.clone().or_else(highrise_ingest::token_from_env);
    let list = |items: &[String]| {
        let quoted: Vec<String> = items.iter().map(|item| py_str(item)).collect();
        format!("[{}]", quoted.join(", "))
    };
    let optional = |value: &Option<String>| value.as_deref().map_or("None".to_string(), py_str);
    format!(
        r#"def _highrise_attach():
    import os, sys
    try:
        os.unlink({script})
    except OSError:
        pass
    try:
        try:
            import highrise_agent
        except ImportError:
            sys.path.insert(0, {agent_dir})
            import highrise_agent
        agent = highrise_agent.start(
            addr={addr}, include={include}, exclude={exclude}, program={program},
            version_label={label}, token={token}, alloc={alloc}, mode={mode})
        if agent is None:
            sys.stderr.write("highrise: attached, but no viewer answered at " + {addr} + "\n")
    except BaseException as error:
        sys.stderr.write("highrise: could not start the agent: %r\n" % (error,))
import threading as _highrise_threading
_highrise_threading.Thread(target=_highrise_attach, name="highrise-attach").start()
del _highrise_attach, _highrise_threading
"#,
        script = py_str(&script_path.to_string_lossy()),
        agent_dir = py_str(&agent_dir.to_string_lossy()),
        addr = py_str(&args.addr),
        include = list(&args.include),
        exclude = list(&args.exclude),
        program = optional(&args.program),
        label = optional(&args.label),
        token = optional(&token),
        alloc = if args.no_alloc { "\"off\"" } else { "None" },
        mode = py_str(args.effective_mode().as_str()),
    )
}

/// The script `highrise detach` runs in the target: the agent's `stop()` (its Goodbye sent,
/// its sampler thread or hooks gone), on a thread of its own as the attach's start ran.
pub fn detach_script(script_path: &Path) -> String {
    format!(
        r#"def _highrise_detach():
    import os, sys
    try:
        os.unlink({script})
    except OSError:
        pass
    agent = sys.modules.get("highrise_agent")
    if agent is None:
        sys.stderr.write("highrise: detach: no highrise agent runs in this process\n")
        return
    agent.stop()
    sys.stderr.write("highrise-agent: detached\n")
import threading as _highrise_threading
_highrise_threading.Thread(target=_highrise_detach, name="highrise-detach").start()
del _highrise_detach, _highrise_threading
"#,
        script = py_str(&script_path.to_string_lossy()),
    )
}

/// The gdb Python script that maps a page, writes `line` into it and queues it as a pending
/// call, with hand-made calls on a thread where they clobber nothing live (`inject.py` says
/// why not gdb's own `call`), then detaches.
pub fn gdb_script(line: &str) -> String {
    let hex: String = line.bytes().map(|byte| format!("{byte:02x}")).collect();
    include_str!("attach_python/inject.py").replace("@LINE_HEX@", &hex)
}

/// How long gdb may wait for a thread to reach a safe point before it is interrupted (it then
/// restores nothing it did not change, and detaches).
const GDB_TIMEOUT_S: u32 = 30;

/// Runs `highrise attach` for a CPython process.
pub fn run(args: &AttachArgs, version: Option<&str>) -> anyhow::Result<()> {
    if args.lossless {
        bail!("--lossless is a Java agent option; the Python agent never makes the program wait");
    }
    let agent_dir = PathBuf::from(REPO_AGENT_DIR);
    let agent_dir = agent_dir.canonicalize().unwrap_or(agent_dir);
    inject(args.pid, "attach to", |path| {
        agent_script(args, path, &agent_dir)
    })?;
    println!(
        "queued the highrise agent in Python process {} ({}; {}; connecting to {}, agent from {} \
         unless the program has its own): it starts when the main thread next runs Python code",
        args.pid,
        version.map_or("CPython".to_string(), |v| format!("CPython {v}")),
        match args.effective_mode() {
            AttachMode::Sampled => "sampled every 10 ms, no hooks",
            AttachMode::Auto => "auto: hooks until they cost too much, then samples",
            AttachMode::Exact => "exact: every call through the hooks",
        },
        args.addr,
        agent_dir.display()
    );
    Ok(())
}

/// Runs `highrise detach` for a CPython process: its agent stops.
pub fn run_detach(pid: u32) -> anyhow::Result<()> {
    inject(pid, "detach from", detach_script)?;
    println!(
        "queued the highrise agent's stop in Python process {pid}: its session ends and its \
         sampler or hooks go when the main thread next runs Python code (its stderr says so)"
    );
    Ok(())
}

/// Has the main thread of Python process `pid` run `script` (written for its own path): the
/// script goes to a file, and gdb queues a line that executes it as a pending call. `what`
/// ("attach to", "detach from") names the step in errors.
fn inject(pid: u32, what: &str, script: impl FnOnce(&Path) -> String) -> anyhow::Result<()> {
    let gdb = std::env::var_os("HIGHRISE_GDB").map_or_else(|| PathBuf::from("gdb"), PathBuf::from);
    let script_path = std::env::temp_dir().join(format!(
        "highrise-{}-{pid}-{}.py",
        what.split(' ').next().unwrap_or(what),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos())
    ));
    std::fs::write(&script_path, script(&script_path))
        .with_context(|| format!("writing {}", script_path.display()))?;
    // The target may run as another user that can read but not write here.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let _ = std::fs::set_permissions(&script_path, std::fs::Permissions::from_mode(0o644));
    }
    let line = format!(
        "exec(open({}).read())",
        py_str(&script_path.to_string_lossy())
    );
    let gdb_script_path = script_path.with_extension("gdb.py");
    std::fs::write(&gdb_script_path, gdb_script(&line))
        .with_context(|| format!("writing {}", gdb_script_path.display()))?;
    // coreutils' `timeout` interrupts gdb (SIGINT) if no thread reaches a safe point.
    let mut command = if Path::new("/usr/bin/timeout").exists() {
        let mut command = Command::new("/usr/bin/timeout");
        command
            .args(["-s", "INT", &GDB_TIMEOUT_S.to_string()])
            .arg(&gdb);
        command
    } else {
        Command::new(&gdb)
    };
    command
        .args(["-nx", "-q", "-batch", "-p", &pid.to_string(), "-x"])
        .arg(&gdb_script_path);
    let output = command.output();
    let _ = std::fs::remove_file(&gdb_script_path);
    let output = match output {
        Ok(output) => output,
        Err(error) => {
            let _ = std::fs::remove_file(&script_path);
            bail!(
                "to {what} a Python process needs gdb ({}: {error}); on Debian: apt-get install gdb",
                gdb.display()
            );
        }
    };
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    gdb_outcome(&stdout, &stderr).map_err(|reason| {
        let _ = std::fs::remove_file(&script_path);
        anyhow::anyhow!(
            "could not {what} Python process {pid}: {reason}\n--- gdb said:\n{}{}",
            stdout.trim_end(),
            stderr.trim_end()
        )
    })
}

/// What gdb's output says: queued, or why not (permissions, not CPython, no symbols).
pub fn gdb_outcome(stdout: &str, stderr: &str) -> Result<(), String> {
    let all = format!("{stdout}\n{stderr}");
    if let Some(code) = all
        .lines()
        .find_map(|line| line.trim().strip_prefix("HIGHRISE_QUEUED "))
    {
        return match code.trim() {
            "0" => Ok(()),
            other => Err(format!(
                "the interpreter refused the pending call (Py_AddPendingCall returned {other}: its queue is full; try again)"
            )),
        };
    }
    if all.contains("ptrace: Operation not permitted") || all.contains("Could not attach") {
        return Err(
            "not allowed to trace it: run as its user (or root), and check /proc/sys/kernel/yama/ptrace_scope (1 allows only parents; set it to 0, or run as root)"
                .into(),
        );
    }
    if all.contains("No such process") {
        return Err("no such process".into());
    }
    if all.contains("No symbol \"Py_AddPendingCall\"")
        || all.contains("No symbol \"PyRun_SimpleString\"")
    {
        return Err(
            "the process has no Py_AddPendingCall / PyRun_SimpleString: not CPython, or a build without its symbols".into(),
        );
    }
    if all.contains("No symbol \"mmap\"") {
        return Err("no mmap in the process (no C library symbols)".into());
    }
    if let Some(why) = all
        .lines()
        .find_map(|line| line.trim().strip_prefix("HIGHRISE_FAIL "))
    {
        return Err(why.to_string());
    }
    Err("gdb did not queue the call".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_runtime_comes_from_the_maps_and_the_executable() {
        let jvm = "7f..-7f.. r-xp 0 08:01 1 /usr/lib/jvm/java-17/lib/server/libjvm.so\n";
        assert_eq!(runtime_from("/usr/bin/java", jvm), Runtime::Jvm);
        let shared = "7f..-7f.. r-xp 0 08:01 1 /usr/lib/x86_64-linux-gnu/libpython3.11.so.1.0\n";
        assert_eq!(
            runtime_from("/usr/bin/python3.11", shared),
            Runtime::Python(Some("3.11".into()))
        );
        assert_eq!(
            runtime_from("/root/.pyenv/versions/3.12.8/bin/python3.12", ""),
            Runtime::Python(Some("3.12".into()))
        );
        assert_eq!(runtime_from("/venv/bin/python3", ""), Runtime::Python(None));
        assert_eq!(
            runtime_from("/usr/bin/ruby", ""),
            Runtime::Other("/usr/bin/ruby".into())
        );
        assert_eq!(runtime_from("", ""), Runtime::Unknown);
    }

    #[test]
    fn strings_reach_python_intact() {
        assert_eq!(py_str(r#"a"b\c"#), r#""a\"b\\c""#);
        assert_eq!(py_str("x\ny"), r#""x\x0ay""#);
    }

    #[test]
    fn gdb_writes_the_line_then_queues_it() {
        let script = gdb_script(r#"exec(open("/tmp/a.py").read())"#);
        // The line, hex-encoded (no quoting to get wrong), then a NUL.
        assert!(script.contains(r#"bytes.fromhex("65786563286f70656e2822"#));
        assert!(!script.contains("@LINE_HEX@"));
        assert!(script.contains("\"mmap\""));
        assert!(script.contains("\"Py_AddPendingCall\""));
        assert!(script.trim_end().ends_with(r#"gdb.execute("detach")"#));
    }

    #[test]
    fn gdb_output_says_why() {
        assert_eq!(
            gdb_outcome("HIGHRISE_PAGE 0x7f\nHIGHRISE_QUEUED 0\n", ""),
            Ok(())
        );
        assert!(gdb_outcome("HIGHRISE_QUEUED -1\n", "")
            .unwrap_err()
            .contains("queue is full"));
        assert!(gdb_outcome("", "ptrace: Operation not permitted.\n")
            .unwrap_err()
            .contains("ptrace_scope"));
        assert!(
            gdb_outcome("", "No symbol \"Py_AddPendingCall\" in current context.\n")
                .unwrap_err()
                .contains("not CPython")
        );
        assert!(
            gdb_outcome("HIGHRISE_FAIL no thread came to a safe point\n", "")
                .unwrap_err()
                .contains("safe point")
        );
    }
}
