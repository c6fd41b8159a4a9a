//! The demo through the viewer's real ingest server and aggregator: its spans become methods
//! (class from `Type::method` span names, else the module) and every thread's stack stays
//! balanced.

use std::net::{Ipv4Addr, SocketAddr};
use std::time::{Duration, Instant};

use highrise_aggregate_sink::AggregateSink;
use highrise_ingest::{IngestConfig, IngestServer};
use tracing_subscriber::prelude::*;

#[test]
fn tracing_spans_arrive_as_methods_with_balanced_stacks() {
    let viewer = IngestServer::start(
        IngestConfig {
            listen_addr: SocketAddr::from((Ipv4Addr::LOCALHOST, 0)),
            publish_interval: Duration::from_millis(20),
            ..IngestConfig::default()
        },
        AggregateSink::factory,
    )
    .expect("listener starts");
    let agent = highrise_agent::AgentBuilder::new("tracing-demo")
        .addr(viewer.local_addr().to_string())
        .log_to_stderr(false)
        .start()
        .expect("agent starts");
    tracing_subscriber::registry()
        .with(highrise_agent::layer())
        .init();
    let files = tracing_demo::run(3, Duration::from_millis(800));
    assert!(files > 10);
    drop(agent);
    let deadline = Instant::now() + Duration::from_secs(30);
    let report = loop {
        let report = viewer
            .updates()
            .recv_timeout(deadline.saturating_duration_since(Instant::now()))
            .expect("a report");
        if report.is_ended() {
            break report;
        }
    };
    assert!(report.errors.is_empty(), "{:?}", report.errors);
    let names: Vec<String> = report
        .definitions()
        .map(|d| format!("{}/{}/{}", d.package, d.class, d.method))
        .collect();
    for expected in [
        "tracing_demo/tracing_demo/compile",
        "tracing_demo.lexer/Lexer/tokenize",
        "tracing_demo.parser/parser/parse",
        "tracing_demo.optimizer/Optimizer/fold",
        "tracing_demo.codegen/Emitter/emit",
        "tracing_demo.codegen/Emitter/link",
    ] {
        assert!(
            names.iter().any(|n| n == expected),
            "{expected} missing: {names:?}"
        );
    }
    let snapshot = report.sink.as_ref().expect("aggregated");
    assert_eq!(snapshot.stats.mismatched_exits, 0);
    assert_eq!(snapshot.stats.orphan_exits, 0);
    assert!(report.stats.events > 1000);
}
