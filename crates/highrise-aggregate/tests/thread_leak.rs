//! The paper's case study (section V.A): threads that never end, each stuck inside `run()`
//! (entered, then blocked in uninstrumented code). `run()` must read 100 % with thread count
//! N, and stay there, in constant memory, however long the program runs.

mod support;

use highrise_aggregate::{Aggregator, AggregatorConfig};
use support::{enter, S};

const RUN: u32 = 7;
const MAIN: u32 = 1;

#[test]
fn threads_stuck_in_run_read_100_percent_with_their_count_stable_over_an_hour() {
    let threads = 16u64;
    let mut aggregator = Aggregator::new(AggregatorConfig::default());
    aggregator.define_method(MAIN, "game");
    aggregator.define_method(RUN, "game.single");
    aggregator.thread_started(0, 0);
    aggregator.apply_events(0, &[enter(0, MAIN)]);
    // The user restarts a game every 2 s; each restart leaks a thread inside run().
    for thread in 1..=threads {
        let started_ns = thread * 2 * S;
        aggregator.thread_started(thread, started_ns);
        aggregator.apply_events(thread, &[enter(started_ns + 1_000, RUN)]);
    }
    let all_started_ns = threads * 2 * S + 1_000;
    let mut memory_after_first_minute = 0;
    for minute in 1..=60u64 {
        // Heartbeats every 500 ms; nothing else happens.
        for tick in 0..120u64 {
            aggregator.advance_to(all_started_ns + (minute - 1) * 60 * S + tick * S / 2);
        }
        let snapshot = aggregator.snapshot();
        let run = snapshot.method(RUN);
        assert!(
            (run.elevation - 1.0).abs() < 1e-6,
            "minute {minute}: {run:?}"
        );
        assert_eq!(run.thread_count, threads as u32, "minute {minute}");
        assert!((run.inclusive_elevation - 1.0).abs() < 1e-6);
        assert!((run.summed_elevation - threads as f32).abs() < 1e-3);
        // The enters are long out of the window.
        assert_eq!(run.calls, 0);
        // main() (thread 0, blocked too) ties with run() at 100 %.
        let top: Vec<u32> = snapshot
            .top_by_elevation(2)
            .iter()
            .map(|(id, _)| *id)
            .collect();
        assert_eq!(top, vec![MAIN, RUN]);
        let stats = aggregator.stats();
        assert_eq!(stats.active_threads, threads + 1);
        if minute == 1 {
            memory_after_first_minute = stats.memory_bytes;
        } else {
            assert!(
                stats.memory_bytes <= memory_after_first_minute,
                "minute {minute}: {} > {}",
                stats.memory_bytes,
                memory_after_first_minute
            );
        }
    }
}

#[test]
fn run_reads_exactly_its_share_while_the_first_window_fills() {
    let mut aggregator = Aggregator::new(AggregatorConfig::default());
    aggregator.apply_events(1, &[enter(0, RUN)]);
    aggregator.advance_to(S);
    let snapshot = aggregator.snapshot();
    // One second of a three-second window.
    assert!((snapshot.method(RUN).elevation - 1.0 / 3.0).abs() < 1e-6);
    aggregator.advance_to(3 * S);
    assert!((aggregator.snapshot().method(RUN).elevation - 1.0).abs() < 1e-6);
}
