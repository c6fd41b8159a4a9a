//! Event throughput on the benchmarks' synthetic stream, as the best of several runs, in wall
//! time and in on-CPU time of this thread (from `/proc/thread-self/schedstat`, so time the
//! thread spent preempted on a busy shared machine does not count):
//! `cargo run --release -p highrise-aggregate --example throughput -- 10000`.

#[path = "../benches/support/stream.rs"]
mod stream;

use std::time::Instant;

use highrise_aggregate::{Aggregator, AggregatorConfig};
use stream::{define, Stream};

fn main() {
    let methods: u32 = std::env::args()
        .nth(1)
        .and_then(|arg| arg.parse().ok())
        .unwrap_or(10_000);
    let mut stream = Stream::new(methods, 128 * 1024, 1_000, 7);
    let mut aggregator = Aggregator::new(AggregatorConfig::default());
    define(&mut aggregator, methods);
    for _ in 0..(3_000_000_000 / stream.span_ns + 2) {
        stream.apply(&mut aggregator);
        stream.shift();
    }
    let mut best = f64::INFINITY;
    let mut best_cpu = f64::INFINITY;
    for _ in 0..30 {
        let start = Instant::now();
        let start_cpu = on_cpu_s();
        stream.apply(&mut aggregator);
        best_cpu = best_cpu.min(on_cpu_s() - start_cpu);
        best = best.min(start.elapsed().as_secs_f64());
        stream.shift();
    }
    let stats = aggregator.stats();
    println!(
        "methods={methods}: best {:.1} M events/s wall, {:.1} M events/s on-CPU ({} events/pass); live pairs {}, memory {:.1} MiB",
        stream.events as f64 / best / 1e6,
        stream.events as f64 / best_cpu / 1e6,
        stream.events,
        stats.live_pairs,
        stats.memory_bytes as f64 / f64::from(1 << 20)
    );
}

/// Seconds this thread has run on a CPU (0 where schedstat is unavailable).
fn on_cpu_s() -> f64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|text| text.split_whitespace().next()?.parse::<u64>().ok())
        .map_or(0.0, |ns| ns as f64 / 1e9)
}
