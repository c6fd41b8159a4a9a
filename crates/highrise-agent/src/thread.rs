//! The hot path: each thread records raw events into its own ring; the sender thread drains
//! every ring.
//!
//! A ring is a single-producer, single-consumer queue of `(raw clock, word)` records. The
//! owning thread writes a record and publishes it with one release store of `head`; nothing
//! else happens per event: no lock, no allocation, no system call. The sender reads up to
//! `head` and hands the space back with a release store of `tail`.
//!
//! When the ring is full the thread drops events (it never waits) and enters *drop mode*: it
//! counts what it drops and remembers their net effect on its stack (the exits that closed
//! frames opened before the loss, the enters still open). As soon as there is room again it
//! writes a *resync block* (a marker, those exits, those enters) before its next event. The
//! sender, which replays every thread's stack, applies the block and sends the viewer a
//! `Resync` with the thread's complete stack, so lost events never leave a stack wrong.
//!
//! Words: an event is `method_id << 1 | kind` (kind 0 = enter, 1 = exit). A resync block is a
//! marker word [`MARK_RESYNC`] `| exits << 24 | enters` followed by `exits` slots, then
//! `enters` slots, each holding one method id (their clock field is unused). A memory record
//! ([`crate::alloc`]) is two slots: [`MARK_MEMORY`] `| free << 32 | class_id` with its clock,
//! then `(count, bytes)` in the clock and word fields; it is written just before the event
//! that follows it (or by a late flush), so it belongs to the frame on top at that point.
//! When a frame's counts are small they take one slot instead, written and published together
//! with the event that follows and taking its clock: [`MARK_MEMORY`] `|` [`MEMORY_SHORT`]
//! `| frees << 42 | allocations << 24 | class_id`, and `bytes << 32 | freed bytes` in the clock
//! field. Smaller still (untyped, at most 7 allocations and 7 frees of at most 16 383 bytes
//! each way: a frame that makes a string or two) they ride in the spare bits of the event's
//! own word, [`EVENT_WITH_MEMORY`] (see [`pack_memory`]), and cost no slot at all.

use std::cell::{Cell, OnceCell, RefCell};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use crate::alloc::{self, agents_own, PENDING};
use crate::clock::{self, FastClock};

/// Marks the first slot of a resync block.
pub(crate) const MARK_RESYNC: u64 = 1 << 63;

/// Marks the first slot of a memory record; bit 32 says "freed".
pub(crate) const MARK_MEMORY: u64 = 1 << 62;

/// Bit of a memory record's first word: the objects were freed, not created.
pub(crate) const MEMORY_FREED: u64 = 1 << 32;

/// Bit of a memory record's word: a one-slot record of creations and frees, its clock the
/// next slot's (an event written with it).
pub(crate) const MEMORY_SHORT: u64 = 1 << 61;

/// Counts below this (18 bits each) fit a [`MEMORY_SHORT`] record.
pub(crate) const SHORT_COUNT_LIMIT: u64 = 1 << 18;

/// Bit of an event's word: the frame's untyped counts are in the word's spare bits above the
/// event (`method_id << 1 | kind` takes bits 0–24: method ids are below 2^24).
pub(crate) const EVENT_WITH_MEMORY: u64 = 1 << 60;

/// Where the counts of an [`EVENT_WITH_MEMORY`] word start, and the bits of each: allocations,
/// frees (3 bits each), bytes, freed bytes (14 bits each).
const PACKED_SHIFT: u32 = 25;
const PACKED_COUNT_BITS: u32 = 3;
const PACKED_BYTES_BITS: u32 = 14;

/// `[allocations, bytes, frees, freed bytes]` in an event word's spare bits, if they fit.
#[inline(always)]
pub(crate) fn pack_memory(counts: [u64; 4]) -> Option<u64> {
    let [allocations, bytes, frees, freed_bytes] = counts;
    let fits = (allocations | frees) < 1 << PACKED_COUNT_BITS
        && (bytes | freed_bytes) < 1 << PACKED_BYTES_BITS;
    fits.then(|| {
        let mut shift = PACKED_SHIFT;
        let mut packed = EVENT_WITH_MEMORY;
        for (value, bits) in [
            (allocations, PACKED_COUNT_BITS),
            (frees, PACKED_COUNT_BITS),
            (bytes, PACKED_BYTES_BITS),
            (freed_bytes, PACKED_BYTES_BITS),
        ] {
            packed |= value << shift;
            shift += bits;
        }
        packed
    })
}

/// The event word and the counts of a word [`pack_memory`] made (all zero without
/// [`EVENT_WITH_MEMORY`]).
#[inline(always)]
pub(crate) fn unpack_memory(word: u64) -> (u64, [u64; 4]) {
    if word & EVENT_WITH_MEMORY == 0 {
        return (word, [0; 4]);
    }
    let mut shift = PACKED_SHIFT;
    let mut take = |bits: u32| {
        let value = (word >> shift) & ((1 << bits) - 1);
        shift += bits;
        value
    };
    let allocations = take(PACKED_COUNT_BITS);
    let frees = take(PACKED_COUNT_BITS);
    let bytes = take(PACKED_BYTES_BITS);
    let freed_bytes = take(PACKED_BYTES_BITS);
    (
        word & ((1 << PACKED_SHIFT) - 1),
        [allocations, bytes, frees, freed_bytes],
    )
}

/// Most exits or enters one resync block carries (beyond that the thread's stack is deeper
/// than any real program's and the block is cut; the viewer's stack is then approximate).
const MAX_BLOCK_IDS: usize = 4096;

/// Ring capacity for threads that start recording from now on (events, a power of two).
pub(crate) static RING_CAPACITY: AtomicUsize = AtomicUsize::new(DEFAULT_RING_CAPACITY);

/// 32 768 events × 16 bytes = 512 KiB per recording thread.
pub(crate) const DEFAULT_RING_CAPACITY: usize = 1 << 15;

/// Thread ids: a process-wide counter, assigned on a thread's first event.
static NEXT_THREAD_ID: AtomicU64 = AtomicU64::new(1);

/// Every ring of the process (live threads, and ended ones the sender has not retired yet).
static RINGS: Mutex<Vec<Arc<Ring>>> = Mutex::new(Vec::new());

/// Bumped whenever `RINGS` changes, so the sender only re-reads the list when needed.
pub(crate) static RINGS_GENERATION: AtomicU64 = AtomicU64::new(0);

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    match mutex.lock() {
        Ok(guard) => guard,
        Err(poisoned) => poisoned.into_inner(),
    }
}

/// A copy of the list of rings.
pub(crate) fn rings() -> Vec<Arc<Ring>> {
    lock(&RINGS).clone()
}

/// Forgets an ended thread's ring (the sender has sent its ThreadEnd).
pub(crate) fn retire(ring: &Arc<Ring>) {
    lock(&RINGS).retain(|other| !Arc::ptr_eq(other, ring));
    RINGS_GENERATION.fetch_add(1, Ordering::Release);
}

/// One ring slot. Relaxed atomics compile to plain moves; the ordering comes from `head`.
#[derive(Debug, Default)]
struct Slot {
    raw: AtomicU64,
    word: AtomicU64,
}

/// Keeps a hot atomic on its own cache line.
#[derive(Debug, Default)]
#[repr(align(64))]
struct Padded<T>(T);

/// One thread's queue of events, shared by the thread and the sender.
#[derive(Debug)]
pub(crate) struct Ring {
    slots: Box<[Slot]>,
    mask: u64,
    head: Padded<AtomicU64>,
    tail: Padded<AtomicU64>,
    pub(crate) thread_id: u64,
    pub(crate) name: String,
    /// Clock (raw) of the thread's first event.
    pub(crate) start_raw: u64,
    ended: AtomicBool,
    end_raw: AtomicU64,
    /// Events this thread dropped because its ring was full.
    events_dropped: AtomicU64,
    /// Runs of consecutive dropped events (each one a lost batch).
    batches_dropped: AtomicU64,
    /// Memory counts this thread could not write (its ring was full): allocations, their
    /// bytes, frees.
    memory_dropped: [AtomicU64; 3],
    /// The sender's replay of this thread's stack; only the sender touches it.
    pub(crate) shadow: Mutex<Shadow>,
}

/// The sender's view of one thread: the stack after the last drained event.
#[derive(Debug, Default)]
pub(crate) struct Shadow {
    pub(crate) stack: Vec<u32>,
    /// Timestamp (ns ticks) of the last drained event.
    pub(crate) last_ns: u64,
}

impl Ring {
    fn new(capacity: usize, thread_id: u64, name: String, start_raw: u64) -> Self {
        let capacity = capacity.clamp(64, 1 << 26).next_power_of_two();
        Self {
            slots: (0..capacity).map(|_| Slot::default()).collect(),
            mask: capacity as u64 - 1,
            head: Padded::default(),
            tail: Padded::default(),
            thread_id,
            name,
            start_raw,
            ended: AtomicBool::new(false),
            end_raw: AtomicU64::new(0),
            events_dropped: AtomicU64::new(0),
            batches_dropped: AtomicU64::new(0),
            memory_dropped: Default::default(),
            shadow: Mutex::new(Shadow::default()),
        }
    }

    pub(crate) fn capacity(&self) -> usize {
        self.slots.len()
    }

    /// Records waiting to be drained.
    pub(crate) fn pending(&self) -> usize {
        let head = self.head.0.load(Ordering::Acquire);
        let tail = self.tail.0.load(Ordering::Relaxed);
        head.saturating_sub(tail) as usize
    }

    /// Copies every published record into `out` (as `(raw, word)`) and frees their slots.
    pub(crate) fn drain_into(&self, out: &mut Vec<(u64, u64)>) {
        let head = self.head.0.load(Ordering::Acquire);
        let tail = self.tail.0.load(Ordering::Relaxed);
        out.reserve(head.saturating_sub(tail) as usize);
        for position in tail..head {
            let slot = &self.slots[(position & self.mask) as usize];
            out.push((
                slot.raw.load(Ordering::Relaxed),
                slot.word.load(Ordering::Relaxed),
            ));
        }
        self.tail.0.store(head, Ordering::Release);
    }

    /// The thread ended (its clock at the end), once it has.
    pub(crate) fn ended_at(&self) -> Option<u64> {
        self.ended
            .load(Ordering::Acquire)
            .then(|| self.end_raw.load(Ordering::Relaxed))
    }

    /// `(events, batches)` this thread dropped so far.
    pub(crate) fn drops(&self) -> (u64, u64) {
        (
            self.events_dropped.load(Ordering::Relaxed),
            self.batches_dropped.load(Ordering::Relaxed),
        )
    }

    /// `[allocations, bytes, frees]` whose memory records this thread had to drop.
    pub(crate) fn memory_drops(&self) -> [u64; 3] {
        self.memory_dropped
            .each_ref()
            .map(|count| count.load(Ordering::Relaxed))
    }

    pub(crate) fn lock_shadow(&self) -> MutexGuard<'_, Shadow> {
        lock(&self.shadow)
    }
}

/// What a thread remembers about the events it dropped.
#[derive(Debug, Default)]
struct DropTrack {
    /// Exits of frames opened before the loss, in order.
    exits: Vec<u32>,
    /// Enters not closed again within the loss, outermost first.
    enters: Vec<u32>,
}

impl DropTrack {
    fn apply(&mut self, word: u64) {
        let method_id = (word >> 1) as u32;
        if word & 1 == 0 {
            if self.enters.len() < MAX_BLOCK_IDS {
                self.enters.push(method_id);
            }
        } else if let Some(position) = self.enters.iter().rposition(|&id| id == method_id) {
            // Closes that frame and (out of order) any still open above it, as the viewer
            // would.
            self.enters.truncate(position);
        } else {
            // A frame opened before the loss: whatever was entered since is unwound too.
            self.enters.clear();
            if self.exits.len() < MAX_BLOCK_IDS {
                self.exits.push(method_id);
            }
        }
    }

    fn slots_needed(&self) -> u64 {
        1 + self.exits.len() as u64 + self.enters.len() as u64
    }
}

/// The thread-local side of a ring.
struct Local {
    /// Next position to write (the ring's `head`, kept here to avoid reading it back).
    head: Cell<u64>,
    /// Writes are allowed while `head < limit` (= last known tail + capacity). Zero before the
    /// first event and in drop mode, which sends every event down the slow path.
    limit: Cell<u64>,
    inner: OnceCell<Inner>,
    dropping: RefCell<Option<DropTrack>>,
}

struct Inner {
    ring: Arc<Ring>,
    clock: FastClock,
}

impl Local {
    const fn new() -> Self {
        Self {
            head: Cell::new(0),
            limit: Cell::new(0),
            inner: OnceCell::new(),
            dropping: RefCell::new(None),
        }
    }

    #[inline(always)]
    fn record(&self, word: u64) {
        if PENDING.try_with(alloc::Pending::any).unwrap_or(false) {
            self.record_after_memory(word);
            return;
        }
        self.record_event(word);
    }

    /// The thread allocated since its last record: the memory records first (they belong to
    /// the frame on top until this event), then the event.
    #[cold]
    #[inline(never)]
    fn record_after_memory(&self, word: u64) {
        let _ = PENDING.try_with(|pending| {
            if self.write_memory_in_event(pending, word)
                || self.write_short_memory_and_event(pending, word)
            {
                return;
            }
            pending.busy.set(true);
            let _ = self.inner();
            match self.write_memory(pending.take(), pending.class_id.get()) {
                // One clock read for both: the records and the event share the timestamp.
                Some(raw) => self.record_event_at(word, raw),
                None => self.record_event(word),
            }
            pending.busy.set(false);
        });
    }

    /// The frame's pending counts in the event's own word ([`EVENT_WITH_MEMORY`]); false
    /// (nothing written, nothing taken) when they are typed or too large, the thread has no
    /// ring yet, or the known room is used up.
    #[inline(always)]
    fn write_memory_in_event(&self, pending: &alloc::Pending, word: u64) -> bool {
        if pending.class_id.get() != alloc::UNTYPED_CLASS {
            return false;
        }
        let Some(packed) = pack_memory(pending.counts()) else {
            return false;
        };
        let head = self.head.get();
        if head >= self.limit.get() {
            return false;
        }
        let Some(inner) = self.inner.get() else {
            return false;
        };
        inner.write(head, inner.clock.raw(), word | packed);
        self.publish(&inner.ring, head + 1);
        pending.take();
        true
    }

    /// The frame's pending counts as one [`MEMORY_SHORT`] slot and the event `word` after it,
    /// published together (nothing here allocates); false (nothing written, nothing taken)
    /// when the counts do not fit one slot, the thread has no ring yet or the known room does
    /// not hold both (then the two-slot records take over, which read the ring's `tail` and
    /// handle drop mode).
    #[inline(always)]
    fn write_short_memory_and_event(&self, pending: &alloc::Pending, word: u64) -> bool {
        let [allocations, bytes, frees, freed_bytes] = pending.counts();
        let class_id = pending.class_id.get();
        let fits = allocations < SHORT_COUNT_LIMIT
            && frees < SHORT_COUNT_LIMIT
            && bytes <= u64::from(u32::MAX)
            && freed_bytes <= u64::from(u32::MAX)
            && class_id < highrise_protocol::MAX_CLASS_ID;
        let head = self.head.get();
        // `limit` is 0 in drop mode: nothing may come before the resync block.
        if !fits || head + 2 > self.limit.get() {
            return false;
        }
        let Some(inner) = self.inner.get() else {
            return false;
        };
        let short =
            MARK_MEMORY | MEMORY_SHORT | frees << 42 | allocations << 24 | u64::from(class_id);
        inner.write(head, bytes << 32 | freed_bytes, short);
        inner.write(head + 1, inner.clock.raw(), word);
        self.publish(&inner.ring, head + 2);
        pending.take();
        true
    }

    /// Writes pending counts now, if the thread has a ring (called from the allocator when
    /// the sender moved on; without a ring they wait for the thread's first event).
    fn flush_memory(&self) {
        if self.inner.get().is_none() {
            return;
        }
        let _ = PENDING.try_with(|pending| {
            self.write_memory(pending.take(), pending.class_id.get());
        });
    }

    /// Writes memory records for `[allocations, bytes, frees, freed bytes]`, or counts them as
    /// dropped when the ring has no room or the thread is dropping events (after a loss,
    /// nothing may precede the resync block). Returns the clock reading they were written
    /// with, if they were.
    fn write_memory(&self, counts: [u64; 4], class_id: u32) -> Option<u64> {
        let [allocations, bytes, frees, freed_bytes] = counts;
        let records = [
            (allocations, bytes, 0u64),
            (frees, freed_bytes, MEMORY_FREED),
        ];
        let slots = records.iter().filter(|r| r.0 > 0).count() as u64 * 2;
        let inner = self.inner.get()?;
        if slots == 0 {
            return None;
        }
        let ring = &inner.ring;
        let head = self.head.get();
        // The known room first: reading the sender's `tail` is a cache miss while it drains.
        let mut limit = self.limit.get();
        if limit < head + slots {
            let dropping = self
                .dropping
                .try_borrow()
                .map_or(true, |track| track.is_some());
            // After a loss nothing may come before the resync block: drop mode drops these.
            limit = if dropping {
                0
            } else {
                ring.tail.0.load(Ordering::Acquire) + ring.slots.len() as u64
            };
        }
        if limit < head + slots {
            ring.memory_dropped[0].fetch_add(allocations, Ordering::Relaxed);
            ring.memory_dropped[1].fetch_add(bytes, Ordering::Relaxed);
            ring.memory_dropped[2].fetch_add(frees, Ordering::Relaxed);
            return None;
        }
        let raw = inner.clock.raw();
        let mut position = head;
        for (count, bytes, freed) in records {
            if count == 0 {
                continue;
            }
            inner.write(position, raw, MARK_MEMORY | freed | u64::from(class_id));
            inner.write(position + 1, count, bytes);
            position += 2;
        }
        self.publish(ring, position);
        self.limit.set(limit);
        Some(raw)
    }

    /// [`record_event`](Self::record_event) with a clock reading already taken.
    #[inline(always)]
    fn record_event_at(&self, word: u64, raw: u64) {
        let head = self.head.get();
        if head < self.limit.get() {
            if let Some(inner) = self.inner.get() {
                inner.write(head, raw, word);
                self.publish(&inner.ring, head + 1);
                return;
            }
        }
        self.record_slow(word);
    }

    #[inline(always)]
    fn record_event(&self, word: u64) {
        let head = self.head.get();
        if head < self.limit.get() {
            if let Some(inner) = self.inner.get() {
                inner.write(head, inner.clock.raw(), word);
                self.publish(&inner.ring, head + 1);
                return;
            }
        }
        self.record_slow(word);
    }

    #[cold]
    #[inline(never)]
    fn record_slow(&self, word: u64) {
        // Tracking drops allocates and frees (the drop track's vectors): not the program's.
        agents_own(|| self.record_slow_inner(word));
    }

    fn record_slow_inner(&self, word: u64) {
        let Some(inner) = self.inner() else {
            return;
        };
        let ring = &inner.ring;
        let capacity = ring.slots.len() as u64;
        let mut head = self.head.get();
        let limit = ring.tail.0.load(Ordering::Acquire) + capacity;
        let Ok(mut dropping) = self.dropping.try_borrow_mut() else {
            return;
        };
        if let Some(track) = dropping.as_mut() {
            if limit - head < track.slots_needed() + 1 {
                track.apply(word);
                ring.events_dropped.fetch_add(1, Ordering::Relaxed);
                return;
            }
            // Room again: the resync block first, then this event.
            let raw = inner.clock.raw();
            let marker =
                MARK_RESYNC | ((track.exits.len() as u64) << 24) | track.enters.len() as u64;
            inner.write(head, raw, marker);
            head += 1;
            for &method_id in track.exits.iter().chain(track.enters.iter()) {
                inner.write(head, raw, u64::from(method_id));
                head += 1;
            }
            *dropping = None;
        } else if head >= limit {
            // Full: start dropping.
            ring.batches_dropped.fetch_add(1, Ordering::Relaxed);
            ring.events_dropped.fetch_add(1, Ordering::Relaxed);
            let mut track = DropTrack::default();
            track.apply(word);
            *dropping = Some(track);
            self.limit.set(0);
            return;
        }
        inner.write(head, inner.clock.raw(), word);
        head += 1;
        self.publish(ring, head);
        self.limit.set(limit);
    }

    /// Makes the records before `head` visible to the sender (one release store).
    #[inline(always)]
    fn publish(&self, ring: &Ring, head: u64) {
        self.head.set(head);
        ring.head.0.store(head, Ordering::Release);
    }

    /// The ring, created (and registered with the sender) on the thread's first event.
    fn inner(&self) -> Option<&Inner> {
        if let Some(inner) = self.inner.get() {
            return Some(inner);
        }
        // Creating the ring allocates: that is the agent's doing, not the program's.
        agents_own(|| self.create_inner())
    }

    fn create_inner(&self) -> Option<&Inner> {
        let clock = clock::global()?.fast.clone();
        let thread = std::thread::current();
        let thread_id = NEXT_THREAD_ID.fetch_add(1, Ordering::Relaxed);
        let name = thread
            .name()
            .map_or_else(|| format!("thread-{thread_id}"), str::to_string);
        let ring = Arc::new(Ring::new(
            RING_CAPACITY.load(Ordering::Relaxed),
            thread_id,
            name,
            clock.raw(),
        ));
        lock(&RINGS).push(Arc::clone(&ring));
        RINGS_GENERATION.fetch_add(1, Ordering::Release);
        let _ = self.inner.set(Inner { ring, clock });
        self.inner.get()
    }
}

impl Inner {
    #[inline(always)]
    fn write(&self, position: u64, raw: u64, word: u64) {
        let slot = &self.ring.slots[(position & self.ring.mask) as usize];
        slot.raw.store(raw, Ordering::Relaxed);
        slot.word.store(word, Ordering::Relaxed);
    }
}

impl Drop for Local {
    /// The thread is ending: what it recorded is already in the ring (its last allocations
    /// are written now); tell the sender to drain it and announce the end.
    fn drop(&mut self) {
        self.flush_memory();
        if let Some(inner) = self.inner.get() {
            inner
                .ring
                .end_raw
                .store(inner.clock.raw(), Ordering::Relaxed);
            inner.ring.ended.store(true, Ordering::Release);
        }
    }
}

thread_local! {
    static LOCAL: Local = const { Local::new() };
}

/// Writes the calling thread's pending allocation counts into its ring now (see
/// [`crate::alloc`]); does nothing during thread teardown or before the thread's first event.
pub(crate) fn flush_memory() {
    let _ = LOCAL.try_with(Local::flush_memory);
}

/// Like [`flush_memory`], creating the thread's ring if it has none yet (for
/// [`crate::alloc_as`], whose counts must be written before the class changes).
pub(crate) fn flush_memory_now() {
    let _ = LOCAL.try_with(|local| {
        let _ = local.inner();
        let _ = PENDING.try_with(|pending| {
            let busy = pending.busy.replace(true);
            local.write_memory(pending.take(), pending.class_id.get());
            pending.busy.set(busy);
        });
    });
}

/// Records one event on the calling thread. Never blocks, never allocates after the
/// thread's first event, never panics (during thread teardown it does nothing).
#[inline(always)]
pub(crate) fn record(word: u64) {
    let _ = LOCAL.try_with(|local| local.record(word));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn drop_track_keeps_the_net_effect() {
        let mut track = DropTrack::default();
        // exit 5 (opened before the loss), enter 1, enter 2, exit 2, enter 3
        for word in [5 << 1 | 1, 1 << 1, 2 << 1, 2 << 1 | 1, 3 << 1] {
            track.apply(word);
        }
        assert_eq!(track.exits, vec![5]);
        assert_eq!(track.enters, vec![1, 3]);
        // exit 1 closes 3 as well (out of order, as the viewer would)
        track.apply(1 << 1 | 1);
        assert_eq!(track.enters, Vec::<u32>::new());
        track.apply(8 << 1);
        // exit 7, opened before the loss, unwinds 8
        track.apply(7 << 1 | 1);
        assert_eq!(track.exits, vec![5, 7]);
        assert!(track.enters.is_empty());
        assert_eq!(track.slots_needed(), 3);
    }
}
