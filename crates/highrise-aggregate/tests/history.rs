//! History: going back to a kept moment gives that moment's snapshot exactly; a
//! method's series follows its snapshots; the span and byte bounds hold. And the focused
//! method's per-thread shares add up to its statistics.

mod support;

use highrise_aggregate::{Aggregator, AggregatorConfig, History, HistoryConfig, Snapshot};
use highrise_protocol::Event;
use support::{enter, exit};

const MS: u64 = 1_000_000;
const S: u64 = 1_000_000_000;

/// A program whose busy method changes every second: thread 1 runs method `second % 7` for
/// 80 ms of every 100 ms; thread 2 runs method 9 for 30 ms of every 100 ms from second 20.
fn tenth_of_second(t_ns: u64) -> Vec<(u64, Vec<Event>)> {
    let second = t_ns / S;
    let hot = (second % 7) as u32;
    let mut batches = vec![(1, vec![enter(t_ns, hot), exit(t_ns + 80 * MS, hot)])];
    if second >= 20 {
        batches.push((2, vec![enter(t_ns + 10 * MS, 9), exit(t_ns + 40 * MS, 9)]));
    }
    batches
}

/// Runs the program for `seconds`, snapshotting every 100 ms into the history; returns the
/// snapshots the history kept.
fn run(history: &mut History, seconds: u64) -> (Aggregator, Vec<Snapshot>) {
    let mut aggregator = Aggregator::new(AggregatorConfig::default());
    for method_id in 0..12 {
        aggregator.define_method(method_id, "app");
    }
    let mut kept = Vec::new();
    for tenth in 0..seconds * 10 {
        let t_ns = tenth * 100 * MS;
        for (thread_id, events) in tenth_of_second(t_ns) {
            aggregator.apply_events(thread_id, &events);
        }
        aggregator.advance_to(t_ns + 100 * MS);
        let snapshot = aggregator.snapshot();
        if history.push(&snapshot) {
            kept.push(snapshot);
        }
    }
    (aggregator, kept)
}

fn same_moment(rebuilt: &Snapshot, kept: &Snapshot) {
    assert_eq!(rebuilt.now_ns, kept.now_ns);
    assert_eq!(rebuilt.window_ns, kept.window_ns);
    assert_eq!(rebuilt.methods, kept.methods, "at {} ns", kept.now_ns);
    assert_eq!(rebuilt.stats, kept.stats);
    assert_eq!(rebuilt.dropped_share, kept.dropped_share);
}

#[test]
fn scrubbing_to_a_time_shows_that_times_snapshot() {
    let mut history = History::new(HistoryConfig {
        keyframe_every_ns: 2 * S,
        ..HistoryConfig::default()
    });
    let (_, kept) = run(&mut history, 40);
    // One sample per 250 ms of program time (snapshots come every 100 ms: every third).
    assert_eq!(history.len(), kept.len());
    assert!((130..=161).contains(&kept.len()), "{} kept", kept.len());
    for pair in kept.windows(2) {
        assert!(pair[1].now_ns - pair[0].now_ns >= 250 * MS);
    }
    for (index, snapshot) in kept.iter().enumerate() {
        same_moment(&history.at(snapshot.now_ns).unwrap(), snapshot);
        // Between two samples: the earlier one.
        same_moment(&history.at(snapshot.now_ns + 50 * MS).unwrap(), snapshot);
        if index > 0 {
            same_moment(&history.at(snapshot.now_ns - 1).unwrap(), &kept[index - 1]);
        }
    }
    // Before the oldest: the oldest.
    same_moment(&history.at(0).unwrap(), &kept[0]);
    // The moments differ: the busy method moves every second (a 3 s window: 3, 4 and 5 at
    // 5.5 s; 0 and 1 long gone).
    let at_5 = history.at(5 * S + 500 * MS).unwrap();
    let at_9 = history.at(9 * S + 500 * MS).unwrap();
    assert!(at_5.method(5).elevation > 0.1 && at_5.method(1).elevation == 0.0);
    assert!(at_9.method(2).elevation > 0.1 && at_9.method(5).elevation == 0.0);
    // Thread 2 starts at second 20.
    assert_eq!(history.at(19 * S).unwrap().method(9).thread_count, 0);
    assert_eq!(history.at(25 * S).unwrap().method(9).thread_count, 1);
}

#[test]
fn a_methods_series_follows_its_snapshots_and_activity_sums_busy_threads() {
    let mut history = History::new(HistoryConfig {
        keyframe_every_ns: 3 * S,
        ..HistoryConfig::default()
    });
    let (_, kept) = run(&mut history, 30);
    let (from_ns, to_ns) = (7 * S, 23 * S);
    for method_id in [0, 3, 9, 11] {
        let series = history.series(method_id, from_ns, to_ns);
        let expected: Vec<_> = kept
            .iter()
            .filter(|s| (from_ns..=to_ns).contains(&s.now_ns))
            .map(|s| (s.now_ns, s.method(method_id)))
            .collect();
        let got: Vec<_> = series.iter().map(|p| (p.now_ns, p.value)).collect();
        assert_eq!(got, expected, "method {method_id}");
    }
    let activity = history.activity(0, u64::MAX);
    assert_eq!(activity.len(), kept.len());
    for (point, snapshot) in activity.iter().zip(&kept) {
        let busy: f32 = snapshot.methods.iter().map(|m| m.summed_elevation).sum();
        assert_eq!(point.now_ns, snapshot.now_ns);
        assert!((point.value - busy).abs() < 1e-5);
    }
    // Late on, thread 1 is busy 80 % and thread 2 30 %: 1.1 threads.
    assert!((activity.last().unwrap().value - 1.1).abs() < 0.02);
}

#[test]
fn the_span_and_the_byte_budget_bound_what_is_kept() {
    let mut by_span = History::new(HistoryConfig {
        span_ns: 10 * S,
        keyframe_every_ns: 2 * S,
        ..HistoryConfig::default()
    });
    let (_, kept) = run(&mut by_span, 60);
    let (oldest_ns, newest_ns) = by_span.range_ns().unwrap();
    assert_eq!(newest_ns, kept.last().unwrap().now_ns);
    let span_ns = newest_ns - oldest_ns;
    // At least the span, at most one segment (2 s) more.
    assert!((10 * S..=12 * S).contains(&span_ns), "{span_ns} ns kept");
    same_moment(
        &by_span.at(oldest_ns).unwrap(),
        kept.iter().find(|s| s.now_ns == oldest_ns).unwrap(),
    );

    let mut by_bytes = History::new(HistoryConfig {
        max_bytes: 16 << 10,
        ..HistoryConfig::default()
    });
    let (_, kept) = run(&mut by_bytes, 60);
    assert!(
        by_bytes.memory_bytes() < 32 << 10,
        "{} bytes",
        by_bytes.memory_bytes()
    );
    let (oldest_ns, _) = by_bytes.range_ns().unwrap();
    assert!(oldest_ns > 0, "the oldest segments went");
    for snapshot in kept.iter().filter(|s| s.now_ns >= oldest_ns) {
        same_moment(&by_bytes.at(snapshot.now_ns).unwrap(), snapshot);
    }
}

#[test]
fn the_focused_methods_threads_add_up_to_its_statistics() {
    let mut aggregator = Aggregator::new(AggregatorConfig::default());
    aggregator.define_method(0, "app");
    aggregator.define_method(1, "app");
    aggregator.set_focus(Some(0));
    // Method 0: 1.5 s on thread 7, 0.6 s on thread 8 (inside method 1, 0.3 s more), within
    // the last 3 s.
    aggregator.apply_events(7, &[enter(S, 0), exit(2 * S + 500 * MS, 0)]);
    aggregator.apply_events(
        8,
        &[
            enter(S, 1),
            enter(S + 300 * MS, 0),
            exit(S + 900 * MS, 0),
            exit(2 * S, 1),
        ],
    );
    aggregator.advance_to(3 * S);
    let snapshot = aggregator.snapshot();
    let focus = snapshot.focus.clone().expect("focused");
    assert_eq!(focus.method_id, 0);
    let shares: Vec<_> = focus
        .threads
        .iter()
        .map(|t| (t.thread_id, t.elevation, t.calls))
        .collect();
    assert_eq!(shares.len(), 2);
    assert_eq!((shares[0].0, shares[0].2), (7, 1));
    assert_eq!((shares[1].0, shares[1].2), (8, 1));
    assert!((shares[0].1 - 0.5).abs() < 0.005 && (shares[1].1 - 0.2).abs() < 0.005);
    let stats = snapshot.method(0);
    assert_eq!(stats.elevation, shares[0].1);
    assert!((stats.summed_elevation - shares[0].1 - shares[1].1).abs() < 1e-5);
    assert_eq!(stats.thread_count as usize, focus.threads.len());
    aggregator.set_focus(None);
    assert_eq!(aggregator.snapshot().focus, None);
}
