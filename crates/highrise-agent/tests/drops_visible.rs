//! Drops made visible, end to end with the real agent and listener: a program makes a million
//! instrumented calls while no viewer listens (the agent drops them, never blocking), then a
//! viewer appears. The aggregated session says which share of the window's events was
//! dropped, and the methods of the thread that lost events are marked approximate.
#![cfg(feature = "enable")]

mod support;

use std::time::Duration;

use highrise_aggregate_sink::AggregateSink;
use highrise_testkit::server::{start, wait_for_end};
use support::{agent_before_the_viewer, config_on, free_port, wait_connected};

#[highrise_agent::profile]
fn step(i: u64) -> u64 {
    std::hint::black_box(i & 7)
}

#[highrise_agent::profile]
fn busy(calls: u64) -> u64 {
    (0..calls).map(step).sum()
}

#[test]
fn the_session_shows_the_dropped_share_and_marks_the_resynced_threads_methods() {
    let port = free_port();
    let agent = agent_before_the_viewer("drops-visible-test", port);
    // Nobody listens: all but the ring's worth of these 2 M events are dropped.
    assert!(busy(1_000_000) > 0);
    assert!(highrise_agent::flush(Duration::from_secs(5)));

    let server = start(config_on(port), AggregateSink::factory);
    wait_connected();
    // Calls after the viewer appeared arrive whole.
    assert!(busy(100) > 0);
    assert!(agent.flush(Duration::from_secs(5)));
    drop(agent);

    let report = wait_for_end(&server);
    assert!(report.errors.is_empty(), "{:?}", report.errors);
    assert!(report.stats.agent_events_dropped >= 2_000_000 - 4096);
    let snapshot = report.sink.as_ref().expect("aggregated");
    assert!(
        snapshot.dropped_share > 0.99,
        "share {} ({} dropped, {} received)",
        snapshot.dropped_share,
        report.stats.agent_events_dropped,
        report.stats.events
    );
    let id_of = |name: &str| {
        report
            .definitions()
            .find(|definition| definition.method == name)
            .map(|definition| definition.id)
            .unwrap_or_else(|| panic!("{name} not defined"))
    };
    for name in ["busy", "step"] {
        let stats = snapshot.method(id_of(name));
        assert!(stats.calls > 0, "{name}: {stats:?}");
        assert!(
            stats.approximate,
            "{name} ran on the thread that lost events: {stats:?}"
        );
    }
}
