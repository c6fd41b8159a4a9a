//! `cargo run -p highrise-example-tracing-demo -- --duration-s 30`

use std::time::Duration;

use clap::Parser;
use tracing_subscriber::prelude::*;

/// A toy compiler instrumented only with tracing spans.
#[derive(Debug, Parser)]
struct Args {
    /// Seconds to run.
    #[arg(long, default_value_t = 30.0)]
    duration_s: f64,
    /// Compiler threads.
    #[arg(long, default_value_t = 3)]
    threads: usize,
}

fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    // The only highrise lines: start the agent, add its layer next to the usual ones.
    let _highrise = highrise_agent::init("tracing-demo");
    tracing_subscriber::registry()
        .with(highrise_agent::layer())
        .with(
            tracing_subscriber::fmt::layer()
                .with_filter(tracing_subscriber::filter::LevelFilter::WARN),
        )
        .init();
    let files = tracing_demo::run(
        args.threads,
        Duration::from_secs_f64(args.duration_s.max(0.0)),
    );
    println!("tracing-demo: compiled {files} files");
    Ok(())
}
