//! `highrise`: the command users run.
//!
//! With no subcommand it opens the viewer ([`view`], then `highrise_viewer::viewer::run`; the
//! default feature `viewer`): a window with a live 3D city per connected program, listening
//! on 127.0.0.1:7878, with the built-in demo program attached so there is something to see at
//! once (`--no-demo` to only listen). Every other command is headless and builds without Bevy
//! (`cargo build -p highrise-cli --no-default-features`):
//! - [`serve`]: the listener without a window, printing what each program does;
//! - [`record`], [`replay`], [`report`]: `.hrec` recordings, fed back, summarised for CI;
//! - [`attach`]: loads the Java or Python agent into a running program (`detach` takes it out);
//! - [`demo`]: the demo programs, run against a listening highrise.
//!
//! Where to start: [`Command`] lists the commands; each module holds one command's arguments
//! and its `run`.

use std::net::SocketAddr;

use clap::{Parser, Subcommand};
use highrise_protocol::DEFAULT_PORT;

mod attach;
mod attach_python;
mod classes;
mod demo;
mod listen;
mod otlp;

/// The demo programs run with the agent in this process (tetris on a thread of the viewer,
/// `highrise demo`), so their allocations show per method like any Rust program's. Without a
/// running agent nothing is counted (one relaxed load per allocation); threads that never
/// record events (the viewer's own) never send any.
#[global_allocator]
static ALLOC: highrise_agent::Allocator = highrise_agent::Allocator::system();
mod predict;
mod record;
mod replay;
mod report;
mod serve;
#[cfg(feature = "viewer")]
mod view;
mod web;

#[derive(Debug, Parser)]
#[command(
    name = "highrise",
    version,
    about = "A live 3D code city of your running program"
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[cfg(feature = "viewer")]
    #[command(flatten)]
    view: view::ViewArgs,
    #[cfg(feature = "viewer")]
    #[command(flatten)]
    otlp: otlp::OtlpArgs,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Listen for agents without a window and print each session's activity.
    Serve(serve::ServeArgs),
    /// Run the built-in demo program as an agent against a listening highrise.
    Demo(demo::DemoArgs),
    /// Load the agent into a running JVM or CPython program; its city appears in the running viewer.
    Attach(attach::AttachArgs),
    /// Take the agent out of a program `attach` profiles: its session ends, the program runs as before.
    Detach(attach::DetachArgs),
    /// Listen without a window and record every session to a `.hrec` file.
    Record(record::RecordArgs),
    /// Feed a recording back as a session (to a running viewer, or headless).
    Replay(replay::ReplayArgs),
    /// Summarise a recording (optionally against another) for people and CI.
    Report(report::ReportArgs),
    /// Objects created, freed and live per class in each phase of a recording.
    Classes(classes::ClassesArgs),
    /// Predict a component's memory for N objects of a basis class from sample recordings.
    Predict(predict::PredictArgs),
}

/// Where agents connect by default: loopback, the protocol's port.
/// Set once Ctrl-C (SIGINT) arrives: `record` and `serve` poll it and end their sessions
/// cleanly instead of dying with them open.
fn interrupt_flag() -> anyhow::Result<std::sync::Arc<std::sync::atomic::AtomicBool>> {
    use anyhow::Context;
    let interrupted = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let set = std::sync::Arc::clone(&interrupted);
    ctrlc::set_handler(move || set.store(true, std::sync::atomic::Ordering::SeqCst))
        .context("cannot install the Ctrl-C handler")?;
    Ok(interrupted)
}

fn default_addr() -> SocketAddr {
    SocketAddr::from(([127, 0, 0, 1], DEFAULT_PORT))
}

fn main() -> std::process::ExitCode {
    match run() {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {}", one_line(&error));
            std::process::ExitCode::FAILURE
        }
    }
}

/// An error and its causes on one line, each cause said once: a cause whose text its outer
/// message already holds (an I/O error wrapped with the same words) is left out. anyhow's own
/// report printed `Error: …` then `Caused by:` with the same words again.
fn one_line(error: &anyhow::Error) -> String {
    let mut line = String::new();
    for cause in error.chain() {
        let text = cause.to_string();
        if !line.contains(&text) {
            if !line.is_empty() {
                line.push_str(": ");
            }
            line.push_str(&text);
        }
    }
    line
}

fn run() -> anyhow::Result<()> {
    let process_start = std::time::Instant::now();
    let cli = Cli::parse();
    let Some(command) = cli.command else {
        return open_viewer(cli, process_start);
    };
    init_logging();
    match command {
        Command::Serve(args) => serve::run(args),
        Command::Demo(args) => demo::run(args),
        Command::Attach(args) => attach_any(args),
        Command::Detach(args) => detach_any(args),
        Command::Record(args) => record::run(args),
        Command::Replay(args) => replay::run(args),
        Command::Report(args) => report::run(args),
        Command::Classes(args) => classes::run_classes(args),
        Command::Predict(args) => predict::run_predict(args),
    }
}

/// `highrise attach`: the Python agent for a CPython process, else the Java agent.
fn attach_any(args: attach::AttachArgs) -> anyhow::Result<()> {
    use attach_python::{runtime_of, Runtime};
    match runtime_of(args.pid)? {
        Runtime::Python(version) => attach_python::run(&args, version.as_deref()),
        Runtime::Other(exe) => anyhow::bail!(
            "process {} ({exe}) is neither a JVM nor CPython: highrise attach loads the Java or the Python agent",
            args.pid
        ),
        Runtime::Jvm | Runtime::Unknown => attach::run(args),
    }
}

/// `highrise detach`: the Python agent's stop for a CPython process, else the Java agent's detach.
fn detach_any(args: attach::DetachArgs) -> anyhow::Result<()> {
    use attach_python::{runtime_of, Runtime};
    match runtime_of(args.pid)? {
        Runtime::Python(_) => attach_python::run_detach(args.pid),
        Runtime::Other(exe) => anyhow::bail!(
            "process {} ({exe}) is neither a JVM nor CPython: no highrise agent to detach",
            args.pid
        ),
        Runtime::Jvm | Runtime::Unknown => attach::run_detach(args),
    }
}

/// The default command: the window. The viewer logs through Bevy's LogPlugin (RUST_LOG).
#[cfg(feature = "viewer")]
fn open_viewer(cli: Cli, process_start: std::time::Instant) -> anyhow::Result<()> {
    view::run(cli.view, cli.otlp, process_start)
}

/// Built without the viewer: say what this binary can do instead.
#[cfg(not(feature = "viewer"))]
fn open_viewer(_cli: Cli, _process_start: std::time::Instant) -> anyhow::Result<()> {
    anyhow::bail!(
        "this highrise was built without the viewer (feature `viewer`); \
         run `highrise serve` to listen without a window, or `highrise --help`"
    )
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

#[cfg(test)]
mod tests {
    use super::one_line;

    #[test]
    fn an_error_says_each_cause_once() {
        let io = std::io::Error::new(
            std::io::ErrorKind::NotFound,
            "Not a directory (os error 20)",
        );
        let error = anyhow::Error::new(io)
            .context("i/o error: Not a directory (os error 20)")
            .context("/tmp/run.hrec");
        assert_eq!(
            one_line(&error),
            "/tmp/run.hrec: i/o error: Not a directory (os error 20)"
        );
        let distinct = anyhow::anyhow!("the chunk is short").context("reading big.jfr");
        assert_eq!(one_line(&distinct), "reading big.jfr: the chunk is short");
    }
}
