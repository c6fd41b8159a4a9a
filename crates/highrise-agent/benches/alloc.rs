//! The cost of counting allocations ([`highrise_agent::Allocator`]) per alloc + free pair on
//! the program's thread, against the system allocator in the same run.
//!
//! `cargo bench -p highrise-agent --bench alloc -- --warm-up-time 1 --measurement-time 3`
//!
//! - `alloc/system_pair`: `System.alloc` + `System.dealloc` of 32 bytes (the baseline).
//! - `alloc/wrapper_idle_pair`: the same through the wrapper with no agent running (counting
//!   off: one relaxed load each).
//! - `alloc/counting_pair`: the wrapper with the agent running and counting, connected to a
//!   listener that discards (late flushes into the ring every sender cycle included).
//! - `alloc/scope_only` and `alloc/scope_with_pair`: a `#[profile]` call without and with a
//!   pair inside: the pair's memory records are written before the exit, so the difference
//!   minus `system_pair` is the whole added cost per pair in a profiled frame that makes one;
//!   `alloc/scope_with_8_pairs` shows it shared by the pairs of a frame (the memory records
//!   are written once per frame, whatever the number of allocations).

#![allow(unsafe_code)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion};

#[path = "support/listener.rs"]
mod listener;

use listener::discard_listener;

#[global_allocator]
static ALLOC: highrise_agent::Allocator = highrise_agent::Allocator::system();

const LAYOUT: Layout = match Layout::from_size_align(32, 8) {
    Ok(layout) => layout,
    Err(_) => panic!("valid layout"),
};

/// One allocation and its free through `allocator`.
#[inline(always)]
fn pair(allocator: &impl GlobalAlloc) {
    // SAFETY: LAYOUT has a non-zero size; the block is freed with the layout it was
    // allocated with, by the allocator that made it, and never used in between.
    unsafe {
        let block = allocator.alloc(LAYOUT);
        black_box(block);
        if !block.is_null() {
            allocator.dealloc(block, LAYOUT);
        }
    }
}

#[highrise_agent::profile]
#[inline(never)]
fn scope_only(x: u64) -> u64 {
    black_box(x)
}

#[highrise_agent::profile]
#[inline(never)]
fn scope_with_pair(x: u64) -> u64 {
    pair(&ALLOC);
    black_box(x)
}

#[highrise_agent::profile]
#[inline(never)]
fn scope_with_8_pairs(x: u64) -> u64 {
    for _ in 0..8 {
        pair(&ALLOC);
    }
    black_box(x)
}

fn benches(c: &mut Criterion) {
    let mut group = c.benchmark_group("alloc");
    group.bench_function("system_pair", |b| b.iter(|| pair(&System)));
    group.bench_function("wrapper_idle_pair", |b| b.iter(|| pair(&ALLOC)));
    let agent = highrise_agent::AgentBuilder::new("alloc-bench")
        .addr(discard_listener())
        .log_to_stderr(false)
        .start()
        .expect("agent starts");
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while !highrise_agent::stats().connected && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(5));
    }
    group.bench_function("counting_pair", |b| b.iter(|| pair(&ALLOC)));
    group.bench_function("scope_only", |b| b.iter(|| scope_only(black_box(7))));
    group.bench_function("scope_with_pair", |b| {
        b.iter(|| scope_with_pair(black_box(7)))
    });
    group.bench_function("scope_with_8_pairs", |b| {
        b.iter(|| scope_with_8_pairs(black_box(7)))
    });
    group.finish();
    let stats = highrise_agent::stats();
    eprintln!(
        "agent: {} events sent, {} dropped",
        stats.events_sent, stats.events_dropped
    );
    drop(agent);
}

criterion_group!(alloc_benches, benches);
criterion_main!(alloc_benches);
