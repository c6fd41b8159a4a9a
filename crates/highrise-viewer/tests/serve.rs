//! `highrise serve` as a user runs it: a real listener process, a real demo agent process
//! connecting over a real socket, and the lines the user reads.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

const HIGHRISE: &str = env!("CARGO_BIN_EXE_highrise");

#[test]
fn serve_reports_a_demo_program_with_its_leaked_threads() {
    let mut serve = Command::new(HIGHRISE)
        .args([
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--interval-s",
            "0.5",
            "--exit-after-sessions",
            "1",
        ])
        .stdout(Stdio::piped())
        .spawn()
        .expect("serve starts");
    let stdout = serve.stdout.take().expect("stdout");
    let (line_tx, lines) = mpsc::channel::<String>();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if line_tx.send(line).is_err() {
                break;
            }
        }
    });
    let first = lines
        .recv_timeout(Duration::from_secs(30))
        .expect("serve prints its address");
    let addr = first
        .split_whitespace()
        .nth(3)
        .expect("address in the first line")
        .to_string();
    assert!(
        first.starts_with("highrise: listening on 127.0.0.1:"),
        "{first}"
    );

    // The demo leaks a thread stuck in Game.run at every restart (every 0.5 s from 0.5 s on);
    // after 4 s, 7 are stuck, the oldest for longer than the 3 s window.
    let demo = Command::new(HIGHRISE)
        .args([
            "demo",
            "--addr",
            &addr,
            "--duration-s",
            "4.0",
            "--restart-every-s",
            "0.5",
        ])
        .status()
        .expect("demo runs");
    assert!(demo.success());

    let mut output = Vec::new();
    while let Ok(line) = lines.recv_timeout(Duration::from_secs(30)) {
        output.push(line);
    }
    assert!(serve.wait().expect("serve exits").success());
    let text = output.join("\n");
    assert!(
        text.contains("[session 1] connected: tetris \"demo\""),
        "{text}"
    );
    assert!(text.contains("[session 1] ended (goodbye)"), "{text}");
    assert!(text.contains(" methods, "), "{text}");
    // The final top list: Game.run on top, at (nearly) 100 %, on the leaked threads.
    let ended_at = output
        .iter()
        .position(|line| line.contains("ended (goodbye)"))
        .expect("ended line");
    let top = &output[ended_at + 1];
    assert!(top.contains("1. tetris.game.Game.run"), "{text}");
    let threads: u32 = top
        .split_whitespace()
        .skip_while(|word| *word != "%")
        .nth(1)
        .and_then(|count| count.parse().ok())
        .expect("thread count");
    assert!((6..=9).contains(&threads), "{top}");
    let percent: f64 = top
        .split_whitespace()
        .nth(2)
        .and_then(|p| p.parse().ok())
        .expect("percent");
    assert!(percent > 99.0, "{top}");
}

#[test]
fn serve_refuses_a_non_loopback_address_without_the_flag() {
    let output = Command::new(HIGHRISE)
        .args(["serve", "--listen", "0.0.0.0:0"])
        .output()
        .expect("runs");
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("--allow-remote"), "{stderr}");
}
