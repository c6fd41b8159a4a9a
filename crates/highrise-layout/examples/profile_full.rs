//! Times `CityLayout::full` on the 200k benchmark shape in a loop (for `perf stat` /
//! `valgrind --tool=callgrind`): `cargo run --release -p highrise-layout --example profile_full -- 20`.

use std::time::Instant;

use highrise_layout::synthetic::{synthetic_methods, SyntheticShape};
use highrise_layout::CityLayout;

fn main() {
    let runs: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(20);
    // `keep`: hold every city until the end, as criterion's `iter_with_large_drop` does, so
    // that each layout gets fresh memory (page faults included).
    let keep = std::env::args().nth(2).is_some_and(|a| a == "keep");
    let mut kept = Vec::new();
    let methods = synthetic_methods(&SyntheticShape::BENCH_200K);
    let mut times = Vec::with_capacity(runs);
    let mut cpu = Vec::with_capacity(runs);
    let mut checksum = 0.0_f64;
    for _ in 0..runs {
        let cpu_start = thread_cpu_ns();
        let start = Instant::now();
        let city = CityLayout::full(std::hint::black_box(&methods)).expect("layout");
        times.push(start.elapsed().as_secs_f64() * 1e3);
        cpu.push((thread_cpu_ns() - cpu_start) as f64 / 1e6);
        checksum += f64::from(city.area_wu2());
        if keep {
            kept.push(city);
        } else {
            drop(city);
        }
    }
    times.sort_by(f64::total_cmp);
    cpu.sort_by(f64::total_cmp);
    println!(
        "{runs} runs: wall min {:.2} ms, median {:.2} ms; CPU (user+sys) min {:.2} ms, median {:.2} ms (checksum {checksum})",
        times[0],
        times[times.len() / 2],
        cpu[0],
        cpu[cpu.len() / 2]
    );
}

/// CPU time of this thread (user + sys), nanoseconds, from `/proc/thread-self/schedstat`
/// (0 where that is not available).
fn thread_cpu_ns() -> u64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse().ok())
        .unwrap_or(0)
}
