//! [`Aggregator`]: the public face of one session's aggregation.

use std::collections::HashMap;

use highrise_protocol::{Event, EventKind, MemoryAmount};

use crate::config::{clamp_window_ns, AggregatorConfig};
use crate::contexts::{ContextTree, ContextsHandle};
use crate::drops::DropHistory;
use crate::edges::CallEdges;
use crate::event_engine::Engine;
use crate::memory::FoldShare;
use crate::pair::{Pair, PairInfo, FREE_METHOD};
use crate::snapshot::{FocusThreads, Snapshot, SnapshotState, ThreadShare};
use crate::stats::AggregatorStats;
use crate::thread_stack::ThreadState;

/// Turns one session's event stream into per-method window statistics.
///
/// Feed it with [`define_method`](Self::define_method), [`thread_started`](Self::thread_started),
/// [`apply_events`](Self::apply_events) (the hot path), [`resync`](Self::resync),
/// [`thread_ended`](Self::thread_ended) and [`advance_to`](Self::advance_to) (heartbeats), in
/// any interleaving of threads as long as each thread's own calls are in its time order; read
/// it with [`snapshot`](Self::snapshot) and [`stats`](Self::stats). Nothing here panics on bad
/// input: unusual input is repaired and counted in [`AggregatorStats`].
///
/// Time comes only from the stream: "now" is the largest timestamp seen. Memory is bounded
/// by (method, thread) pairs active in the window times buckets, whatever the stream's length.
#[derive(Debug, Clone)]
pub struct Aggregator {
    engine: Engine,
    threads: Vec<ThreadState>,
    free_threads: Vec<u32>,
    thread_lookup: HashMap<u64, u32>,
    snapshots: SnapshotState,
    drops: DropHistory,
    contexts: Option<ContextsHandle>,
}

impl Default for Aggregator {
    fn default() -> Self {
        Self::new(AggregatorConfig::default())
    }
}

impl Aggregator {
    /// An empty aggregator; the window is clamped to 0.5 s..=60 s.
    pub fn new(config: AggregatorConfig) -> Self {
        let contexts = config.contexts.then(|| {
            ContextsHandle::new(
                config.max_context_nodes,
                config.max_stack_depth.max(1),
                config.contexts_thread,
            )
        });
        let tree_thread = contexts.as_ref().is_some_and(ContextsHandle::on_own_thread);
        Self {
            engine: Engine::new(
                config.window_ns,
                config.max_stack_depth.max(1),
                config.memory_fold_resolved(tree_thread),
            ),
            threads: Vec::new(),
            free_threads: Vec::new(),
            thread_lookup: HashMap::new(),
            snapshots: SnapshotState::default(),
            drops: DropHistory::default(),
            contexts,
        }
    }

    /// Records a method's package (dot-separated path, `""` for the root package), used by
    /// package exclusion. Methods that appear in events without a definition work too, as
    /// package `""`. Ids at or above [`highrise_protocol::MAX_METHOD_ID`] are ignored and
    /// counted in [`AggregatorStats::invalid_method_ids`].
    pub fn define_method(&mut self, method_id: u32, package: &str) {
        if !self.engine.methods.define(method_id, package) {
            self.engine.counters.invalid_method_ids += 1;
        }
    }

    /// A thread began (or was first announced) at `timestamp_ns`. A thread id that had
    /// ended but not yet been released is revived.
    pub fn thread_started(&mut self, thread_id: u64, timestamp_ns: u64) {
        let thread_index = self.thread_index(thread_id, false);
        let thread = &mut self.threads[thread_index as usize];
        thread.ended = false;
        let timestamp_ns = clamp_timestamp(&mut self.engine, thread, timestamp_ns);
        self.engine.advance_thread(thread, timestamp_ns);
        self.engine.advance_now(timestamp_ns);
        self.settle();
    }

    /// A thread ended at `timestamp_ns`: its open frames close there. Its statistics stay
    /// until its last interval leaves the window; it is released soon after (within 16
    /// buckets). An end for an unknown
    /// thread only moves "now".
    pub fn thread_ended(&mut self, thread_id: u64, timestamp_ns: u64) {
        let Some(&thread_index) = self.thread_lookup.get(&thread_id) else {
            self.engine.advance_now(timestamp_ns);
            self.settle();
            return;
        };
        let thread = &mut self.threads[thread_index as usize];
        let timestamp_ns = clamp_timestamp(&mut self.engine, thread, timestamp_ns);
        if let Some(contexts) = self.contexts.as_mut() {
            contexts.thread_ended(thread_id, timestamp_ns);
        }
        self.engine.advance_thread(thread, timestamp_ns);
        while thread.depth > 0 {
            self.engine.pop_frame(thread, timestamp_ns);
        }
        thread.phantom_depth = 0;
        thread.ended = true;
        self.engine.advance_now(timestamp_ns);
        self.release_thread_if_done(thread_index);
        self.settle();
    }

    /// The hot path: one thread's batch of decoded events, in that thread's time order.
    /// Batches of different threads may arrive in any order (roughly in time). Unknown threads
    /// are created; exits that do not match the top of the stack unwind to the matching frame
    /// (or are ignored when there is none); timestamps that go backwards are clamped. All of
    /// it is counted in [`AggregatorStats`].
    pub fn apply_events(&mut self, thread_id: u64, events: &[Event]) {
        if events.is_empty() {
            return;
        }
        if let Some(contexts) = self.contexts.as_mut() {
            contexts.apply(thread_id, events, &[]);
        }
        let thread_index = self.thread_index(thread_id, true);
        let thread = &mut self.threads[thread_index as usize];
        thread.ended = false;
        self.engine.apply_events(thread, thread_index, events, &[]);
        self.settle();
    }

    /// Like [`apply_events`](Self::apply_events) for a batch of protocol-version-2 records:
    /// `events` may hold [`EventKind::Memory`] records, whose amounts are `amounts` in order
    /// (one per memory record). Each memory record belongs to the thread's innermost open
    /// frame at that point of the stream (at depth 0 to [`crate::OUTSIDE_METHODS`]; beyond the
    /// stack-depth limit to the deepest tracked frame), read back through
    /// [`Snapshot::memory`]. Extra memory records without amounts are ignored.
    pub fn apply_records(&mut self, thread_id: u64, events: &[Event], amounts: &[MemoryAmount]) {
        if amounts.is_empty() && events.iter().all(|e| e.kind != EventKind::Memory) {
            self.apply_events(thread_id, events);
            return;
        }
        if let Some(contexts) = self.contexts.as_mut() {
            contexts.apply(thread_id, events, amounts);
        }
        let thread_index = self.thread_index(thread_id, true);
        let thread = &mut self.threads[thread_index as usize];
        thread.ended = false;
        self.engine
            .apply_events(thread, thread_index, events, amounts);
        if let Some(contexts) = self.contexts.as_mut() {
            self.engine.memory.hand_shared(contexts);
        }
        self.settle();
    }

    /// The agent's running totals of memory counts it could not send (`MemoryDropped`);
    /// lower totals than earlier ones are ignored. Read back in [`Snapshot::memory`].
    pub fn agent_memory_dropped(&mut self, allocations: u64, bytes: u64, frees: u64) {
        self.engine.memory.dropped(allocations, bytes, frees);
    }

    /// After the agent dropped events: `stack` (outermost first) is the thread's complete
    /// stack at `timestamp_ns`. Frames of the current stack that are a common prefix of
    /// `stack` stay open (with their original enter time); the others close at
    /// `timestamp_ns`; the rest of `stack` opens at `timestamp_ns` without counting calls.
    /// Counted in [`AggregatorStats::resyncs`].
    pub fn resync(&mut self, thread_id: u64, timestamp_ns: u64, stack: &[u32]) {
        let thread_index = self.thread_index(thread_id, true);
        let thread = &mut self.threads[thread_index as usize];
        thread.ended = false;
        let timestamp_ns = clamp_timestamp(&mut self.engine, thread, timestamp_ns);
        self.engine.advance_thread(thread, timestamp_ns);
        thread.phantom_depth = 0;
        let common = thread
            .stack()
            .iter()
            .zip(stack)
            .take_while(|(frame, method_id)| frame.method_id == **method_id)
            .count();
        while thread.depth as usize > common {
            self.engine.pop_frame(thread, timestamp_ns);
        }
        for &method_id in &stack[common..] {
            let pair_index = self.engine.lookup_pair(thread, thread_index, method_id);
            let excluded = self.engine.methods.is_excluded(method_id);
            self.engine
                .enter(thread, method_id, pair_index, timestamp_ns, false, excluded);
        }
        thread.resynced_ns = Some(timestamp_ns);
        if let Some(contexts) = self.contexts.as_mut() {
            contexts.resync(thread_id, timestamp_ns, stack);
        }
        self.engine.counters.resyncs += 1;
        self.engine.advance_now(timestamp_ns);
        self.settle();
    }

    /// The agent's running total of events it dropped (its buffer was full), from its
    /// `Dropped` message; a lower total than a previous one is ignored. Read back as
    /// [`Snapshot::dropped_share`] and [`AggregatorStats::agent_events_dropped`].
    pub fn agent_dropped(&mut self, events_dropped: u64) {
        self.drops.events_dropped = self.drops.events_dropped.max(events_dropped);
        self.sample_drops();
    }

    /// Heartbeat: moves "now" to `now_ns` if that is later (never backward). Open frames keep
    /// counting up to the new "now"; buckets that left the window are dropped.
    pub fn advance_to(&mut self, now_ns: u64) {
        self.engine.advance_now(now_ns);
        self.settle();
    }

    /// Changes the window length L live (clamped to 0.5 s..=60 s). History is kept: when the
    /// bucket size grows (longer window) old buckets merge exactly; when it shrinks, each old
    /// bucket's content is spread evenly over the new buckets it covers, so for one window
    /// after the change the accuracy bound is that of the old bucket size. A longer window
    /// does not bring back history that had already left the shorter one.
    pub fn set_window_ns(&mut self, window_ns: u64) {
        let window_ns = clamp_window_ns(window_ns);
        if window_ns == self.engine.clock.window_ns {
            return;
        }
        if self.engine.set_window_ns(window_ns) {
            let shift = self.engine.clock.bucket_shift;
            for thread in self.threads.iter_mut().filter(|thread| !thread.free) {
                thread.set_epoch(thread.last_ns, shift);
            }
        }
        self.settle();
    }

    /// Makes exactly these methods transparent (replacing the previous method list): their
    /// exclusive time goes to the nearest non-excluded caller on the stack, as if they were
    /// not instrumented. Takes effect on each thread from its latest event on; time already
    /// accumulated keeps the attribution it had (no replay), so an excluded method's
    /// elevation decays to zero over one window. Calls, inclusive time and thread counts of
    /// excluded methods are still reported.
    pub fn set_excluded_methods(&mut self, method_ids: &[u32]) {
        self.engine.methods.set_excluded_ids(method_ids);
        self.recharge_all();
    }

    /// Makes every method in these packages transparent (replacing the previous package
    /// list); `"a.b"` covers package `a.b` and its sub-packages `a.b.*`, and `""` covers the
    /// root package (and methods never defined). Same semantics as
    /// [`set_excluded_methods`](Self::set_excluded_methods); both lists apply together.
    pub fn set_excluded_packages(&mut self, packages: &[String]) {
        self.engine.methods.set_excluded_packages(packages);
        self.recharge_all();
    }

    /// The statistics of every method at the current "now". Cost: linear in live
    /// (method, thread) pairs plus method ids (see BENCHMARKS.md).
    pub fn snapshot(&mut self) -> Snapshot {
        let mut snapshot = Snapshot::default();
        self.snapshot_into(&mut snapshot);
        snapshot
    }

    /// Like [`snapshot`](Self::snapshot) but reuses `out`'s buffers (no allocation once they
    /// are large enough).
    pub fn snapshot_into(&mut self, out: &mut Snapshot) {
        self.engine.sum_pending();
        self.snapshots
            .compute(&self.engine, &self.threads, &mut out.methods);
        out.now_ns = self.engine.clock.now_ns;
        out.window_ns = self.engine.clock.window_ns;
        out.bucket_ns = self.engine.clock.bucket_ns;
        out.changed_method_ids.clear();
        out.changed_method_ids
            .extend_from_slice(&self.snapshots.changed);
        out.stats = self.stats();
        self.sample_drops();
        out.dropped_share = self.drops.share(out.now_ns, out.window_ns);
        out.memory = self.engine.memory.snapshot(
            out.now_ns,
            out.window_ns,
            self.contexts.as_mut().map(|c| c as &mut dyn FoldShare),
        );
        out.focus = self.snapshots.focus_method.map(|method_id| {
            let per_ns = 1.0 / out.window_ns.max(1) as f32;
            let mut threads: Vec<ThreadShare> = self
                .snapshots
                .focus_pairs
                .iter()
                .filter_map(|&(pair_index, excl_ns, incl_ns, calls)| {
                    let thread_index = *self.engine.pair_thread.get(pair_index as usize)?;
                    let thread = self.threads.get(thread_index as usize)?;
                    Some(ThreadShare {
                        thread_id: thread.thread_id,
                        elevation: (excl_ns * per_ns).min(1.0),
                        inclusive_elevation: (incl_ns * per_ns).min(1.0),
                        calls,
                    })
                })
                .collect();
            threads.sort_by(|a, b| {
                b.elevation
                    .total_cmp(&a.elevation)
                    .then(b.inclusive_elevation.total_cmp(&a.inclusive_elevation))
                    .then(a.thread_id.cmp(&b.thread_id))
            });
            FocusThreads { method_id, threads }
        });
    }

    /// Asks later snapshots for one method's per-thread statistics ([`Snapshot::focus`]), or
    /// for none. Cost: one comparison per live pair in each snapshot.
    pub fn set_focus(&mut self, method_id: Option<u32>) {
        self.snapshots.focus_method = method_id;
    }

    /// The share of the window (0–1) a method must be on top of a thread for the thread to
    /// count in its [`crate::MethodStats::parked_threads`]; default
    /// [`crate::DEFAULT_PARKED_SHARE`]. Set it to the stuck alert's threshold
    /// ([`crate::AlertConfig::stuck_elevation`]) when that is not the default.
    pub fn set_parked_share(&mut self, share: f32) {
        self.snapshots.parked_share = Some(if share.is_finite() {
            share.clamp(0.0, 1.0)
        } else {
            crate::DEFAULT_PARKED_SHARE
        });
    }

    /// The calling-context tree so far (cumulative since the session started), when
    /// [`AggregatorConfig::contexts`] is on: every call path with its calls, time and
    /// allocations per class. Cost: linear in its nodes.
    pub fn contexts(&self) -> Option<ContextTree> {
        self.contexts.as_ref().map(|contexts| contexts.export())
    }

    /// Who called whom, when [`AggregatorConfig::contexts`] is on: every caller → callee pair
    /// with its calls since the start and over about the last window (measured against an
    /// earlier call of this one about a window before: call it regularly, as the viewer's
    /// sink does twice a second). Cost: linear in the tree's nodes.
    pub fn call_edges(&mut self) -> Option<CallEdges> {
        let window_ns = self.engine.clock.window_ns;
        self.contexts
            .as_mut()
            .map(|contexts| contexts.edges(window_ns))
    }

    /// Changes whenever the calling-context tree does (`None` when it is off): whether a new
    /// [`Aggregator::contexts`] export would differ from the last.
    pub fn contexts_generation(&self) -> Option<u64> {
        self.contexts.as_ref().map(ContextsHandle::generation)
    }

    /// Waits until the worker threads (the calling-context tree's and the memory records',
    /// see [`AggregatorConfig::contexts_thread`] and [`AggregatorConfig::memory_fold`]) have
    /// applied every batch given so far. Reads do this themselves; benchmarks time it.
    pub fn wait_for_workers(&mut self) {
        self.engine.memory.wait();
        if let Some(contexts) = &self.contexts {
            contexts.measure();
        }
    }

    /// Nodes in the calling-context tree (0 when it is off).
    pub fn context_nodes(&self) -> usize {
        self.contexts
            .as_ref()
            .map_or(0, |contexts| contexts.measure().0)
    }

    /// The session counters.
    pub fn stats(&self) -> AggregatorStats {
        let mut stats = self.engine.counters;
        let live_threads = self.threads.iter().filter(|thread| !thread.free);
        let (mut active, mut ended, mut thread_bytes) = (0u64, 0u64, 0usize);
        for thread in live_threads {
            active += 1;
            ended += u64::from(thread.ended);
            thread_bytes += thread.memory_bytes();
        }
        stats.agent_events_dropped = self.drops.events_dropped;
        stats.active_threads = active;
        stats.ended_threads = ended;
        stats.live_pairs = (self.engine.pairs.len() - self.engine.free_pairs.len()) as u64;
        stats.bucket_entries = self.engine.ring.entry_count() as u64;
        stats.memory_bytes = (thread_bytes
            + self.threads.capacity() * size_of::<ThreadState>()
            + self.thread_lookup.capacity() * 24
            + self.engine.pairs.capacity() * size_of::<Pair>()
            + self.engine.pair_info.capacity() * size_of::<PairInfo>()
            + self.engine.pair_thread.capacity() * 4
            + self.engine.free_pairs.capacity() * 4
            + self.engine.release_candidates.capacity() * 4
            + self.engine.ring.memory_bytes()
            + self.engine.methods.memory_bytes()
            + self.snapshots.memory_bytes()
            + self.engine.memory.memory_bytes()
            + self
                .contexts
                .as_ref()
                .map_or(0, |contexts| contexts.measure().1)) as u64;
        stats
    }

    /// Every live thread's open stack, outermost method first, as `(thread_id, method ids)`,
    /// in thread-slot order; ended threads are left out. Frames entered beyond
    /// [`AggregatorConfig::max_stack_depth`] are not tracked and so not listed. Used to start a
    /// recording mid-session (a `Resync` per thread makes the recording self-contained).
    pub fn open_stacks(&self) -> Vec<(u64, Vec<u32>)> {
        self.threads
            .iter()
            .filter(|thread| !thread.free && !thread.ended)
            .map(|thread| {
                let stack = thread.stack().iter().map(|frame| frame.method_id).collect();
                (thread.thread_id, stack)
            })
            .collect()
    }

    /// The session's "now" (latest timestamp seen).
    pub fn now_ns(&self) -> u64 {
        self.engine.clock.now_ns
    }

    /// The current window length L.
    pub fn window_ns(&self) -> u64 {
        self.engine.clock.window_ns
    }

    /// The current bucket size W (see [`crate::bucket_ns_for_window`]).
    pub fn bucket_ns(&self) -> u64 {
        self.engine.clock.bucket_ns
    }

    // ---------------------------------------------------------------- internals

    fn sample_drops(&mut self) {
        let clock = self.engine.clock;
        self.drops.sample(
            clock.now_ns,
            self.engine.counters.events,
            clock.window_ns,
            clock.bucket_ns,
        );
    }

    fn thread_index(&mut self, thread_id: u64, implicit: bool) -> u32 {
        if let Some(&index) = self.thread_lookup.get(&thread_id) {
            return index;
        }
        if implicit {
            self.engine.counters.threads_created_implicitly += 1;
        }
        let thread = ThreadState::new(thread_id, self.engine.clock.bucket_ns);
        let index = match self.free_threads.pop() {
            Some(index) => {
                self.threads[index as usize] = thread;
                index
            }
            None => {
                self.threads.push(thread);
                (self.threads.len() - 1) as u32
            }
        };
        self.thread_lookup.insert(thread_id, index);
        index
    }

    fn recharge_all(&mut self) {
        for thread in self.threads.iter_mut().filter(|thread| !thread.free) {
            self.engine.recharge_stack(thread);
        }
    }

    /// Releases pairs that hold nothing any more, and ended threads left without pairs.
    fn settle(&mut self) {
        if !self.engine.release_candidates.is_empty() {
            self.engine.sum_pending();
        }
        while let Some(pair_index) = self.engine.release_candidates.pop() {
            if !self.engine.is_unused(pair_index) {
                continue;
            }
            let pair = self.engine.pair_info[pair_index as usize];
            self.engine.pairs[pair_index as usize].clear_accumulator();
            let thread_index = self.engine.pair_thread[pair_index as usize];
            if let Some(thread) = self.threads.get_mut(thread_index as usize) {
                thread.map.remove(pair.method_id);
            }
            self.engine.pair_info[pair_index as usize].method_id = FREE_METHOD;
            self.engine.free_pairs.push(pair_index);
            self.release_thread_if_done(thread_index);
        }
        self.shrink_if_idle();
    }

    fn release_thread_if_done(&mut self, thread_index: u32) {
        let Some(thread) = self.threads.get_mut(thread_index as usize) else {
            return;
        };
        if thread.free || !thread.ended || thread.depth > 0 || thread.map.len() > 0 {
            return;
        }
        self.thread_lookup.remove(&thread.thread_id);
        *thread = ThreadState {
            free: true,
            ..ThreadState::default()
        };
        self.free_threads.push(thread_index);
        self.engine.counters.released_threads += 1;
    }

    /// Gives memory back when most pair slots are free (after a burst of activity).
    fn shrink_if_idle(&mut self) {
        let pairs = &mut self.engine.pairs;
        if pairs.len() >= 1024 && self.engine.free_pairs.len() == pairs.len() {
            pairs.clear();
            pairs.shrink_to_fit();
            self.engine.pair_info.clear();
            self.engine.pair_info.shrink_to_fit();
            self.engine.pair_thread.clear();
            self.engine.pair_thread.shrink_to_fit();
            self.engine.free_pairs.clear();
            self.engine.free_pairs.shrink_to_fit();
        }
    }
}

/// Raises a timestamp earlier than the thread's clock to it, counting the repair.
fn clamp_timestamp(engine: &mut Engine, thread: &ThreadState, timestamp_ns: u64) -> u64 {
    if timestamp_ns < thread.last_ns {
        engine.counters.clamped_timestamps += 1;
        thread.last_ns
    } else {
        timestamp_ns
    }
}
