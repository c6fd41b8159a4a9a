//! Where memory records are folded ([`crate::MemoryFold`]): on a thread of their own, inline
//! on the aggregator's thread, or a share of them on the calling-context tree's thread.
//!
//! Folding a memory record is one random access to its method's slot, bound by how many
//! cache misses one core keeps in flight, not by instructions; on a thread of its own the
//! misses run on another core's line-fill buffers while the aggregator's thread goes on with
//! the events. The aggregator queues each record ([`Pending`], 40 bytes, a sequential append)
//! and hands the queue over every [`JOB_RECORDS`] records, with the latest "now" (a record
//! folded at a later "now" lands where it would have been after that now's expiry: the window
//! and totals read back are the same). At most [`QUEUED_JOBS`] wait, then the aggregator
//! waits too. Every read hands over what is queued and waits for the worker, so it sees every
//! record applied before it, as inline. The thread starts with the session's first memory
//! record: sessions without any never start one. The thread itself is
//! [`crate::state_worker::WorkerThread`], as for [`crate::contexts::worker`].
//!
//! Shared with the tree's thread (two cores, both busy): the records of every
//! [`SHARED_EVERY`]-th method wait in [`MemoryHandle::shared`] until the aggregator adds them
//! to the tree's next job ([`MemoryHandle::hand_shared`]); that thread folds them into a
//! [`MemoryState`] of its own, and a read merges its snapshot with this side's
//! ([`MemoryHandle::snapshot`]).

use std::sync::mpsc::{sync_channel, Receiver, Sender};
use std::sync::Arc;

use highrise_protocol::MemoryAmount;

use super::fold::{MemorySnapshot, MemoryState, Pending};
use crate::config::MemoryFold;
use crate::state_worker::WorkerThread;

/// Records queued before they are handed to the worker.
const JOB_RECORDS: usize = 8 * 1024;
/// Jobs that may wait for the worker before the aggregator waits for it.
const QUEUED_JOBS: usize = 4;
/// With [`MemoryFold::SharedWithTree`], the tree's thread folds the records of every
/// `SHARED_EVERY`-th method: on two cores a quarter balanced the two threads best (a third,
/// a sixth and an eighth did less well, a half no better than inline).
const SHARED_EVERY: u32 = 4;

/// The other thread that takes a share of the fold ([`MemoryFold::SharedWithTree`]: the
/// calling-context tree's), seen from here only through what it is asked.
pub(crate) trait FoldShare {
    /// Takes `records` (leaving the vector empty) to fold at (now, window).
    fn fold_memory(&mut self, records: &mut Vec<Pending>, now_ns: u64, window_ns: u64);
    /// Its share at (now, window), everything handed to it folded.
    fn memory_snapshot(&mut self, now_ns: u64, window_ns: u64) -> Arc<MemorySnapshot>;
}

/// Records to fold, and the "now" and window to fold them at.
#[derive(Debug, Default)]
struct Job {
    records: Vec<Pending>,
    now_ns: u64,
    window_ns: u64,
    records_over_depth: u64,
}

impl Job {
    fn apply_to(&self, state: &mut MemoryState) {
        state.records_over_depth = self.records_over_depth;
        state.fold(&self.records, self.now_ns, self.window_ns);
    }
}

/// What the worker is asked.
enum Request {
    Fold(Job),
    Dropped(u64, u64, u64),
    /// The snapshot at (now, window).
    Snapshot(u64, u64, Sender<Arc<MemorySnapshot>>),
    MemoryBytes(Sender<usize>),
    Copy(Sender<MemoryState>),
}

/// The fold on a thread of its own.
struct Worker {
    thread: WorkerThread<Request>,
    /// Applied jobs' queues come back here to be filled again (no allocation per job).
    recycled: Receiver<Vec<Pending>>,
}

impl Worker {
    /// Starts the worker thread; gives `state` back when no thread can be made.
    fn start(state: Box<MemoryState>) -> Result<Self, Box<MemoryState>> {
        let (recycle, recycled) = sync_channel::<Vec<Pending>>(QUEUED_JOBS + 1);
        let thread = WorkerThread::start(
            "highrise-memory",
            state,
            QUEUED_JOBS,
            move |state: &mut MemoryState, request| match request {
                Request::Fold(mut job) => {
                    job.apply_to(state);
                    job.records.clear();
                    let _ = recycle.try_send(job.records);
                }
                Request::Dropped(allocations, bytes, frees) => {
                    state.dropped(allocations, bytes, frees)
                }
                Request::Snapshot(now_ns, window_ns, reply) => {
                    let _ = reply.send(state.snapshot_at(now_ns, window_ns));
                }
                Request::MemoryBytes(reply) => {
                    let _ = reply.send(state.memory_bytes());
                }
                Request::Copy(reply) => {
                    let _ = reply.send(state.clone());
                }
            },
        )?;
        Ok(Self { thread, recycled })
    }
}

/// Where the state lives.
enum Place {
    Inline(Box<MemoryState>),
    Thread(Worker),
}

/// The allocation counts of an [`crate::Aggregator`], wherever they are folded.
pub(crate) struct MemoryHandle {
    /// Records not handed over yet.
    queued: Vec<Pending>,
    /// The "now" and window of the latest batch end.
    now_ns: u64,
    window_ns: u64,
    /// Records of frames beyond the stack-depth limit, so far.
    pub(crate) records_over_depth: u64,
    /// Where the records are folded (resolved: never `Auto`; `Inline` once a thread could
    /// not be made). `OwnThread` starts its thread with the first records.
    fold: MemoryFold,
    /// With `SharedWithTree`, the records of the tree's share, until
    /// [`Self::hand_shared`].
    shared: Vec<Pending>,
    /// The last [`Self::merged`]: (this side's, the shared, the two merged).
    last_merged: Option<(
        Arc<MemorySnapshot>,
        Arc<MemorySnapshot>,
        Arc<MemorySnapshot>,
    )>,
    place: Place,
}

impl std::fmt::Debug for MemoryHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MemoryHandle")
            .field("queued", &self.queued.len())
            .field("fold", &self.fold)
            .field("started", &matches!(self.place, Place::Thread(_)))
            .finish_non_exhaustive()
    }
}

impl Clone for MemoryHandle {
    /// An independent copy (folding on a thread of its own too when this one does).
    fn clone(&self) -> Self {
        let state = match &self.place {
            Place::Inline(state) => state.clone(),
            Place::Thread(worker) => {
                // What is still queued here is copied below, not handed over.
                Box::new(worker.thread.ask(Request::Copy).unwrap_or_default())
            }
        };
        Self {
            queued: self.queued.clone(),
            now_ns: self.now_ns,
            window_ns: self.window_ns,
            records_over_depth: self.records_over_depth,
            fold: self.fold,
            shared: self.shared.clone(),
            last_merged: None,
            place: Place::Inline(state),
        }
    }
}

impl MemoryHandle {
    /// Folds as `fold` says (resolved: never `Auto`).
    pub(crate) fn new(fold: MemoryFold) -> Self {
        Self {
            fold,
            shared: Vec::new(),
            last_merged: None,
            queued: Vec::new(),
            now_ns: 0,
            window_ns: 0,
            records_over_depth: 0,
            place: Place::Inline(Box::default()),
        }
    }

    /// Queues one memory record (see [`Pending::new`]).
    #[inline]
    pub(crate) fn push(
        &mut self,
        method_id: u32,
        class_id: u32,
        amount: MemoryAmount,
        timestamp_ns: u64,
        now_ns: u64,
    ) {
        let record = Pending::new(method_id, class_id, amount, timestamp_ns, now_ns);
        if self.fold == MemoryFold::SharedWithTree && method_id % SHARED_EVERY == 0 {
            self.shared.push(record);
        } else {
            self.queued.push(record);
        }
    }

    /// A batch ended at `now_ns`: inline, its records are folded now; on the thread, once
    /// enough are queued.
    pub(crate) fn batch_ended(&mut self, now_ns: u64, window_ns: u64) {
        self.now_ns = now_ns;
        self.window_ns = window_ns;
        if self.queued.is_empty() {
            return;
        }
        // Inline, or for the first records (which start the thread), at once; then by jobs.
        if !matches!(self.place, Place::Thread(_)) || self.queued.len() >= JOB_RECORDS {
            self.hand_over();
        }
    }

    /// Folds or hands over what is queued.
    fn hand_over(&mut self) {
        if self.queued.is_empty() {
            return;
        }
        if self.fold == MemoryFold::OwnThread {
            if let Place::Inline(state) = &mut self.place {
                let state = std::mem::take(state);
                match Worker::start(state) {
                    Ok(worker) => self.place = Place::Thread(worker),
                    Err(state) => {
                        self.place = Place::Inline(state);
                        self.fold = MemoryFold::Inline;
                    }
                }
            }
        }
        match &mut self.place {
            Place::Inline(state) => {
                state.records_over_depth = self.records_over_depth;
                state.fold(&self.queued, self.now_ns, self.window_ns);
                self.queued.clear();
            }
            Place::Thread(worker) => {
                let next = worker.recycled.try_recv().unwrap_or_default();
                let records = std::mem::replace(&mut self.queued, next);
                worker.thread.send(Request::Fold(Job {
                    records,
                    now_ns: self.now_ns,
                    window_ns: self.window_ns,
                    records_over_depth: self.records_over_depth,
                }));
            }
        }
    }

    /// The agent's memory drop totals (running totals; lower ones are ignored).
    pub(crate) fn dropped(&mut self, allocations: u64, bytes: u64, frees: u64) {
        match &mut self.place {
            Place::Inline(state) => state.dropped(allocations, bytes, frees),
            Place::Thread(worker) => {
                worker
                    .thread
                    .send(Request::Dropped(allocations, bytes, frees))
            }
        }
    }

    /// Hands the tree's share of the records queued so far to its thread (nothing unless
    /// the fold is shared with it).
    pub(crate) fn hand_shared(&mut self, share: &mut dyn FoldShare) {
        share.fold_memory(&mut self.shared, self.now_ns, self.window_ns);
    }

    /// Everything queued folded, expired to `[now_ns - window_ns, now_ns]`, read back; with
    /// the fold shared, merged with the share of the tree's thread (`contexts`).
    pub(crate) fn snapshot(
        &mut self,
        now_ns: u64,
        window_ns: u64,
        share: Option<&mut dyn FoldShare>,
    ) -> Arc<MemorySnapshot> {
        self.hand_over();
        let local = match &mut self.place {
            Place::Inline(state) => state.snapshot_at(now_ns, window_ns),
            Place::Thread(worker) => worker
                .thread
                .ask(|reply| Request::Snapshot(now_ns, window_ns, reply))
                .unwrap_or_default(),
        };
        match share {
            Some(share) if self.fold == MemoryFold::SharedWithTree => {
                self.hand_shared(share);
                let shared = share.memory_snapshot(now_ns, window_ns);
                self.merged(&local, &shared)
            }
            _ => local,
        }
    }

    /// This side's snapshot and the tree's thread's share as one (the last one again while
    /// neither changed).
    fn merged(
        &mut self,
        local: &Arc<MemorySnapshot>,
        shared: &Arc<MemorySnapshot>,
    ) -> Arc<MemorySnapshot> {
        if let Some((last_local, last_shared, merged)) = &self.last_merged {
            if Arc::ptr_eq(last_local, local) && Arc::ptr_eq(last_shared, shared) {
                return Arc::clone(merged);
            }
        }
        let mut merged = local.merged(shared);
        // Counted here for every record; the records of the tree's share never reach this
        // side's state, which may not have seen the latest count (no record of its own since).
        merged.records_over_depth = self.records_over_depth;
        let merged = Arc::new(merged);
        self.last_merged = Some((Arc::clone(local), Arc::clone(shared), Arc::clone(&merged)));
        merged
    }

    /// Waits until every record queued so far is folded.
    pub(crate) fn wait(&mut self) {
        self.hand_over();
        if let Place::Thread(worker) = &self.place {
            let _ = worker.thread.ask(Request::MemoryBytes);
        }
    }

    /// Bytes held (an estimate from capacities; the queue's own included).
    pub(crate) fn memory_bytes(&self) -> usize {
        let state = match &self.place {
            Place::Inline(state) => state.memory_bytes(),
            Place::Thread(worker) => worker.thread.ask(Request::MemoryBytes).unwrap_or_default(),
        };
        state + self.queued.capacity() * size_of::<Pending>()
    }
}

#[cfg(test)]
mod tests {
    use super::super::fold::{oldest_live_epoch, Amount, BUCKET_SHIFT, OUTSIDE_METHODS};
    use super::*;

    const SECOND: u64 = 1_000_000_000;

    const INVALID_CLASS: u32 = highrise_protocol::MAX_CLASS_ID + 4;

    /// One step of [`window_and_totals_match_the_reference`]: `(advance now by this many ms,
    /// method (6 = outside), class, ms before now, count, free, huge)`.
    type Step = (u64, u32, u32, u64, u64, bool, bool);

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(300))]

        /// Accumulators opened, written out, overflowed and expired, with lagging records
        /// (up to 4 s before "now") and folds of any size, against a plain sum of the records;
        /// inline, or on the worker thread (which folds several batches at the latest one's
        /// "now").
        #[test]
        fn window_and_totals_match_the_reference(
            steps in proptest::collection::vec(
                (0u64..40, 0u32..7, 0u32..5, 0u64..4000, 1u64..5, proptest::prelude::any::<bool>(),
                    proptest::prelude::any::<bool>()),
                1..300,
            ),
            fold_every in 1usize..20,
            window_ms in 100u64..3000,
            own_thread in proptest::prelude::any::<bool>(),
        ) {
            let window_ns = window_ms * 1_000_000;
            let mut state = MemoryHandle::new(if own_thread {
                MemoryFold::OwnThread
            } else {
                MemoryFold::Inline
            });
            let mut now_ns = 10 * SECOND;
            // (method, epoch, amount) of every record.
            let mut seen: Vec<(u32, u64, MemoryAmount)> = Vec::new();
            let mut classes: Vec<u32> = Vec::new();
            let steps: Vec<Step> = steps;
            for (index, &(advance_ms, method, class_id, before_ms, count, free, huge)) in
                steps.iter().enumerate()
            {
                now_ns += advance_ms * 1_000_000;
                let method_id = if method == 6 { OUTSIDE_METHODS } else { method };
                // Class 4 stands for an id past the protocol's limit.
                let class_id = if class_id == 4 { INVALID_CLASS } else { class_id };
                let count = if huge { count << 31 } else { count };
                let amount = MemoryAmount { count, bytes: count * 24, free };
                let timestamp_ns = now_ns - before_ms * 1_000_000;
                state.push(method_id, class_id, amount, timestamp_ns, now_ns);
                seen.push((method_id, timestamp_ns >> BUCKET_SHIFT, amount));
                classes.push(class_id);
                if index % fold_every == 0 {
                    state.batch_ended(now_ns, window_ns);
                }
            }
            state.batch_ended(now_ns, window_ns);
            let snapshot = state.snapshot(now_ns, window_ns, None);
            let oldest = oldest_live_epoch(now_ns, window_ns);
            for method_id in (0..6).chain([OUTSIDE_METHODS]) {
                let mut window = Amount::default();
                let mut total = Amount::default();
                for &(_, epoch, amount) in seen.iter().filter(|(m, _, _)| *m == method_id) {
                    total.add_record(amount);
                    if epoch >= oldest {
                        window.add_record(amount);
                    }
                }
                let got = snapshot.method(method_id);
                proptest::prop_assert_eq!(got.window, window, "window of {}", method_id);
                for class_id in [0, 1, 2, 3, INVALID_CLASS] {
                    let mut class_total = Amount::default();
                    for (&(_, _, amount), _) in seen
                        .iter()
                        .zip(&classes)
                        .filter(|((m, _, _), c)| *m == method_id && **c == class_id)
                    {
                        class_total.add_record(amount);
                    }
                    let listed = snapshot
                        .classes_of(method_id)
                        .iter()
                        .find(|entry| entry.class_id == class_id)
                        .map_or(Amount::default(), |entry| entry.amount);
                    proptest::prop_assert_eq!(listed, class_total, "{} of {}", class_id, method_id);
                }
                proptest::prop_assert_eq!(got.total, total, "total of {}", method_id);
            }
            // Per class, all methods (ids past the limit have no entry).
            for class_id in 0..4 {
                let mut class_total = Amount::default();
                for (&(_, _, amount), _) in seen.iter().zip(&classes).filter(|(_, c)| **c == class_id) {
                    class_total.add_record(amount);
                }
                let listed = snapshot.classes.get(class_id as usize).copied().unwrap_or_default();
                proptest::prop_assert_eq!(listed, class_total, "class {}", class_id);
            }
            proptest::prop_assert!(snapshot.classes.len() <= 4);
            // Later, everything has left the window and the totals stay.
            let later = state.snapshot(now_ns + 10 * SECOND, window_ns, None);
            for method_id in (0..6).chain([OUTSIDE_METHODS]) {
                proptest::prop_assert!(later.method(method_id).window.is_zero());
                proptest::prop_assert_eq!(
                    later.method(method_id).total,
                    snapshot.method(method_id).total
                );
            }
        }
    }
}
