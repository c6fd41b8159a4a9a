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

use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use highrise_aggregate::{Aggregator, AggregatorConfig, Snapshot};
use highrise_protocol::{Event, EventKind};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

const THREADS: u64 = 8;
const BATCH_EVENTS: usize = 1024;
const MIN_DEPTH: usize = 5;
const MAX_DEPTH: usize = 50;

struct CallGraph {
    callees: Vec<[u32; 4]>,
}

impl CallGraph {
    fn new(methods: u32, rng: &mut SmallRng) -> Self {
        let callees = (0..methods)
            .map(|caller| {
                let near = |rng: &mut SmallRng| {
                    let offset = rng.gen_range(1..=256u32);
                    (caller + offset) % methods
                };
                [near(rng), near(rng), near(rng), rng.gen_range(0..methods)]
            })
            .collect();
        Self { callees }
    }
}

/// One thread's batches; its stack is empty at the end.
fn thread_stream(
    graph: &CallGraph,
    root: u32,
    events: usize,
    mean_gap_ns: u64,
    rng: &mut SmallRng,
) -> Vec<Vec<Event>> {
    let mut out = Vec::with_capacity(events + MAX_DEPTH);
    let mut stack: Vec<u32> = Vec::new();
    let mut t = 0u64;
    loop {
        let finishing = out.len() >= events;
        if finishing && stack.is_empty() {
            break;
        }
        let go_deeper = match stack.len() {
            0 => true,
            _ if finishing => false,
            depth if depth < MIN_DEPTH => true,
            depth if depth >= MAX_DEPTH => false,
            // Drift up and down between MIN_DEPTH and MAX_DEPTH.
            depth => rng.gen_bool(0.5 + 0.1 * (depth as f64 / 8.0).sin()),
        };
        t += rng.gen_range(0..=2 * mean_gap_ns);
        let (method_id, kind) = match stack.last() {
            None => (root, EventKind::Enter),
            Some(&caller) if go_deeper => (
                graph.callees[caller as usize][rng.gen_range(0..4)],
                EventKind::Enter,
            ),
            Some(&method) => (method, EventKind::Exit),
        };
        match kind {
            EventKind::Enter => stack.push(method_id),
            EventKind::Exit => {
                stack.pop();
            }
        }
        out.push(Event {
            timestamp_ns: t,
            method_id,
            kind,
        });
    }
    out.chunks(BATCH_EVENTS).map(<[Event]>::to_vec).collect()
}

/// All threads' batches, interleaved round-robin, with the span of program time they cover.
struct Stream {
    batches: Vec<(u64, Vec<Event>)>,
    span_ns: u64,
    events: u64,
}

impl Stream {
    fn new(methods: u32, events_per_thread: usize, mean_gap_ns: u64, seed: u64) -> Self {
        let mut rng = SmallRng::seed_from_u64(seed);
        let graph = CallGraph::new(methods, &mut rng);
        let per_thread: Vec<Vec<Vec<Event>>> = (0..THREADS)
            .map(|thread| {
                let root = (thread as u32 * (methods / THREADS as u32)) % methods;
                thread_stream(&graph, root, events_per_thread, mean_gap_ns, &mut rng)
            })
            .collect();
        let span_ns = per_thread
            .iter()
            .filter_map(|batches| batches.last()?.last().map(|e| e.timestamp_ns))
            .max()
            .unwrap_or(0)
            + 1;
        let mut batches = Vec::new();
        let longest = per_thread.iter().map(Vec::len).max().unwrap_or(0);
        for index in 0..longest {
            for (thread, thread_batches) in per_thread.iter().enumerate() {
                if let Some(batch) = thread_batches.get(index) {
                    batches.push((thread as u64 + 1, batch.clone()));
                }
            }
        }
        let events = batches.iter().map(|(_, b)| b.len() as u64).sum();
        Self {
            batches,
            span_ns,
            events,
        }
    }

    fn shift(&mut self) {
        for (_, batch) in &mut self.batches {
            for event in batch {
                event.timestamp_ns += self.span_ns;
            }
        }
    }

    fn apply(&self, aggregator: &mut Aggregator) {
        for (thread, batch) in &self.batches {
            aggregator.apply_events(*thread, batch);
        }
    }
}

fn define(aggregator: &mut Aggregator, methods: u32) {
    for id in 0..methods {
        aggregator.define_method(id, &format!("pkg{}.sub{}", id % 97, id % 13));
    }
}

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
    }
    group.finish();
}

criterion_group!(benches, throughput, snapshots);
criterion_main!(benches);
