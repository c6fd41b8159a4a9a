//! Allocation counts under drops: a program allocates in a loop while no viewer listens and
//! its rings (64 slots) overflow. Lost counts are counted (`MemoryDropped`) and never land
//! on another frame: a method that allocates nothing never gets a count, and no method gets
//! more than it made.
#![cfg(feature = "enable")]

mod support;

use std::collections::BTreeMap;
use std::time::Duration;

use highrise_testkit::server::wait_for_end;
use support::{free_port, start_server_on, wait_connected, Item};

#[global_allocator]
static ALLOC: highrise_agent::Allocator = highrise_agent::Allocator::system();

/// One 8-byte box, freed at once: one allocation and one free.
#[highrise_agent::profile]
fn churn(i: u64) -> u64 {
    let boxed = std::hint::black_box(Box::new(i));
    *boxed
}

#[highrise_agent::profile]
fn idle(i: u64) -> u64 {
    std::hint::black_box(i + 1)
}

#[test]
fn lost_counts_are_counted_and_never_misattributed() {
    const CALLS: u64 = 200_000;
    let port = free_port();
    let agent = highrise_agent::AgentBuilder::new("alloc-drops-test")
        .addr(format!("127.0.0.1:{port}"))
        .ring_capacity_events(64)
        .reconnect_backoff(Duration::from_millis(10), Duration::from_millis(50))
        .log_to_stderr(false)
        .start()
        .expect("starts");
    let server = start_server_on(port);
    wait_connected();
    let worker = std::thread::spawn(|| {
        let mut sum = 0;
        for i in 0..CALLS {
            sum += churn(i) + idle(i);
        }
        sum
    });
    assert!(worker.join().expect("ran") > 0);
    assert!(agent.flush(Duration::from_secs(10)));
    drop(agent);

    let report = wait_for_end(&server);
    assert!(report.errors.is_empty(), "{:?}", report.errors);
    let recorded = report.sink.as_ref().expect("recorded").get().clone();
    assert!(
        report.stats.agent_events_dropped > 0,
        "a 64-slot ring at this rate drops"
    );
    let mut by_method: BTreeMap<String, [u64; 2]> = BTreeMap::new();
    for items in recorded.threads.values() {
        let mut stack: Vec<u32> = Vec::new();
        for item in items {
            match item {
                Item::Event(event) => match event.kind {
                    highrise_protocol::EventKind::Enter => stack.push(event.method_id),
                    _ => {
                        if let Some(at) = stack.iter().rposition(|&id| id == event.method_id) {
                            stack.truncate(at);
                        }
                    }
                },
                Item::Resync { stack: given, .. } => stack = given.clone(),
                Item::Memory { amount, .. } => {
                    let owner = stack
                        .last()
                        .map_or_else(|| "(outside)".into(), |&id| recorded.name_of(id));
                    let entry = by_method.entry(owner).or_default();
                    entry[usize::from(amount.free)] += amount.count;
                }
            }
        }
    }
    let churned = by_method
        .get("alloc_drops.alloc_drops.churn")
        .copied()
        .unwrap_or_default();
    let idled = by_method
        .get("alloc_drops.alloc_drops.idle")
        .copied()
        .unwrap_or_default();
    assert_eq!(idled, [0, 0], "idle allocates nothing: {by_method:?}");
    assert!(churned[0] <= CALLS && churned[1] <= CALLS, "{churned:?}");
    assert!(churned[0] > 0, "some counts arrive: {by_method:?}");
    let (allocations_dropped, _, frees_dropped) = recorded.memory_dropped;
    // The worker's churn allocations either arrived or were counted as lost (the main
    // thread and the harness may add their own lost counts, never fewer).
    assert!(
        churned[0] + allocations_dropped >= CALLS,
        "{} arrived + {allocations_dropped} dropped < {CALLS}",
        churned[0]
    );
    assert!(churned[1] + frees_dropped >= CALLS);
    assert_eq!(
        report.stats.agent_allocations_dropped, allocations_dropped,
        "ingest keeps the same totals"
    );
}
