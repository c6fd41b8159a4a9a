//! Both versions through the viewer's real ingest server and aggregator: the sessions carry
//! their variant as version label, the moved types appear under their new packages, and the
//! regressed hot method costs more in "after".

use std::net::{Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::time::{Duration, Instant};

use bookstore::{Options, Variant};
use highrise_aggregate::Snapshot;
use highrise_aggregate_sink::AggregateSink;
use highrise_ingest::{IngestConfig, IngestServer, SessionReport};

fn run(variant: Variant) -> SessionReport<Arc<Snapshot>> {
    let viewer = IngestServer::start(
        IngestConfig {
            listen_addr: SocketAddr::from((Ipv4Addr::LOCALHOST, 0)),
            publish_interval: Duration::from_millis(20),
            ..IngestConfig::default()
        },
        AggregateSink::factory,
    )
    .expect("listener starts");
    let agent = highrise_agent::AgentBuilder::new("bookstore")
        .version_label(variant.label())
        .addr(viewer.local_addr().to_string())
        .log_to_stderr(false)
        .start()
        .expect("agent starts");
    let summary = bookstore::serve(&Options {
        variant,
        duration_s: 1.5,
        workers: 2,
    })
    .expect("serves");
    assert!(summary.requests > 10);
    drop(agent);
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let report = viewer
            .updates()
            .recv_timeout(deadline.saturating_duration_since(Instant::now()))
            .expect("a report");
        if report.is_ended() {
            return report;
        }
    }
}

fn quote_cost(report: &SessionReport<Arc<Snapshot>>, package: &str) -> f32 {
    let id = report
        .definitions()
        .find(|d| d.package == package && d.class == "PriceEngine" && d.method == "quote")
        .unwrap_or_else(|| panic!("no PriceEngine.quote in {package}"))
        .id;
    let stats = report.sink.as_ref().expect("aggregated").method(id);
    assert!(stats.calls > 0);
    stats.summed_elevation / stats.calls as f32
}

#[test]
fn before_and_after_differ_in_structure_and_in_the_hot_method() {
    let before = run(Variant::Before);
    let after = run(Variant::After);
    for report in [&before, &after] {
        assert!(report.errors.is_empty(), "{:?}", report.errors);
    }
    assert_eq!(before.info.as_ref().expect("hello").version_label, "before");
    assert_eq!(after.info.as_ref().expect("hello").version_label, "after");
    // Packages of the methods that ran in each session (both sessions come from this one
    // test process, so each is also told about the other variant's methods).
    let packages = |report: &SessionReport<Arc<Snapshot>>| {
        let snapshot = report.sink.as_ref().expect("aggregated");
        let mut packages: Vec<String> = report
            .definitions()
            .filter(|d| snapshot.method(d.id).calls > 0)
            .map(|d| d.package.clone())
            .collect();
        packages.sort();
        packages.dedup();
        packages
    };
    assert_eq!(
        packages(&before),
        [
            "bookstore.before.cart",
            "bookstore.before.catalog",
            "bookstore.before.pricing",
            "bookstore.http"
        ]
    );
    assert_eq!(
        packages(&after),
        [
            "bookstore.after.catalog.search",
            "bookstore.after.checkout.cart",
            "bookstore.after.checkout.pricing",
            "bookstore.http"
        ]
    );
    let before_cost = quote_cost(&before, "bookstore.before.pricing");
    let after_cost = quote_cost(&after, "bookstore.after.checkout.pricing");
    assert!(
        after_cost > 2.0 * before_cost,
        "quote per call: before {before_cost}, after {after_cost}"
    );
}
