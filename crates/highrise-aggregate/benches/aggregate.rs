//! Aggregator benchmarks: event throughput and snapshot cost on synthetic streams.
//!
//! Run: `cargo bench -p highrise-aggregate --bench aggregate -- --warm-up-time 1 --measurement-time 3`
//!
//! The synthetic program: `methods` methods in a fixed random call graph (each method has
//! 4 callees: 3 with nearby ids, like methods of the same class or package, and 1 anywhere);
//! 8 threads each walk it from their own root, going deeper with probability depending on the
//! depth so the stack wanders between 5 and 50 frames; 1 µs of program time between a thread's
//! events on average (1 M events/s/thread), so the 3 s window fills and slides while the
//! benchmark runs. Every thread's stream returns to depth 0 at its end, so it can be replayed
//! with shifted timestamps.

use std::collections::HashMap;
use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use highrise_aggregate::{
    Aggregator, AggregatorConfig, AlertConfig, AlertDetector, MemoryFold, Snapshot,
};
use highrise_protocol::{Event, EventKind, MemoryAmount};
use rand::rngs::SmallRng;
use rand::SeedableRng;

#[path = "support/stream.rs"]
mod stream;

use stream::{define, thread_stream, CallGraph, Stream, THREADS};

fn throughput(c: &mut Criterion) {
    let mut group = c.benchmark_group("apply_events");
    for methods in [1_000u32, 10_000, 200_000] {
        let mut stream = Stream::new(methods, 128 * 1024, 1_000, 7);
        group.throughput(Throughput::Elements(stream.events));
        let mut aggregator = Aggregator::new(AggregatorConfig::default());
        define(&mut aggregator, methods);
        // Warm up: fill a full window so expiry and pair release run in steady state.
        let passes_per_window = (3_000_000_000 / stream.span_ns + 2) as usize;
        for _ in 0..passes_per_window {
            stream.apply(&mut aggregator);
            stream.shift();
        }
        group.bench_function(BenchmarkId::new("methods", methods), |b| {
            b.iter_custom(|iterations| {
                let mut elapsed = Duration::ZERO;
                for _ in 0..iterations {
                    let start = Instant::now();
                    stream.apply(&mut aggregator);
                    elapsed += start.elapsed();
                    stream.shift();
                }
                elapsed
            });
        });
        let stats = aggregator.stats();
        eprintln!(
            "methods={methods}: live_pairs={} bucket_entries={} memory={:.1} MiB ({:.0} B/pair) mismatched={} orphans={}",
            stats.live_pairs,
            stats.bucket_entries,
            stats.memory_bytes as f64 / (1 << 20) as f64,
            stats.memory_bytes as f64 / stats.live_pairs.max(1) as f64,
            stats.mismatched_exits,
            stats.orphan_exits,
        );
    }
    group.finish();
}

/// An aggregator holding a full window of a stream over `methods` methods.
fn filled(methods: u32, disjoint_threads: bool) -> Aggregator {
    let mut aggregator = Aggregator::new(AggregatorConfig::default());
    define(&mut aggregator, methods);
    if disjoint_threads {
        // Each thread runs its own eighth of the program: about one pair per method.
        let share = methods / THREADS as u32;
        let mut rng = SmallRng::seed_from_u64(11);
        for thread in 0..THREADS {
            let graph = CallGraph::new(share, &mut rng);
            let base = thread as u32 * share;
            let batches = thread_stream(&graph, 0, 3_000_000, 1_000, &mut rng);
            for batch in batches {
                let batch: Vec<Event> = batch
                    .into_iter()
                    .map(|e| Event {
                        method_id: e.method_id + base,
                        ..e
                    })
                    .collect();
                aggregator.apply_events(thread + 1, &batch);
            }
        }
    } else {
        let stream = Stream::new(methods, 3_000_000, 1_000, 13);
        stream.apply(&mut aggregator);
    }
    aggregator
}

fn snapshots(c: &mut Criterion) {
    let mut group = c.benchmark_group("snapshot");
    group.sample_size(30);
    for (name, methods, disjoint) in [
        ("10k_methods_shared", 10_000u32, false),
        ("200k_methods_disjoint_threads", 200_000, true),
        ("200k_methods_shared", 200_000, false),
    ] {
        let mut aggregator = filled(methods, disjoint);
        let stats = aggregator.stats();
        let mut out = Snapshot::default();
        aggregator.snapshot_into(&mut out);
        eprintln!(
            "{name}: live_pairs={} bucket_entries={} memory={:.1} MiB, methods with elevation>0: {}",
            stats.live_pairs,
            stats.bucket_entries,
            stats.memory_bytes as f64 / (1 << 20) as f64,
            out.methods.iter().filter(|m| m.elevation > 0.0).count(),
        );
        group.bench_function(BenchmarkId::new("snapshot_into", name), |b| {
            b.iter(|| {
                aggregator.snapshot_into(&mut out);
                out.changed_method_ids.len()
            });
        });
        group.bench_function(BenchmarkId::new("snapshot_alloc", name), |b| {
            b.iter(|| aggregator.snapshot().methods.len());
        });
        // Alerts on that snapshot, 100 ms of program time after the last (as the viewer and
        // the report observe).
        group.bench_function(BenchmarkId::new("alerts_observe", name), |b| {
            let mut detector = AlertDetector::new(AlertConfig::default());
            let mut snapshot = out.clone();
            b.iter(|| {
                snapshot.now_ns += 100_000_000;
                detector.observe(&snapshot)
            });
        });
    }
    group.finish();
}

/// The same streams with a memory record before every other event (as agents write them:
/// a frame's counts just before its next enter or exit), 64 classes: enters, exits and memory
/// records per second together, and memory records alone. Each method makes one to three
/// classes (chosen from the method of the frame the record belongs to), as real programs do.
fn records(c: &mut Criterion) {
    records_with(c, "apply_records", AggregatorConfig::default(), true, false);
    records_with(
        c,
        "apply_records_repeating",
        AggregatorConfig::default(),
        true,
        true,
    );
    records_with(
        c,
        "apply_events_repeating",
        AggregatorConfig::default(),
        false,
        true,
    );
}

/// The same with the calling-context tree kept, as the viewer keeps it (node cap 200k): the
/// goal's "ingest + aggregation with context tracking". The tree runs on its own thread and
/// memory records are folded where `MemoryFold::Auto` puts them (the defaults); the `_inline`
/// groups do both on the aggregator's thread.
fn records_with_contexts(c: &mut Criterion) {
    for (suffix, own_threads) in [("", true), ("_inline", false)] {
        let config = AggregatorConfig {
            contexts: true,
            contexts_thread: own_threads,
            // Inline: everything on the caller's thread; otherwise as the machine's cores allow.
            memory_fold: if own_threads {
                MemoryFold::Auto
            } else {
                MemoryFold::Inline
            },
            max_context_nodes: 200_000,
            ..AggregatorConfig::default()
        };
        let name = |group: &str| format!("{group}{suffix}");
        records_with(
            c,
            &name("apply_records_contexts"),
            config.clone(),
            true,
            false,
        );
        // The same enters and exits without the memory records: the cost of a memory record
        // is the difference.
        records_with(
            c,
            &name("apply_events_contexts"),
            config.clone(),
            false,
            false,
        );
        // Threads repeating a pool of transactions: a bounded set of call paths (below the
        // cap).
        records_with(
            c,
            &name("apply_records_contexts_repeating"),
            config.clone(),
            true,
            true,
        );
        records_with(
            c,
            &name("apply_events_contexts_repeating"),
            config,
            false,
            true,
        );
    }
}

/// `memory`: whether the stream carries memory records; `repeating`: the program of
/// [`Stream::repeating`] (512 transactions of about 1000 events) instead of the endless walk.
/// `HIGHRISE_BENCH_GROUP=NAME` skips the other groups' set-up too (for profiling one);
/// `HIGHRISE_BENCH_METHODS=N[,M…]` replaces the method counts (1k and 200k);
/// `HIGHRISE_BENCH_MEMORY_FOLD=inline|thread|shared` places the memory records' fold
/// (otherwise the group's configuration decides).
fn records_with(
    c: &mut Criterion,
    name: &str,
    mut config: AggregatorConfig,
    memory: bool,
    repeating: bool,
) {
    if std::env::var("HIGHRISE_BENCH_GROUP").is_ok_and(|only| only != name) {
        return;
    }
    match std::env::var("HIGHRISE_BENCH_MEMORY_FOLD").as_deref() {
        Ok("inline") => config.memory_fold = MemoryFold::Inline,
        Ok("thread") => config.memory_fold = MemoryFold::OwnThread,
        Ok("shared") => config.memory_fold = MemoryFold::SharedWithTree,
        _ => {}
    }
    let mut group = c.benchmark_group(name);
    let sizes: Vec<u32> = match std::env::var("HIGHRISE_BENCH_METHODS") {
        Ok(list) => list.split(',').filter_map(|n| n.parse().ok()).collect(),
        Err(_) => vec![1_000, 200_000],
    };
    for methods in sizes {
        let stream = if repeating {
            Stream::repeating(methods, 128 * 1024, 1_000, 7, 512, 1_000)
        } else {
            Stream::new(methods, 128 * 1024, 1_000, 7)
        };
        // Each thread's open frames, to give a memory record the classes of the frame it
        // belongs to (the innermost open one).
        let mut stacks: HashMap<u64, Vec<u32>> = HashMap::new();
        let mut with_memory: Vec<(u64, Vec<Event>, Vec<MemoryAmount>)> = stream
            .batches
            .iter()
            .map(|(thread, batch)| {
                let stack = stacks.entry(*thread).or_default();
                let mut events = Vec::with_capacity(batch.len() * 3 / 2);
                let mut amounts = Vec::new();
                for (index, event) in batch.iter().enumerate() {
                    if memory && index % 2 == 0 {
                        // A method makes one to three of the 64 classes.
                        let frame = stack.last().copied().unwrap_or(0);
                        events.push(Event {
                            timestamp_ns: event.timestamp_ns,
                            method_id: (frame * 7 + index as u32 % 3) % 64,
                            kind: EventKind::Memory,
                        });
                        amounts.push(MemoryAmount {
                            count: 1 + index as u64 % 3,
                            bytes: 48,
                            free: index % 6 == 0,
                        });
                    }
                    match event.kind {
                        EventKind::Enter => stack.push(event.method_id),
                        EventKind::Exit => {
                            stack.pop();
                        }
                        EventKind::Memory => {}
                    }
                    events.push(*event);
                }
                (*thread, events, amounts)
            })
            .collect();
        let records: u64 = with_memory.iter().map(|(_, e, _)| e.len() as u64).sum();
        let memory_records: u64 = with_memory.iter().map(|(_, _, a)| a.len() as u64).sum();
        group.throughput(Throughput::Elements(records));
        let mut aggregator = Aggregator::new(config.clone());
        define(&mut aggregator, methods);
        let apply = |aggregator: &mut Aggregator,
                     batches: &[(u64, Vec<Event>, Vec<MemoryAmount>)]| {
            for (thread, events, amounts) in batches {
                aggregator.apply_records(*thread, events, amounts);
            }
        };
        // The next pass: the same stream, later.
        let shift = |batches: &mut Vec<(u64, Vec<Event>, Vec<MemoryAmount>)>| {
            for (_, events, _) in batches.iter_mut() {
                for event in events {
                    event.timestamp_ns += stream.span_ns;
                }
            }
        };
        let passes_per_window = (3_000_000_000 / stream.span_ns + 2) as usize;
        for _ in 0..passes_per_window {
            apply(&mut aggregator, &with_memory);
            shift(&mut with_memory);
        }
        let mut elapsed_total = Duration::ZERO;
        let mut passes = 0u64;
        group.bench_function(BenchmarkId::new("methods", methods), |b| {
            b.iter_custom(|iterations| {
                let mut elapsed = Duration::ZERO;
                for _ in 0..iterations {
                    let start = Instant::now();
                    apply(&mut aggregator, &with_memory);
                    // Waits for the tree's and the memory records' threads to catch up: their
                    // work is timed too.
                    aggregator.wait_for_workers();
                    elapsed += start.elapsed();
                    shift(&mut with_memory);
                }
                elapsed_total += elapsed;
                passes += iterations;
                elapsed
            });
        });
        let seconds = elapsed_total.as_secs_f64().max(1e-9);
        eprintln!(
            "{name} methods={methods}: {:.1} M records/s, of which {:.1} M memory records/s ({} of {} records); memory state {:.1} MiB, {} contexts",
            (records * passes) as f64 / seconds / 1e6,
            (memory_records * passes) as f64 / seconds / 1e6,
            memory_records,
            records,
            aggregator.stats().memory_bytes as f64 / (1 << 20) as f64,
            aggregator.context_nodes(),
        );
        if config.contexts {
            // What the viewer's sink pays twice a second for the call arcs.
            let reads = 5;
            let start = Instant::now();
            let mut edges = 0;
            for _ in 0..reads {
                edges = black_box(aggregator.call_edges()).map_or(0, |e| e.edges.len());
            }
            eprintln!(
                "{name} methods={methods}: call_edges() {:.2} ms per read ({edges} edges, {} contexts)",
                start.elapsed().as_secs_f64() * 1e3 / f64::from(reads),
                aggregator.context_nodes(),
            );
        }
    }
    group.finish();
}

criterion_group!(
    benches,
    throughput,
    snapshots,
    records,
    records_with_contexts
);
criterion_main!(benches);
