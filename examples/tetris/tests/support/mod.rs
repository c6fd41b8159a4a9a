//! The game against the viewer's real ingest server and aggregator.
#![allow(dead_code)]

use std::net::{Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::time::{Duration, Instant};

use highrise_aggregate::{MethodStats, Snapshot};
use highrise_aggregate_sink::AggregateSink;
use highrise_ingest::{IngestConfig, IngestServer, SessionReport};

pub fn start_viewer() -> IngestServer<AggregateSink> {
    IngestServer::start(
        IngestConfig {
            listen_addr: SocketAddr::from((Ipv4Addr::LOCALHOST, 0)),
            publish_interval: Duration::from_millis(20),
            ..IngestConfig::default()
        },
        AggregateSink::factory,
    )
    .expect("listener starts")
}

/// Plays with `script` (lines of the tetris script language) for `duration_s` against
/// `viewer`, and returns the session's final report.
pub fn play_against(
    viewer: &IngestServer<AggregateSink>,
    script: &str,
    duration_s: f64,
    fixed: bool,
) -> (tetris::Summary, SessionReport<Arc<Snapshot>>) {
    let path = std::env::temp_dir().join(format!(
        "tetris-script-{}-{}.txt",
        std::process::id(),
        fixed
    ));
    std::fs::write(&path, script).expect("script written");
    let agent = highrise_agent::AgentBuilder::new("tetris")
        .addr(viewer.local_addr().to_string())
        .log_to_stderr(false)
        .start()
        .expect("agent starts");
    let summary = tetris::play(&tetris::Options {
        duration_s: Some(duration_s),
        script: Some(path.display().to_string()),
        fixed,
        ..tetris::Options::default()
    })
    .expect("plays");
    drop(agent);
    let _ = std::fs::remove_file(&path);
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let report = viewer
            .updates()
            .recv_timeout(deadline.saturating_duration_since(Instant::now()))
            .expect("a report");
        if report.is_ended() {
            return (summary, report);
        }
    }
}

pub fn method(report: &SessionReport<Arc<Snapshot>>, class: &str, name: &str) -> MethodStats {
    let id = report
        .definitions()
        .find(|d| d.package == "tetris.game" && d.class == class && d.method == name)
        .map(|d| d.id)
        .unwrap_or_else(|| panic!("{class}.{name} not defined"));
    report.sink.as_ref().expect("aggregated").method(id)
}
