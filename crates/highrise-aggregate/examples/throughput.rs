//! Event throughput and snapshot cost on the benchmarks' synthetic stream (see
//! `benches/aggregate.rs`), as the best and the median of several runs: on a shared machine
//! the best run is the one least disturbed by other processes, the median what a user sees.
//! `cargo run --release -p highrise-aggregate --example throughput -- 10000`.

#[path = "../benches/support/stream.rs"]
mod stream;

use std::time::Instant;

use highrise_aggregate::{Aggregator, AggregatorConfig, Snapshot};
use stream::{define, Stream};

fn main() {
    let methods: u32 = std::env::args()
        .nth(1)
        .and_then(|arg| arg.parse().ok())
        .unwrap_or(10_000);
    let mut stream = Stream::new(methods, 128 * 1024, 1_000, 7);
    let mut aggregator = Aggregator::new(AggregatorConfig::default());
    define(&mut aggregator, methods);
    // A full window first, so expiry and pair release run in steady state.
    for _ in 0..(3_000_000_000 / stream.span_ns + 2) {
        stream.apply(&mut aggregator);
        stream.shift();
    }
    let mut pass_s = Vec::with_capacity(30);
    for _ in 0..30 {
        let start = Instant::now();
        stream.apply(&mut aggregator);
        pass_s.push(start.elapsed().as_secs_f64());
        stream.shift();
    }
    let mut snapshot = Snapshot::default();
    let mut snapshot_s = Vec::with_capacity(30);
    for _ in 0..30 {
        let start = Instant::now();
        aggregator.snapshot_into(&mut snapshot);
        snapshot_s.push(start.elapsed().as_secs_f64());
    }
    let (median_pass_s, best_pass_s) = median_and_min(pass_s);
    let (median_snapshot_s, best_snapshot_s) = median_and_min(snapshot_s);
    let stats = aggregator.stats();
    println!(
        "methods={methods}: {:.1} M events/s (best of 30 passes of {} events; median {:.1}); \
         snapshot_into {:.2} ms (best of 30; median {:.2}); live pairs {}, bucket records {}, \
         memory {:.1} MiB",
        stream.events as f64 / best_pass_s / 1e6,
        stream.events,
        stream.events as f64 / median_pass_s / 1e6,
        best_snapshot_s * 1e3,
        median_snapshot_s * 1e3,
        stats.live_pairs,
        stats.bucket_entries,
        stats.memory_bytes as f64 / f64::from(1 << 20)
    );
}

/// The median and the smallest of some durations.
fn median_and_min(mut seconds: Vec<f64>) -> (f64, f64) {
    seconds.sort_by(f64::total_cmp);
    (seconds[seconds.len() / 2], seconds[0])
}
