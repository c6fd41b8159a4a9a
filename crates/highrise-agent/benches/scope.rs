//! The agent's cost per enter+exit pair on the host thread.
//!
//! `cargo bench -p highrise-agent -- --warm-up-time 1 --measurement-time 3`
//!
//! - `scope/profile_fn`: a call to an `#[inline(never)]` `#[profile]` function (enter + exit),
//!   agent connected to a listener that reads and discards (the sender drains and encodes on
//!   the other core). `scope/plain_fn` is the same call without the attribute: subtract it.
//! - `scope/scope_macro`: a `scope!` in a loop body.
//! - `scope/no_viewer`: nothing listening; rings are full, every event is dropped and counted
//!   (the drop path).
//! - `scope/runtime_disabled`: `set_enabled(false)`.
//! - `tracing/*`: a span created, entered, exited and closed, through `tracing_subscriber`'s
//!   registry alone (`registry_only`) and with `highrise_agent::layer()` (`with_layer`);
//!   `tracing/enter_exit_*`: entering and exiting one existing span (the pair the layer
//!   records).
//! - `clock/quanta_raw`: one raw clock read (the hot path does one per event);
//!   `clock/quanta_now`: the same read scaled to nanoseconds (what converting on the hot path
//!   would cost; the agent converts on the sender thread instead).
//! - `reference/tls_vec_rdtsc`: the floor for this design, a bare sketch (thread-local `Vec`
//!   push of `(raw clock, id)` per event, no agent) for the same enter+exit pair.
//!
//! With `--no-default-features` (the `enable` feature off) only `scope/plain_fn` and
//! `scope/profile_fn` run: the attribute expands to nothing, so they should be equal.

use std::cell::RefCell;
use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion};
use tracing_subscriber::prelude::*;

#[path = "support/listener.rs"]
mod listener;

use listener::discard_listener;

#[highrise_agent::profile]
#[inline(never)]
fn profiled(x: u64) -> u64 {
    black_box(x)
}

#[inline(never)]
fn plain(x: u64) -> u64 {
    black_box(x)
}

/// The bare instruction, to tell the counter's own cost from quanta's.
#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
fn rdtsc() -> u64 {
    // SAFETY: RDTSC has no preconditions on x86_64 (it only reads the time-stamp counter).
    #[allow(unused_unsafe)]
    unsafe {
        core::arch::x86_64::_rdtsc()
    }
}

thread_local! {
    static SKETCH: RefCell<Vec<(u64, u32)>> = RefCell::new(Vec::with_capacity(1 << 16));
}

#[inline(always)]
fn sketch_record(clock: &quanta::Clock, word: u32) {
    SKETCH.with(|buffer| {
        let mut buffer = buffer.borrow_mut();
        if buffer.len() == buffer.capacity() {
            buffer.clear();
        }
        buffer.push((clock.raw(), word));
    });
}

fn benches(c: &mut Criterion) {
    if !cfg!(feature = "enable") {
        c.bench_function("scope/plain_fn", |b| b.iter(|| plain(black_box(1))));
        c.bench_function("scope/profile_fn", |b| b.iter(|| profiled(black_box(1))));
        return;
    }
    let clock = quanta::Clock::new();
    c.bench_function("clock/quanta_raw", |b| b.iter(|| black_box(clock.raw())));
    c.bench_function("clock/quanta_now", |b| b.iter(|| black_box(clock.now())));
    c.bench_function("clock/std_instant", |b| {
        b.iter(|| black_box(std::time::Instant::now()))
    });
    #[cfg(target_arch = "x86_64")]
    c.bench_function("clock/rdtsc_direct", |b| b.iter(|| black_box(rdtsc())));
    c.bench_function("reference/tls_vec_rdtsc", |b| {
        b.iter(|| {
            sketch_record(&clock, 2);
            let value = plain(black_box(1));
            sketch_record(&clock, 3);
            value
        })
    });

    let agent = highrise_agent::AgentBuilder::new("bench")
        .addr(discard_listener())
        .log_to_stderr(false)
        .start()
        .expect("starts");
    // Let it connect.
    for _ in 0..100 {
        if highrise_agent::stats().connected {
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    assert!(
        highrise_agent::stats().connected,
        "bench agent did not connect"
    );

    c.bench_function("scope/plain_fn", |b| b.iter(|| plain(black_box(1))));
    c.bench_function("scope/profile_fn", |b| b.iter(|| profiled(black_box(1))));
    c.bench_function("scope/scope_macro", |b| {
        b.iter(|| {
            highrise_agent::scope!("bench_scope");
            black_box(1)
        })
    });
    highrise_agent::set_enabled(false);
    c.bench_function("scope/runtime_disabled", |b| {
        b.iter(|| profiled(black_box(1)))
    });
    highrise_agent::set_enabled(true);

    let subscriber = tracing_subscriber::registry().with(highrise_agent::layer());
    tracing::subscriber::with_default(subscriber, || {
        c.bench_function("tracing/with_layer", |b| {
            b.iter(|| {
                let span = tracing::info_span!("bench_span");
                let _entered = span.enter();
                black_box(1)
            })
        });
        let span = tracing::info_span!("bench_span_kept");
        c.bench_function("tracing/enter_exit_with_layer", |b| {
            b.iter(|| {
                let _entered = span.enter();
                black_box(1)
            })
        });
    });
    tracing::subscriber::with_default(tracing_subscriber::registry(), || {
        c.bench_function("tracing/registry_only", |b| {
            b.iter(|| {
                let span = tracing::info_span!("bench_span");
                let _entered = span.enter();
                black_box(1)
            })
        });
        let span = tracing::info_span!("bench_span_kept");
        c.bench_function("tracing/enter_exit_registry_only", |b| {
            b.iter(|| {
                let _entered = span.enter();
                black_box(1)
            })
        });
    });
    let sent = highrise_agent::stats();
    drop(agent);
    eprintln!(
        "connected run: {} events sent, {} dropped",
        sent.events_sent, sent.events_dropped
    );

    // No viewer: every ring fills; the drop path.
    let agent = highrise_agent::AgentBuilder::new("bench")
        .addr("127.0.0.1:9")
        .log_to_stderr(false)
        .start()
        .expect("starts");
    c.bench_function("scope/no_viewer", |b| b.iter(|| profiled(black_box(1))));
    eprintln!(
        "no-viewer run: {} events dropped",
        highrise_agent::stats().events_dropped
    );
    drop(agent);
}

criterion_group!(scope, benches);
criterion_main!(scope);
