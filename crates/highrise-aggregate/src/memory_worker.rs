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
//! [`crate::worker::WorkerThread`], as for [`crate::contexts_worker`].
//!
//! Shared with the tree's thread (two cores, both busy): the records of every
//! [`SHARED_EVERY`]-th method wait in [`MemoryHandle::shared`] until the aggregator adds them
//! to the tree's next job ([`MemoryHandle::hand_shared`]); that thread folds them into a
//! [`MemoryState`] of its own, and a read merges its snapshot with this side's
//! ([`MemoryHandle::snapshot`]).

use std::sync::mpsc::{sync_channel, Receiver, Sender};
use std::sync::Arc;

use highrise_protocol::MemoryAmount;

use crate::config::MemoryFold;
use crate::contexts_worker::ContextsHandle;
use crate::memory::{MemorySnapshot, MemoryState, Pending};
use crate::worker::WorkerThread;

/// Records queued before they are handed to the worker.
const JOB_RECORDS: usize = 8 * 1024;
/// Jobs that may wait for the worker before the aggregator waits for it.
const QUEUED_JOBS: usize = 4;
/// With [`MemoryFold::SharedWithTree`], the tree's thread folds the records of every
/// `SHARED_EVERY`-th method: on two cores a quarter balanced the two threads best (a third,
/// a sixth and an eighth did less well, a half no better than inline).
const SHARED_EVERY: u32 = 4;

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
    pub(crate) fn hand_shared(&mut self, contexts: &mut ContextsHandle) {
        contexts.fold_memory(&mut self.shared, self.now_ns, self.window_ns);
    }

    /// Everything queued folded, expired to `[now_ns - window_ns, now_ns]`, read back; with
    /// the fold shared, merged with the share of the tree's thread (`contexts`).
    pub(crate) fn snapshot(
        &mut self,
        now_ns: u64,
        window_ns: u64,
        contexts: Option<&mut ContextsHandle>,
    ) -> Arc<MemorySnapshot> {
        self.hand_over();
        let local = match &mut self.place {
            Place::Inline(state) => state.snapshot_at(now_ns, window_ns),
            Place::Thread(worker) => worker
                .thread
                .ask(|reply| Request::Snapshot(now_ns, window_ns, reply))
                .unwrap_or_default(),
        };
        match contexts {
            Some(contexts) if self.fold == MemoryFold::SharedWithTree => {
                self.hand_shared(contexts);
                let shared = contexts.memory_snapshot(now_ns, window_ns);
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
