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
        assert_eq!(run.parked_threads, threads as u32, "minute {minute}");
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

/// The real game's shape (exal99/Tetris, the paper's program): the running game's thread
/// spins in `run()` calling out half the time, each finished game's thread parks in `run()`
/// for good. The thread count reads the running thread too; `parked_threads` only the parked
/// ones, so the pile-up shows even when a new game's thread starts as the old one parks.
#[test]
fn parked_threads_count_only_the_threads_that_stay_on_top() {
    const TICK: u32 = 8;
    let mut aggregator = Aggregator::new(AggregatorConfig::default());
    // Thread 1 parked in run() from 0; thread 2 runs the game: run() with tick() half of
    // every 10 ms.
    aggregator.apply_events(1, &[enter(0, RUN)]);
    let mut events = vec![enter(0, RUN)];
    for step in 0..600u64 {
        let at_ns = step * 10_000_000;
        events.push(enter(at_ns + 5_000_000, TICK));
        events.push(support::exit(at_ns + 10_000_000, TICK));
    }
    aggregator.apply_events(2, &events);
    aggregator.advance_to(6 * S);
    let run = aggregator.snapshot().method(RUN);
    assert_eq!((run.thread_count, run.parked_threads), (2, 1), "{run:?}");
    assert!((run.elevation - 1.0).abs() < 1e-6);
    assert!((run.summed_elevation - 1.5).abs() < 0.01, "{run:?}");
    // The game ends at 6 s: its thread parks in run() too. At 7.5 s it has been on top for
    // 75 % of the window: parked at a share of 50 %, not yet at the default 95 %.
    aggregator.advance_to(7 * S + S / 2);
    let run = aggregator.snapshot().method(RUN);
    assert_eq!((run.thread_count, run.parked_threads), (2, 1), "{run:?}");
    aggregator.set_parked_share(0.5);
    assert_eq!(aggregator.snapshot().method(RUN).parked_threads, 2);
    aggregator.set_parked_share(highrise_aggregate::DEFAULT_PARKED_SHARE);
    aggregator.advance_to(9 * S);
    let run = aggregator.snapshot().method(RUN);
    assert_eq!((run.thread_count, run.parked_threads), (2, 2), "{run:?}");
}
