//! A headless tetris-like game instrumented with `highrise-agent`, with the thread leak the
//! highrise paper found in a real game: restarting leaks a thread that stays in `Game::run`.
//!
//! Structure (what the city shows): packages `tetris.game`, `tetris.board`, `tetris.piece`,
//! `tetris.ai`, `tetris.render`, `tetris.scores`, `tetris.input`; classes `Game`, `Session`,
//! `Board`, `Piece`, `Planner`, `Renderer`, `Scoreboard`, `Input`. Threads: `main` (input and
//! restarts), `game-N` (one per game), `ai`, `render`, `scores`.
//!
//! Run: `cargo run -p highrise-example-tetris -- --duration-s 30 --restart-every-s 5` with
//! `highrise serve` (or the viewer) listening. See [`Options`].

pub mod ai;
pub mod board;
pub mod game;
pub mod input;
pub mod piece;
pub mod render;
pub mod scores;

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use game::{Links, Session};
use input::{Command, Input};

/// Command line.
#[derive(Debug, Clone, clap::Parser)]
#[command(about = "A headless tetris instrumented with highrise-agent (restarts leak a thread)")]
pub struct Options {
    /// Stop after this many seconds (default: run until a `quit` command or Ctrl-C).
    #[arg(long)]
    pub duration_s: Option<f64>,
    /// Restart the game every this many seconds (each restart leaks a thread unless --fixed).
    #[arg(long)]
    pub restart_every_s: Option<f64>,
    /// Commands, one per line (`restart`, `wait <s>`, `quit`), from a file or `-` for stdin.
    #[arg(long)]
    pub script: Option<String>,
    /// Stop the old game on restart instead of pausing it: no leak.
    #[arg(long)]
    pub fixed: bool,
    /// Milliseconds between game ticks.
    #[arg(long, default_value_t = 5)]
    pub tick_ms: u64,
    /// Print the board every second.
    #[arg(long)]
    pub show: bool,
    /// Version label reported to highrise.
    #[arg(long, default_value = "")]
    pub version_label: String,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            duration_s: Some(10.0),
            restart_every_s: None,
            script: None,
            fixed: false,
            tick_ms: 5,
            show: false,
            version_label: String::new(),
        }
    }
}

/// What a run did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Summary {
    pub games: u32,
    /// Threads left inside `Game::run` (the bug): one per restart unless `--fixed`.
    pub leaked_threads: usize,
    pub pieces: u64,
}

/// Plays until the duration is over or a `quit` command. Leaked game threads keep running
/// after this returns (that is the bug); everything else is stopped.
pub fn play(options: &Options) -> anyhow::Result<Summary> {
    let (ai, plan_requests) = std::sync::mpsc::channel();
    let (scores, score_events) = std::sync::mpsc::channel();
    std::thread::Builder::new()
        .name("ai".into())
        .spawn(move || game::serve_plans(plan_requests))?;
    std::thread::Builder::new()
        .name("scores".into())
        .spawn(move || scores::score_loop(score_events))?;
    let frame = Arc::new(Mutex::new(None));
    let stop_render = Arc::new(AtomicBool::new(false));
    let render = {
        let frame = Arc::clone(&frame);
        let stop = Arc::clone(&stop_render);
        let show = options.show.then_some(Duration::from_secs(1));
        std::thread::Builder::new()
            .name("render".into())
            .spawn(move || render::render_loop(frame, stop, show))?
    };
    let pieces = Arc::new(AtomicU64::new(0));
    let links = Links {
        ai,
        scores,
        frame,
        pieces: Arc::clone(&pieces),
        tick: Duration::from_millis(options.tick_ms.max(1)),
    };
    let script = match &options.script {
        Some(source) => Some(input::read_script(source)?),
        None => None,
    };
    let restart_every = options
        .restart_every_s
        .filter(|s| s.is_finite() && *s > 0.0)
        .map(Duration::from_secs_f64);
    let mut input = Input::new(script, restart_every);
    let mut session = Session::new(links, options.fixed);
    let deadline = options
        .duration_s
        .filter(|s| s.is_finite() && *s >= 0.0)
        .map(|s| Instant::now() + Duration::from_secs_f64(s));
    while deadline.is_none_or(|deadline| Instant::now() < deadline) {
        match input.poll() {
            Some(Command::Restart) => session.restart(),
            Some(Command::Quit) => break,
            Some(Command::Wait(_)) | None => std::thread::sleep(Duration::from_millis(10)),
        }
    }
    session.stop();
    stop_render.store(true, Ordering::Relaxed);
    let _ = render.join();
    Ok(Summary {
        games: session.games(),
        leaked_threads: session.leaked.len(),
        pieces: pieces.load(Ordering::Relaxed),
    })
}
