//! The built-in demo program: a small simulated game that speaks the real protocol over a real
//! socket, so a first-time user sees a living session at once.
//!
//! It is a simulation, not an instrumented program: events are generated against the real
//! monotonic clock from a fixed program structure (packages, classes, methods) and per-thread
//! call patterns. It carries the paper's bug on purpose: every "restart" leaks a thread that
//! stays inside `main.game.Game.run` forever, so `run` climbs to 100 % with one more thread
//! per restart.

use std::io::Write;
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use anyhow::Context;
use highrise_protocol::{
    write_frame, AgentMessage, EventKind, Hello, MethodDef, PackedEventWriter, DEFAULT_PORT, MAGIC,
    PROTOCOL_VERSION,
};

#[derive(Debug, clap::Args)]
pub struct DemoArgs {
    /// Where highrise listens.
    #[arg(long, default_value_t = SocketAddr::from(([127, 0, 0, 1], DEFAULT_PORT)))]
    pub addr: SocketAddr,
    /// Stop after this many seconds (runs until killed when absent).
    #[arg(long)]
    pub duration_s: Option<f64>,
    /// Seconds between game restarts (each leaks a thread stuck in `Game.run`).
    #[arg(long, default_value_t = 5.0)]
    pub restart_every_s: f64,
    /// The version label the demo reports.
    #[arg(long, default_value = "demo")]
    pub version_label: String,
}

/// (package, class, method, self time per call in µs).
const METHODS: &[(&str, &str, &str, u64)] = &[
    ("main", "Main", "main", 5),
    ("main.game", "Game", "run", 2),
    ("main.game", "Game", "tick", 3),
    ("main.game", "Game", "restart", 40),
    ("main.game", "Board", "step", 20),
    ("main.game", "Board", "clearLines", 120),
    ("main.game", "Board", "collides", 8),
    ("main.game", "Piece", "rotate", 6),
    ("main.game", "Piece", "fall", 4),
    ("main.game.ai", "Planner", "bestMove", 900),
    ("main.game.ai", "Planner", "score", 60),
    ("main.ui", "Renderer", "drawFrame", 300),
    ("main.ui", "Renderer", "drawBoard", 150),
    ("main.ui", "Renderer", "drawScore", 30),
    ("main.ui", "Input", "poll", 10),
    ("main.net", "Socket", "poll", 50),
    ("main.net", "Socket", "send", 80),
    ("main.util", "Log", "write", 15),
];

fn method_id(class: &str, method: &str) -> u32 {
    METHODS
        .iter()
        .position(|(_, c, m, _)| *c == class && *m == method)
        .map_or(0, |index| index as u32)
}

/// A call tree per thread role: (class, method, children).
struct Call(&'static str, &'static str, &'static [Call]);

const GAME_LOOP: Call = Call(
    "Game",
    "tick",
    &[
        Call("Input", "poll", &[]),
        Call(
            "Board",
            "step",
            &[
                Call("Piece", "fall", &[Call("Board", "collides", &[])]),
                Call("Piece", "rotate", &[Call("Board", "collides", &[])]),
                Call("Board", "clearLines", &[Call("Log", "write", &[])]),
            ],
        ),
        Call("Planner", "bestMove", &[Call("Planner", "score", &[])]),
    ],
);
const RENDER_LOOP: Call = Call(
    "Renderer",
    "drawFrame",
    &[
        Call("Renderer", "drawBoard", &[]),
        Call("Renderer", "drawScore", &[]),
    ],
);
const NET_LOOP: Call = Call("Socket", "poll", &[Call("Socket", "send", &[])]);

struct SimThread {
    thread_id: u64,
    root: &'static Call,
    /// Simulated time this thread has reached, in ns since the demo's clock zero.
    clock_ns: u64,
    /// Idle time between iterations, in ns (so threads are not all at 100 %).
    idle_ns: u64,
    /// Scales the call costs, varied over time so heights move.
    cost_scale: f64,
}

pub fn run(args: DemoArgs) -> anyhow::Result<()> {
    let stream = TcpStream::connect(args.addr)
        .with_context(|| format!("cannot connect to highrise at {}", args.addr))?;
    stream.set_nodelay(true).context("set_nodelay")?;
    run_on(stream, &args)
}

fn run_on(mut stream: TcpStream, args: &DemoArgs) -> anyhow::Result<()> {
    let start = Instant::now();
    let now_ns = || start.elapsed().as_nanos() as u64;
    let clock_zero_unix_ns = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    let mut out = Vec::new();
    write_frame(
        &mut out,
        &AgentMessage::Hello(Hello {
            magic: MAGIC,
            protocol_version: PROTOCOL_VERSION,
            agent: format!("highrise-demo {}", env!("CARGO_PKG_VERSION")),
            program: "tetris-demo".into(),
            version_label: args.version_label.clone(),
            pid: std::process::id(),
            clock_unit_ns: 1,
            clock_zero_unix_ns,
        }),
    )?;
    let definitions = METHODS
        .iter()
        .enumerate()
        .map(|(id, (package, class, method, _))| MethodDef {
            id: id as u32,
            package: (*package).into(),
            class: (*class).into(),
            method: (*method).into(),
            signature: None,
            file: None,
            line: None,
        })
        .collect();
    write_frame(&mut out, &AgentMessage::DefineMethods(definitions))?;

    let mut threads = Vec::new();
    for (thread_id, name, root, idle_ns) in [
        (1, "game-loop", &GAME_LOOP, 2_000_000),
        (2, "render", &RENDER_LOOP, 6_000_000),
        (3, "net", &NET_LOOP, 9_000_000),
    ] {
        write_frame(
            &mut out,
            &AgentMessage::ThreadStart {
                thread_id,
                name: name.into(),
                timestamp: 0,
            },
        )?;
        threads.push(SimThread {
            thread_id,
            root,
            clock_ns: 0,
            idle_ns,
            cost_scale: 1.0,
        });
    }
    stream.write_all(&out)?;

    let mut next_leaked_thread = 100u64;
    let mut last_restart_ns = 0u64;
    let restart_every_ns = (args.restart_every_s.max(0.1) * 1e9) as u64;
    loop {
        std::thread::sleep(Duration::from_millis(50));
        let now = now_ns();
        out.clear();
        if now.saturating_sub(last_restart_ns) >= restart_every_ns {
            // The bug: a restart starts a new game thread and never stops the old one, which
            // stays blocked inside Game.run (in uninstrumented code) forever.
            last_restart_ns = now;
            let thread_id = next_leaked_thread;
            next_leaked_thread += 1;
            write_frame(
                &mut out,
                &AgentMessage::ThreadStart {
                    thread_id,
                    name: format!("game-{}", thread_id - 99),
                    timestamp: now,
                },
            )?;
            let mut writer = PackedEventWriter::new(1, now);
            writer.push(now, method_id("Game", "restart"), EventKind::Enter);
            writer.push(now + 40_000, method_id("Game", "restart"), EventKind::Exit);
            write_frame(&mut out, &AgentMessage::Events(writer.finish()))?;
            let mut leaked = PackedEventWriter::new(thread_id, now);
            leaked.push(now, method_id("Game", "run"), EventKind::Enter);
            write_frame(&mut out, &AgentMessage::Events(leaked.finish()))?;
        }
        let phase = now as f64 / 4e9;
        for (index, thread) in threads.iter_mut().enumerate() {
            thread.cost_scale = 1.0 + 0.8 * (phase * std::f64::consts::TAU + index as f64).sin();
            let mut writer = PackedEventWriter::new(thread.thread_id, thread.clock_ns);
            while thread.clock_ns < now {
                let mut clock_ns = thread.clock_ns;
                emit(thread.root, thread.cost_scale, &mut clock_ns, &mut writer);
                thread.clock_ns = clock_ns + thread.idle_ns;
            }
            write_frame(&mut out, &AgentMessage::Events(writer.finish()))?;
        }
        write_frame(&mut out, &AgentMessage::Heartbeat { timestamp: now })?;
        stream.write_all(&out)?;
        if args
            .duration_s
            .is_some_and(|limit| start.elapsed().as_secs_f64() >= limit)
        {
            break;
        }
    }
    out.clear();
    write_frame(
        &mut out,
        &AgentMessage::Goodbye {
            timestamp: now_ns(),
        },
    )?;
    stream.write_all(&out)?;
    Ok(())
}

/// Emits one call of `call` (and its children) starting at `clock_ns`, advancing it.
fn emit(call: &Call, cost_scale: f64, clock_ns: &mut u64, writer: &mut PackedEventWriter) {
    let id = method_id(call.0, call.1);
    let self_us = METHODS[id as usize].3;
    let self_ns = (self_us as f64 * 1000.0 * cost_scale.max(0.05)) as u64;
    writer.push(*clock_ns, id, EventKind::Enter);
    let slice_ns = self_ns / (call.2.len() as u64 + 1);
    for child in call.2 {
        *clock_ns += slice_ns;
        emit(child, cost_scale, clock_ns, writer);
    }
    *clock_ns += slice_ns.max(1);
    writer.push(*clock_ns, id, EventKind::Exit);
}
