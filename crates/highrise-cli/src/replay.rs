//! `highrise replay`: feeds a recording back as a session, to a running viewer or `highrise
//! serve`, paced as recorded (or faster). The sending lives in `highrise-report`.

use std::net::SocketAddr;
use std::path::PathBuf;

use clap::Args;

use crate::default_addr;

/// Arguments of `highrise replay`.
#[derive(Debug, Args)]
pub struct ReplayArgs {
    /// The recording to replay.
    pub file: PathBuf,
    /// Pacing: recorded arrival times divided by this (2 = twice as fast; `inf` = as fast as
    /// possible).
    #[arg(long, default_value_t = 1.0)]
    pub speed: f64,
    /// The running viewer (or `highrise serve`) to send the session to.
    #[arg(long, default_value_t = default_addr())]
    pub addr: SocketAddr,
}

/// Runs `highrise replay`: sends the recording to a running viewer as a new session.
pub fn run(args: ReplayArgs) -> anyhow::Result<()> {
    let summary = highrise_report::replay_to(&args.file, args.addr, args.speed)?;
    println!(
        "replayed {} frames ({} bytes) to {} as session {}",
        summary.frames,
        summary.bytes,
        args.addr,
        summary
            .session_id
            .map_or_else(|| "?".to_string(), |id| id.to_string())
    );
    Ok(())
}
