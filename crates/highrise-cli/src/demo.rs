//! The built-in demos, instrumented with the real Rust agent and connected to highrise over the
//! real socket:
//! - `tetris` (`examples/tetris`, the default) carries the paper's bug on purpose: every
//!   restart leaves the old game's thread inside `tetris.game.Game.run`, so `run` climbs to
//!   100 % with one more thread per restart;
//! - `bookstore` (`examples/bookstore`) in two versions, for the compare view: `after` moves
//!   its modules and makes `PriceEngine.quote` six times dearer. [`spawn_compare_pair`] runs
//!   both as child processes (one agent per process).

use std::net::SocketAddr;

use anyhow::Context;

/// Which demo program.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum DemoProgram {
    #[default]
    Tetris,
    Bookstore,
}

#[derive(Debug, Clone, clap::Args)]
pub struct DemoArgs {
    /// Which program to run.
    #[arg(long, value_enum, default_value_t = DemoProgram::Tetris)]
    pub program: DemoProgram,
    /// The bookstore's version (its version label is the variant's name).
    #[arg(long, value_enum, default_value_t = bookstore::Variant::Before)]
    pub variant: bookstore::Variant,
    /// Where highrise listens.
    #[arg(long, default_value_t = crate::default_addr())]
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
    /// Exit when standard input closes (how a parent process that started the demo, like
    /// `highrise --compare-demo`, takes it down with it even if it is killed).
    #[arg(long)]
    pub exit_on_stdin_eof: bool,
}

/// Runs the demo in this process until its duration is over (forever without one). One agent
/// per process: run it on its own thread next to a viewer, or as `highrise demo`.
pub fn run(args: DemoArgs) -> anyhow::Result<()> {
    if args.exit_on_stdin_eof {
        std::thread::Builder::new()
            .name("highrise-demo-parent-watch".into())
            .spawn(|| {
                // Nothing is ever written: read returns when the parent's end closes.
                let _ = std::io::copy(&mut std::io::stdin().lock(), &mut std::io::sink());
                std::process::exit(0);
            })
            .context("cannot watch standard input")?;
    }
    if args.program == DemoProgram::Bookstore {
        return run_bookstore(&args);
    }
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

fn run_bookstore(args: &DemoArgs) -> anyhow::Result<()> {
    let agent = highrise_agent::AgentBuilder::new("bookstore")
        .version_label(args.variant.label())
        .addr(args.addr.to_string())
        .start()
        .context("cannot start the highrise agent for the bookstore demo")?;
    let options = bookstore::Options {
        variant: args.variant,
        duration_s: args.duration_s.unwrap_or(f64::from(u32::MAX)),
        workers: 4,
    };
    let summary = bookstore::serve(&options).context("the bookstore demo failed")?;
    drop(agent);
    tracing::info!(?summary, "bookstore demo finished");
    Ok(())
}

/// The two bookstore versions running as child processes of this binary (`highrise demo
/// --program bookstore --variant … --exit-on-stdin-eof`); they are killed when this is
/// dropped, and exit by themselves when this process dies (their standard input closes).
#[cfg(feature = "viewer")]
#[derive(Debug)]
pub struct ComparePair {
    children: Vec<std::process::Child>,
}

#[cfg(feature = "viewer")]
impl Drop for ComparePair {
    fn drop(&mut self) {
        for child in &mut self.children {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// Starts `before` then `after` of the bookstore against `addr`, each for `duration_s`
/// (a bound so they end even if this process dies without dropping the pair).
#[cfg(feature = "viewer")]
pub fn spawn_compare_pair(addr: SocketAddr, duration_s: f64) -> anyhow::Result<ComparePair> {
    let exe = std::env::current_exe().context("cannot find the highrise binary")?;
    let mut pair = ComparePair {
        children: Vec::new(),
    };
    for variant in ["before", "after"] {
        let child = std::process::Command::new(&exe)
            .args(["demo", "--program", "bookstore", "--variant", variant])
            .arg("--exit-on-stdin-eof")
            .arg("--addr")
            .arg(addr.to_string())
            .arg("--duration-s")
            .arg(duration_s.to_string())
            // Our end of this pipe closes when this process ends, however it ends.
            .stdin(std::process::Stdio::piped())
            .spawn()
            .with_context(|| format!("cannot start the bookstore demo ({variant})"))?;
        pair.children.push(child);
        // Connection order decides A and B: let `before` say Hello first.
        std::thread::sleep(std::time::Duration::from_millis(300));
    }
    Ok(pair)
}

/// Starts the demo on a background thread of this process, connected to `addr`, running until
/// the process ends (used by the viewer and by `serve --demo`).
pub fn spawn_in_background(addr: SocketAddr) -> anyhow::Result<()> {
    let args = DemoArgs {
        program: DemoProgram::Tetris,
        variant: bookstore::Variant::Before,
        addr,
        duration_s: None,
        restart_every_s: 5.0,
        version_label: "demo".into(),
        tick_ms: 1,
        exit_on_stdin_eof: false,
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
