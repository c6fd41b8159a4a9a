//! Event throughput on the benchmarks' synthetic stream, as the best of several runs (robust on
//! a shared machine): `cargo run --release -p highrise-aggregate --example throughput -- 10000`.

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
    for _ in 0..30 {
        let start = Instant::now();
        stream.apply(&mut aggregator);
        best = best.min(start.elapsed().as_secs_f64());
        stream.shift();
    }
    let stats = aggregator.stats();
    println!(
        "methods={methods}: best {:.1} M events/s ({} events/pass); live pairs {}, memory {:.1} MiB",
        stream.events as f64 / best / 1e6,
        stream.events,
        stats.live_pairs,
        stats.memory_bytes as f64 / f64::from(1 << 20)
    );
}
