//! [`Allocator`]: a `#[global_allocator]` wrapper that counts the program's allocations, bytes
//! and frees per calling context, for the viewer's allocation views.
//!
//! Each allocation adds to the calling thread's pending counters (a thread-local of plain
//! cells: no lock, no allocation, no destructor). The counters are written into the thread's
//! ring as memory records just **before** its next enter or exit (so they belong to the frame
//! that was on top while they were made, exactly, without a stack walk), and at the latest at
//! the sender's next cycle (about every 10 ms), so a long frame's allocations show live.
//! Rust allocations carry no type: every record names the class `(untyped)`.
//!
//! Counting is on while an agent runs, unless [`crate::AgentBuilder::allocations`]`(false)` or
//! `HIGHRISE_ALLOC=off`; without an agent the wrapper only forwards to the inner allocator.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
#[cfg(feature = "enable")]
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// The class id of untyped allocations (defined first on every connection).
pub(crate) const UNTYPED_CLASS: u32 = 0;

/// Classes named with [`alloc_as`]: `(TypeId, type_name)` by class id − 1.
static CLASSES: std::sync::RwLock<Vec<(std::any::TypeId, &'static str)>> =
    std::sync::RwLock::new(Vec::new());

/// The class id of `T`, registered on first use.
fn class_of<T: ?Sized + 'static>() -> u32 {
    let type_id = std::any::TypeId::of::<T>();
    let known = |classes: &[(std::any::TypeId, &'static str)]| {
        classes
            .iter()
            .position(|(id, _)| *id == type_id)
            .map(|index| index as u32 + 1)
    };
    if let Ok(classes) = CLASSES.read() {
        if let Some(id) = known(&classes) {
            return id;
        }
    }
    agents_own(|| {
        let mut classes = match CLASSES.write() {
            Ok(guard) => guard,
            Err(poisoned) => poisoned.into_inner(),
        };
        known(&classes).unwrap_or_else(|| {
            classes.push((type_id, std::any::type_name::<T>()));
            classes.len() as u32
        })
    })
}

/// Type names registered with [`alloc_as`] from class id `from` on: `(id, type name)`.
#[cfg(feature = "enable")]
pub(crate) fn classes_from(from: u32) -> Vec<(u32, &'static str)> {
    let classes = match CLASSES.read() {
        Ok(guard) => guard,
        Err(poisoned) => poisoned.into_inner(),
    };
    classes
        .iter()
        .enumerate()
        .skip(from.saturating_sub(1) as usize)
        .map(|(index, (_, name))| (index as u32 + 1, *name))
        .collect()
}

/// Runs `make` and counts the allocations it makes (on this thread, in the current frame) as
/// objects of type `T`, instead of `(untyped)`: the viewer and the report then name the class.
///
/// ```no_run
/// #[derive(Debug)]
/// struct Circle { r: f64 }
/// let circle = highrise_agent::alloc_as::<Circle, _>(|| Box::new(Circle { r: 1.0 }));
/// ```
///
/// Everything `make` allocates counts as `T` (a `Vec<Circle>`'s buffer too: name the type you
/// want to see). Allocations made before and after stay untyped; the ones pending are written
/// out first, so each count keeps its frame. Costs a read lock and two flushes of the
/// thread's counters (≈ 50–100 ns); meant for the types worth naming, not every allocation.
pub fn alloc_as<T: ?Sized + 'static, R>(make: impl FnOnce() -> R) -> R {
    #[cfg(feature = "enable")]
    {
        if !COUNTING.load(Ordering::Relaxed) {
            return make();
        }
        let class_id = class_of::<T>();
        crate::thread::flush_memory_now();
        let outer = PENDING.try_with(|pending| pending.class_id.replace(class_id));
        let made = make();
        crate::thread::flush_memory_now();
        if let Ok(outer) = outer {
            let _ = PENDING.try_with(|pending| pending.class_id.set(outer));
        }
        made
    }
    #[cfg(not(feature = "enable"))]
    {
        make()
    }
}

/// True while an agent runs with allocation counting on.
#[cfg(feature = "enable")]
pub(crate) static COUNTING: AtomicBool = AtomicBool::new(false);

/// Bumped by the sender every cycle: a thread whose pending counters are older writes them
/// out at its next allocation.
#[cfg(feature = "enable")]
pub(crate) static FLUSH_EPOCH: AtomicU64 = AtomicU64::new(0);

/// A thread's counts since its last memory records.
pub(crate) struct Pending {
    pub(crate) allocations: Cell<u64>,
    pub(crate) allocated_bytes: Cell<u64>,
    pub(crate) frees: Cell<u64>,
    pub(crate) freed_bytes: Cell<u64>,
    /// The `FLUSH_EPOCH` the counters were last written at.
    pub(crate) epoch: Cell<u64>,
    /// Inside the agent's own code (writing a ring, the sender thread): count, never flush.
    pub(crate) busy: Cell<bool>,
    /// The class the counts are of: [`UNTYPED_CLASS`], or a type named with [`alloc_as`].
    pub(crate) class_id: Cell<u32>,
}

impl Pending {
    const fn new() -> Self {
        Self {
            allocations: Cell::new(0),
            allocated_bytes: Cell::new(0),
            frees: Cell::new(0),
            freed_bytes: Cell::new(0),
            epoch: Cell::new(0),
            busy: Cell::new(false),
            class_id: Cell::new(0),
        }
    }

    /// Something to write out.
    #[inline(always)]
    pub(crate) fn any(&self) -> bool {
        self.allocations.get() | self.frees.get() != 0
    }

    /// The counts, left in place: `[allocations, bytes, frees, freed bytes]`.
    #[inline(always)]
    pub(crate) fn counts(&self) -> [u64; 4] {
        [
            self.allocations.get(),
            self.allocated_bytes.get(),
            self.frees.get(),
            self.freed_bytes.get(),
        ]
    }

    /// Takes the counts: `(allocations, bytes, frees, freed bytes)`.
    pub(crate) fn take(&self) -> [u64; 4] {
        [
            self.allocations.replace(0),
            self.allocated_bytes.replace(0),
            self.frees.replace(0),
            self.freed_bytes.replace(0),
        ]
    }
}

thread_local! {
    /// No `Drop`, const-initialised: reading it is one thread-pointer offset, registers no
    /// destructor and never allocates, so the allocator may touch it at any time.
    pub(crate) static PENDING: Pending = const { Pending::new() };
}

/// Runs the agent's own code: allocations and frees it makes are not counted as the
/// program's (nor written out meanwhile).
pub(crate) fn agents_own<R>(work: impl FnOnce() -> R) -> R {
    let outer = PENDING.try_with(|pending| (pending.take(), pending.busy.replace(true)));
    let result = work();
    if let Ok((counts, busy)) = outer {
        let _ = PENDING.try_with(|pending| {
            pending.take();
            restore(pending, counts);
            pending.busy.set(busy);
        });
    }
    result
}

/// Puts counts taken with [`Pending::take`] back.
fn restore(pending: &Pending, counts: [u64; 4]) {
    pending
        .allocations
        .set(pending.allocations.get() + counts[0]);
    pending
        .allocated_bytes
        .set(pending.allocated_bytes.get() + counts[1]);
    pending.frees.set(pending.frees.get() + counts[2]);
    pending
        .freed_bytes
        .set(pending.freed_bytes.get() + counts[3]);
}

/// Counts every allocation of the program for the highrise viewer, then forwards it to `A`.
///
/// ```no_run
/// #[global_allocator]
/// static ALLOC: highrise_agent::Allocator = highrise_agent::Allocator::system();
///
/// fn main() {
///     let _highrise = highrise_agent::init("my-program");
///     // ... allocations now show per method in the viewer and in `highrise report`
/// }
/// ```
///
/// Cost: about 2–3 ns per allocation or free on top of the inner allocator (two thread-local
/// adds and two relaxed loads; `BENCHMARKS.md`, "Allocation counting"). Counted: every
/// `alloc`, `alloc_zeroed` and `dealloc`, with their requested sizes; a `realloc` counts as
/// one free of the old size and one allocation of the new size. The agent's own thread is not
/// counted.
#[derive(Debug, Default, Clone, Copy)]
pub struct Allocator<A = System> {
    inner: A,
}

impl Allocator<System> {
    /// Counting over the system allocator.
    pub const fn system() -> Self {
        Self { inner: System }
    }
}

impl<A> Allocator<A> {
    /// Counting over `inner` (e.g. another allocator crate's type).
    pub const fn new(inner: A) -> Self {
        Self { inner }
    }
}

#[cfg(feature = "enable")]
#[inline(always)]
fn count(allocations: u64, allocated_bytes: u64, frees: u64, freed_bytes: u64) {
    if !COUNTING.load(Ordering::Relaxed) {
        return;
    }
    let _ = PENDING.try_with(|pending| {
        pending
            .allocations
            .set(pending.allocations.get() + allocations);
        pending
            .allocated_bytes
            .set(pending.allocated_bytes.get() + allocated_bytes);
        pending.frees.set(pending.frees.get() + frees);
        pending
            .freed_bytes
            .set(pending.freed_bytes.get() + freed_bytes);
        if pending.epoch.get() != FLUSH_EPOCH.load(Ordering::Relaxed) && !pending.busy.get() {
            flush_late(pending);
        }
    });
}

#[cfg(not(feature = "enable"))]
#[inline(always)]
fn count(_allocations: u64, _allocated_bytes: u64, _frees: u64, _freed_bytes: u64) {}

/// The sender moved on since this thread's last memory records: write them now (into an
/// existing ring only).
#[cfg(feature = "enable")]
#[cold]
#[inline(never)]
fn flush_late(pending: &Pending) {
    pending.epoch.set(FLUSH_EPOCH.load(Ordering::Relaxed));
    pending.busy.set(true);
    crate::thread::flush_memory();
    pending.busy.set(false);
}

/// The sender thread's allocations are the agent's, not the program's.
#[cfg(feature = "enable")]
pub(crate) fn exclude_this_thread() {
    let _ = PENDING.try_with(|pending| {
        pending.busy.set(true);
        pending.take();
    });
}

// SAFETY (the whole impl): every method forwards to the inner allocator with the caller's
// arguments unchanged and returns its result; the counting touches only a thread-local of
// plain cells and two atomics, never allocates and never unwinds.
#[allow(unsafe_code)]
unsafe impl<A: GlobalAlloc> GlobalAlloc for Allocator<A> {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded as is (the caller upholds `GlobalAlloc::alloc`'s contract).
        let block = unsafe { self.inner.alloc(layout) };
        if !block.is_null() {
            count(1, layout.size() as u64, 0, 0);
        }
        block
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded as is.
        let block = unsafe { self.inner.alloc_zeroed(layout) };
        if !block.is_null() {
            count(1, layout.size() as u64, 0, 0);
        }
        block
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded as is.
        unsafe { self.inner.dealloc(ptr, layout) };
        count(0, 0, 1, layout.size() as u64);
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: forwarded as is.
        let block = unsafe { self.inner.realloc(ptr, layout, new_size) };
        if !block.is_null() {
            count(1, new_size as u64, 1, layout.size() as u64);
        }
        block
    }
}
