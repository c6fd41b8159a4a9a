//! `highrise-aggregate`: turns a session's event stream into per-method statistics over a
//! sliding window — the paper's building *elevation* — exactly enough, fast, in bounded
//! memory. Pure logic: no I/O, no clock reads (time comes from the events and heartbeats), no
//! engine.
//!
//! Where to start: [`Aggregator`] (feed it events, take [`Snapshot`]s), then
//! [`AggregatorConfig`]. `BENCHMARKS.md` ("Aggregator") has the measured costs. [`AlertDetector`]
//! raises alerts (a method stuck while its threads pile up, a jump, drops) from snapshots.
//! [`Multiplicities`] counts, per relation of a class diagram, the objects made with each owner.
//! [`History`] keeps a session's recent snapshots in bounded memory, to go back to.
//!
//! # Definitions
//!
//! Per session, at "now" (the latest timestamp seen) and for a window `[now - L, now]`
//! (L = [`AggregatorConfig::window_ns`], 3 s by default; the window is cut at timestamp 0):
//!
//! - **Exclusive time** of method m on thread T: the time m's frame is on top of T's stack.
//!   Time in uninstrumented code (including *excluded* methods, see
//!   [`Aggregator::set_excluded_methods`]) belongs to the nearest instrumented, non-excluded
//!   caller. A frame still open counts up to now: a method that never returns and never calls
//!   out reads 100 %.
//! - [`MethodStats::elevation`] = max over threads of exclusive time / L (the paper's
//!   multi-thread rule); [`MethodStats::summed_elevation`] = sum over threads / L.
//! - [`MethodStats::inclusive_elevation`] = max over threads of the time m is anywhere on the
//!   stack / L (recursion counted once).
//! - [`MethodStats::thread_count`]: threads on which m was on the stack during the window,
//!   including threads inside m now; [`MethodStats::parked_threads`]: those on which m was on
//!   top for at least 95 % of the window. [`MethodStats::calls`]: enters during the window.
//!
//! # Accuracy
//!
//! Time is kept in buckets of W = [`bucket_ns_for_window`]`(L)` (a power of two, L/128 < W ≤
//! L/64; 33.6 ms for 3 s). Everything up to each thread's latest event is exact per bucket;
//! open frames after it are exact; only the bucket straddling `now - L` is prorated. Hence
//! `elevation` and `inclusive_elevation` are within W / (4 L) ≤ 1/256 of the exact values
//! ([`elevation_error_bound`]), `summed_elevation` within `thread_count` times that. `calls`
//! and `thread_count` are exact for the window extended back to the start of that oldest
//! bucket (at most W longer than L). The property tests check all of this against a
//! reference that computes the definitions from the full event list.
//!
//! # Drops
//!
//! An agent whose buffer is full drops events instead of blocking its program; it then sends
//! its running drop totals ([`Aggregator::agent_dropped`]) and each affected thread's whole
//! stack ([`Aggregator::resync`]). The time between that thread's last event and the resync
//! goes to the method then on top, and calls made meanwhile are missing, so every method that
//! ran on the thread within the window is marked [`MethodStats::approximate`] until the resync
//! leaves the window. [`Snapshot::dropped_share`] says what share of the window's events the
//! agent dropped.
//!
//! # Allocations
//!
//! Protocol-version-2 agents send memory records between a thread's enters and exits
//! ([`Aggregator::apply_records`]): "the innermost open frame created 3 objects of class C,
//! 72 bytes". Each is counted for that frame's method, over the window and since the start,
//! per class and per (method, class) ([`Snapshot::memory`], [`MemorySnapshot`]). Exact: the
//! record's place in the stream says which frame made the objects. A memory record the agent
//! had to drop is lost (the agent's totals say how many, [`MemoryDrops`]); it never lands on
//! another frame.
//!
//! # Cost
//!
//! Per event: a few loads and adds on the thread's stack and one (method, thread) record. Events
//! are applied in chunks of 256: first every event's (method, thread) pair and exclusion flag
//! are looked up and the pair's record prefetched (independent lookups whose cache misses
//! overlap, and no branch on the event kind, which is as good as random), then the chunk is
//! applied in order.
//! A pair's time goes into an accumulator that always holds its thread's current bucket: the
//! first touch in a bucket appends the pair to the thread's touched list (for an enter without
//! a branch), and when the thread moves to a later bucket the list is flushed, each
//! accumulator becoming a 16-byte record of that bucket's list. Window sums are updated from those records in
//! batches, and records are subtracted when their bucket leaves the window.
//! Memory records are queued and folded per batch, on a thread of their own where the machine
//! has a core for it, else a quarter of them on the calling-context tree's thread
//! ([`MemoryFold`], `memory/worker.rs`); the tree replays the stacks on its own thread
//! (`contexts/worker.rs`). Reads wait for both, so they see every batch given before.
//!
//! Memory grows with the (method, thread) pairs that ran in the window: pairs and ended threads
//! are released at most 16 buckets after their last data left the window, so memory depends on
//! the window's activity, never on the stream's length. Bytes per pair, frame and method id,
//! and measured totals: `BENCHMARKS.md` ("Aggregator", "Memory model").

mod aggregator;
mod alerts;
mod config;
mod contexts;
mod drops;
mod edges;
mod event_engine;
mod history;
mod keyed;
mod memory;
mod methods;
mod multiplicity;
mod pair;
mod prefetch;
mod ring;
mod snapshot;
mod state_worker;
mod stats;
mod thread_stack;

pub use aggregator::Aggregator;
pub use alerts::{Alert, AlertConfig, AlertDetector, AlertKind};
pub use config::{
    bucket_ns_for_window, clamp_window_ns, elevation_error_bound, AggregatorConfig, MemoryFold,
    DEFAULT_MAX_CONTEXT_NODES, DEFAULT_MAX_STACK_DEPTH, DEFAULT_WINDOW_NS, DEFAULT_WINDOW_S,
    MAX_WINDOW_NS, MIN_BUCKETS_PER_WINDOW, MIN_WINDOW_NS,
};
pub use contexts::{ContextNode, ContextTree, OTHER_CONTEXTS};
pub use edges::{CallEdge, CallEdges, MAX_OVERFLOW_EDGES};
pub use history::{History, HistoryConfig, HistoryPoint};
pub use memory::{
    Amount, MemoryDrops, MemorySnapshot, MethodClassAmount, MethodMemory, OUTSIDE_METHODS,
};
pub use multiplicity::{Multiplicities, PartsPerOwner};
pub use snapshot::{FocusThreads, MethodStats, Snapshot, ThreadShare, DEFAULT_PARKED_SHARE};
pub use stats::AggregatorStats;

#[cfg(test)]
mod tests {
    use super::*;

    fn assert_send<T: Send>() {}

    #[test]
    fn aggregator_and_snapshot_are_send() {
        assert_send::<Aggregator>();
        assert_send::<Snapshot>();
    }
}
