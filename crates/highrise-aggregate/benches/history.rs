//! The timeline's cost: memory per session per minute of program time, the time to
//! keep a sample, and the time to rebuild a moment, for cities of 4k and 200k methods of which
//! a given share changes between two samples (4 per second).
//!
//! `cargo bench -p highrise-aggregate --bench history` prints the memory table first, then
//! criterion's timings.

use std::hint::black_box;

use criterion::{criterion_group, BenchmarkId, Criterion};
use highrise_aggregate::{History, HistoryConfig, MethodStats, Snapshot};

const SAMPLE_NS: u64 = 250_000_000;

/// Snapshots of `methods` methods, every one active, `changed_percent` of them different
/// from one snapshot to the next (a deterministic rotation).
fn snapshots(methods: usize, changed_percent: usize, count: usize) -> Vec<Snapshot> {
    let mut stats: Vec<MethodStats> = (0..methods)
        .map(|id| MethodStats {
            elevation: (id % 100) as f32 / 100.0,
            inclusive_elevation: (id % 100) as f32 / 100.0,
            summed_elevation: (id % 100) as f32 / 100.0,
            thread_count: 1,
            parked_threads: 0,
            calls: id as u32,
            approximate: false,
        })
        .collect();
    let changed = methods * changed_percent / 100;
    (0..count)
        .map(|step| {
            // A different slice of methods each time, spread over the ids.
            for k in 0..changed {
                let id = (k * 7919 + step * 104_729) % methods;
                stats[id].calls = stats[id].calls.wrapping_add(1);
                stats[id].elevation = (stats[id].elevation + 0.01) % 1.0;
            }
            Snapshot {
                now_ns: (step as u64 + 1) * SAMPLE_NS,
                window_ns: 3_000_000_000,
                bucket_ns: 33_554_432,
                methods: stats.clone(),
                ..Snapshot::default()
            }
        })
        .collect()
}

const CASES: [(usize, usize); 6] = [
    (4_000, 5),
    (4_000, 50),
    (200_000, 1),
    (200_000, 10),
    (200_000, 50),
    (200_000, 100),
];

fn print_memory_per_minute() {
    println!("history memory, one minute of program time at 4 samples/s (default config):");
    println!(
        "{:>9} {:>9} {:>12} {:>14}",
        "methods", "changed", "MiB/minute", "minutes in cap"
    );
    for (methods, changed_percent) in CASES {
        let mut history = History::new(HistoryConfig {
            // Keep everything: measure, not evict.
            max_bytes: usize::MAX,
            span_ns: u64::MAX,
            ..HistoryConfig::default()
        });
        for snapshot in snapshots(methods, changed_percent, 240) {
            history.push(&snapshot);
        }
        let per_minute = history.memory_bytes() as f64 / (1 << 20) as f64;
        let cap = HistoryConfig::default().max_bytes as f64 / (1 << 20) as f64;
        println!(
            "{methods:>9} {:>8}% {per_minute:>12.1} {:>14.1}",
            changed_percent,
            (cap / per_minute).min(10.0)
        );
    }
}

fn push_and_rebuild(c: &mut Criterion) {
    let mut group = c.benchmark_group("history");
    for (methods, changed_percent) in CASES {
        let all = snapshots(methods, changed_percent, 80);
        let id = format!("{methods}/{changed_percent}%");
        group.bench_function(BenchmarkId::new("push", &id), |b| {
            b.iter_batched_ref(
                || {
                    let mut history = History::new(HistoryConfig::default());
                    for snapshot in &all[..20] {
                        history.push(snapshot);
                    }
                    history
                },
                // One delta sample (5 s after the keyframe).
                |history| history.push(&all[20]),
                criterion::BatchSize::LargeInput,
            );
        });
        let mut history = History::new(HistoryConfig::default());
        for snapshot in &all {
            history.push(snapshot);
        }
        // The worst moment: the last sample of a segment (its keyframe and 39 deltas).
        let at_ns = all[39].now_ns;
        group.bench_function(BenchmarkId::new("at", &id), |b| {
            b.iter(|| black_box(history.at(black_box(at_ns))));
        });
    }
    group.finish();
}

criterion_group!(benches, push_and_rebuild);

fn main() {
    print_memory_per_minute();
    benches();
    Criterion::default().configure_from_args().final_summary();
}
