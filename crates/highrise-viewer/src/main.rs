//! `highrise`: the command users run. See the library's documentation (`src/lib.rs`).

use clap::{Parser, Subcommand};
use highrise_viewer::{attach, demo, record, serve, viewer};

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
    /// Load the Java agent into a running JVM; its city appears in the running viewer.
    Attach(attach::AttachArgs),
    /// Listen without a window and record every session to a `.hrec` file.
    Record(record::RecordArgs),
    /// Feed a recording back as a session (to a running viewer, or headless).
    Replay(record::ReplayArgs),
    /// Summarise a recording (optionally against another) for people and CI.
    Report(record::ReportArgs),
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
        Some(Command::Attach(args)) => {
            init_logging();
            attach::run(args)
        }
        Some(Command::Record(args)) => {
            init_logging();
            record::run_record(args)
        }
        Some(Command::Replay(args)) => {
            init_logging();
            record::run_replay(args)
        }
        Some(Command::Report(args)) => {
            init_logging();
            record::run_report(args)
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
