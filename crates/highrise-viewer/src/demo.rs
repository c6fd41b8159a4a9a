//! The built-in demo: the tetris example program (`examples/tetris`), instrumented with the
//! real Rust agent, connected to highrise over the real socket.
//!
//! It carries the paper's bug on purpose: every restart leaves the old game's thread inside
//! `tetris.game.Game.run`, so `run` climbs to 100 % with one more thread per restart.

use std::net::SocketAddr;

use anyhow::Context;
use highrise_protocol::DEFAULT_PORT;

#[derive(Debug, Clone, clap::Args)]
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
    /// Milliseconds between game ticks (smaller: a busier program).
    #[arg(long, default_value_t = 1)]
    pub tick_ms: u64,
}

/// Runs the demo in this process until its duration is over (forever without one). One agent
/// per process: run it on its own thread next to a viewer, or as `highrise demo`.
pub fn run(args: DemoArgs) -> anyhow::Result<()> {
    let agent = highrise_agent::AgentBuilder::new("tetris")
        .version_label(args.version_label.clone())
        .addr(args.addr.to_string())
        .start()
        .context("cannot start the highrise agent for the demo")?;
    let options = tetris::Options {
        duration_s: args.duration_s,
        restart_every_s: Some(args.restart_every_s),
        version_label: args.version_label,
        tick_ms: args.tick_ms,
        ..tetris::Options::default()
    };
    let summary = tetris::play(&options).context("the demo game failed")?;
    // Dropping the guard flushes every thread's events and says Goodbye.
    drop(agent);
    tracing::info!(?summary, "demo finished");
    Ok(())
}

/// Starts the demo on a background thread of this process, connected to `addr`, running until
/// the process ends (used by the viewer and by `serve --demo`).
pub fn spawn_in_background(addr: SocketAddr) -> anyhow::Result<()> {
    let args = DemoArgs {
        addr,
        duration_s: None,
        restart_every_s: 5.0,
        version_label: "demo".into(),
        tick_ms: 1,
    };
    std::thread::Builder::new()
        .name("highrise-demo".into())
        .spawn(move || {
            if let Err(error) = run(args) {
                tracing::error!(%error, "the demo program stopped");
            }
        })
        .context("cannot start the demo thread")?;
    Ok(())
}
