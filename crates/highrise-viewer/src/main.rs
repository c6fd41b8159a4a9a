//! `highrise`: the command users run.
//!
//! Today it is the headless side of the viewer: `highrise serve` listens for agents and prints
//! what each connected program is doing; `highrise serve --demo` also starts a built-in demo
//! program that connects over the real socket. The windowed Bevy city (the viewer proper)
//! lands in this crate next, as the default command.
//!
//! Where to start: [`serve::run`] (the listener loop) and [`demo`] (the demo program).

mod demo;
mod serve;

use clap::{Parser, Subcommand};

#[derive(Debug, Parser)]
#[command(
    name = "highrise",
    version,
    about = "A live 3D code city of your running program"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Listen for agents without a window and print each session's activity.
    Serve(serve::ServeArgs),
    /// Run the built-in demo program as an agent against a listening highrise.
    Demo(demo::DemoArgs),
}

fn main() -> anyhow::Result<()> {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("HIGHRISE_LOG")
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
        )
        .with_writer(std::io::stderr)
        .init();
    match Cli::parse().command {
        Command::Serve(args) => serve::run(args),
        Command::Demo(args) => demo::run(args),
    }
}
