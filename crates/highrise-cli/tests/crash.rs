//! A bug in highrise met on one session's data fails that session, visibly, and nothing else:
//! `highrise serve` and `highrise record` (real processes) with the test-only panic hook
//! (`HIGHRISE_TEST_PANIC_ON`), one agent whose stream trips it and a real demo agent beside it;
//! then `highrise report` on both recordings.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use highrise_protocol::{AgentMessage, EventKind};
use highrise_testkit::messages::{batch, frames, hello, method};

const HIGHRISE: &str = env!("CARGO_BIN_EXE_highrise");
/// The method name the hook panics on (its definition arrives mid-session).
const POISON: &str = "poisonedByTheTestHook";

/// An agent over a real socket: three methods and a second of calls, then the poisoned
/// definition, then more calls and a Goodbye that the server no longer reads.
fn poisoned_agent(addr: &str) {
    let mut stream = TcpStream::connect(addr).expect("connects");
    let mut messages = vec![
        AgentMessage::Hello(hello("test-agent", "crashy")),
        AgentMessage::DefineMethods(vec![
            method(0, "app", "Main", "main"),
            method(1, "app", "Work", "crunch"),
            method(2, "app", "Work", "idle"),
        ]),
    ];
    let mut events = vec![(0, 0, EventKind::Enter)];
    for step in 0..100u64 {
        let at = 1_000_000 + step * 10_000_000;
        events.push((at, 1, EventKind::Enter));
        events.push((at + 9_000_000, 1, EventKind::Exit));
    }
    messages.push(batch(1, &events));
    messages.push(AgentMessage::Heartbeat {
        timestamp: 1_010_000_000,
    });
    stream.write_all(&frames(&messages)).expect("writes");
    stream.flush().expect("flushes");
    std::thread::sleep(Duration::from_millis(300));
    let after = [
        AgentMessage::DefineMethods(vec![method(3, "app", "Work", POISON)]),
        batch(1, &[(1_020_000_000, 2, EventKind::Enter)]),
        AgentMessage::Goodbye {
            timestamp: 1_030_000_000,
        },
    ];
    // The server may close the socket as soon as the session failed: writes can fail.
    let _ = stream.write_all(&frames(&after));
    let _ = stream.shutdown(std::net::Shutdown::Write);
    let mut rest = Vec::new();
    let _ = std::io::Read::read_to_end(&mut stream, &mut rest);
}

fn tetris_demo(addr: &str) -> std::process::Child {
    Command::new(HIGHRISE)
        .args(["demo", "--addr", addr, "--duration-s", "2"])
        .stderr(Stdio::null())
        .spawn()
        .expect("demo starts")
}

/// Lines of a child's stdout, as they come.
fn lines_of(stdout: std::process::ChildStdout) -> mpsc::Receiver<String> {
    let (line_tx, lines) = mpsc::channel::<String>();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if line_tx.send(line).is_err() {
                break;
            }
        }
    });
    lines
}

/// Runs `listener` (serve or record) with the panic hook, a tetris demo and the poisoned
/// agent against it (at the address `address_of` reads from its first line), until it exits:
/// its exit status and the rest of its stdout.
fn beside_a_demo(
    mut listener: Command,
    address_of: impl FnOnce(&str) -> String,
) -> (std::process::ExitStatus, Vec<String>) {
    let mut child = listener
        .env("HIGHRISE_TEST_PANIC_ON", POISON)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("listener starts");
    let lines = lines_of(child.stdout.take().expect("stdout"));
    let first = lines
        .recv_timeout(Duration::from_secs(30))
        .expect("address line");
    let addr = address_of(&first);
    let mut demo = tetris_demo(&addr);
    poisoned_agent(&addr);
    assert!(demo.wait().expect("demo ends").success());
    let mut output = Vec::new();
    while let Ok(line) = lines.recv_timeout(Duration::from_secs(30)) {
        output.push(line);
    }
    (child.wait().expect("listener exits"), output)
}

#[test]
fn a_panic_on_one_session_fails_it_in_serve_and_the_other_goes_on() {
    let mut serve = Command::new(HIGHRISE);
    serve
        .args(["serve", "--listen", "127.0.0.1:0", "--interval-s", "0.5"])
        .args(["--exit-after-sessions", "2"]);
    // serve's first line: "highrise: listening on ADDR".
    let (status, output) = beside_a_demo(serve, |first| {
        first
            .split_whitespace()
            .nth(3)
            .expect("address")
            .to_string()
    });
    let text = output.join("\n");
    assert!(status.success(), "{text}");
    // The crashed session: one line, as it happened, with the message and where it came from.
    let failed: Vec<&String> = output
        .iter()
        .filter(|line| line.contains("injected panic"))
        .collect();
    assert_eq!(failed.len(), 1, "{text}");
    assert!(
        failed[0].contains("FAILED: highrise failed on this session (a bug; report this)"),
        "{text}"
    );
    assert!(failed[0].contains("session/state.rs:"), "{text}");
    // Its stream was still read to the Goodbye and counted (201 events before the crash, 1
    // after): the agent saw nothing.
    let ended = output
        .iter()
        .find(|line| line.contains("ended (") && line.contains("crashy:"))
        .unwrap_or_else(|| panic!("no end line for crashy: {text}"));
    assert!(ended.contains("ended (failed: a bug in highrise"), "{text}");
    assert!(ended.contains("crashy: 202 events"), "{text}");
    assert!(
        output
            .iter()
            .any(|line| line.contains("connected: tetris") || line.contains("tetris")),
        "{text}"
    );
    assert!(
        output.iter().any(|line| line.contains("ended (goodbye)")),
        "{text}"
    );
}

#[test]
fn a_panic_on_one_session_fails_it_in_record_and_its_recording_stays_readable() {
    let dir = std::env::temp_dir().join(format!("highrise-crash-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("dir");
    let mut record = Command::new(HIGHRISE);
    record
        .args([
            "record",
            "--listen",
            "127.0.0.1:0",
            "--sessions",
            "2",
            "--out",
        ])
        .arg(&dir);
    let (status, output) = beside_a_demo(record, |first| {
        first
            .strip_prefix("LISTENING ")
            .expect("LISTENING line")
            .trim()
            .to_string()
    });
    let text = output.join("\n");
    assert!(status.success(), "{text}");
    let failed: Vec<&String> = output
        .iter()
        .filter(|line| line.contains("failed: highrise failed on this session"))
        .collect();
    assert_eq!(failed.len(), 1, "{text}");
    assert!(failed[0].contains("injected panic"), "{text}");

    let recording = |program: &str| {
        std::fs::read_dir(&dir)
            .expect("recordings")
            .filter_map(Result::ok)
            .map(|entry| entry.path())
            .find(|path| path.to_string_lossy().contains(program))
            .unwrap_or_else(|| panic!("no {program} recording: {text}"))
    };
    let report = |path: &std::path::Path, hook: bool| {
        let mut command = Command::new(HIGHRISE);
        command.arg("report").arg(path);
        if hook {
            command.env("HIGHRISE_TEST_PANIC_ON", POISON);
        } else {
            command.env_remove("HIGHRISE_TEST_PANIC_ON");
        }
        command.output().expect("report runs")
    };
    // The demo beside it: recorded and reported as ever.
    let demo_report = report(&recording("tetris"), true);
    assert!(demo_report.status.success());
    assert!(String::from_utf8_lossy(&demo_report.stdout).contains("Game.run"));
    // The crashed session's file holds what arrived up to the crash: a fixed highrise (here:
    // no hook) reads it whole; the same bug again is a non-zero exit with the message.
    let crashy = recording("crashy");
    let fixed = report(&crashy, false);
    let fixed_text = String::from_utf8_lossy(&fixed.stdout);
    assert!(fixed.status.success(), "{fixed_text}");
    assert!(fixed_text.contains("app.Work.crunch"), "{fixed_text}");
    let again = report(&crashy, true);
    assert!(!again.status.success());
    let stderr = String::from_utf8_lossy(&again.stderr);
    assert!(stderr.contains("injected panic"), "{stderr}");
    assert!(stderr.contains("report this"), "{stderr}");
    let _ = std::fs::remove_dir_all(&dir);
}
