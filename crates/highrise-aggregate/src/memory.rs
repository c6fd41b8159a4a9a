//! Allocation counts (protocol version 2 memory records): per method over the sliding window
//! and since the start, per class, and per (method, class).
//!
//! A memory record belongs to the innermost open frame of its thread at its place in the
//! thread's stream ([`crate::Aggregator::apply_records`] finds that frame), so counts are exact
//! per method; nothing here samples. The window is kept in buckets of 2^24 ns (16.8 ms, at most
//! 0.6 % of a 3 s window), independent of the time buckets: each bucket holds one entry per
//! method that allocated in it, added to the window sums on arrival and subtracted when the
//! bucket leaves the window. Memory: one 40-byte entry per (method, bucket) with allocations,
//! plus the cumulative tables; never proportional to the number of records.

use std::collections::VecDeque;
use std::sync::Arc;

use highrise_protocol::MemoryAmount;

use crate::engine::prefetch;

/// Buckets of 2^24 ns.
const BUCKET_SHIFT: u32 = 24;

/// The method id memory at stack depth 0 is kept under ("outside profiled methods").
pub const OUTSIDE_METHODS: u32 = u32::MAX;

/// Objects created and freed, with their shallow bytes (0 where the agent does not measure
/// them, e.g. CPython's frees before 3.13).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Amount {
    /// Objects (or untyped blocks) created.
    pub count: u64,
    /// Their bytes.
    pub bytes: u64,
    /// Objects freed.
    pub frees: u64,
    /// Their bytes.
    pub freed_bytes: u64,
}

impl Amount {
    #[inline]
    pub(crate) fn add_record(&mut self, amount: MemoryAmount) {
        if amount.free {
            self.frees = self.frees.saturating_add(amount.count);
            self.freed_bytes = self.freed_bytes.saturating_add(amount.bytes);
        } else {
            self.count = self.count.saturating_add(amount.count);
            self.bytes = self.bytes.saturating_add(amount.bytes);
        }
    }

    pub(crate) fn add(&mut self, other: &Amount) {
        self.count = self.count.saturating_add(other.count);
        self.bytes = self.bytes.saturating_add(other.bytes);
        self.frees = self.frees.saturating_add(other.frees);
        self.freed_bytes = self.freed_bytes.saturating_add(other.freed_bytes);
    }

    fn subtract(&mut self, other: &Amount) {
        self.count = self.count.saturating_sub(other.count);
        self.bytes = self.bytes.saturating_sub(other.bytes);
        self.frees = self.frees.saturating_sub(other.frees);
        self.freed_bytes = self.freed_bytes.saturating_sub(other.freed_bytes);
    }

    /// Nothing created or freed.
    pub fn is_zero(&self) -> bool {
        *self == Amount::default()
    }
}

/// One method's allocations: over the window (divide by the window length for a rate) and
/// since the session started. Direct only: what the method's own frames created, not its
/// callees'.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MethodMemory {
    pub window: Amount,
    pub total: Amount,
}

/// Cumulative allocations of one class by one method (direct).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MethodClassAmount {
    /// The method, or [`OUTSIDE_METHODS`].
    pub method_id: u32,
    pub class_id: u32,
    pub amount: Amount,
}

/// The agent's totals of memory counts it could not send (they are missing from every number
/// here: the numbers are lower bounds when any is nonzero).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MemoryDrops {
    pub allocations: u64,
    pub bytes: u64,
    pub frees: u64,
}

/// Allocations at one moment ([`crate::Snapshot::memory`]). Empty (and cheap) for sessions
/// without memory records.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MemorySnapshot {
    /// Indexed by method id, up to the highest id with allocations.
    pub methods: Vec<MethodMemory>,
    /// Memory records at stack depth 0.
    pub outside: MethodMemory,
    /// Indexed by class id: cumulative per class, all methods.
    pub classes: Vec<Amount>,
    /// Every (method, class) with allocations, sorted by method then class.
    pub method_classes: Vec<MethodClassAmount>,
    /// What the agent could not send.
    pub dropped: MemoryDrops,
    /// Memory records applied so far.
    pub records: u64,
    /// Records that belonged to frames beyond the stack-depth limit; counted for the deepest
    /// tracked frame.
    pub records_over_depth: u64,
}

impl MemorySnapshot {
    /// True when the session never sent a memory record (nor a drop total).
    pub fn is_empty(&self) -> bool {
        self.records == 0 && self.dropped == MemoryDrops::default()
    }

    /// One method's allocations (zero for methods that never allocated; `OUTSIDE_METHODS`
    /// gives [`MemorySnapshot::outside`]).
    pub fn method(&self, method_id: u32) -> MethodMemory {
        if method_id == OUTSIDE_METHODS {
            return self.outside;
        }
        self.methods
            .get(method_id as usize)
            .copied()
            .unwrap_or_default()
    }

    /// The classes one method created (cumulative, direct), by class id.
    pub fn classes_of(&self, method_id: u32) -> &[MethodClassAmount] {
        let start = self
            .method_classes
            .partition_point(|entry| entry.method_id < method_id);
        let end = self
            .method_classes
            .partition_point(|entry| entry.method_id <= method_id);
        &self.method_classes[start..end]
    }
}

/// One window bucket: an entry per method that allocated in it.
#[derive(Debug, Clone, Default)]
struct Bucket {
    epoch: u64,
    entries: Vec<(u32, Amount)>,
}

/// One method's counts, on a cache line of its own (a record's update touches one line).
#[derive(Debug, Clone, Copy, Default)]
#[repr(C, align(64))]
struct MethodSlot(MethodMemory);

/// A memory record waiting for [`MemoryState::fold`].
#[derive(Debug, Clone, Copy)]
struct Pending {
    method_id: u32,
    class_id: u32,
    epoch: u64,
    amount: MemoryAmount,
}

/// How many records ahead [`MemoryState::fold`] prefetches what a record will touch.
const PREFETCH_AHEAD: usize = 8;

/// The aggregator's allocation state.
///
/// Records arrive one by one ([`MemoryState::push`], a sequential append) and are folded in
/// at the end of each batch ([`MemoryState::fold`]): there the lines each record will touch
/// (its method's counts, its latest bucket entry, its (method, class) slot) are prefetched a
/// few records ahead, so that at 200k methods their cache misses overlap instead of
/// following one another.
#[derive(Debug, Clone, Default)]
pub(crate) struct MemoryState {
    methods: Vec<MethodSlot>,
    outside: MethodMemory,
    /// Per method id: (bucket epoch + 1, entry index) of its latest bucket entry; epoch 0 =
    /// none.
    latest_entry: Vec<(u64, u32)>,
    outside_entry: (u64, u32),
    buckets: VecDeque<Bucket>,
    classes: Vec<Amount>,
    method_classes: KeyedAmounts,
    pending: Vec<Pending>,
    dropped: MemoryDrops,
    records: u64,
    pub records_over_depth: u64,
    /// Bumped on every change; the snapshot is rebuilt only when it moved.
    generation: u64,
    published: Option<(u64, Arc<MemorySnapshot>)>,
}

impl MemoryState {
    /// One memory record of `method_id` (or [`OUTSIDE_METHODS`]) at `timestamp_ns`, applied
    /// at once; the window is `[now_ns - window_ns, now_ns]`.
    #[cfg(test)]
    pub(crate) fn add(
        &mut self,
        method_id: u32,
        class_id: u32,
        amount: MemoryAmount,
        timestamp_ns: u64,
        now_ns: u64,
        window_ns: u64,
    ) {
        self.push(method_id, class_id, amount, timestamp_ns, now_ns);
        self.fold(now_ns, window_ns);
    }

    /// Queues one memory record of `method_id` (or [`OUTSIDE_METHODS`]) at `timestamp_ns`
    /// for the next [`fold`](Self::fold), whose `now_ns` must be at least this one.
    #[inline]
    pub(crate) fn push(
        &mut self,
        method_id: u32,
        class_id: u32,
        amount: MemoryAmount,
        timestamp_ns: u64,
        now_ns: u64,
    ) {
        self.pending.push(Pending {
            method_id,
            class_id,
            // Never in a bucket after "now".
            epoch: timestamp_ns.min(now_ns) >> BUCKET_SHIFT,
            amount,
        });
    }

    /// Applies the queued records; the window is `[now_ns - window_ns, now_ns]` (records
    /// whose bucket has left it count in the totals only).
    pub(crate) fn fold(&mut self, now_ns: u64, window_ns: u64) {
        if self.pending.is_empty() {
            return;
        }
        self.expire(now_ns, window_ns);
        let highest = self
            .pending
            .iter()
            .map(|record| record.method_id)
            .filter(|&method_id| method_id != OUTSIDE_METHODS)
            .max();
        if let Some(highest) = highest {
            let len = highest as usize + 1;
            if self.methods.len() < len {
                self.methods.resize(len, MethodSlot::default());
                self.latest_entry.resize(len, (0, 0));
            }
        }
        let oldest = oldest_live_epoch(now_ns, window_ns);
        let pending = std::mem::take(&mut self.pending);
        for (index, record) in pending.iter().enumerate() {
            if let Some(ahead) = pending.get(index + PREFETCH_AHEAD) {
                self.prefetch(ahead);
            }
            if let Some(ahead) = pending.get(index + PREFETCH_AHEAD / 2) {
                self.prefetch_entry(ahead);
            }
            self.apply(record, oldest);
        }
        self.records += pending.len() as u64;
        self.generation += 1;
        self.pending = pending;
        self.pending.clear();
    }

    /// Brings in the method's counts, its latest-entry index and its (method, class) slot.
    #[inline(always)]
    fn prefetch(&self, record: &Pending) {
        if let Some(slot) = self.methods.get(record.method_id as usize) {
            prefetch(slot);
        }
        if let Some(latest) = self.latest_entry.get(record.method_id as usize) {
            prefetch(latest);
        }
        self.method_classes
            .prefetch(key(record.method_id, record.class_id));
    }

    /// Brings in the bucket entry the record will add to, when it already has one.
    #[inline(always)]
    fn prefetch_entry(&self, record: &Pending) {
        let Some(&(latest_epoch, entry)) = self.latest_entry.get(record.method_id as usize) else {
            return;
        };
        let Some(front) = self.buckets.front() else {
            return;
        };
        if latest_epoch != record.epoch + 1 || record.epoch < front.epoch {
            return;
        }
        if let Some(bucket) = self.buckets.get((record.epoch - front.epoch) as usize) {
            if let Some(entry) = bucket.entries.get(entry as usize) {
                prefetch(entry);
            }
        }
    }

    /// One record; `oldest` is the oldest bucket still in the window.
    #[inline(always)]
    fn apply(&mut self, record: &Pending, oldest: u64) {
        let Pending {
            method_id,
            class_id,
            epoch,
            amount,
        } = *record;
        if let Some(class) = grow_to(&mut self.classes, class_id) {
            class.add_record(amount);
        }
        self.method_classes
            .entry(key(method_id, class_id))
            .add_record(amount);
        let in_window = self.bucket_index(epoch, oldest);
        let (memory, latest) = if method_id == OUTSIDE_METHODS {
            (&mut self.outside, &mut self.outside_entry)
        } else {
            let index = method_id as usize;
            (&mut self.methods[index].0, &mut self.latest_entry[index])
        };
        memory.total.add_record(amount);
        let Some(bucket_index) = in_window else {
            return; // Older than the window: cumulative only.
        };
        memory.window.add_record(amount);
        let bucket = &mut self.buckets[bucket_index];
        let entry = match *latest {
            (latest_epoch, entry) if latest_epoch == epoch + 1 => entry as usize,
            _ => {
                bucket.entries.push((method_id, Amount::default()));
                let entry = bucket.entries.len() - 1;
                *latest = (epoch + 1, entry as u32);
                entry
            }
        };
        bucket.entries[entry].1.add_record(amount);
    }

    /// The agent's memory drop totals (running totals; lower ones are ignored).
    pub(crate) fn dropped(&mut self, allocations: u64, bytes: u64, frees: u64) {
        let dropped = &mut self.dropped;
        dropped.allocations = dropped.allocations.max(allocations);
        dropped.bytes = dropped.bytes.max(bytes);
        dropped.frees = dropped.frees.max(frees);
        self.generation += 1;
    }

    /// Where a record of bucket `epoch` goes: its bucket's index, created if needed, or `None`
    /// when the bucket already left the window (`oldest` is the oldest one in it).
    fn bucket_index(&mut self, epoch: u64, oldest: u64) -> Option<usize> {
        if epoch < oldest {
            return None;
        }
        let front = match self.buckets.front() {
            Some(front) => front.epoch,
            None => {
                self.buckets.push_back(Bucket {
                    epoch,
                    entries: Vec::new(),
                });
                return Some(0);
            }
        };
        if epoch < front {
            // A lagging thread: open the buckets between it and the front (all in the window).
            for missing in (epoch..front).rev() {
                self.buckets.push_front(Bucket {
                    epoch: missing,
                    entries: Vec::new(),
                });
            }
            return Some(0);
        }
        let index = (epoch - front) as usize;
        while self.buckets.len() <= index {
            let next = front + self.buckets.len() as u64;
            self.buckets.push_back(Bucket {
                epoch: next,
                entries: Vec::new(),
            });
        }
        Some(index)
    }

    /// Subtracts the buckets that left the window `[now_ns - window_ns, now_ns]`.
    pub(crate) fn expire(&mut self, now_ns: u64, window_ns: u64) {
        let oldest = oldest_live_epoch(now_ns, window_ns);
        while self.buckets.front().is_some_and(|b| b.epoch < oldest) {
            let Some(bucket) = self.buckets.pop_front() else {
                break;
            };
            for (index, (method_id, amount)) in bucket.entries.iter().enumerate() {
                if let Some((ahead, _)) = bucket.entries.get(index + PREFETCH_AHEAD) {
                    if let Some(slot) = self.methods.get(*ahead as usize) {
                        prefetch(slot);
                    }
                }
                let memory = if *method_id == OUTSIDE_METHODS {
                    &mut self.outside
                } else {
                    &mut self.methods[*method_id as usize].0
                };
                memory.window.subtract(amount);
            }
            if !bucket.entries.is_empty() {
                self.generation += 1;
            }
        }
    }

    /// The snapshot of the current state (the previous one again when nothing changed).
    pub(crate) fn snapshot(&mut self) -> Arc<MemorySnapshot> {
        if let Some((generation, snapshot)) = &self.published {
            if *generation == self.generation {
                return Arc::clone(snapshot);
            }
        }
        let mut method_classes: Vec<MethodClassAmount> = self
            .method_classes
            .iter()
            .map(|(key, amount)| MethodClassAmount {
                method_id: (key >> 32) as u32,
                class_id: key as u32,
                amount,
            })
            .collect();
        method_classes.sort_unstable_by_key(|entry| (entry.method_id, entry.class_id));
        let snapshot = Arc::new(MemorySnapshot {
            methods: self.methods.iter().map(|slot| slot.0).collect(),
            outside: self.outside,
            classes: self.classes.clone(),
            method_classes,
            dropped: self.dropped,
            records: self.records,
            records_over_depth: self.records_over_depth,
        });
        self.published = Some((self.generation, Arc::clone(&snapshot)));
        snapshot
    }

    /// Bytes held (an estimate from capacities).
    pub(crate) fn memory_bytes(&self) -> usize {
        let entries: usize = self
            .buckets
            .iter()
            .map(|bucket| bucket.entries.capacity() * size_of::<(u32, Amount)>())
            .sum();
        self.methods.capacity() * size_of::<MethodSlot>()
            + self.latest_entry.capacity() * size_of::<(u64, u32)>()
            + self.buckets.capacity() * size_of::<Bucket>()
            + entries
            + self.classes.capacity() * size_of::<Amount>()
            + self.method_classes.memory_bytes()
            + self.pending.capacity() * size_of::<Pending>()
    }
}

/// The (method, class) key of [`KeyedAmounts`].
#[inline(always)]
fn key(method_id: u32, class_id: u32) -> u64 {
    u64::from(method_id) << 32 | u64::from(class_id)
}

/// Marks a free slot of [`KeyedAmounts`] (no key has it: class ids are below
/// `MAX_CLASS_ID`).
const FREE_KEY: u64 = u64::MAX;

/// An `Amount` per (method, class) key: open addressing with linear probing, load at most
/// one half. Written here rather than taken from `std`'s map because [`MemoryState::fold`]
/// prefetches the slot a key will land in, which needs the table's layout.
#[derive(Debug, Clone, Default)]
struct KeyedAmounts {
    slots: Vec<(u64, Amount)>,
    len: usize,
}

impl KeyedAmounts {
    #[inline(always)]
    fn home(&self, key: u64) -> usize {
        // Fibonacci hashing: the top bits of the product; `slots.len()` is a power of two.
        let bits = self.slots.len().trailing_zeros();
        let product = (key ^ key >> 29).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        (product >> (64 - bits)) as usize
    }

    #[inline(always)]
    fn prefetch(&self, key: u64) {
        if self.slots.len() > 1 {
            let slot = &self.slots[self.home(key)];
            prefetch(&slot.0);
            prefetch(&slot.1.freed_bytes);
        }
    }

    /// The amount of `key`, a zero one inserted if new.
    fn entry(&mut self, key: u64) -> &mut Amount {
        if (self.len + 1) * 2 > self.slots.len() {
            self.grow();
        }
        let mask = self.slots.len() - 1;
        let mut index = self.home(key);
        loop {
            let slot_key = self.slots[index].0;
            if slot_key == key {
                break;
            }
            if slot_key == FREE_KEY {
                self.slots[index].0 = key;
                self.len += 1;
                break;
            }
            index = (index + 1) & mask;
        }
        &mut self.slots[index].1
    }

    fn grow(&mut self) {
        let capacity = (self.slots.len() * 2).max(64);
        let old = std::mem::replace(
            &mut self.slots,
            vec![(FREE_KEY, Amount::default()); capacity],
        );
        self.len = 0;
        for (key, amount) in old {
            if key != FREE_KEY {
                *self.entry(key) = amount;
            }
        }
    }

    fn iter(&self) -> impl Iterator<Item = (u64, Amount)> + '_ {
        self.slots
            .iter()
            .filter(|(key, _)| *key != FREE_KEY)
            .copied()
    }

    fn memory_bytes(&self) -> usize {
        self.slots.capacity() * size_of::<(u64, Amount)>()
    }
}

/// The first bucket with any part inside `[now_ns - window_ns, now_ns]`.
fn oldest_live_epoch(now_ns: u64, window_ns: u64) -> u64 {
    now_ns.saturating_sub(window_ns) >> BUCKET_SHIFT
}

/// `values[index]`, growing the vector to reach it; `None` for ids past the protocol's
/// limit (never valid on the wire).
fn grow_to(values: &mut Vec<Amount>, index: u32) -> Option<&mut Amount> {
    if index >= highrise_protocol::MAX_CLASS_ID {
        return None;
    }
    let index = index as usize;
    if values.len() <= index {
        values.resize(index + 1, Amount::default());
    }
    values.get_mut(index)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SECOND: u64 = 1_000_000_000;

    fn made(count: u64, bytes: u64) -> MemoryAmount {
        MemoryAmount {
            count,
            bytes,
            free: false,
        }
    }

    #[test]
    fn window_drops_old_buckets_totals_keep_everything() {
        let mut state = MemoryState::default();
        state.add(3, 1, made(2, 64), 0, 0, 3 * SECOND);
        state.add(3, 1, made(1, 32), SECOND, SECOND, 3 * SECOND);
        state.add(
            OUTSIDE_METHODS,
            2,
            MemoryAmount {
                count: 4,
                bytes: 0,
                free: true,
            },
            SECOND,
            SECOND,
            3 * SECOND,
        );
        let snapshot = state.snapshot();
        assert_eq!(snapshot.method(3).window.count, 3);
        assert_eq!(snapshot.method(3).total.bytes, 96);
        assert_eq!(snapshot.outside.window.frees, 4);
        // 3.5 s later the first record's bucket has left the 3 s window; the second's not yet.
        state.expire(3 * SECOND + SECOND / 2, 3 * SECOND);
        let snapshot = state.snapshot();
        assert_eq!(snapshot.method(3).window, made_amount(1, 32));
        assert_eq!(snapshot.method(3).total, made_amount(3, 96));
        state.expire(10 * SECOND, 3 * SECOND);
        let snapshot = state.snapshot();
        assert!(snapshot.method(3).window.is_zero());
        assert!(snapshot.outside.window.is_zero());
        assert_eq!(snapshot.classes[1], made_amount(3, 96));
        assert_eq!(snapshot.classes[2].frees, 4);
        assert_eq!(snapshot.classes_of(3).len(), 1);
        assert_eq!(snapshot.classes_of(OUTSIDE_METHODS)[0].class_id, 2);
        // A record older than the window counts only in the totals.
        state.add(3, 1, made(5, 5), SECOND, 10 * SECOND, 3 * SECOND);
        let snapshot = state.snapshot();
        assert!(snapshot.method(3).window.is_zero());
        assert_eq!(snapshot.method(3).total.count, 8);
    }

    #[test]
    fn a_lagging_thread_lands_in_its_own_bucket() {
        let mut state = MemoryState::default();
        state.add(1, 0, made(1, 8), 2 * SECOND, 2 * SECOND, 3 * SECOND);
        state.add(1, 0, made(1, 8), SECOND, 2 * SECOND, 3 * SECOND);
        state.add(1, 0, made(1, 8), 2 * SECOND, 2 * SECOND, 3 * SECOND);
        assert_eq!(state.snapshot().method(1).window.count, 3);
        // The bucket at 1 s leaves first.
        state.expire(4 * SECOND + SECOND / 10, 3 * SECOND);
        assert_eq!(state.snapshot().method(1).window.count, 2);
        state.expire(5 * SECOND + SECOND / 10, 3 * SECOND);
        assert_eq!(state.snapshot().method(1).window.count, 0);
    }

    #[test]
    fn an_unchanged_state_publishes_the_same_snapshot() {
        let mut state = MemoryState::default();
        assert!(state.snapshot().is_empty());
        state.add(0, 0, made(1, 1), 0, 0, SECOND);
        let first = state.snapshot();
        assert!(Arc::ptr_eq(&first, &state.snapshot()));
        state.dropped(5, 50, 0);
        let second = state.snapshot();
        assert_eq!(second.dropped.allocations, 5);
        state.dropped(3, 10, 0);
        assert_eq!(state.snapshot().dropped.bytes, 50);
    }

    fn made_amount(count: u64, bytes: u64) -> Amount {
        Amount {
            count,
            bytes,
            ..Amount::default()
        }
    }
}
