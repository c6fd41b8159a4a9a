//! Allocation counts from memory records: each record belongs to the innermost open frame of
//! its thread at its place in the stream. Checked against a reference that replays every
//! thread's stack over the full record list, under threads, recursion, out-of-order exits,
//! resyncs and the depth limit.

mod support;

use std::collections::HashMap;

use highrise_aggregate::{Aggregator, AggregatorConfig, Amount, MemoryFold, OUTSIDE_METHODS};
use highrise_protocol::{Event, EventKind, MemoryAmount};
use proptest::prelude::*;
use support::{enter, exit, MS, S};

fn memory(timestamp_ns: u64, class_id: u32) -> Event {
    Event {
        timestamp_ns,
        method_id: class_id,
        kind: EventKind::Memory,
    }
}

fn made(count: u64, bytes: u64) -> MemoryAmount {
    MemoryAmount {
        count,
        bytes,
        free: false,
    }
}

fn freed(count: u64, bytes: u64) -> MemoryAmount {
    MemoryAmount {
        count,
        bytes,
        free: true,
    }
}

#[test]
fn records_go_to_the_innermost_open_frame() {
    const MAIN: u32 = 0;
    const CREATE: u32 = 1;
    const PIECE: u32 = 7;
    const LIST: u32 = 8;
    let mut aggregator = Aggregator::new(AggregatorConfig::default());
    let events = [
        memory(0, LIST), // before any frame: outside profiled methods
        enter(MS, MAIN),
        memory(MS, LIST),
        enter(2 * MS, CREATE),
        memory(3 * MS, PIECE),
        memory(3 * MS, PIECE),
        exit(4 * MS, CREATE),
        enter(5 * MS, CREATE),
        memory(5 * MS, PIECE),
        exit(6 * MS, CREATE),
        memory(7 * MS, LIST),
        exit(8 * MS, MAIN),
    ];
    let amounts = [
        made(1, 40),
        made(1, 40),
        made(2, 48),
        freed(1, 24),
        made(1, 24),
        freed(1, 40),
    ];
    aggregator.apply_records(1, &events, &amounts);
    let snapshot = aggregator.snapshot();
    let memory = &snapshot.memory;
    assert_eq!(memory.records, 6);
    let create = memory.method(CREATE).total;
    assert_eq!(
        (create.count, create.bytes, create.frees, create.freed_bytes),
        (3, 72, 1, 24)
    );
    assert_eq!(memory.method(CREATE).window, create);
    let main = memory.method(MAIN).total;
    assert_eq!((main.count, main.frees), (1, 1));
    assert_eq!(memory.outside.total.count, 1);
    assert_eq!(memory.classes[PIECE as usize].count, 3);
    assert_eq!(memory.classes[LIST as usize].count, 2);
    let classes: Vec<_> = memory
        .classes_of(MAIN)
        .iter()
        .map(|entry| (entry.class_id, entry.amount.count, entry.amount.frees))
        .collect();
    assert_eq!(classes, vec![(LIST, 1, 1)]);
    assert_eq!(memory.classes_of(OUTSIDE_METHODS)[0].class_id, LIST);
    // Time and calls are what they would be without the memory records.
    assert_eq!(snapshot.method(CREATE).calls, 2);
    assert_eq!(snapshot.method(MAIN).calls, 1);
}

/// Wherever the records are folded; with the fold shared with the tree's thread, for a
/// deepest frame of either side (method 4's records go to the tree's thread, method 1's not).
#[test]
fn beyond_the_depth_limit_records_go_to_the_deepest_tracked_frame_and_are_counted() {
    let folds = [
        MemoryFold::Inline,
        MemoryFold::OwnThread,
        MemoryFold::SharedWithTree,
    ];
    for memory_fold in folds {
        for deepest in [1, 4] {
            let mut aggregator = Aggregator::new(AggregatorConfig {
                max_stack_depth: 2,
                contexts: true,
                memory_fold,
                ..AggregatorConfig::default()
            });
            let events = [
                enter(0, 0),
                enter(1, deepest),
                enter(2, 2),
                memory(3, 0),
                exit(4, 2),
                memory(5, 0),
            ];
            aggregator.apply_records(1, &events, &[made(1, 8), made(1, 8)]);
            let snapshot = aggregator.snapshot();
            let case = format!("{memory_fold:?}, deepest frame {deepest}");
            assert_eq!(snapshot.memory.method(deepest).total.count, 2, "{case}");
            assert_eq!(snapshot.memory.records_over_depth, 1, "{case}");
        }
    }
}

#[test]
fn after_a_resync_records_go_to_the_resynced_stack() {
    let mut aggregator = Aggregator::new(AggregatorConfig::default());
    aggregator.apply_records(1, &[enter(0, 0), enter(MS, 1)], &[]);
    // Events were lost: the thread is now in 0 → 2.
    aggregator.resync(1, 10 * MS, &[0, 2]);
    aggregator.apply_records(1, &[memory(11 * MS, 3)], &[made(4, 64)]);
    aggregator.agent_memory_dropped(100, 1600, 0);
    let snapshot = aggregator.snapshot();
    assert_eq!(snapshot.memory.method(2).total.count, 4);
    assert_eq!(snapshot.memory.method(1).total.count, 0);
    assert_eq!(snapshot.memory.dropped.allocations, 100);
}

#[test]
fn the_window_forgets_old_allocations_and_the_totals_keep_them() {
    let mut aggregator = Aggregator::new(AggregatorConfig::default());
    aggregator.apply_records(1, &[enter(0, 0), memory(MS, 1)], &[made(10, 100)]);
    aggregator.apply_records(1, &[memory(2 * S, 1)], &[made(5, 50)]);
    let at_2s = aggregator.snapshot();
    assert_eq!(at_2s.memory.method(0).window.count, 15);
    aggregator.advance_to(4 * S);
    let at_4s = aggregator.snapshot();
    assert_eq!(at_4s.memory.method(0).window.count, 5);
    assert_eq!(at_4s.memory.method(0).total.count, 15);
    aggregator.advance_to(6 * S);
    assert!(aggregator.snapshot().memory.method(0).window.is_zero());
}

/// One thread's record stream as the generator makes it: `(kind, id, amount)` with kinds
/// 0 enter, 1 exit, 2 memory.
type Step = (u8, u32, u64, bool);

fn step() -> impl Strategy<Value = Step> {
    (0u8..3, 0u32..6, 1u64..50, any::<bool>())
}

/// The reference: replays each thread's stack (an exit closes the matching frame and any
/// above it; an exit with no match is ignored) and sums every memory record into the method
/// then on top, or outside.
fn reference(threads: &[Vec<(Event, Option<MemoryAmount>)>]) -> HashMap<u32, Amount> {
    reference_where(threads, |_| true)
}

/// Like [`reference`], counting only the records whose timestamp `counts` keeps.
fn reference_where(
    threads: &[Vec<(Event, Option<MemoryAmount>)>],
    counts: impl Fn(u64) -> bool,
) -> HashMap<u32, Amount> {
    let mut totals: HashMap<u32, Amount> = HashMap::new();
    for stream in threads {
        let mut stack: Vec<u32> = Vec::new();
        for (event, amount) in stream {
            match event.kind {
                EventKind::Enter => stack.push(event.method_id),
                EventKind::Exit => {
                    if let Some(position) = stack.iter().rposition(|&id| id == event.method_id) {
                        stack.truncate(position);
                    }
                }
                EventKind::Memory => {
                    if !counts(event.timestamp_ns) {
                        continue;
                    }
                    let owner = stack.last().copied().unwrap_or(OUTSIDE_METHODS);
                    let total = totals.entry(owner).or_default();
                    let amount = amount.expect("memory records carry amounts");
                    if amount.free {
                        total.frees += amount.count;
                        total.freed_bytes += amount.bytes;
                    } else {
                        total.count += amount.count;
                        total.bytes += amount.bytes;
                    }
                }
            }
        }
    }
    totals
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Threads interleaved in batches of any size; recursion and unmatched exits included
    /// (method ids repeat, exits are random). Records 10 ms apart stay within the 3 s window;
    /// 50 ms apart, the older ones leave it: the window holds the records of the 2^24 ns
    /// buckets it reaches. The same wherever memory records are folded (inline, on their own
    /// thread, or shared with the tree's thread when there is a tree).
    #[test]
    fn totals_and_windows_match_the_reference(
        streams in prop::collection::vec(prop::collection::vec(step(), 0..120), 1..4),
        batch in 1usize..17,
        spacing_ms in prop::sample::select(vec![10u64, 50]),
        memory_fold in prop::sample::select(vec![
            MemoryFold::Inline,
            MemoryFold::OwnThread,
            MemoryFold::SharedWithTree,
        ]),
        contexts in any::<bool>(),
    ) {
        let threads: Vec<Vec<(Event, Option<MemoryAmount>)>> = streams
            .iter()
            .map(|steps| {
                steps
                    .iter()
                    .enumerate()
                    .map(|(index, &(kind, id, count, free))| {
                        let timestamp_ns = index as u64 * spacing_ms * MS;
                        match kind {
                            0 => (enter(timestamp_ns, id), None),
                            1 => (exit(timestamp_ns, id), None),
                            _ => (
                                memory(timestamp_ns, id),
                                Some(MemoryAmount { count, bytes: count * 8, free }),
                            ),
                        }
                    })
                    .collect()
            })
            .collect();
        let mut aggregator = Aggregator::new(AggregatorConfig {
            memory_fold,
            contexts,
            ..AggregatorConfig::default()
        });
        let longest = threads.iter().map(Vec::len).max().unwrap_or(0);
        let mut start = 0;
        while start < longest {
            for (thread, stream) in threads.iter().enumerate() {
                let chunk = &stream[start.min(stream.len())..(start + batch).min(stream.len())];
                let events: Vec<Event> = chunk.iter().map(|(event, _)| *event).collect();
                let amounts: Vec<MemoryAmount> = chunk.iter().filter_map(|(_, a)| *a).collect();
                aggregator.apply_records(thread as u64 + 1, &events, &amounts);
            }
            start += batch;
        }
        let expected = reference(&threads);
        let snapshot = aggregator.snapshot();
        for method_id in (0..6).chain([OUTSIDE_METHODS]) {
            let want = expected.get(&method_id).copied().unwrap_or_default();
            prop_assert_eq!(snapshot.memory.method(method_id).total, want, "method {}", method_id);
        }
        let records = threads.iter().flatten().filter(|(_, a)| a.is_some()).count() as u64;
        prop_assert_eq!(snapshot.memory.records, records);
        // "now" is the latest timestamp seen.
        let now_ns = threads.iter().flatten().map(|(event, _)| event.timestamp_ns).max().unwrap_or(0);
        let oldest_bucket = now_ns.saturating_sub(snapshot.window_ns) >> 24;
        let in_window = reference_where(&threads, |timestamp_ns| timestamp_ns >> 24 >= oldest_bucket);
        for method_id in (0..6).chain([OUTSIDE_METHODS]) {
            let want = in_window.get(&method_id).copied().unwrap_or_default();
            prop_assert_eq!(snapshot.memory.method(method_id).window, want, "window of method {}", method_id);
        }
    }
}
