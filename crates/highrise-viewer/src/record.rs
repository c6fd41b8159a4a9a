//! `highrise record`, `highrise replay` and `highrise report`: recordings (`.hrec`, format in
//! `agent-protocol/RECORDING.md`) of agent sessions, fed back through the same session logic
//! and aggregator, and a headless report for CI. The logic lives in `highrise-ingest`
//! (recording, replay sessions) and `highrise-report` (summaries, diffs, sending to a viewer);
//! this is the command-line glue.
//!
//! Exit codes of `highrise report`: 0 success; 1 an error (unreadable or damaged recording,
//! bad arguments); 2 `--fail-if-slower PCT` and some method present in both runs grew its mean
//! elevation by more than PCT percentage points.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::Context;
use clap::Args;
use highrise_ingest::{
    IngestConfig, IngestServer, NullSink, RecordingState, SessionEnd, SessionStatus,
};
use highrise_protocol::DEFAULT_PORT;

/// Exit code of `highrise report --fail-if-slower` when the gate fails.
pub const REGRESSION_EXIT_CODE: i32 = 2;

fn default_addr() -> SocketAddr {
    SocketAddr::from(([127, 0, 0, 1], DEFAULT_PORT))
}

/// Arguments of `highrise record`.
#[derive(Debug, Args)]
pub struct RecordArgs {
    /// Where recordings go. An existing directory: one `PROGRAM-LABEL-sID.hrec` per session.
    /// A path with `{session}` (and optionally `{program}`, `{label}`): filled in per session.
    /// Any other path: the first session writes it, later ones add `-sID` before the extension.
    #[arg(long)]
    pub out: PathBuf,
    /// Address to listen on for agents.
    #[arg(long, default_value_t = default_addr())]
    pub listen: SocketAddr,
    /// Exit after this many sessions have ended (default: run until Ctrl-C, which finishes
    /// every file; a recorder killed outright leaves files that read as interrupted
    /// recordings, minus at most 50 ms).
    #[arg(long)]
    pub sessions: Option<usize>,
    /// Exit after this many seconds (sessions still open are finished properly).
    #[arg(long)]
    pub duration_s: Option<f64>,
}

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

/// Arguments of `highrise report`.
#[derive(Debug, Args)]
pub struct ReportArgs {
    /// The recording to report on (run A when comparing).
    pub file: PathBuf,
    /// Compare with this recording (run B): per-method B − A and the structural diff.
    #[arg(long)]
    pub vs: Option<PathBuf>,
    /// Print JSON instead of tables.
    #[arg(long)]
    pub json: bool,
    /// With --vs: exit with code 2 when a method present in both runs grew its mean
    /// elevation by more than this many percentage points.
    #[arg(long, value_name = "PCT")]
    pub fail_if_slower: Option<f64>,
    /// Also render the city to this PNG: the recording's city at its end, or with --vs the
    /// diff city (B − A) of the two. Renders offscreen (any Vulkan device, software included).
    #[arg(long, value_name = "FILE")]
    pub png: Option<PathBuf>,
}

/// Runs `highrise record`: listens like `serve` and records every session.
pub fn run_record(args: RecordArgs) -> anyhow::Result<()> {
    let server = IngestServer::start(
        IngestConfig {
            listen_addr: args.listen,
            record_sessions_to: Some(args.out.clone()),
            ..IngestConfig::default()
        },
        NullSink::factory,
    )
    .context("starting the listener")?;
    // Ctrl-C ends the recording like the end of --duration-s: files finished.
    let interrupted = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    {
        let interrupted = std::sync::Arc::clone(&interrupted);
        ctrlc::set_handler(move || {
            interrupted.store(true, std::sync::atomic::Ordering::SeqCst);
        })
        .context("cannot install the Ctrl-C handler")?;
    }
    println!("LISTENING {}", server.local_addr());
    println!("recording every session to {}", args.out.display());
    let deadline = args
        .duration_s
        .map(|seconds| Instant::now() + Duration::from_secs_f64(seconds.max(0.0)));
    let mut ended = 0usize;
    loop {
        if args.sessions.is_some_and(|wanted| ended >= wanted)
            || deadline.is_some_and(|deadline| Instant::now() >= deadline)
        {
            break;
        }
        if interrupted.load(std::sync::atomic::Ordering::SeqCst) {
            println!("interrupted: finishing the recordings");
            break;
        }
        let Ok(report) = server.updates().recv_timeout(Duration::from_millis(100)) else {
            continue;
        };
        let SessionStatus::Ended(end) = &report.status else {
            continue;
        };
        ended += 1;
        let program = report
            .info
            .as_ref()
            .map_or("?", |info| info.program.as_str());
        match &report.stats.recording {
            Some(recording) => {
                let state = match &recording.state {
                    RecordingState::Finished | RecordingState::Active => "ok".to_string(),
                    RecordingState::Failed(error) => format!("FAILED: {error}"),
                };
                println!(
                    "session {} ({program}) ended ({}): {} frames, {} bytes to {} [{state}]",
                    report.session_id,
                    end_text(end),
                    recording.frames,
                    recording.bytes,
                    recording.path.display()
                );
            }
            None => println!(
                "session {} ({program}) ended ({}) without a recording: {:?}",
                report.session_id,
                end_text(end),
                report.errors
            ),
        }
    }
    // Shutting down ends the open sessions, which finishes their files.
    server.shutdown();
    std::thread::sleep(Duration::from_millis(200));
    Ok(())
}

fn end_text(end: &SessionEnd) -> String {
    match end {
        SessionEnd::Goodbye => "goodbye".into(),
        SessionEnd::Disconnected => "disconnected".into(),
        SessionEnd::Failed(error) => format!("failed: {error}"),
        SessionEnd::ServerShutdown => "server shutdown".into(),
    }
}

/// Runs `highrise replay`: sends the recording to a running viewer as a new session.
pub fn run_replay(args: ReplayArgs) -> anyhow::Result<()> {
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

/// Runs `highrise report`. Exits the process with [`REGRESSION_EXIT_CODE`] when the
/// `--fail-if-slower` gate fails.
pub fn run_report(args: ReportArgs) -> anyhow::Result<()> {
    if args.fail_if_slower.is_some() && args.vs.is_none() {
        anyhow::bail!("--fail-if-slower needs --vs (two runs to compare)");
    }
    let a = highrise_report::summarize(&args.file)?;
    if let Some(png) = &args.png {
        crate::viewer::offscreen::render_png(crate::viewer::offscreen::OffscreenRender {
            recordings: std::iter::once(args.file.clone())
                .chain(args.vs.clone())
                .collect(),
            compare: crate::viewer::compare::CompareMode::Diff,
            png: png.clone(),
            width_px: 1280,
            height_px: 800,
            settle_s: 1.5,
        })
        .with_context(|| format!("rendering {}", png.display()))?;
    }
    let Some(vs) = &args.vs else {
        if args.json {
            println!("{}", serde_json::to_string_pretty(&a)?);
        } else {
            print!("{}", highrise_report::render_summary(&a));
        }
        return Ok(());
    };
    let b = highrise_report::summarize(vs)?;
    let comparison = highrise_report::compare(&a, &b);
    if args.json {
        println!("{}", serde_json::to_string_pretty(&comparison)?);
    } else {
        print!("{}", highrise_report::render_comparison(&comparison));
    }
    if let Some(threshold_pct) = args.fail_if_slower {
        let regressions = comparison.regressions(threshold_pct);
        if !regressions.is_empty() {
            eprintln!(
                "FAIL: {} method(s) grew more than {threshold_pct} points of mean elevation:",
                regressions.len()
            );
            for delta in regressions {
                eprintln!(
                    "  {:+.2}  {} ({:.2}% → {:.2}%)",
                    delta.delta_mean_pct, delta.name, delta.mean_a_pct, delta.mean_b_pct
                );
            }
            std::process::exit(REGRESSION_EXIT_CODE);
        }
    }
    Ok(())
}
