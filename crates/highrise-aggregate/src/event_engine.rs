//! The event engine: everything the hot path touches except the thread table, so that a
//! thread (`&mut ThreadState`) and the engine (`&mut Engine`) can be borrowed side by side.
//!
//! Time accounting is lazy: a thread's exclusive time since its previous event is charged to
//! the pair of its top frame (or the nearest non-excluded caller) when the next event arrives;
//! inclusive time is charged when the outermost frame of a (method, thread) pair closes.
//! Charges go into the pair's accumulator for the thread's current bucket (the pair is noted
//! in the thread's touched list, flushed into bucket records when the thread moves on, see
//! [`Engine::touch`]); anything that crosses bucket boundaries takes the cold path
//! ([`Engine::charge_interval`]).

use highrise_protocol::{Event, EventKind, MemoryAmount};

use crate::config::MemoryFold;
use crate::config::{bucket_ns_for_window, clamp_window_ns, RING_SLOTS};
use crate::memory::{MemoryHandle, OUTSIDE_METHODS};
use crate::methods::Methods;
use crate::pair::{Pair, PairInfo, NO_EPOCH, NO_PAIR};
use crate::prefetch::prefetch;
use crate::ring::{Entry, Ring};
use crate::stats::AggregatorStats;
use crate::thread_stack::{Frame, ThreadState};

/// Which accumulator an interval is charged to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TimeKind {
    Exclusive,
    Inclusive,
}

/// The session clock: "now" and the window / bucket geometry.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Clock {
    pub now_ns: u64,
    pub window_ns: u64,
    pub bucket_ns: u64,
    pub bucket_shift: u32,
}

impl Clock {
    pub(crate) fn new(window_ns: u64) -> Self {
        let window_ns = clamp_window_ns(window_ns);
        let bucket_ns = bucket_ns_for_window(window_ns);
        Self {
            now_ns: 0,
            window_ns,
            bucket_ns,
            bucket_shift: bucket_ns.trailing_zeros(),
        }
    }

    /// Oldest bucket overlapping the window `[now - L, now]` (the window is cut at 0).
    pub(crate) fn oldest_live_epoch(&self) -> u64 {
        self.now_ns.saturating_sub(self.window_ns) >> self.bucket_shift
    }
}

#[derive(Debug, Clone)]
pub(crate) struct Engine {
    pub clock: Clock,
    pub ring: Ring,
    /// Hot and cold halves of the pairs, same index.
    pub pairs: Vec<Pair>,
    pub pair_info: Vec<PairInfo>,
    /// Per pair: its thread's index (only needed when the pair is released).
    pub pair_thread: Vec<u32>,
    pub free_pairs: Vec<u32>,
    pub methods: Methods,
    pub counters: AggregatorStats,
    /// Pairs that may have become releasable (no bucket records, no open frames); checked
    /// and released by the aggregator outside the hot loop.
    pub release_candidates: Vec<u32>,
    pub max_stack_depth: u32,
    buckets_since_sweep: u64,
    /// Allocation counts from memory records (protocol version 2).
    pub(crate) memory: MemoryHandle,
}

/// Expired buckets between two sweeps for dead accumulators and unused pairs (a pair is
/// released at most this many buckets after its last data left the window).
const SWEEP_EVERY_BUCKETS: u64 = 16;

/// How many records ahead the passes over bucket records prefetch their pairs' cold halves.
const RECORD_PREFETCH_DISTANCE: usize = 16;

/// Free room the touched list is given when it grows.
const TOUCHED_SLACK: usize = 2 * CHUNK_EVENTS;

/// Events per chunk of [`Engine::apply_events`]: small enough that a chunk's pairs stay in
/// cache between the lookup pass and the apply pass.
const CHUNK_EVENTS: usize = 256;

impl Engine {
    pub(crate) fn new(window_ns: u64, max_stack_depth: u32, memory_fold: MemoryFold) -> Self {
        Self {
            clock: Clock::new(window_ns),
            ring: Ring::default(),
            pairs: Vec::new(),
            pair_info: Vec::new(),
            pair_thread: Vec::new(),
            free_pairs: Vec::new(),
            methods: Methods::default(),
            counters: AggregatorStats::default(),
            release_candidates: Vec::new(),
            max_stack_depth,
            buckets_since_sweep: 0,
            memory: MemoryHandle::new(memory_fold),
        }
    }

    // ---------------------------------------------------------------- the hot path

    /// Applies one thread's batch of events, in that thread's time order.
    ///
    /// Works in chunks of [`CHUNK_EVENTS`]: first the pair of every enter is looked up (the
    /// lookups are independent, so their cache misses overlap), then the events are applied
    /// in order with the pairs at hand.
    ///
    /// Memory records ([`EventKind::Memory`], protocol version 2) may sit between the events;
    /// `amounts` holds theirs in order. Each goes to the innermost open frame at its place.
    pub(crate) fn apply_events(
        &mut self,
        thread: &mut ThreadState,
        thread_index: u32,
        events: &[Event],
        amounts: &[MemoryAmount],
    ) {
        self.counters.events += events.len().saturating_sub(amounts.len()) as u64;
        let mut next_amount = 0usize;
        // The pair of each event of the chunk being applied.
        let mut chunk_pairs = [NO_PAIR; CHUNK_EVENTS];
        // Whether each event's method is excluded: loaded here, where the loads are
        // independent, rather than in the apply pass where a miss holds everything up.
        let mut chunk_excluded = [false; CHUNK_EVENTS];
        for chunk in events.chunks(CHUNK_EVENTS) {
            // Loading each pair's hot half here (independent loads whose misses overlap)
            // leaves it in cache for the apply pass. Exits are looked up too (their pair is
            // on the stack, in cache): a branch on the event kind, which is as good as random,
            // costs more than the lookup.
            // A memory record's id is a class: its lookup is of an id no method has (a select,
            // not a branch), so that it prefetches nothing.
            let lookup_id = |event: &Event| {
                if event.kind == EventKind::Memory {
                    u32::MAX
                } else {
                    event.method_id
                }
            };
            for event in chunk {
                thread.map.prefetch(lookup_id(event));
            }
            for ((event, slot), excluded) in
                chunk.iter().zip(&mut chunk_pairs).zip(&mut chunk_excluded)
            {
                let mut pair_index = thread.map.get_or_none(lookup_id(event));
                if pair_index == NO_PAIR && event.kind == EventKind::Enter {
                    pair_index = self.new_pair(thread, thread_index, event.method_id);
                }
                if let Some(pair) = self.pairs.get(pair_index as usize) {
                    // A quarter of the 24-byte records straddle two cache lines.
                    prefetch(&pair.acc_epoch);
                    prefetch(&pair.open_frames);
                }
                *slot = pair_index;
                // After `new_pair`, which makes a new method id known (and so its flag).
                *excluded = self.methods.is_excluded(event.method_id);
            }
            for ((event, &pair_index), &excluded) in
                chunk.iter().zip(&chunk_pairs).zip(&chunk_excluded)
            {
                let mut timestamp_ns = event.timestamp_ns;
                if timestamp_ns < thread.last_ns {
                    timestamp_ns = thread.last_ns;
                    self.counters.clamped_timestamps += 1;
                }
                if timestamp_ns >= thread.epoch_end_ns {
                    self.advance_thread_across_buckets(thread, timestamp_ns);
                } else if timestamp_ns != thread.last_ns {
                    let depth = thread.depth as usize;
                    if depth > 0 {
                        let charge = thread.frames[depth - 1].charge;
                        if charge != NO_PAIR {
                            // Within one bucket, so the difference is below 2^29.
                            let elapsed_ns = (timestamp_ns - thread.last_ns) as u32;
                            self.add_exclusive_now(thread, charge, elapsed_ns);
                        }
                    }
                    thread.last_ns = timestamp_ns;
                }
                match event.kind {
                    EventKind::Enter => {
                        self.enter(
                            thread,
                            event.method_id,
                            pair_index,
                            timestamp_ns,
                            true,
                            excluded,
                        );
                    }
                    EventKind::Exit => self.exit(thread, event.method_id, timestamp_ns),
                    EventKind::Memory => {
                        if let Some(&amount) = amounts.get(next_amount) {
                            next_amount += 1;
                            self.memory_record(thread, event.method_id, amount, timestamp_ns);
                        }
                    }
                }
            }
        }
        self.advance_now(thread.last_ns);
        self.memory
            .batch_ended(self.clock.now_ns, self.clock.window_ns);
    }

    /// One memory record: to the innermost tracked frame (beyond the depth limit, counted), or
    /// outside profiled methods at depth 0.
    #[inline]
    fn memory_record(
        &mut self,
        thread: &ThreadState,
        class_id: u32,
        amount: MemoryAmount,
        timestamp_ns: u64,
    ) {
        let method_id = match thread.stack().last() {
            Some(frame) => frame.method_id,
            None => OUTSIDE_METHODS,
        };
        if thread.phantom_depth > 0 {
            self.memory.records_over_depth += 1;
        }
        // "now" reaches this record's time at the end of the batch at the latest.
        let now_ns = self.clock.now_ns.max(timestamp_ns);
        self.memory
            .push(method_id, class_id, amount, timestamp_ns, now_ns);
    }

    /// Adds exclusive time to `pair` in the thread's current bucket.
    #[inline(always)]
    fn add_exclusive_now(&mut self, thread: &mut ThreadState, pair_index: u32, elapsed_ns: u32) {
        self.touch_likely_done(thread, pair_index);
        // Below 2^30: a pair's accumulator holds at most one bucket of its thread's time.
        self.pairs[pair_index as usize].acc_excl_ns += elapsed_ns;
    }

    /// Makes `pair`'s accumulator the one of its thread's current bucket, noting the pair in
    /// the thread's touched list on its first touch in the bucket. No branch on whether it is
    /// the first touch (at 200k methods about half the touches are): the pair is always
    /// written at the end of the list, and the list grows only if it was.
    ///
    /// Invariant: an accumulator is either empty (`acc_epoch` [`NO_EPOCH`], zero values) or
    /// holds its thread's current bucket (or a bucket its thread has not left yet), and then
    /// the pair is in its thread's touched list.
    #[inline(always)]
    fn touch(&mut self, thread: &mut ThreadState, pair_index: u32) {
        let epoch = thread.epoch;
        let pair = &mut self.pairs[pair_index as usize];
        let fresh = pair.acc_epoch != epoch;
        pair.acc_epoch = epoch;
        let len = thread.touched_len;
        if len < thread.touched.len() {
            thread.touched[len] = pair_index;
            thread.touched_len = len + usize::from(fresh);
        } else if fresh {
            self.touched_overflow(thread, pair_index);
        }
    }

    /// [`touch`](Self::touch) for a pair that was most likely touched in this bucket already:
    /// the top frame's pair charged with exclusive time (touched when it was entered or last
    /// charged), or a closing frame entered in this bucket (touched by its enter). A branch
    /// that is nearly always predicted costs less than the branch-free append's stores.
    #[inline(always)]
    fn touch_likely_done(&mut self, thread: &mut ThreadState, pair_index: u32) {
        if self.pairs[pair_index as usize].acc_epoch != thread.epoch {
            self.touch_first(thread, pair_index);
        }
    }

    #[cold]
    #[inline(never)]
    fn touch_first(&mut self, thread: &mut ThreadState, pair_index: u32) {
        self.touch(thread, pair_index);
    }

    /// The touched list is full: drops entries that are stale (pairs flushed, released or
    /// now another thread's) or repeated, grows it if that is not enough, and appends.
    #[cold]
    #[inline(never)]
    fn touched_overflow(&mut self, thread: &mut ThreadState, pair_index: u32) {
        self.compact_touched(thread);
        if thread.touched_len + TOUCHED_SLACK > thread.touched.len() {
            let len = (2 * thread.touched_len + TOUCHED_SLACK).max(thread.touched.len());
            thread.touched.resize(len, NO_PAIR);
        }
        thread.touched[thread.touched_len] = pair_index;
        thread.touched_len += 1;
    }

    /// Keeps in the touched list only the thread's own pairs whose accumulator holds the
    /// thread's current bucket, each once. Afterwards the list is no longer than the thread's
    /// method → pair map.
    fn compact_touched(&mut self, thread: &mut ThreadState) {
        /// Temporarily marks a pair already kept.
        const KEPT: u64 = NO_EPOCH - 1;
        let epoch = thread.epoch;
        let mut kept = 0;
        for index in 0..thread.touched_len {
            let pair_index = thread.touched[index];
            let (Some(pair), Some(info)) = (
                self.pairs.get_mut(pair_index as usize),
                self.pair_info.get(pair_index as usize),
            ) else {
                continue;
            };
            if pair.acc_epoch == epoch
                && !info.is_free()
                && thread.map.get(info.method_id) == Some(pair_index)
            {
                pair.acc_epoch = KEPT;
                thread.touched[kept] = pair_index;
                kept += 1;
            }
        }
        for &pair_index in &thread.touched[..kept] {
            self.pairs[pair_index as usize].acc_epoch = epoch;
        }
        thread.touched_len = kept;
    }

    /// The thread leaves its current bucket: every accumulator it filled there becomes a
    /// record of that bucket (one sequential pass; nothing on the per-event path). Stale
    /// entries (see [`compact_touched`](Self::compact_touched)) are skipped. Accumulators of a
    /// bucket that has already left the window are dropped (and counted).
    fn flush_touched(&mut self, thread: &mut ThreadState) {
        let epoch = thread.epoch;
        let len = std::mem::take(&mut thread.touched_len);
        let live = epoch >= self.ring.oldest_epoch && epoch <= self.ring.newest_epoch;
        let Engine {
            pairs,
            ring,
            counters,
            ..
        } = self;
        let log = ring.log_mut(epoch);
        let touched = &thread.touched[..len];
        for (index, &pair_index) in touched.iter().enumerate() {
            if let Some(&ahead) = touched.get(index + RECORD_PREFETCH_DISTANCE) {
                if let Some(pair) = pairs.get(ahead as usize) {
                    prefetch(pair);
                }
            }
            let Some(pair) = pairs.get_mut(pair_index as usize) else {
                continue;
            };
            if pair.acc_epoch != epoch {
                continue;
            }
            if live {
                log.push(Entry {
                    pair: pair_index,
                    excl_ns: pair.acc_excl_ns,
                    incl_ns: pair.acc_incl_ns,
                    calls: pair.acc_calls,
                });
            } else if pair.acc_excl_ns != 0 || pair.acc_incl_ns != 0 || pair.acc_calls != 0 {
                counters.late_contributions += 1;
            }
            pair.clear_accumulator();
        }
        // Give memory back after a burst of activity.
        let wanted = thread.map.len() + TOUCHED_SLACK;
        if thread.touched.len() > 4 * wanted {
            thread.touched.truncate(2 * wanted);
            thread.touched.shrink_to_fit();
        }
    }

    /// The pair of (`method_id`, thread), created if needed; [`NO_PAIR`] for an invalid
    /// method id.
    #[inline(always)]
    pub(crate) fn lookup_pair(
        &mut self,
        thread: &mut ThreadState,
        thread_index: u32,
        method_id: u32,
    ) -> u32 {
        match thread.map.get(method_id) {
            Some(pair_index) => pair_index,
            None => self.new_pair(thread, thread_index, method_id),
        }
    }

    #[cold]
    #[inline(never)]
    fn new_pair(&mut self, thread: &mut ThreadState, thread_index: u32, method_id: u32) -> u32 {
        if !self.methods.ensure(method_id) {
            return NO_PAIR;
        }
        let info = PairInfo::new(method_id);
        let pair_index = match self.free_pairs.pop() {
            Some(index) => {
                self.pairs[index as usize] = Pair::EMPTY;
                self.pair_info[index as usize] = info;
                self.pair_thread[index as usize] = thread_index;
                index
            }
            None => {
                self.pairs.push(Pair::EMPTY);
                self.pair_info.push(info);
                self.pair_thread.push(thread_index);
                (self.pairs.len() - 1) as u32
            }
        };
        thread.map.insert_new(method_id, pair_index);
        pair_index
    }

    /// Pushes a frame for `method_id` (whose pair is `pair_index`, from
    /// [`lookup_pair`](Self::lookup_pair)) entered at `timestamp_ns`, the thread's current
    /// time. `count_call` is false for frames that a resync opens (they were not seen
    /// entering); `excluded` says whether the method is excluded from the city (`Methods::is_excluded`).
    #[inline(always)]
    pub(crate) fn enter(
        &mut self,
        thread: &mut ThreadState,
        method_id: u32,
        pair_index: u32,
        timestamp_ns: u64,
        count_call: bool,
        excluded: bool,
    ) {
        if pair_index == NO_PAIR {
            self.counters.invalid_method_ids += 1;
            return;
        }
        if thread.phantom_depth > 0 || thread.depth >= self.max_stack_depth {
            self.enter_too_deep(thread, pair_index);
            return;
        }
        let depth = thread.depth as usize;
        let pair = &mut self.pairs[pair_index as usize];
        let outermost = pair.open_frames == 0;
        pair.open_frames += 1;
        if count_call {
            self.touch(thread, pair_index);
            let pair = &mut self.pairs[pair_index as usize];
            pair.acc_calls = pair.acc_calls.saturating_add(1);
        }
        let charge = if !excluded {
            pair_index
        } else if depth > 0 {
            thread.frames[depth - 1].charge
        } else {
            NO_PAIR
        };
        let frame = Frame {
            method_id,
            pair: pair_index,
            charge,
            outermost,
            enter_ns: timestamp_ns,
        };
        if depth < thread.frames.len() {
            thread.frames[depth] = frame;
        } else {
            thread.frames.push(frame);
        }
        thread.depth += 1;
    }

    #[cold]
    #[inline(never)]
    fn enter_too_deep(&mut self, thread: &mut ThreadState, pair_index: u32) {
        thread.phantom_depth += 1;
        self.counters.stack_overflows += 1;
        self.release_if_unused(pair_index);
    }

    /// Queues the pair for release if it holds nothing (checked again when released).
    #[inline(always)]
    fn release_if_unused(&mut self, pair_index: u32) {
        if self.pairs[pair_index as usize].open_frames == 0
            && self.pair_info[pair_index as usize].log_refs == 0
        {
            self.release_candidates.push(pair_index);
        }
    }

    #[inline(always)]
    pub(crate) fn exit(&mut self, thread: &mut ThreadState, method_id: u32, timestamp_ns: u64) {
        let depth = thread.depth as usize;
        if thread.phantom_depth > 0 {
            thread.phantom_depth -= 1;
        } else if depth > 0 && thread.frames[depth - 1].method_id == method_id {
            self.pop_frame(thread, timestamp_ns);
        } else {
            self.exit_not_on_top(thread, method_id, timestamp_ns);
        }
    }

    #[cold]
    #[inline(never)]
    fn exit_not_on_top(&mut self, thread: &mut ThreadState, method_id: u32, timestamp_ns: u64) {
        let depth = thread.depth as usize;
        match thread.frames[..depth]
            .iter()
            .rposition(|frame| frame.method_id == method_id)
        {
            Some(position) => {
                self.counters.mismatched_exits += 1;
                while thread.depth as usize > position + 1 {
                    self.pop_frame(thread, timestamp_ns);
                    self.counters.unwound_frames += 1;
                }
                self.pop_frame(thread, timestamp_ns);
            }
            None => self.counters.orphan_exits += 1,
        }
    }

    /// Closes the top frame at `timestamp_ns`, which must be the thread's current time.
    #[inline(always)]
    pub(crate) fn pop_frame(&mut self, thread: &mut ThreadState, timestamp_ns: u64) {
        thread.depth -= 1;
        let frame = thread.frames[thread.depth as usize];
        self.pairs[frame.pair as usize].open_frames -= 1;
        if frame.outermost && timestamp_ns > frame.enter_ns {
            if frame.enter_ns >= thread.epoch_start_ns {
                // Within the bucket: below 2^30.
                let elapsed_ns = (timestamp_ns - frame.enter_ns) as u32;
                self.touch_likely_done(thread, frame.pair);
                self.pairs[frame.pair as usize].acc_incl_ns += elapsed_ns;
            } else {
                self.charge_interval(
                    thread,
                    frame.pair,
                    frame.enter_ns,
                    timestamp_ns,
                    TimeKind::Inclusive,
                );
            }
        }
        // A pair left unused by this is released by the next sweep (checking here would
        // touch its cold half on nearly every exit).
    }

    // ---------------------------------------------------------------- cold paths

    /// Moves the thread's clock to `timestamp_ns` (not before its current time), charging its
    /// top frame's exclusive time; handles any number of bucket crossings.
    pub(crate) fn advance_thread(&mut self, thread: &mut ThreadState, timestamp_ns: u64) {
        if timestamp_ns >= thread.epoch_end_ns {
            self.advance_thread_across_buckets(thread, timestamp_ns);
        } else if timestamp_ns > thread.last_ns {
            if let Some(&top) = thread.stack().last() {
                if top.charge != NO_PAIR {
                    let elapsed_ns = (timestamp_ns - thread.last_ns) as u32;
                    self.add_exclusive_now(thread, top.charge, elapsed_ns);
                }
            }
            thread.last_ns = timestamp_ns;
        }
    }

    #[cold]
    #[inline(never)]
    fn advance_thread_across_buckets(&mut self, thread: &mut ThreadState, timestamp_ns: u64) {
        // "now" first, so the ring holds the thread's new bucket.
        self.advance_now(timestamp_ns);
        self.flush_touched(thread);
        let last_ns = thread.last_ns;
        thread.last_ns = timestamp_ns;
        thread.set_epoch(timestamp_ns, self.clock.bucket_shift);
        if let Some(&top) = thread.stack().last() {
            if top.charge != NO_PAIR && timestamp_ns > last_ns {
                self.charge_interval(
                    thread,
                    top.charge,
                    last_ns,
                    timestamp_ns,
                    TimeKind::Exclusive,
                );
            }
        }
    }

    /// Charges `[from_ns, to_ns)` to `pair` (one of `thread`'s), split over the buckets it
    /// covers: the thread's current bucket through the accumulator, earlier ones as records;
    /// the parts before the window are dropped.
    pub(crate) fn charge_interval(
        &mut self,
        thread: &mut ThreadState,
        pair_index: u32,
        from_ns: u64,
        to_ns: u64,
        kind: TimeKind,
    ) {
        if to_ns <= from_ns {
            return;
        }
        let shift = self.clock.bucket_shift;
        let first_epoch = (from_ns >> shift).max(self.ring.oldest_epoch);
        let last_epoch = (to_ns - 1) >> shift;
        if (from_ns >> shift) < first_epoch {
            self.counters.late_contributions += 1;
        }
        for epoch in first_epoch..=last_epoch {
            let start_ns = (epoch << shift).max(from_ns);
            let end_ns = epoch
                .checked_add(1)
                .and_then(|next| next.checked_mul(self.clock.bucket_ns))
                .unwrap_or(u64::MAX)
                .min(to_ns);
            // Within one bucket: below 2^30.
            let piece_ns = (end_ns - start_ns) as u32;
            if epoch == thread.epoch {
                self.touch(thread, pair_index);
                let pair = &mut self.pairs[pair_index as usize];
                match kind {
                    TimeKind::Exclusive => pair.acc_excl_ns += piece_ns,
                    TimeKind::Inclusive => pair.acc_incl_ns += piece_ns,
                }
                continue;
            }
            let entry = match kind {
                TimeKind::Exclusive => Entry {
                    pair: pair_index,
                    excl_ns: piece_ns,
                    ..Entry::default()
                },
                TimeKind::Inclusive => Entry {
                    pair: pair_index,
                    incl_ns: piece_ns,
                    ..Entry::default()
                },
            };
            self.add_to_bucket(epoch, entry);
        }
    }

    /// Adds `entry`'s values to its pair in bucket `epoch` as a record of that bucket (the
    /// accumulators only ever take the hot paths' values, so that they need no bucket check).
    pub(crate) fn add_to_bucket(&mut self, epoch: u64, entry: Entry) {
        if epoch < self.ring.oldest_epoch {
            self.counters.late_contributions += 1;
            return;
        }
        self.push_record(epoch, entry);
    }

    /// A record with values, straight into bucket `epoch` (live) and the pair's window sums.
    pub(crate) fn push_record(&mut self, epoch: u64, entry: Entry) {
        self.ring.log_mut(epoch).push(entry);
    }

    /// Adds every record not yet summed to its pair's window sums and reference count. Must
    /// run before anything reads the sums or decides on releasing a pair.
    pub(crate) fn sum_pending(&mut self) {
        for epoch in self.ring.oldest_epoch..=self.ring.newest_epoch {
            let slot = Ring::slot(epoch);
            let log = &self.ring.logs[slot];
            let summed = self.ring.summed[slot];
            if summed == log.len() {
                continue;
            }
            let pending = &log[summed..];
            for (index, entry) in pending.iter().enumerate() {
                // Independent random updates: start loading a later one's line.
                if let Some(ahead) = pending.get(index + RECORD_PREFETCH_DISTANCE) {
                    if let Some(info) = self.pair_info.get(ahead.pair as usize) {
                        prefetch(info);
                    }
                }
                let info = &mut self.pair_info[entry.pair as usize];
                info.win_excl_ns += u64::from(entry.excl_ns);
                info.win_incl_ns += u64::from(entry.incl_ns);
                info.win_calls += u64::from(entry.calls);
                info.log_refs += 1;
            }
            self.ring.summed[slot] = log.len();
        }
    }

    /// Appends the accumulator to its bucket's records and adds it to the window sums; a dead
    /// accumulator (bucket out of the window) is just cleared.
    pub(crate) fn flush_accumulator(&mut self, pair_index: u32) {
        let pair = &mut self.pairs[pair_index as usize];
        if pair.acc_epoch == NO_EPOCH {
            return;
        }
        if pair.acc_epoch < self.ring.oldest_epoch {
            pair.clear_accumulator();
            return;
        }
        let entry = Entry {
            pair: pair_index,
            excl_ns: pair.acc_excl_ns,
            incl_ns: pair.acc_incl_ns,
            calls: pair.acc_calls,
        };
        let epoch = pair.acc_epoch;
        pair.clear_accumulator();
        self.ring.log_mut(epoch).push(entry);
    }

    /// Moves "now" forward (never back) and expires the buckets that left the window.
    pub(crate) fn advance_now(&mut self, timestamp_ns: u64) {
        if timestamp_ns <= self.clock.now_ns {
            return;
        }
        self.clock.now_ns = timestamp_ns;
        let previous_newest = self.ring.newest_epoch;
        self.ring.newest_epoch = timestamp_ns >> self.clock.bucket_shift;
        let oldest = self.clock.oldest_live_epoch();
        if oldest > self.ring.oldest_epoch {
            let expire_end = oldest.min(previous_newest.saturating_add(1));
            for epoch in self.ring.oldest_epoch..expire_end {
                self.expire_bucket(epoch);
            }
            self.ring.oldest_epoch = oldest;
            if self.buckets_since_sweep >= SWEEP_EVERY_BUCKETS {
                self.sweep();
            }
        }
    }

    fn expire_bucket(&mut self, epoch: u64) {
        let slot = Ring::slot(epoch);
        let mut log = std::mem::take(&mut self.ring.logs[slot]);
        // Records never summed were never counted: nothing to undo for them.
        let summed = std::mem::take(&mut self.ring.summed[slot]);
        log.truncate(summed);
        for (index, &entry) in log.iter().enumerate() {
            if let Some(ahead) = log.get(index + RECORD_PREFETCH_DISTANCE) {
                if let Some(info) = self.pair_info.get(ahead.pair as usize) {
                    prefetch(info);
                }
            }
            let info = &mut self.pair_info[entry.pair as usize];
            info.win_excl_ns -= u64::from(entry.excl_ns);
            info.win_incl_ns -= u64::from(entry.incl_ns);
            info.win_calls -= u64::from(entry.calls);
            info.log_refs -= 1;
            if info.log_refs == 0 {
                self.release_if_unused(entry.pair);
            }
        }
        log.clear();
        self.ring.logs[slot] = log;
        self.buckets_since_sweep += 1;
    }

    /// Queues pairs that hold nothing for release: a sequential pass over the hot halves, run
    /// every [`SWEEP_EVERY_BUCKETS`] expired buckets. (Dead accumulators, of buckets that left
    /// the window before their thread moved on, stay until the thread's next bucket or the
    /// pair's release: clearing them here would let a thread that never leaves its bucket
    /// list the pair again and again.)
    fn sweep(&mut self) {
        self.sum_pending();
        self.buckets_since_sweep = 0;
        let oldest_epoch = self.ring.oldest_epoch;
        for (pair_index, (pair, info)) in self.pairs.iter().zip(&self.pair_info).enumerate() {
            if (pair.acc_epoch == NO_EPOCH || pair.acc_epoch < oldest_epoch)
                && pair.open_frames == 0
                && info.log_refs == 0
                && !info.is_free()
            {
                self.release_candidates.push(pair_index as u32);
            }
        }
    }

    /// Whether the pair holds nothing: no open frame, no record, no live accumulator.
    pub(crate) fn is_unused(&self, pair_index: u32) -> bool {
        let pair = &self.pairs[pair_index as usize];
        let info = &self.pair_info[pair_index as usize];
        !info.is_free()
            && pair.open_frames == 0
            && info.log_refs == 0
            && (pair.acc_epoch == NO_EPOCH || pair.acc_epoch < self.ring.oldest_epoch)
    }

    /// Recomputes the charge of every frame on `thread`'s stack from the exclusion flags.
    pub(crate) fn recharge_stack(&self, thread: &mut ThreadState) {
        let mut below = NO_PAIR;
        let depth = thread.depth as usize;
        for frame in &mut thread.frames[..depth] {
            frame.charge = if self.methods.is_excluded(frame.method_id) {
                below
            } else {
                frame.pair
            };
            below = frame.charge;
        }
    }

    /// Changes the window length (clamped). With the same bucket size this only moves the
    /// window's start; otherwise every bucket record is redistributed onto the new bucket
    /// grid (exact when buckets merge, i.e. the window grew; spread evenly over the covered
    /// part of each old bucket when they split). Thread cursors are the caller's to reset.
    pub(crate) fn set_window_ns(&mut self, window_ns: u64) -> bool {
        let clock = Clock {
            now_ns: self.clock.now_ns,
            ..Clock::new(window_ns)
        };
        if clock.bucket_ns == self.clock.bucket_ns {
            self.clock = clock;
            let oldest = clock.oldest_live_epoch();
            if oldest > self.ring.oldest_epoch {
                let expire_end = oldest.min(self.ring.newest_epoch.saturating_add(1));
                for epoch in self.ring.oldest_epoch..expire_end {
                    self.expire_bucket(epoch);
                }
            }
            // A longer window starts earlier; those buckets are empty (already expired).
            self.ring.oldest_epoch = oldest;
            return false;
        }
        self.rebucket(clock);
        true
    }

    fn rebucket(&mut self, clock: Clock) {
        for pair_index in 0..self.pairs.len() as u32 {
            self.flush_accumulator(pair_index);
        }
        let old_clock = self.clock;
        let mut records: Vec<(u64, Entry)> = Vec::with_capacity(self.ring.entry_count());
        for epoch in self.ring.oldest_epoch..=self.ring.newest_epoch {
            for entry in self.ring.log_mut(epoch).drain(..) {
                records.push((epoch, entry));
            }
        }
        for log in &mut self.ring.logs {
            log.clear();
        }
        self.ring.summed.fill(0);
        for pair in &mut self.pair_info {
            pair.win_excl_ns = 0;
            pair.win_incl_ns = 0;
            pair.win_calls = 0;
            pair.log_refs = 0;
        }
        self.clock = clock;
        self.ring.newest_epoch = clock.now_ns >> clock.bucket_shift;
        self.ring.oldest_epoch = clock.oldest_live_epoch();
        let now_ns = clock.now_ns;
        for (old_epoch, entry) in records {
            if entry.excl_ns == 0 && entry.incl_ns == 0 && entry.calls == 0 {
                continue;
            }
            let start_ns = old_epoch << old_clock.bucket_shift;
            let end_ns = start_ns
                .saturating_add(old_clock.bucket_ns)
                .min(now_ns.max(start_ns + 1));
            let first_epoch = start_ns >> clock.bucket_shift;
            let last_epoch = (end_ns - 1) >> clock.bucket_shift;
            if first_epoch == last_epoch {
                if first_epoch >= self.ring.oldest_epoch {
                    self.push_record(first_epoch, entry);
                }
                continue;
            }
            // Split: spread evenly over the part of the old bucket that lies before now.
            let span_ns = end_ns - start_ns;
            let mut given = Entry::default();
            for epoch in first_epoch..=last_epoch {
                let piece_end_ns = (epoch + 1).saturating_mul(clock.bucket_ns).min(end_ns);
                let covered_ns = piece_end_ns - start_ns;
                let share = |total: u32| -> u32 {
                    (u128::from(total) * u128::from(covered_ns) / u128::from(span_ns)) as u32
                };
                let cumulative = Entry {
                    pair: entry.pair,
                    excl_ns: share(entry.excl_ns),
                    incl_ns: share(entry.incl_ns),
                    calls: share(entry.calls),
                };
                let piece = Entry {
                    pair: entry.pair,
                    excl_ns: cumulative.excl_ns - given.excl_ns,
                    incl_ns: cumulative.incl_ns - given.incl_ns,
                    calls: cumulative.calls - given.calls,
                };
                given = cumulative;
                let empty = piece.excl_ns == 0 && piece.incl_ns == 0 && piece.calls == 0;
                if epoch >= self.ring.oldest_epoch && !empty {
                    self.push_record(epoch, piece);
                }
            }
        }
        self.sum_pending();
        for pair_index in 0..self.pairs.len() as u32 {
            if !self.pair_info[pair_index as usize].is_free() {
                self.release_if_unused(pair_index);
            }
        }
        debug_assert!(
            (self.ring.newest_epoch - self.ring.oldest_epoch) < RING_SLOTS as u64,
            "ring too small for the window"
        );
    }
}
