//! Never hurt the host: with no viewer listening, a program making 10 M instrumented calls
//! runs to the end (events are dropped and counted, nothing blocks); when a listener appears
//! the agent connects by itself, reports the drop totals, and resynchronises the thread's stack
//! so the viewer's replay stays balanced.
#![cfg(feature = "enable")]

mod support;

use std::time::Duration;

use highrise_testkit::server::wait_for_end;
use support::{
    agent_before_the_viewer, ended_with_goodbye, free_port, start_server_on, wait_connected,
};

#[highrise_agent::profile]
fn outer_loop(calls: u64) -> u64 {
    let mut sum = 0;
    for i in 0..calls {
        sum += step(i);
    }
    sum
}

#[highrise_agent::profile]
fn step(i: u64) -> u64 {
    std::hint::black_box(i & 7)
}

#[highrise_agent::profile]
fn session() {
    // 10 M calls with nobody listening.
    let sum = outer_loop(10_000_000);
    assert!(sum > 0);
}

#[test]
fn ten_million_calls_without_a_viewer_finish_and_the_drops_are_reported_later() {
    let port = free_port();
    let agent = agent_before_the_viewer("no-listener-test", port);

    // Still inside `session` while the viewer appears: its stack must reach the viewer.
    let outer = {
        static CALLSITE: highrise_agent::__private::Callsite =
            highrise_agent::__private::Callsite::new(highrise_agent::__private::MethodInfo {
                module_path: module_path!(),
                class: Some("Test"),
                method: "whole_test",
                signature: None,
                file: None,
                line: None,
            });
        highrise_agent::__private::enter(&CALLSITE)
    };
    session();
    // One sender cycle so the counters include the last drops (nothing is connected).
    assert!(highrise_agent::flush(Duration::from_secs(5)));
    let before = highrise_agent::stats();
    assert!(!before.connected);
    assert!(
        before.events_dropped >= 20_000_000 - 4096,
        "dropped {}",
        before.events_dropped
    );

    let server = start_server_on(port);
    wait_connected();
    // A few more calls after the viewer appeared; these arrive.
    for i in 0..100 {
        step(i);
    }
    drop(outer);
    assert!(agent.flush(Duration::from_secs(5)));
    let stats = agent.stats();
    drop(agent);

    let report = wait_for_end(&server);
    assert!(ended_with_goodbye(&report), "{:?}", report.status);
    assert!(report.errors.is_empty(), "{:?}", report.errors);
    assert_eq!(report.stats.agent_events_dropped, stats.events_dropped);
    assert!(report.stats.agent_events_dropped >= 20_000_000 - 4096);
    assert!(report.stats.agent_batches_dropped >= 1);
    let recorded = report.sink.as_ref().expect("opened").get().clone();
    assert!(report.stats.resyncs >= 1, "no resync after the loss");
    let finals = recorded.replay_strictly();
    assert!(
        finals.values().all(Vec::is_empty),
        "stacks not empty at the end: {finals:?}"
    );
    // The buffered start of the run arrived, and the calls made after the viewer appeared.
    let step_id = recorded
        .method("no_listener", "no_listener", "step")
        .expect("step defined");
    let steps = recorded
        .threads
        .values()
        .flatten()
        .filter(|item| matches!(item, support::Item::Event(e) if e.method_id == step_id))
        .count();
    assert!(steps >= 200, "only {steps} step events arrived");
}
