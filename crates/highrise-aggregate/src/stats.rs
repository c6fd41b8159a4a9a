//! Counters of everything the aggregator saw, repaired or dropped.

/// Session-level counters. Everything unusual in the stream is counted here instead of
/// panicking or being silently dropped. Returned by [`crate::Aggregator::stats`] and carried
/// in every [`crate::Snapshot`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct AggregatorStats {
    /// Events passed to [`crate::Aggregator::apply_events`] (all of them, valid or not).
    pub events: u64,
    /// Exits whose method was not on top of the stack but further down: the frames above it
    /// were closed at the exit's timestamp (exceptions unwinding, lost exits).
    pub mismatched_exits: u64,
    /// Frames closed by such unwinding (at least one per mismatched exit).
    pub unwound_frames: u64,
    /// Exits whose method was nowhere on the stack; ignored (apart from moving the thread's
    /// clock).
    pub orphan_exits: u64,
    /// Events, thread starts/ends and resyncs whose timestamp was earlier than the thread's
    /// previous one; their timestamp was raised to the previous one.
    pub clamped_timestamps: u64,
    /// Threads first seen through events or a resync rather than
    /// [`crate::Aggregator::thread_started`].
    pub threads_created_implicitly: u64,
    /// Calls to [`crate::Aggregator::resync`].
    pub resyncs: u64,
    /// Events whose method id is not below [`highrise_protocol::MAX_METHOD_ID`]; ignored.
    pub invalid_method_ids: u64,
    /// Enters beyond [`crate::AggregatorConfig::max_stack_depth`]; not tracked.
    pub stack_overflows: u64,
    /// Pieces of time or calls that arrived for buckets that had already left the window
    /// (a thread lagging more than a window behind "now"), counting a thread's accumulator
    /// whose bucket left the window before the thread moved on once; dropped, which is exact
    /// since they are outside every future window.
    pub late_contributions: u64,
    /// The agent's running total of events it dropped (see
    /// [`crate::Aggregator::agent_dropped`]).
    pub agent_events_dropped: u64,
    /// Threads currently known and not yet released (running, or ended but still inside the
    /// window).
    pub active_threads: u64,
    /// Of `active_threads`, those that ended and wait for their last interval to leave the
    /// window.
    pub ended_threads: u64,
    /// Threads released so far (ended and out of the window; release happens within 16
    /// buckets, i.e. a quarter of the window, after their last data left it).
    pub released_threads: u64,
    /// (method, thread) pairs currently tracked: pairs that ran in the window or are on a
    /// stack now.
    pub live_pairs: u64,
    /// Per-bucket records currently held (at most one per pair per bucket, plus one per
    /// bucket a long frame's inclusive time spans).
    pub bucket_entries: u64,
    /// Approximate heap bytes held by the aggregator's tables (capacity, not length).
    pub memory_bytes: u64,
}
