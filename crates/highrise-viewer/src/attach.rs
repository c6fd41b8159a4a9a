//! `highrise attach PID`: loads the Java agent into a JVM that is already running, so its city
//! appears in the running viewer. (Being built: see issue 7.)

use clap::Args;

/// Arguments of `highrise attach`.
#[derive(Debug, Args)]
pub struct AttachArgs {
    /// The process id of the running JVM.
    pub pid: u32,
}

/// Runs `highrise attach`.
pub fn run(args: AttachArgs) -> anyhow::Result<()> {
    anyhow::bail!(
        "attaching to JVM {} is not available in this build yet",
        args.pid
    )
}
