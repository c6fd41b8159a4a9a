//! The per-bucket accumulators are flushed when their thread moves to a later bucket (each
//! thread keeps a list of the pairs it touched in its current bucket). These tests drive the
//! unusual paths of that list against the exact reference: a thread touching thousands of
//! pairs in one bucket (the list grows and is compacted), a thread that pauses for longer than
//! the window while its pairs are released and their slots reused by another thread (stale
//! list entries), window changes in between, and a thread stuck at one timestamp (the list
//! must not grow).

mod support;

use highrise_aggregate::{
    bucket_ns_for_window, elevation_error_bound, Aggregator, AggregatorConfig, Snapshot,
};
use highrise_protocol::Event;
use support::{enter, exit, Reference, MS, S};

/// Every method's statistics agree with the reference: calls and threads exactly (over the
/// window extended to its oldest bucket's start), elevations within the documented bound.
fn assert_agrees(snapshot: &Snapshot, reference: &Reference, window_ns: u64, methods: u32) {
    let bucket_ns = bucket_ns_for_window(window_ns);
    assert_eq!(snapshot.now_ns, reference.now_ns);
    let window_start_ns = reference.now_ns.saturating_sub(window_ns);
    let oldest_bucket_start_ns = window_start_ns / bucket_ns * bucket_ns;
    let bound = elevation_error_bound(window_ns) + 1e-5;
    for method in 0..methods {
        let fast = snapshot.method(method);
        let exact = reference.exact(method, window_start_ns);
        let extended = reference.exact(method, oldest_bucket_start_ns);
        assert_eq!(u64::from(fast.calls), extended.calls, "calls of {method}");
        assert_eq!(
            fast.thread_count, extended.thread_count,
            "threads of {method}"
        );
        let elevation = exact.max_exclusive_ns as f64 / window_ns as f64;
        let inclusive = exact.max_inclusive_ns as f64 / window_ns as f64;
        assert!(
            (f64::from(fast.elevation) - elevation).abs() <= bound,
            "elevation of {method}: {} vs {elevation}",
            fast.elevation
        );
        assert!(
            (f64::from(fast.inclusive_elevation) - inclusive).abs() <= bound,
            "inclusive elevation of {method}: {} vs {inclusive}",
            fast.inclusive_elevation
        );
    }
}

fn feed(aggregator: &mut Aggregator, reference: &mut Reference, thread_id: u64, events: &[Event]) {
    aggregator.apply_events(thread_id, events);
    reference.apply_events(thread_id, events);
}

#[test]
fn thousands_of_pairs_touched_in_one_bucket_are_all_flushed() {
    let window_ns = 3 * S;
    let mut aggregator = Aggregator::new(AggregatorConfig::default());
    let mut reference = Reference::default();
    // Method 0 is the thread's root; 5000 leaves are each called once, 2 µs apart, all inside
    // the first 33.5 ms bucket, in batches of 700 events (the list outgrows its free room
    // within a batch and across batches).
    let leaves = 5000u32;
    let mut events = vec![enter(0, 0)];
    for leaf in 1..=leaves {
        let t = u64::from(leaf) * 2_000;
        events.push(enter(t, leaf));
        events.push(exit(t + 1_000, leaf));
    }
    for batch in events.chunks(700) {
        feed(&mut aggregator, &mut reference, 1, batch);
    }
    // Mid-bucket: everything is still in the accumulators.
    assert_agrees(&aggregator.snapshot(), &reference, window_ns, leaves + 1);
    // The next buckets: every accumulator becomes a record of the first bucket.
    let mut t = 40 * MS;
    for round in 0..100u32 {
        let leaf = 1 + round % leaves;
        feed(
            &mut aggregator,
            &mut reference,
            1,
            &[enter(t, leaf), exit(t + MS, leaf)],
        );
        t += 10 * MS;
    }
    let snapshot = aggregator.snapshot();
    assert_agrees(&snapshot, &reference, window_ns, leaves + 1);
    assert!(aggregator.stats().bucket_entries >= u64::from(leaves));
    // Every leaf called once in the first bucket (plus the later rounds).
    assert!((1..=leaves).all(|leaf| snapshot.method(leaf).calls >= 1));
}

#[test]
fn a_paused_thread_whose_pairs_were_released_and_reused_agrees_with_the_reference() {
    for window_change in [None, Some(700 * MS), Some(20 * S)] {
        let mut window_ns = 3 * S;
        let mut aggregator = Aggregator::new(AggregatorConfig::default());
        let mut reference = Reference::default();
        // Thread 1 touches methods 1..=20 in its first bucket, then pauses.
        let mut events = Vec::new();
        for method in 1..=20u32 {
            let t = u64::from(method) * 100_000;
            events.push(enter(t, method));
            events.push(exit(t + 50_000, method));
        }
        feed(&mut aggregator, &mut reference, 1, &events);
        // Thread 2 runs for 8 s (or a whole new window after the change to a longer one,
        // which does not bring back what had left the old one): thread 1's pairs leave the
        // window and are released; their slots are reused by thread 2's pairs (methods
        // 21..=40), which thread 1's touched list still names.
        let resume_ns = 4 * S + window_change.unwrap_or(0).max(4 * S);
        let mut t = 10 * MS;
        while t < resume_ns {
            let method = 21 + (t / (10 * MS) % 20) as u32;
            feed(
                &mut aggregator,
                &mut reference,
                2,
                &[enter(t, method), exit(t + 4 * MS, method)],
            );
            t += 10 * MS;
            if t == 4 * S {
                if let Some(new_window_ns) = window_change {
                    aggregator.set_window_ns(new_window_ns);
                    window_ns = new_window_ns;
                }
            }
        }
        assert_agrees(&aggregator.snapshot(), &reference, window_ns, 41);
        // Thread 1 resumes (its first crossing flushes the stale list) while thread 2 goes on.
        for step in 0..200u64 {
            let t1 = resume_ns + step * 10 * MS;
            let method = 1 + (step % 40) as u32;
            feed(
                &mut aggregator,
                &mut reference,
                1,
                &[enter(t1, method), exit(t1 + 3 * MS, method)],
            );
            let method = 21 + (step % 20) as u32;
            feed(
                &mut aggregator,
                &mut reference,
                2,
                &[enter(t1 + 5 * MS, method), exit(t1 + 9 * MS, method)],
            );
            if step % 50 == 49 {
                assert_agrees(&aggregator.snapshot(), &reference, window_ns, 41);
            }
        }
        let stats = aggregator.stats();
        assert_eq!(stats.orphan_exits + stats.mismatched_exits, 0);
    }
}

#[test]
fn a_thread_stuck_at_one_timestamp_does_not_grow_memory() {
    let mut aggregator = Aggregator::new(AggregatorConfig::default());
    // Thread 1's clock is stuck (every timestamp is clamped to its first one) while thread 2
    // moves "now" on for 20 minutes: thread 1's pairs are released over and over and made
    // again in the same bucket of thread 1.
    let stuck: Vec<Event> = (0..100u32)
        .flat_map(|method| [enter(MS, method), exit(MS, method)])
        .collect();
    aggregator.apply_events(1, &[enter(5 * MS, 0), exit(5 * MS, 0)]);
    let mut memory_after_warmup = 0;
    for second in 0..1200u64 {
        aggregator.apply_events(1, &stuck);
        let events: Vec<Event> = (0..50u64)
            .flat_map(|step| {
                let t = second * S + step * 20 * MS;
                [enter(t, 200), exit(t + 10 * MS, 200)]
            })
            .collect();
        aggregator.apply_events(2, &events);
        if second == 120 {
            memory_after_warmup = aggregator.stats().memory_bytes;
        }
    }
    let stats = aggregator.stats();
    assert!(stats.clamped_timestamps > 0);
    assert!(
        stats.memory_bytes <= memory_after_warmup + memory_after_warmup / 10,
        "memory grew from {memory_after_warmup} to {}",
        stats.memory_bytes
    );
    let snapshot = aggregator.snapshot();
    assert_eq!(snapshot.method(200).thread_count, 1);
    assert!(snapshot.method(200).elevation > 0.45);
    // Thread 1 is more than a window behind: its calls are outside every window.
    assert_eq!(snapshot.method(0).calls, 0);
}
