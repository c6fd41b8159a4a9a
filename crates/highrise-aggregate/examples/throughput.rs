//! Event throughput and snapshot cost on the benchmarks' synthetic stream (see
//! `benches/aggregate.rs`), as the best and the median of several runs: on a shared machine
//! the best run is the one least disturbed by other processes, the median what a user sees.
//! Where Linux's `/proc/thread-self/schedstat` is readable it also gives the mean over the
//! thread's on-CPU time for all 30 passes (the scheduler updates it about once a tick, too
//! coarse for one pass), which is what an A/B comparison on a busy machine should use: it
//! leaves out the time other processes held the core (though not what they do to the shared
//! caches).
//! `cargo run --release -p highrise-aggregate --example throughput -- 10000 [extra warm-up passes]`.

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
    // Extra warm-up passes beyond one window (second argument): the ring's 130 bucket lists
    // are first filled during the first ~4.4 s of program time (33 passes), so the first
    // measured passes after a one-window warm-up still pay for page faults.
    let extra_warmup_passes: u64 = std::env::args()
        .nth(2)
        .and_then(|arg| arg.parse().ok())
        .unwrap_or(0);
    let mut stream = Stream::new(methods, 128 * 1024, 1_000, 7);
    let mut aggregator = Aggregator::new(AggregatorConfig::default());
    define(&mut aggregator, methods);
    // A full window first, so expiry and pair release run in steady state.
    for _ in 0..(3_000_000_000 / stream.span_ns + 2 + extra_warmup_passes) {
        stream.apply(&mut aggregator);
        stream.shift();
    }
    let mut pass_s = Vec::with_capacity(30);
    let passes_start_cpu_ns = on_cpu_ns();
    for _ in 0..30 {
        let start = Instant::now();
        stream.apply(&mut aggregator);
        pass_s.push(start.elapsed().as_secs_f64());
        stream.shift();
    }
    let passes_cpu_ns = on_cpu_ns()
        .zip(passes_start_cpu_ns)
        .map(|(end, start)| end - start);
    let mut snapshot = Snapshot::default();
    let mut snapshot_s = Vec::with_capacity(30);
    let snapshots_start_cpu_ns = on_cpu_ns();
    for _ in 0..30 {
        let start = Instant::now();
        aggregator.snapshot_into(&mut snapshot);
        snapshot_s.push(start.elapsed().as_secs_f64());
    }
    let snapshots_cpu_ns = on_cpu_ns()
        .zip(snapshots_start_cpu_ns)
        .map(|(end, start)| end - start);
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
    if let (Some(passes_ns), Some(snapshots_ns)) = (passes_cpu_ns, snapshots_cpu_ns) {
        println!(
            "methods={methods}: on-CPU means over the 30: {:.1} M events/s, snapshot_into {:.2} ms",
            (30 * stream.events) as f64 / passes_ns.max(1) as f64 * 1e3,
            snapshots_ns as f64 / 30.0 * 1e-6,
        );
    }
}

/// Time this thread has spent on a CPU, from Linux's scheduler statistics (first field of
/// `/proc/thread-self/schedstat`, in ns); `None` where that is not available.
fn on_cpu_ns() -> Option<u64> {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// The median and the smallest of some durations.
fn median_and_min(mut seconds: Vec<f64>) -> (f64, f64) {
    seconds.sort_by(f64::total_cmp);
    (seconds[seconds.len() / 2], seconds[0])
}
