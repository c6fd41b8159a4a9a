//! Snapshots: what the viewer reads, and how they are computed from the engine's state.

use std::sync::Arc;

use crate::event_engine::Engine;
use crate::memory::MemorySnapshot;
use crate::pair::NO_PAIR;
use crate::prefetch::prefetch;
use crate::stats::AggregatorStats;
use crate::thread_stack::ThreadState;

/// One method's statistics over the window ending at [`Snapshot::now_ns`].
///
/// Elevations are fractions of the window length L: 1.0 means 100 %. See the crate
/// documentation for the exact definitions and the accuracy bound.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct MethodStats {
    /// The paper's elevation: the largest exclusive time of the method on any one thread
    /// within the window, divided by L. In `0.0..=1.0`.
    pub elevation: f32,
    /// Like `elevation` but with time the method spent anywhere on the stack (inclusive
    /// time; recursion counted once). In `0.0..=1.0`.
    pub inclusive_elevation: f32,
    /// Exclusive time summed over all threads, divided by L; may exceed 1.0.
    pub summed_elevation: f32,
    /// Threads on which the method was on the stack at some point in the window (including
    /// threads inside it now).
    pub thread_count: u32,
    /// Threads parked in the method: on which it was on top for at least the parked share
    /// of the window ([`DEFAULT_PARKED_SHARE`], 95 %; [`crate::Aggregator::set_parked_share`])
    /// — waiting, sleeping or spinning in it. A thread leak is these piling up.
    pub parked_threads: u32,
    /// Calls (enters) in the window, all threads together; saturates at `u32::MAX`.
    pub calls: u32,
    /// The numbers are estimates: a thread the method ran on lost events within the window
    /// (the agent's buffer was full), so the time until that thread's resync went to the
    /// method then on top, and calls made during the loss are missing.
    pub approximate: bool,
}

/// Per-method statistics at one moment, indexed by method id. Produced by
/// [`crate::Aggregator::snapshot`]; the render side only ever reads these.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Snapshot {
    /// The session's "now": the latest timestamp seen (events, thread starts/ends, resyncs,
    /// heartbeats).
    pub now_ns: u64,
    /// The window length L the elevations are relative to.
    pub window_ns: u64,
    /// The bucket size W the window is tracked with (see
    /// [`crate::bucket_ns_for_window`]).
    pub bucket_ns: u64,
    /// Indexed by method id; covers every id defined or seen so far (ids never seen read as
    /// zero).
    pub methods: Vec<MethodStats>,
    /// Method ids whose entry differs from the previous snapshot of the same aggregator, in
    /// increasing order: the "what changed" list for incremental consumers.
    pub changed_method_ids: Vec<u32>,
    /// The session counters at the time of the snapshot.
    pub stats: AggregatorStats,
    /// Events the agent dropped over about the last window (bucket granularity), as a share
    /// of the events it produced then (received plus dropped); 0.0 when none were dropped.
    pub dropped_share: f32,
    /// Allocations per method, class and (method, class), from the agent's memory records
    /// (protocol version 2); empty when the session sends none. Shared between snapshots
    /// while it does not change.
    pub memory: Arc<MemorySnapshot>,
    /// The calling-context tree, when the aggregator keeps one and the publisher attaches it
    /// (the aggregator's own snapshots leave it as it was; `highrise_aggregate_sink::AggregateSink`
    /// refreshes it a few times a second). Shared between snapshots while it does not change.
    pub contexts: Option<Arc<crate::ContextTree>>,
    /// Who called whom (with calls over about the last window), attached like `contexts`
    /// (`highrise_aggregate_sink::AggregateSink` refreshes it twice a second).
    pub edges: Option<Arc<crate::CallEdges>>,
    /// The focused method's statistics per thread ([`crate::Aggregator::set_focus`]); `None`
    /// when no method is focused.
    pub focus: Option<FocusThreads>,
}

/// One method's share of each thread it ran on within the window: what lies under its
/// [`MethodStats`] maximum and sum.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FocusThreads {
    pub method_id: u32,
    /// Threads the method was on within the window, highest exclusive share first.
    pub threads: Vec<ThreadShare>,
}

/// A method's statistics on one thread over the window.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ThreadShare {
    /// The agent's thread id (its name is in the session's thread list, e.g.
    /// `highrise_ingest::SessionReport::threads`).
    pub thread_id: u64,
    /// Exclusive time on this thread / L.
    pub elevation: f32,
    /// Time on this thread's stack / L.
    pub inclusive_elevation: f32,
    /// Enters on this thread in the window.
    pub calls: u32,
}

impl Snapshot {
    /// The window, seconds.
    pub fn window_s(&self) -> f32 {
        self.window_ns as f32 / 1e9
    }

    /// Statistics of one method; zero for ids never seen.
    pub fn method(&self, method_id: u32) -> MethodStats {
        self.methods
            .get(method_id as usize)
            .copied()
            .unwrap_or_default()
    }

    /// The `n` methods with the highest elevation, highest first (ties: lower id first).
    /// Methods at zero elevation are left out, so fewer than `n` may come back.
    pub fn top_by_elevation(&self, n: usize) -> Vec<(u32, MethodStats)> {
        let mut ranked: Vec<(u32, MethodStats)> = self
            .methods
            .iter()
            .enumerate()
            .filter(|(_, stats)| stats.elevation > 0.0)
            .map(|(method_id, stats)| (method_id as u32, *stats))
            .collect();
        let by_rank = |a: &(u32, MethodStats), b: &(u32, MethodStats)| {
            b.1.elevation.total_cmp(&a.1.elevation).then(a.0.cmp(&b.0))
        };
        if n < ranked.len() {
            if n == 0 {
                return Vec::new();
            }
            ranked.select_nth_unstable_by(n - 1, by_rank);
            ranked.truncate(n);
        }
        ranked.sort_unstable_by(by_rank);
        ranked
    }
}

/// The share of the window a method must be on top of a thread for that thread to count as
/// parked in it ([`MethodStats::parked_threads`]).
pub const DEFAULT_PARKED_SHARE: f32 = 0.95;

/// Per-method running values while a snapshot is computed (times in ns).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct MethodAccum {
    pub max_excl_ns: f32,
    pub sum_excl_ns: f32,
    pub max_incl_ns: f32,
    pub threads: u32,
    pub parked: u32,
    pub calls: u32,
}

/// `PairRecord::method_and_presence` bit: the pair counts for the thread count. Method ids
/// are below 2^24.
const PRESENT: u32 = 1 << 31;

/// How many pairs ahead pass 3 of [`SnapshotState::compute`] prefetches method accumulators.
const SCRATCH_PREFETCH_DISTANCE: usize = 16;

/// One live pair's values, on its way into its method's accumulator.
#[derive(Debug, Clone, Copy)]
struct PairRecord {
    method_and_presence: u32,
    excl_ns: f32,
    incl_ns: f32,
    calls: u32,
}

impl PairRecord {
    /// `parked_ns`: the exclusive time from which its thread is parked in the method (> 0).
    #[inline(always)]
    fn add_to(self, scratch: &mut [MethodAccum], parked_ns: f32) {
        let method_id = self.method_and_presence & !PRESENT;
        if let Some(accum) = scratch.get_mut(method_id as usize) {
            accum.max_excl_ns = accum.max_excl_ns.max(self.excl_ns);
            accum.sum_excl_ns += self.excl_ns;
            accum.max_incl_ns = accum.max_incl_ns.max(self.incl_ns);
            accum.threads += u32::from(self.method_and_presence & PRESENT != 0);
            accum.parked += u32::from(self.excl_ns >= parked_ns);
            accum.calls = accum.calls.saturating_add(self.calls);
        }
    }
}

/// The snapshot machinery's reusable buffers.
#[derive(Debug, Clone, Default)]
pub(crate) struct SnapshotState {
    scratch: Vec<MethodAccum>,
    /// Per pair: (exclusive, inclusive) ns to add, from proration and open frames; zero
    /// except at the indices in `adjusted` while a snapshot is computed.
    adjust: Vec<[f32; 2]>,
    adjusted: Vec<u32>,
    /// Per method id: ran on a thread resynced within the window (see
    /// [`MethodStats::approximate`]); empty when no thread was.
    approximate: Vec<bool>,
    /// The previous snapshot's values (for the "changed" list); updated in place.
    pub last: Vec<MethodStats>,
    pub changed: Vec<u32>,
    /// The method whose per-thread values pass 3 keeps, and those values: (pair index,
    /// exclusive ns, inclusive ns, calls) for each of its pairs present in the window.
    pub focus_method: Option<u32>,
    pub focus_pairs: Vec<(u32, f32, f32, u32)>,
    /// The parked share ([`MethodStats::parked_threads`]); `None`: [`DEFAULT_PARKED_SHARE`].
    pub parked_share: Option<f32>,
}

impl SnapshotState {
    pub(crate) fn memory_bytes(&self) -> usize {
        self.scratch.capacity() * size_of::<MethodAccum>()
            + self.adjust.capacity() * 8
            + self.adjusted.capacity() * 4
            + self.approximate.capacity()
            + self.last.capacity() * size_of::<MethodStats>()
            + self.changed.capacity() * 4
    }

    /// Recomputes `last` (and `changed`) for the engine's current "now", and writes the
    /// per-method statistics into `out` too.
    ///
    /// Cost: one pass over the records of the oldest bucket, over every thread's stack, over
    /// all live pairs and over all method ids.
    pub(crate) fn compute(
        &mut self,
        engine: &Engine,
        threads: &[ThreadState],
        out: &mut Vec<MethodStats>,
    ) {
        let clock = engine.clock;
        let now_ns = clock.now_ns;
        let window_start_ns = now_ns.saturating_sub(clock.window_ns);
        let oldest_epoch = window_start_ns >> clock.bucket_shift;
        let oldest_end_ns = (oldest_epoch + 1).saturating_mul(clock.bucket_ns);
        // Fraction of the oldest bucket inside the window; its committed time is prorated.
        let inside_fraction = (oldest_end_ns - window_start_ns) as f64 / clock.bucket_ns as f64;
        let outside_fraction = 1.0 - inside_fraction;

        let adjust = &mut self.adjust;
        let adjusted = &mut self.adjusted;
        adjust.resize(engine.pairs.len(), [0.0; 2]);
        let mut add = |pair_index: u32, excl_ns: f64, incl_ns: f64| {
            let slot = &mut adjust[pair_index as usize];
            slot[0] += excl_ns as f32;
            slot[1] += incl_ns as f32;
            adjusted.push(pair_index);
        };
        // Pass 1: remove the outside part of the oldest bucket's flushed records.
        if outside_fraction > 0.0 && oldest_epoch >= engine.ring.oldest_epoch {
            for entry in engine.ring.log(oldest_epoch) {
                add(
                    entry.pair,
                    -outside_fraction * f64::from(entry.excl_ns),
                    -outside_fraction * f64::from(entry.incl_ns),
                );
            }
        }
        // Pass 2: open frames count up to now, exactly.
        for thread in threads.iter().filter(|thread| !thread.free) {
            let stack = thread.stack();
            if let Some(top) = stack.last() {
                let from_ns = thread.last_ns.max(window_start_ns);
                if top.charge != NO_PAIR && now_ns > from_ns {
                    add(top.charge, (now_ns - from_ns) as f64, 0.0);
                }
            }
            for frame in stack.iter().filter(|frame| frame.outermost) {
                let from_ns = frame.enter_ns.max(window_start_ns);
                if now_ns > from_ns {
                    add(frame.pair, 0.0, (now_ns - from_ns) as f64);
                }
            }
        }
        // Pass 3: every live pair into its method.
        let method_count = engine.methods.len();
        self.scratch.clear();
        self.scratch.resize(method_count, MethodAccum::default());
        let pair_info = &engine.pair_info;
        let focus_method = self.focus_method.unwrap_or(u32::MAX);
        self.focus_pairs.clear();
        let parked_share = self.parked_share.unwrap_or(DEFAULT_PARKED_SHARE);
        // Above zero, so a thread without time in the method is never parked in it.
        let parked_ns = (parked_share * clock.window_ns as f32).max(1.0);
        for (pair_index, ((pair, info), adjust)) in engine
            .pairs
            .iter()
            .zip(pair_info)
            .zip(&self.adjust)
            .enumerate()
        {
            // The method accumulators are hit in method-id order, i.e. at random: start
            // loading the one a later pair needs.
            if let Some(ahead) = pair_info.get(pair_index + SCRATCH_PREFETCH_DISTANCE) {
                if let Some(accum) = self.scratch.get(ahead.method_id as usize) {
                    // Both ends: some of the 20-byte accumulators straddle two lines.
                    prefetch(&accum.max_excl_ns);
                    prefetch(&accum.calls);
                }
            }
            if info.is_free() {
                continue;
            }
            // Selects, not branches: an accumulator is empty or holds its thread's current
            // bucket, in a mix no branch predictor learns. An empty one (`NO_EPOCH`, above
            // every epoch) holds zeros; a dead one (bucket before the window) counts nothing.
            let acc_live = pair.acc_epoch >= oldest_epoch;
            let live_weight = if pair.acc_epoch == oldest_epoch {
                inside_fraction
            } else {
                1.0
            };
            let acc_weight = if acc_live { live_weight } else { 0.0 };
            let acc_mask = if acc_live { u32::MAX } else { 0 };
            // Window sums are far below 2^63 (at most ~130 buckets of u32 values); converting
            // through i64 is one instruction, u64 -> f64 is a longer sequence on x86-64.
            let excl_ns = (info.win_excl_ns as i64 as f64
                + acc_weight * f64::from(pair.acc_excl_ns)
                + f64::from(adjust[0]))
            .max(0.0) as f32;
            let incl_ns = (info.win_incl_ns as i64 as f64
                + acc_weight * f64::from(pair.acc_incl_ns)
                + f64::from(adjust[1]))
            .max(0.0) as f32;
            let acc_calls = u64::from(pair.acc_calls & acc_mask);
            let acc_incl_ns = u64::from(pair.acc_incl_ns & acc_mask);
            let calls = info.win_calls + acc_calls;
            let present =
                (pair.open_frames > 0) | (calls > 0) | (info.win_incl_ns + acc_incl_ns > 0);
            let record = PairRecord {
                method_and_presence: info.method_id | if present { PRESENT } else { 0 },
                excl_ns,
                incl_ns,
                calls: u32::try_from(calls).unwrap_or(u32::MAX),
            };
            record.add_to(&mut self.scratch, parked_ns);
            if info.method_id == focus_method && present {
                self.focus_pairs
                    .push((pair_index as u32, excl_ns, incl_ns, record.calls));
            }
        }
        for pair_index in self.adjusted.drain(..) {
            self.adjust[pair_index as usize] = [0.0; 2];
        }
        // Methods of threads that lost events within the window.
        self.approximate.clear();
        for thread in threads.iter().filter(|thread| {
            !thread.free
                && thread
                    .resynced_ns
                    .is_some_and(|at_ns| at_ns >= window_start_ns)
        }) {
            self.approximate.resize(method_count, false);
            for method_id in thread.map.method_ids() {
                if let Some(flag) = self.approximate.get_mut(method_id as usize) {
                    *flag = true;
                }
            }
        }
        // Pass 4: normalise, compare with the previous snapshot.
        let per_ns = 1.0 / clock.window_ns as f32;
        self.last.resize(method_count, MethodStats::default());
        self.changed.clear();
        out.clear();
        out.reserve(method_count);
        for (method_id, (accum, last)) in self.scratch.iter().zip(&mut self.last).enumerate() {
            let approximate = self.approximate.get(method_id).copied().unwrap_or(false)
                && (accum.threads > 0 || accum.max_incl_ns > 0.0);
            let stats = MethodStats {
                elevation: (accum.max_excl_ns * per_ns).min(1.0),
                inclusive_elevation: (accum.max_incl_ns * per_ns).min(1.0),
                summed_elevation: accum.sum_excl_ns * per_ns,
                thread_count: accum.threads,
                parked_threads: accum.parked,
                calls: accum.calls,
                approximate,
            };
            out.push(stats);
            if stats != *last {
                *last = stats;
                self.changed.push(method_id as u32);
            }
        }
    }
}
