//! Allocation counting end to end: this test binary's global allocator is
//! `highrise_agent::Allocator`; the real agent sends memory records to a real listener, and
//! replaying each thread's stream shows exactly which profiled frame made and freed what —
//! across threads, recursion, and a frame left by unwinding.
#![cfg(feature = "enable")]
// The boxes are the point: each is one allocation to count.
#![allow(clippy::vec_box)]

mod support;

use std::collections::BTreeMap;
use std::time::Duration;

use highrise_protocol::ClassKind;
use highrise_testkit::server::wait_for_end;
use support::{ended_with_goodbye, start_server, wait_connected, Item, Recorded};

#[global_allocator]
static ALLOC: highrise_agent::Allocator = highrise_agent::Allocator::system();

/// `n + 1` allocations (the vector and n boxes), `16 n` bytes.
#[highrise_agent::profile]
fn allocate(n: usize) -> Vec<Box<u64>> {
    let mut boxes = Vec::with_capacity(n);
    for i in 0..n {
        boxes.push(Box::new(i as u64));
    }
    boxes
}

/// `n + 1` frees, `16 n` bytes.
#[highrise_agent::profile]
fn release(boxes: Vec<Box<u64>>) {
    drop(boxes);
}

/// Allocates one 32-byte block per level, then recurses: `depth` frames of the same method,
/// each with its own allocation.
#[highrise_agent::profile]
fn nest(depth: u32) -> Vec<Box<[u64; 4]>> {
    let mut mine = vec![Box::new([u64::from(depth); 4])];
    if depth > 1 {
        mine.extend(nest(depth - 1));
    }
    mine
}

/// Makes `n` boxes, then unwinds without running the panic hook (`resume_unwind` with a
/// zero-sized payload, so the payload itself allocates nothing).
#[highrise_agent::profile]
fn fail_after(n: usize) {
    let boxes = allocate(n);
    std::hint::black_box(&boxes);
    std::mem::forget(boxes);
    std::panic::resume_unwind(Box::new(()));
}

/// Allocates nothing: no memory record may ever name it.
#[highrise_agent::profile]
fn idle(x: u64) -> u64 {
    std::hint::black_box(x.wrapping_mul(3))
}

/// Per (thread, method name): [created, bytes, freed, freed bytes] from memory records, each
/// given to the method on top of the thread's replayed stack at the record's place.
fn attribute(recorded: &Recorded) -> BTreeMap<(u64, String), [u64; 4]> {
    let mut by_method = BTreeMap::new();
    for (&thread_id, items) in &recorded.threads {
        let mut stack: Vec<u32> = Vec::new();
        for item in items {
            match item {
                Item::Event(event) => match event.kind {
                    highrise_protocol::EventKind::Enter => stack.push(event.method_id),
                    highrise_protocol::EventKind::Exit => {
                        if let Some(at) = stack.iter().rposition(|&id| id == event.method_id) {
                            stack.truncate(at);
                        }
                    }
                    highrise_protocol::EventKind::Memory => unreachable!(),
                },
                Item::Resync { stack: given, .. } => stack = given.clone(),
                Item::Memory { amount, .. } => {
                    let owner = stack
                        .last()
                        .map_or_else(|| "(outside)".to_string(), |&id| recorded.name_of(id));
                    let entry: &mut [u64; 4] = by_method.entry((thread_id, owner)).or_default();
                    let base = if amount.free { 2 } else { 0 };
                    entry[base] += amount.count;
                    entry[base + 1] += amount.bytes;
                }
            }
        }
    }
    by_method
}

fn method_name(function: &str) -> String {
    format!("alloc.alloc.{function}")
}

#[test]
fn every_frame_gets_exactly_its_own_allocations() {
    let server = start_server();
    let agent = highrise_agent::AgentBuilder::new("alloc-test")
        .addr(server.local_addr().to_string())
        .ring_capacity_events(1 << 18)
        .log_to_stderr(false)
        .start()
        .expect("starts");
    wait_connected();

    let sizes = [10usize, 100, 1000, 5000];
    let workers: Vec<_> = sizes
        .iter()
        .map(|&n| {
            std::thread::Builder::new()
                .name(format!("worker-{n}"))
                .spawn(move || {
                    for _ in 0..3 {
                        let boxes = allocate(n);
                        idle(n as u64);
                        release(boxes);
                    }
                    let nested = nest(50);
                    assert_eq!(nested.len(), 50);
                    drop(nested);
                    let unwound = std::panic::catch_unwind(|| fail_after(n));
                    assert!(unwound.is_err());
                })
                .expect("spawns")
        })
        .collect();
    for worker in workers {
        worker.join().expect("worker ran");
    }
    assert!(agent.flush(Duration::from_secs(10)));
    drop(agent);

    let report = wait_for_end(&server);
    assert!(ended_with_goodbye(&report), "{:?}", report.status);
    assert!(report.errors.is_empty(), "{:?}", report.errors);
    let recorded = report.sink.as_ref().expect("recorded").get().clone();
    assert_eq!(recorded.classes.len(), 1);
    assert_eq!(recorded.classes[0].kind, ClassKind::Untyped);
    assert_eq!(recorded.memory_dropped, (0, 0, 0));
    let by_method = attribute(&recorded);
    for &n in &sizes {
        let thread_id = recorded
            .thread_starts
            .iter()
            .find(|(_, name)| *name == format!("worker-{n}"))
            .map(|(id, _)| *id)
            .expect("worker thread announced");
        let of = |function: &str| {
            by_method
                .get(&(thread_id, method_name(function)))
                .copied()
                .unwrap_or_default()
        };
        let n = n as u64;
        // Three rounds, plus the round inside `fail_after`.
        assert_eq!(of("allocate"), [4 * (n + 1), 4 * 16 * n, 0, 0], "n = {n}");
        assert_eq!(of("release"), [0, 0, 3 * (n + 1), 3 * 16 * n], "n = {n}");
        assert_eq!(of("idle"), [0; 4], "idle allocates nothing, n = {n}");
        // nest: 50 frames, each a 32-byte box and a one-element vector that grows as the
        // callee's elements are appended (a reallocation counts as a free and an allocation)
        // and frees the callee's vector after taking its elements. What stays live is the 50
        // boxes and the outermost vector; every byte of the boxes is nest's.
        let nest = of("nest");
        assert!(nest[0] >= 100, "nest made its boxes and vectors: {nest:?}");
        assert_eq!(
            nest[0] - nest[2],
            51,
            "50 boxes and one vector stay live: {nest:?}"
        );
        // Unwinding allocates the exception object in the frame that unwinds (Rust's
        // runtime does that, not this test), nothing else.
        let failed = of("fail_after");
        assert!(
            (1..=2).contains(&failed[0]),
            "fail_after itself: only the unwinder's allocation: {failed:?}"
        );
    }
}
