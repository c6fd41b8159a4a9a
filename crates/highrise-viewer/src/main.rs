//! `highrise`: the command users run. See the library's documentation (`src/lib.rs`).

use clap::{Parser, Subcommand};
use highrise_viewer::{demo, serve, viewer};

#[derive(Debug, Parser)]
#[command(
    name = "highrise",
    version,
    about = "A live 3D code city of your running program"
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    view: viewer::ViewArgs,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Listen for agents without a window and print each session's activity.
    Serve(serve::ServeArgs),
    /// Run the built-in demo program as an agent against a listening highrise.
    Demo(demo::DemoArgs),
}

fn main() -> anyhow::Result<()> {
    let process_start = std::time::Instant::now();
    let cli = Cli::parse();
    match cli.command {
        Some(Command::Serve(args)) => {
            init_logging();
            serve::run(args)
        }
        Some(Command::Demo(args)) => {
            init_logging();
            demo::run(args)
        }
        // The viewer logs through Bevy's LogPlugin (RUST_LOG).
        None => viewer::run(cli.view, process_start),
    }
}

/// Logging for the headless commands, filtered by `HIGHRISE_LOG` (default: warnings).
fn init_logging() {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("HIGHRISE_LOG")
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
        )
        .with_writer(std::io::stderr)
        .init();
}
