//! Allocation counts (protocol version 2 memory records): per method over the sliding window
//! and since the start, per class, and per (method, class).
//!
//! A memory record belongs to the innermost open frame of its thread at its place in the
//! thread's stream ([`crate::Aggregator::apply_records`] finds that frame), so counts are exact
//! per method; nothing here samples. The window is kept in buckets of 2^24 ns (16.8 ms, at most
//! 0.6 % of a 3 s window), independent of the time buckets. A record is added to its method's
//! window sum on arrival, to its method's accumulator for the record's bucket and to its
//! (method, class) total, all in the method's 128-byte slot (the totals of a method's first
//! three classes live there; further classes in a keyed table): one random memory access per
//! record. An accumulator is written out as an entry of its bucket when the method moves to
//! another bucket, and whatever a bucket holds (entries and accumulators still open) is
//! subtracted when it leaves the window. A method's totals are the sum of its (method, class)
//! totals, added up in the snapshot. Memory: 128 bytes per method id up to the highest that
//! allocated, one 40-byte entry per (method, bucket) with allocations plus 4 bytes per
//! (method, bucket) opened, and the keyed table; never proportional to the number of records.

use std::collections::VecDeque;
use std::sync::Arc;

use highrise_protocol::MemoryAmount;

use crate::keyed::{KeyedTable, FREE_KEY};
use crate::prefetch::prefetch;

/// Buckets of 2^24 ns.
pub(super) const BUCKET_SHIFT: u32 = 24;

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

    /// Two snapshots of a fold split between two threads, by method, as one.
    pub(crate) fn merged(&self, other: &MemorySnapshot) -> MemorySnapshot {
        let add = |into: &mut MethodMemory, from: &MethodMemory| {
            into.window.add(&from.window);
            into.total.add(&from.total);
        };
        let mut methods = self.methods.clone();
        if methods.len() < other.methods.len() {
            methods.resize(other.methods.len(), MethodMemory::default());
        }
        for (into, from) in methods.iter_mut().zip(&other.methods) {
            add(into, from);
        }
        let mut outside = self.outside;
        add(&mut outside, &other.outside);
        let mut classes = self.classes.clone();
        if classes.len() < other.classes.len() {
            classes.resize(other.classes.len(), Amount::default());
        }
        for (into, from) in classes.iter_mut().zip(&other.classes) {
            into.add(from);
        }
        let mut method_classes = self.method_classes.clone();
        method_classes.extend_from_slice(&other.method_classes);
        sort_and_sum(&mut method_classes);
        MemorySnapshot {
            methods,
            outside,
            classes,
            method_classes,
            dropped: MemoryDrops {
                allocations: self.dropped.allocations.max(other.dropped.allocations),
                bytes: self.dropped.bytes.max(other.dropped.bytes),
                frees: self.dropped.frees.max(other.dropped.frees),
            },
            records: self.records + other.records,
            records_over_depth: self.records_over_depth + other.records_over_depth,
        }
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

/// One window bucket: what its methods allocated in it.
#[derive(Debug, Clone, Default)]
struct Bucket {
    epoch: u64,
    /// Accumulators written out (a method moved on to another bucket).
    entries: Vec<(u32, Amount)>,
    /// Methods whose accumulator was opened for this bucket (it may have been written out
    /// since: then its `acc_tag` no longer names this bucket).
    opened: Vec<u32>,
}

/// One method's memory state in two adjacent cache lines (so that a record touches one
/// 128-byte block, which the hardware fetches together, instead of two lines far apart): its
/// window sum and its accumulator for one bucket, and the totals of its first
/// [`INLINE_CLASSES`] classes.
#[derive(Debug, Clone, Copy, Default)]
#[repr(C, align(128))]
struct MethodSlot {
    window: Amount,
    /// The accumulator's bucket epoch + 1; 0 = empty.
    acc_tag: u64,
    acc_count: u32,
    acc_frees: u32,
    acc_bytes: u64,
    acc_freed_bytes: u64,
    /// The first classes the method made; later ones go to [`MemoryState::method_classes`],
    /// and so do these counts when they would overflow.
    classes: [InlineClass; INLINE_CLASSES],
}

/// Classes whose totals a method keeps in its own slot (real methods make one to a few).
const INLINE_CLASSES: usize = 3;

/// A tag no inline class has (class ids are below `MAX_CLASS_ID`).
const NOT_INLINE: u32 = u32::MAX;

/// One class's totals in a [`MethodSlot`], in 32-bit counters that are moved to the keyed
/// table before they would overflow.
#[derive(Debug, Clone, Copy, Default)]
#[repr(C)]
struct InlineClass {
    /// Class id + 1; 0 = unused.
    tag: u32,
    count: u32,
    frees: u32,
    bytes: u32,
    freed_bytes: u32,
}

impl InlineClass {
    /// Adds `amount` if every counter stays within 32 bits.
    #[inline(always)]
    fn add(&mut self, amount: MemoryAmount) -> bool {
        let (count, bytes) = if amount.free {
            (&mut self.frees, &mut self.freed_bytes)
        } else {
            (&mut self.count, &mut self.bytes)
        };
        let (Ok(added_count), Ok(added_bytes)) =
            (u32::try_from(amount.count), u32::try_from(amount.bytes))
        else {
            return false;
        };
        match (
            count.checked_add(added_count),
            bytes.checked_add(added_bytes),
        ) {
            (Some(new_count), Some(new_bytes)) => {
                *count = new_count;
                *bytes = new_bytes;
                true
            }
            _ => false,
        }
    }

    /// Empties the counters (the class stays), returning what they held.
    fn take(&mut self) -> Amount {
        let amount = Amount {
            count: u64::from(self.count),
            bytes: u64::from(self.bytes),
            frees: u64::from(self.frees),
            freed_bytes: u64::from(self.freed_bytes),
        };
        *self = InlineClass {
            tag: self.tag,
            ..InlineClass::default()
        };
        amount
    }
}

impl MethodSlot {
    /// Adds `amount` to the accumulator if it holds bucket `tag` and the sum fits.
    #[inline(always)]
    fn accumulate(&mut self, tag: u64, amount: MemoryAmount) -> bool {
        if self.acc_tag != tag {
            return false;
        }
        let count = if amount.free {
            &mut self.acc_frees
        } else {
            &mut self.acc_count
        };
        let Some(sum) = u32::try_from(amount.count)
            .ok()
            .and_then(|added| count.checked_add(added))
        else {
            return false;
        };
        *count = sum;
        if amount.free {
            self.acc_freed_bytes = self.acc_freed_bytes.saturating_add(amount.bytes);
        } else {
            self.acc_bytes = self.acc_bytes.saturating_add(amount.bytes);
        }
        true
    }

    /// Starts the (empty) accumulator at bucket `tag` with `amount`, if it fits.
    fn accumulate_fresh(&mut self, tag: u64, amount: MemoryAmount) -> bool {
        self.acc_tag = tag;
        if self.accumulate(tag, amount) {
            return true;
        }
        self.acc_tag = 0;
        false
    }

    /// Empties the accumulator, returning what it held.
    fn take_accumulator(&mut self) -> Amount {
        let amount = Amount {
            count: u64::from(self.acc_count),
            bytes: self.acc_bytes,
            frees: u64::from(self.acc_frees),
            freed_bytes: self.acc_freed_bytes,
        };
        self.acc_tag = 0;
        self.acc_count = 0;
        self.acc_frees = 0;
        self.acc_bytes = 0;
        self.acc_freed_bytes = 0;
        amount
    }
}

/// A memory record waiting for [`MemoryState::fold`].
#[derive(Debug, Clone, Copy)]
pub(crate) struct Pending {
    method_id: u32,
    class_id: u32,
    epoch: u64,
    amount: MemoryAmount,
}

impl Pending {
    /// One memory record of `method_id` (or [`OUTSIDE_METHODS`]) at `timestamp_ns`, to be
    /// folded at a "now" of at least `now_ns`.
    #[inline]
    pub(crate) fn new(
        method_id: u32,
        class_id: u32,
        amount: MemoryAmount,
        timestamp_ns: u64,
        now_ns: u64,
    ) -> Self {
        Self {
            method_id,
            class_id,
            // Never in a bucket after "now".
            epoch: timestamp_ns.min(now_ns) >> BUCKET_SHIFT,
            amount,
        }
    }
}

/// How many records ahead [`MemoryState::fold`] prefetches what a record will touch.
const PREFETCH_AHEAD: usize = 8;

/// The aggregator's allocation state.
///
/// Records are queued ([`Pending`], a sequential append, by
/// [`super::worker::MemoryHandle`]) and folded in together ([`MemoryState::fold`]):
/// there the lines each record will touch (its method's slot and its (method, class) slot)
/// are prefetched a few records ahead, so that at 200k methods their cache misses overlap
/// instead of following one another.
#[derive(Debug, Clone, Default)]
pub(crate) struct MemoryState {
    methods: Vec<MethodSlot>,
    outside: MethodSlot,
    buckets: VecDeque<Bucket>,
    /// An expired bucket kept for the next one, with its lists' room (a busy bucket's lists
    /// are hundreds of kilobytes: new ones would be fresh pages each time).
    spare: Option<Bucket>,
    method_classes: KeyedTable<Amount>,
    dropped: MemoryDrops,
    records: u64,
    pub records_over_depth: u64,
    /// Bumped on every change; the snapshot is rebuilt only when it moved.
    generation: u64,
    published: Option<(u64, Arc<MemorySnapshot>)>,
}

impl MemoryState {
    /// One memory record ([`Pending::new`]), applied at once; the window is
    /// `[now_ns - window_ns, now_ns]`.
    #[cfg(test)]
    pub(crate) fn add(&mut self, record: Pending, now_ns: u64, window_ns: u64) {
        self.fold(&[record], now_ns, window_ns);
    }

    /// Applies queued records, each made with a `now_ns` no later than this one; the window is
    /// `[now_ns - window_ns, now_ns]` (records whose bucket has left it count in the totals
    /// only).
    pub(crate) fn fold(&mut self, records: &[Pending], now_ns: u64, window_ns: u64) {
        if records.is_empty() {
            return;
        }
        self.expire(now_ns, window_ns);
        let highest = records
            .iter()
            .map(|record| record.method_id)
            .filter(|&method_id| method_id != OUTSIDE_METHODS)
            .max();
        if let Some(highest) = highest {
            let len = highest as usize + 1;
            if self.methods.len() < len {
                self.methods.resize(len, MethodSlot::default());
            }
        }
        let oldest = oldest_live_epoch(now_ns, window_ns);
        for (index, record) in records.iter().enumerate() {
            if let Some(ahead) = records.get(index + PREFETCH_AHEAD) {
                self.prefetch(ahead);
            }
            self.apply(record, oldest);
        }
        self.records += records.len() as u64;
        self.generation += 1;
    }

    /// Brings in the method's slot (both lines).
    #[inline(always)]
    fn prefetch(&self, record: &Pending) {
        if let Some(slot) = self.methods.get(record.method_id as usize) {
            prefetch(slot);
            prefetch(&slot.classes);
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
        let in_window = self.bucket_index(epoch, oldest);
        let slot = slot_of(&mut self.methods, &mut self.outside, method_id);
        // Ids past the protocol's limit (never valid on the wire) stay in the keyed table.
        let tag = if class_id < highrise_protocol::MAX_CLASS_ID {
            class_id + 1
        } else {
            NOT_INLINE
        };
        match slot.classes.iter().position(|inline| inline.tag == tag) {
            Some(index) if slot.classes[index].add(amount) => {}
            found => Self::class_total_slow(
                &mut self.method_classes,
                slot,
                found,
                method_id,
                class_id,
                amount,
            ),
        }
        let Some(bucket_index) = in_window else {
            return; // Older than the window: cumulative only.
        };
        slot.window.add_record(amount);
        if !slot.accumulate(epoch + 1, amount) {
            self.open_accumulator(method_id, bucket_index, amount);
        }
    }

    /// A class total that is not an inline class's add: a new class (inline while there is
    /// room), one beyond the inline classes, or an inline class's counters that would
    /// overflow (moved to the keyed table).
    #[inline(never)]
    fn class_total_slow(
        method_classes: &mut KeyedTable<Amount>,
        slot: &mut MethodSlot,
        found: Option<usize>,
        method_id: u32,
        class_id: u32,
        amount: MemoryAmount,
    ) {
        let key = key(method_id, class_id);
        let inline = match found {
            Some(index) => {
                method_classes.entry(key).add(&slot.classes[index].take());
                Some(index)
            }
            None => {
                let free = slot.classes.iter().position(|inline| inline.tag == 0);
                match free {
                    Some(index) if class_id < highrise_protocol::MAX_CLASS_ID => {
                        slot.classes[index].tag = class_id + 1;
                        Some(index)
                    }
                    _ => None,
                }
            }
        };
        if !inline.is_some_and(|index| slot.classes[index].add(amount)) {
            method_classes.entry(key).add_record(amount);
        }
    }

    /// The method's accumulator does not hold the record's bucket (`bucket_index`) or would
    /// overflow: writes out what it holds and starts it again with `amount`.
    #[inline(never)]
    fn open_accumulator(&mut self, method_id: u32, bucket_index: usize, amount: MemoryAmount) {
        let slot = slot_of(&mut self.methods, &mut self.outside, method_id);
        let tag = self.buckets[bucket_index].epoch + 1;
        let previous_tag = slot.acc_tag;
        if previous_tag != 0 {
            let held = slot.take_accumulator();
            // An open accumulator's bucket is in the window (expiry empties it).
            let front = self.buckets.front().map_or(0, |bucket| bucket.epoch);
            if let Some(bucket) = previous_tag
                .checked_sub(front + 1)
                .and_then(|index| self.buckets.get_mut(index as usize))
            {
                bucket.entries.push((method_id, held));
            }
        }
        if !slot.accumulate_fresh(tag, amount) {
            // Beyond an accumulator's counts: an entry of its own.
            let mut whole = Amount::default();
            whole.add_record(amount);
            self.buckets[bucket_index].entries.push((method_id, whole));
            return;
        }
        if previous_tag != tag {
            self.buckets[bucket_index].opened.push(method_id);
        }
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
                let bucket = self.new_bucket(epoch);
                self.buckets.push_back(bucket);
                return Some(0);
            }
        };
        if epoch < front {
            // A lagging thread: open the buckets between it and the front (all in the window).
            for missing in (epoch..front).rev() {
                let bucket = self.new_bucket(missing);
                self.buckets.push_front(bucket);
            }
            return Some(0);
        }
        let index = (epoch - front) as usize;
        while self.buckets.len() <= index {
            let next = front + self.buckets.len() as u64;
            let bucket = self.new_bucket(next);
            self.buckets.push_back(bucket);
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
                self.slot_mut(*method_id).window.subtract(amount);
            }
            let tag = bucket.epoch + 1;
            for (index, &method_id) in bucket.opened.iter().enumerate() {
                if let Some(&ahead) = bucket.opened.get(index + PREFETCH_AHEAD) {
                    if let Some(slot) = self.methods.get(ahead as usize) {
                        prefetch(slot);
                    }
                }
                let slot = self.slot_mut(method_id);
                if slot.acc_tag == tag {
                    let held = slot.take_accumulator();
                    slot.window.subtract(&held);
                }
            }
            if !bucket.entries.is_empty() || !bucket.opened.is_empty() {
                self.generation += 1;
            }
            self.spare = Some(bucket);
        }
    }

    /// An empty bucket, the spare one if there is one.
    fn new_bucket(&mut self, epoch: u64) -> Bucket {
        let mut bucket = self.spare.take().unwrap_or_default();
        bucket.epoch = epoch;
        bucket.entries.clear();
        bucket.opened.clear();
        bucket
    }

    fn slot_mut(&mut self, method_id: u32) -> &mut MethodSlot {
        slot_of(&mut self.methods, &mut self.outside, method_id)
    }

    /// Expires to `[now_ns - window_ns, now_ns]`, then [`Self::snapshot`].
    pub(crate) fn snapshot_at(&mut self, now_ns: u64, window_ns: u64) -> Arc<MemorySnapshot> {
        self.expire(now_ns, window_ns);
        self.snapshot()
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
        let slots = self
            .methods
            .iter()
            .enumerate()
            .map(|(index, slot)| (index as u32, slot))
            .chain([(OUTSIDE_METHODS, &self.outside)]);
        for (method_id, slot) in slots {
            for inline in slot.classes.iter().filter(|inline| inline.tag != 0) {
                method_classes.push(MethodClassAmount {
                    method_id,
                    class_id: inline.tag - 1,
                    amount: inline.clone().take(),
                });
            }
        }
        // A class whose inline counters were moved to the keyed table is in both.
        sort_and_sum(&mut method_classes);
        let mut methods: Vec<MethodMemory> = self
            .methods
            .iter()
            .map(|slot| MethodMemory {
                window: slot.window,
                total: Amount::default(),
            })
            .collect();
        let mut outside = MethodMemory {
            window: self.outside.window,
            total: Amount::default(),
        };
        // A method's totals: the sum over its classes (every record has a class); a class's
        // totals: the sum over the methods that made it.
        let mut classes: Vec<Amount> = Vec::new();
        for entry in &method_classes {
            if let Some(class) = grow_to(&mut classes, entry.class_id) {
                class.add(&entry.amount);
            }
            let memory = if entry.method_id == OUTSIDE_METHODS {
                Some(&mut outside)
            } else {
                methods.get_mut(entry.method_id as usize)
            };
            if let Some(memory) = memory {
                memory.total.add(&entry.amount);
            }
        }
        let snapshot = Arc::new(MemorySnapshot {
            methods,
            outside,
            classes,
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
            .chain(&self.spare)
            .map(|bucket| {
                bucket.entries.capacity() * size_of::<(u32, Amount)>()
                    + bucket.opened.capacity() * size_of::<u32>()
            })
            .sum();
        self.methods.capacity() * size_of::<MethodSlot>()
            + self.buckets.capacity() * size_of::<Bucket>()
            + entries
            + self.method_classes.memory_bytes()
    }
}

/// The (method, class) key of [`MemoryState::method_classes`]. Never [`FREE_KEY`]: the one
/// pair that would make it (outside methods, class `u32::MAX`, an id no class has) shares the
/// key of class `u32::MAX - 1`, another id past the limit.
#[inline(always)]
fn key(method_id: u32, class_id: u32) -> u64 {
    (u64::from(method_id) << 32 | u64::from(class_id)).min(FREE_KEY - 1)
}

/// The slot of `method_id` (or [`OUTSIDE_METHODS`]); a free function so that callers can
/// keep borrowing the state's other fields.
#[inline(always)]
fn slot_of<'a>(
    methods: &'a mut [MethodSlot],
    outside: &'a mut MethodSlot,
    method_id: u32,
) -> &'a mut MethodSlot {
    if method_id == OUTSIDE_METHODS {
        outside
    } else {
        &mut methods[method_id as usize]
    }
}

/// Sorts (method, class) entries by method then class, summing the entries of one pair.
fn sort_and_sum(method_classes: &mut Vec<MethodClassAmount>) {
    method_classes.sort_unstable_by_key(|entry| (entry.method_id, entry.class_id));
    method_classes.dedup_by(|later, kept| {
        let same = (later.method_id, later.class_id) == (kept.method_id, kept.class_id);
        if same {
            kept.amount.add(&later.amount);
        }
        same
    });
}

/// The first bucket with any part inside `[now_ns - window_ns, now_ns]`.
pub(super) fn oldest_live_epoch(now_ns: u64, window_ns: u64) -> u64 {
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
        state.add(Pending::new(3, 1, made(2, 64), 0, 0), 0, 3 * SECOND);
        state.add(
            Pending::new(3, 1, made(1, 32), SECOND, SECOND),
            SECOND,
            3 * SECOND,
        );
        state.add(
            Pending::new(
                OUTSIDE_METHODS,
                2,
                MemoryAmount {
                    count: 4,
                    bytes: 0,
                    free: true,
                },
                SECOND,
                SECOND,
            ),
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
        state.add(
            Pending::new(3, 1, made(5, 5), SECOND, 10 * SECOND),
            10 * SECOND,
            3 * SECOND,
        );
        let snapshot = state.snapshot();
        assert!(snapshot.method(3).window.is_zero());
        assert_eq!(snapshot.method(3).total.count, 8);
    }

    #[test]
    fn a_lagging_thread_lands_in_its_own_bucket() {
        let mut state = MemoryState::default();
        state.add(
            Pending::new(1, 0, made(1, 8), 2 * SECOND, 2 * SECOND),
            2 * SECOND,
            3 * SECOND,
        );
        state.add(
            Pending::new(1, 0, made(1, 8), SECOND, 2 * SECOND),
            2 * SECOND,
            3 * SECOND,
        );
        state.add(
            Pending::new(1, 0, made(1, 8), 2 * SECOND, 2 * SECOND),
            2 * SECOND,
            3 * SECOND,
        );
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
        state.add(Pending::new(0, 0, made(1, 1), 0, 0), 0, SECOND);
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
