//! `highrise record`: listens like `serve` and records every agent session to a `.hrec` file
//! (format in `agent-protocol/RECORDING.md`). The recording itself lives in `highrise-ingest`;
//! this is the command-line glue.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::Context;
use clap::Args;
use highrise_ingest::{
    settle_token, token_from_env, IngestConfig, IngestServer, NullSink, RecordingState, SessionEnd,
    SessionStatus,
};
use highrise_links::{link_line, LinksFile, SessionNames};

use crate::default_addr;

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
    /// The token agents on other machines must send (their HIGHRISE_TOKEN); default: this
    /// command's HIGHRISE_TOKEN (better than the command line, which other users can see).
    /// Listening beyond loopback without one makes one up and prints it. Agents on this machine
    /// never need it.
    #[arg(long, value_name = "TOKEN")]
    pub token: Option<String>,
    /// Exit after this many sessions have ended (default: run until Ctrl-C, which finishes
    /// every file; a recorder killed outright leaves files that read as interrupted
    /// recordings, minus at most 50 ms).
    #[arg(long)]
    pub sessions: Option<usize>,
    /// Exit after this many seconds (sessions still open are finished properly).
    #[arg(long)]
    pub duration_s: Option<f64>,
    #[command(flatten)]
    pub otlp: crate::otlp::OtlpArgs,
}

/// Runs `highrise record`: listens like `serve` and records every session.
pub fn run(args: RecordArgs) -> anyhow::Result<()> {
    let token = settle_token(args.listen, args.token.clone().or_else(token_from_env));
    let server = IngestServer::start(
        IngestConfig {
            listen_addr: args.listen,
            token: token.token.clone(),
            record_sessions_to: Some(args.out.clone()),
            ..IngestConfig::default()
        },
        NullSink::factory,
    )
    .context("starting the listener")?;
    // Ctrl-C ends the recording like the end of --duration-s: files finished.
    let interrupted = crate::interrupt_flag()?;
    println!("LISTENING {}", server.local_addr());
    if let Some(notice) = token.notice() {
        println!("{notice}");
    }
    // `record` listens wherever it is told (as for --listen); beyond loopback the token rule
    // holds for exporters as for agents.
    let otlp = args
        .otlp
        .start(server.local_sessions(), token.token.clone(), true)?;
    println!("recording every session to {}", args.out.display());
    let deadline = args
        .duration_s
        .map(|seconds| Instant::now() + Duration::from_secs_f64(seconds.max(0.0)));
    let mut ended = 0usize;
    let mut names = SessionNames::default();
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
        names.note(&report);
        ended += usize::from(print_if_ended(&report));
    }
    // OTLP sessions first: every waiting span placed, then a Goodbye each (their files end
    // like an agent's); their last reports are printed as they come.
    if let Some(otlp) = otlp {
        let board = otlp.links().clone();
        let counts = otlp.shutdown();
        println!(
            "otlp: {} requests ({} refused), {} spans: {} placed, {} late, {} refused, {} invalid",
            counts.requests,
            counts.refused_requests,
            counts.spans_received,
            counts.spans_placed,
            counts.spans_late,
            counts.spans_refused,
            counts.spans_rejected
        );
        if counts.samples_received + counts.samples_rejected > 0 {
            println!(
                "otlp profiles: {} samples: {} placed, {} late, {} invalid",
                counts.samples_received,
                counts.samples_placed,
                counts.samples_late,
                counts.samples_rejected
            );
        }
        let settle = Instant::now() + Duration::from_secs(2);
        while let Ok(report) = server
            .updates()
            .recv_timeout(settle.saturating_duration_since(Instant::now()))
        {
            names.note(&report);
            print_if_ended(&report);
        }
        // Calls between services: printed, and kept beside the recordings.
        let links = names.name(&board.latest());
        for link in &links {
            println!("link: {}", link_line(link));
        }
        if !links.is_empty() && args.out.is_dir() {
            let path = LinksFile { links }.write(&args.out)?;
            println!("calls between services written to {}", path.display());
        }
    }
    // Shutting down ends the open sessions, which finishes their files.
    server.shutdown();
    std::thread::sleep(Duration::from_millis(200));
    Ok(())
}

/// Prints a line for a session that ended; true if it had.
fn print_if_ended<T>(report: &highrise_ingest::SessionReport<T>) -> bool {
    let SessionStatus::Ended(end) = &report.status else {
        return false;
    };
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
    true
}

fn end_text(end: &SessionEnd) -> String {
    match end {
        SessionEnd::Goodbye => "goodbye".into(),
        SessionEnd::Disconnected => "disconnected".into(),
        SessionEnd::Failed(error) => format!("failed: {error}"),
        SessionEnd::ServerShutdown => "server shutdown".into(),
        SessionEnd::Detached => "detached from the viewer".into(),
    }
}
