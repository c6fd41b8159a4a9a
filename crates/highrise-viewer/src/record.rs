//! `highrise record`, `highrise replay` and `highrise report`: recordings (`.hrec`) of agent
//! sessions, fed back through the same aggregator, and a headless report for CI.
//! (Being built: see issue 8.)

use std::path::PathBuf;

use clap::Args;

/// Arguments of `highrise record`.
#[derive(Debug, Args)]
pub struct RecordArgs {
    /// The recording to write.
    #[arg(long)]
    pub out: PathBuf,
}

/// Arguments of `highrise replay`.
#[derive(Debug, Args)]
pub struct ReplayArgs {
    /// The recording to replay.
    pub file: PathBuf,
}

/// Arguments of `highrise report`.
#[derive(Debug, Args)]
pub struct ReportArgs {
    /// The recording to report on.
    pub file: PathBuf,
}

/// Runs `highrise record`.
pub fn run_record(_args: RecordArgs) -> anyhow::Result<()> {
    anyhow::bail!("recording is not available in this build yet")
}

/// Runs `highrise replay`.
pub fn run_replay(_args: ReplayArgs) -> anyhow::Result<()> {
    anyhow::bail!("replay is not available in this build yet")
}

/// Runs `highrise report`.
pub fn run_report(_args: ReportArgs) -> anyhow::Result<()> {
    anyhow::bail!("reports are not available in this build yet")
}
