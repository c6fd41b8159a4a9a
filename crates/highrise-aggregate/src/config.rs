//! Configuration and the window / bucket arithmetic.

/// Shortest window [`crate::Aggregator::set_window_ns`] accepts: 0.5 s.
pub const MIN_WINDOW_NS: u64 = 500_000_000;
/// Longest window [`crate::Aggregator::set_window_ns`] accepts: 60 s.
pub const MAX_WINDOW_NS: u64 = 60_000_000_000;
/// The paper's window: 3 s.
pub const DEFAULT_WINDOW_NS: u64 = 3_000_000_000;
/// The same in seconds (what a consumer assumes before the first snapshot).
pub const DEFAULT_WINDOW_S: f32 = DEFAULT_WINDOW_NS as f32 / 1e9;
/// A window always holds at least this many buckets (and fewer than twice as many), so the
/// bucket size is at most `window_ns / 64`. See [`bucket_ns_for_window`].
pub const MIN_BUCKETS_PER_WINDOW: u64 = 64;
/// Default bound on a thread's stack depth; see [`AggregatorConfig::max_stack_depth`].
pub const DEFAULT_MAX_STACK_DEPTH: u32 = 65_536;

/// Default most nodes a calling-context tree keeps.
pub const DEFAULT_MAX_CONTEXT_NODES: u32 = 1 << 20;

/// How an [`crate::Aggregator`] is set up. Everything here can also be changed later except
/// `max_stack_depth`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AggregatorConfig {
    /// Length of the sliding window L in nanoseconds of the program's clock; clamped to
    /// [`MIN_WINDOW_NS`]`..=`[`MAX_WINDOW_NS`]. Default [`DEFAULT_WINDOW_NS`] (3 s).
    pub window_ns: u64,
    /// Frames deeper than this on one thread are not tracked (their time goes to the deepest
    /// tracked frame, as if they were not instrumented) and counted in
    /// [`crate::AggregatorStats::stack_overflows`]; this bounds memory when exits are lost.
    /// Default [`DEFAULT_MAX_STACK_DEPTH`].
    pub max_stack_depth: u32,
    /// Keep the calling-context tree ([`crate::Aggregator::contexts`]): every call path with
    /// its calls, time and allocations per class. Costs a second stack replay per event; off
    /// by default (the headless report turns it on).
    pub contexts: bool,
    /// Most nodes the calling-context tree keeps; past it, new paths are counted in their
    /// parent's "(other contexts)" node. Default [`DEFAULT_MAX_CONTEXT_NODES`].
    pub max_context_nodes: u32,
    /// Build the calling-context tree on a thread of its own, beside the windowed
    /// statistics (each batch is copied to it; reads wait for it to catch up). Default on;
    /// off builds it inline, on the caller's thread.
    pub contexts_thread: bool,
    /// Where memory records are folded. Default [`MemoryFold::Auto`].
    pub memory_fold: MemoryFold,
}

/// Where an aggregator folds memory records (`BENCHMARKS.md`, "Memory records in the
/// aggregator", has the measurements behind the choice). Reads wait for any thread involved,
/// so every placement reads back the same numbers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum MemoryFold {
    /// [`MemoryFold::OwnThread`] where the machine has a core for it beside the caller's and
    /// the tree's worker; otherwise [`MemoryFold::SharedWithTree`] where the tree has a
    /// thread of its own; otherwise [`MemoryFold::Inline`].
    #[default]
    Auto,
    /// On the caller's thread.
    Inline,
    /// On a thread of its own, started by the session's first memory record.
    OwnThread,
    /// A quarter of the methods' records on the calling-context tree's thread (which replays
    /// them anyway, and has time to spare on two cores), the rest on the caller's; inline
    /// where the tree has no thread of its own.
    SharedWithTree,
}

impl Default for AggregatorConfig {
    fn default() -> Self {
        Self {
            window_ns: DEFAULT_WINDOW_NS,
            max_stack_depth: DEFAULT_MAX_STACK_DEPTH,
            contexts: false,
            max_context_nodes: DEFAULT_MAX_CONTEXT_NODES,
            contexts_thread: true,
            memory_fold: MemoryFold::Auto,
        }
    }
}

impl AggregatorConfig {
    /// [`Self::memory_fold`] for this machine (never `Auto`); `tree_thread`: whether the
    /// tree got a thread of its own.
    pub(crate) fn memory_fold_resolved(&self, tree_thread: bool) -> MemoryFold {
        match self.memory_fold {
            MemoryFold::Auto => {
                let busy_threads = 1 + usize::from(tree_thread);
                let cores = std::thread::available_parallelism().map_or(1, usize::from);
                if cores > busy_threads {
                    MemoryFold::OwnThread
                } else if tree_thread {
                    MemoryFold::SharedWithTree
                } else {
                    MemoryFold::Inline
                }
            }
            MemoryFold::SharedWithTree if !tree_thread => MemoryFold::Inline,
            fold => fold,
        }
    }
}

/// Clamps a requested window length to the supported range.
pub fn clamp_window_ns(window_ns: u64) -> u64 {
    window_ns.clamp(MIN_WINDOW_NS, MAX_WINDOW_NS)
}

/// The bucket size W used for a (clamped) window L: the largest power of two with
/// `L / W >= 64`, so a window spans between 64 and 128 buckets. Powers of two make merging
/// buckets exact when the window grows. For the default 3 s window W = 2^25 ns ≈ 33.6 ms.
pub fn bucket_ns_for_window(window_ns: u64) -> u64 {
    let window_ns = clamp_window_ns(window_ns);
    let ratio = window_ns / MIN_BUCKETS_PER_WINDOW; // >= 7.8 ms
    1u64 << (63 - ratio.leading_zeros())
}

/// The documented accuracy of [`crate::MethodStats::elevation`] and
/// [`crate::MethodStats::inclusive_elevation`] against the exact definition over
/// `[now - L, now]`: `W / (4 L)` (at most 1/256), where W is [`bucket_ns_for_window`].
/// [`crate::MethodStats::summed_elevation`] is within `thread_count` times this.
pub fn elevation_error_bound(window_ns: u64) -> f64 {
    let window_ns = clamp_window_ns(window_ns);
    bucket_ns_for_window(window_ns) as f64 / (4.0 * window_ns as f64)
}

/// Number of bucket slots in the ring; must exceed the number of buckets a window touches
/// (at most `L / W + 2 < 130`) so that a live bucket never shares a slot with another one.
pub(crate) const RING_SLOTS: usize = 130;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bucket_sizes_keep_64_to_128_buckets_per_window() {
        for window_ns in [
            MIN_WINDOW_NS,
            700_000_000,
            1_000_000_000,
            DEFAULT_WINDOW_NS,
            10_000_000_000,
            MAX_WINDOW_NS,
        ] {
            let bucket_ns = bucket_ns_for_window(window_ns);
            assert!(bucket_ns.is_power_of_two());
            let buckets = window_ns / bucket_ns;
            assert!((64..128).contains(&buckets), "{window_ns}: {buckets}");
            assert!((buckets as usize) + 2 < RING_SLOTS);
        }
        assert_eq!(bucket_ns_for_window(DEFAULT_WINDOW_NS), 1 << 25);
    }

    #[test]
    fn window_is_clamped() {
        assert_eq!(clamp_window_ns(0), MIN_WINDOW_NS);
        assert_eq!(clamp_window_ns(u64::MAX), MAX_WINDOW_NS);
        assert!(elevation_error_bound(DEFAULT_WINDOW_NS) <= 1.0 / 256.0);
    }
}
