//! Drops made visible: after an agent lost some of a thread's events (it sends `Dropped` and
//! a `Resync`), the methods that ran on that thread within the window are marked approximate
//! until the resync leaves the window, and the snapshot says what share of the window's
//! events were dropped. Methods of other threads stay exact.

mod support;

use highrise_aggregate::{Aggregator, AggregatorConfig};
use support::{enter, exit, MS, S};

const MAIN: u32 = 0;
const WORK: u32 = 1;
const OTHER: u32 = 2;
const STEP: u32 = 3;

#[test]
fn methods_of_a_resynced_thread_are_approximate_until_the_resync_leaves_the_window() {
    let mut aggregator = Aggregator::new(AggregatorConfig::default());
    for id in [MAIN, WORK, OTHER, STEP] {
        aggregator.define_method(id, "app");
    }
    // Thread 1 runs main → work; thread 2 runs other, calling step.
    aggregator.apply_events(1, &[enter(0, MAIN), enter(10 * MS, WORK)]);
    aggregator.apply_events(
        2,
        &[enter(0, OTHER), enter(100 * MS, STEP), exit(200 * MS, STEP)],
    );
    let before = aggregator.snapshot();
    assert!(before.methods.iter().all(|stats| !stats.approximate));
    assert_eq!(before.dropped_share, 0.0);

    // Thread 1 lost events: at 1 s its stack is main alone (work returned during the loss).
    aggregator.agent_dropped(500);
    aggregator.resync(1, S, &[MAIN]);
    aggregator.apply_events(2, &[enter(S + 100 * MS, STEP), exit(S + 150 * MS, STEP)]);
    let after = aggregator.snapshot();
    assert!(
        after.method(MAIN).approximate,
        "main ran on the resynced thread"
    );
    assert!(
        after.method(WORK).approximate,
        "work ran on it in the window"
    );
    assert!(!after.method(OTHER).approximate, "thread 2 lost nothing");
    assert!(!after.method(STEP).approximate);
    // 500 dropped against the 7 events received so far (the session is younger than L).
    let expected = 500.0 / 507.0;
    assert!(
        (after.dropped_share - expected).abs() < 1e-3,
        "{}",
        after.dropped_share
    );
    assert_eq!(after.stats.agent_events_dropped, 500);

    // Once the resync is more than a window old, everything is exact again and the share is
    // back to zero (no new drops).
    aggregator.apply_events(
        1,
        &[exit(4 * S + 500 * MS, MAIN), enter(4 * S + 600 * MS, MAIN)],
    );
    aggregator.advance_to(5 * S);
    let later = aggregator.snapshot();
    assert!(
        later.methods.iter().all(|stats| !stats.approximate),
        "{:?}",
        later.methods
    );
    assert_eq!(later.dropped_share, 0.0);
    assert_eq!(later.stats.agent_events_dropped, 500, "the total stays");
}

#[test]
fn a_lower_drop_total_is_ignored() {
    let mut aggregator = Aggregator::new(AggregatorConfig::default());
    aggregator.define_method(MAIN, "app");
    aggregator.apply_events(1, &[enter(0, MAIN), exit(MS, MAIN)]);
    aggregator.agent_dropped(10);
    aggregator.agent_dropped(4);
    let snapshot = aggregator.snapshot();
    assert_eq!(snapshot.stats.agent_events_dropped, 10);
    assert!((snapshot.dropped_share - 10.0 / 12.0).abs() < 1e-6);
}
