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

use std::collections::{HashMap, VecDeque};
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::Arc;

use highrise_protocol::MemoryAmount;

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

/// The aggregator's allocation state.
#[derive(Debug, Clone, Default)]
pub(crate) struct MemoryState {
    methods: Vec<MethodMemory>,
    outside: MethodMemory,
    /// Per method id: (bucket epoch + 1, entry index) of its latest bucket entry; epoch 0 =
    /// none.
    latest_entry: Vec<(u64, u32)>,
    outside_entry: (u64, u32),
    buckets: VecDeque<Bucket>,
    classes: Vec<Amount>,
    /// Keyed by `method_id << 32 | class_id`.
    method_classes: HashMap<u64, Amount, BuildHasherDefault<IdHasher>>,
    dropped: MemoryDrops,
    records: u64,
    pub records_over_depth: u64,
    /// Bumped on every change; the snapshot is rebuilt only when it moved.
    generation: u64,
    published: Option<(u64, Arc<MemorySnapshot>)>,
}

impl MemoryState {
    /// One memory record of `method_id` (or [`OUTSIDE_METHODS`]) at `timestamp_ns`; the window
    /// is `[now_ns - window_ns, now_ns]`.
    pub(crate) fn add(
        &mut self,
        method_id: u32,
        class_id: u32,
        amount: MemoryAmount,
        timestamp_ns: u64,
        now_ns: u64,
        window_ns: u64,
    ) {
        self.records += 1;
        self.generation += 1;
        if let Some(class) = grow_to(&mut self.classes, class_id) {
            class.add_record(amount);
        }
        self.method_classes
            .entry(u64::from(method_id) << 32 | u64::from(class_id))
            .or_default()
            .add_record(amount);
        // Never in a bucket after "now" (the caller moves "now" to the record first).
        let epoch = timestamp_ns.min(now_ns) >> BUCKET_SHIFT;
        self.expire(now_ns, window_ns);
        let in_window = self.bucket_index(epoch, now_ns, window_ns);
        let (memory, latest) = if method_id == OUTSIDE_METHODS {
            (&mut self.outside, &mut self.outside_entry)
        } else {
            let index = method_id as usize;
            if self.methods.len() <= index {
                self.methods.resize(index + 1, MethodMemory::default());
                self.latest_entry.resize(index + 1, (0, 0));
            }
            (&mut self.methods[index], &mut self.latest_entry[index])
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
    /// when the bucket already left the window.
    fn bucket_index(&mut self, epoch: u64, now_ns: u64, window_ns: u64) -> Option<usize> {
        let oldest = oldest_live_epoch(now_ns, window_ns);
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
            for (method_id, amount) in &bucket.entries {
                let memory = if *method_id == OUTSIDE_METHODS {
                    &mut self.outside
                } else {
                    &mut self.methods[*method_id as usize]
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
            .map(|(&key, &amount)| MethodClassAmount {
                method_id: (key >> 32) as u32,
                class_id: key as u32,
                amount,
            })
            .collect();
        method_classes.sort_unstable_by_key(|entry| (entry.method_id, entry.class_id));
        let snapshot = Arc::new(MemorySnapshot {
            methods: self.methods.clone(),
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
        self.methods.capacity() * size_of::<MethodMemory>()
            + self.latest_entry.capacity() * size_of::<(u64, u32)>()
            + self.buckets.capacity() * size_of::<Bucket>()
            + entries
            + self.classes.capacity() * size_of::<Amount>()
            + self.method_classes.capacity() * (size_of::<u64>() + size_of::<Amount>() + 1)
    }
}

/// Hashes the (method, class) key with one multiplication (Fibonacci hashing): keys are
/// small dense ids, never chosen by an attacker in a way that matters (the agent's own ids),
/// and the standard SipHash was most of a memory record's cost.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct IdHasher(u64);

impl Hasher for IdHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(byte)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        }
    }

    fn write_u64(&mut self, value: u64) {
        self.0 = (value ^ value >> 29).wrapping_mul(0x9e37_79b9_7f4a_7c15);
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
