//! Where the calling-context tree runs: inline on the aggregator's thread, or on a thread of
//! its own ([`crate::AggregatorConfig::contexts_thread`]).
//!
//! The tree replays every thread's stack a second time, independently of the windowed
//! statistics, so the two replays can run side by side: the aggregator copies each batch
//! into a job (16 bytes per event) and goes on, a worker thread applies the jobs in order.
//! Jobs gather several batches (up to [`JOB_EVENTS`] events) so that the channel and the
//! worker's wake-ups cost little per event; at most [`QUEUED_JOBS`] wait, then the
//! aggregator waits too. Every read (export, node count, memory) first hands over what is
//! gathered and waits for the worker to apply it, so a read sees every batch applied before
//! it, as inline. The thread itself is [`crate::state_worker::WorkerThread`].

use std::sync::mpsc::{sync_channel, Receiver, Sender};
use std::sync::{Arc, Mutex};

use highrise_protocol::{Event, MemoryAmount};

use super::tree::{ContextTree, Contexts};
use crate::edges::CallEdges;
use crate::memory::{FoldShare, MemorySnapshot, MemoryState, Pending};
use crate::state_worker::WorkerThread;

/// Events gathered before a job is handed to the worker.
const JOB_EVENTS: usize = 16 * 1024;
/// Jobs that may wait for the worker before the aggregator waits for it.
const QUEUED_JOBS: usize = 8;
/// Changes gathered before a job is handed over, whatever their events.
const JOB_OPS: usize = 1024;
/// Memory records gathered before a job is handed over.
const JOB_MEMORY_RECORDS: usize = 8 * 1024;

/// One change to the tree, in stream order; its events, amounts and stack are the next ones
/// of its job's arrays.
#[derive(Debug, Clone, Copy)]
enum Op {
    Apply {
        thread_id: u64,
        events: u32,
        amounts: u32,
    },
    ThreadEnded {
        thread_id: u64,
        timestamp_ns: u64,
    },
    Resync {
        thread_id: u64,
        timestamp_ns: u64,
        stack: u32,
    },
}

/// Changes gathered for the worker.
#[derive(Debug, Default)]
struct Job {
    ops: Vec<Op>,
    events: Vec<Event>,
    amounts: Vec<MemoryAmount>,
    stacks: Vec<u32>,
    /// Memory records whose fold this thread takes (see [`crate::memory::worker`]), and the
    /// "now" and window of the latest batch they came with.
    memory: Vec<Pending>,
    memory_now_ns: u64,
    memory_window_ns: u64,
}

impl Job {
    fn is_empty(&self) -> bool {
        self.ops.is_empty() && self.memory.is_empty()
    }

    fn clear(&mut self) {
        self.ops.clear();
        self.events.clear();
        self.amounts.clear();
        self.stacks.clear();
        self.memory.clear();
    }

    fn apply_to(&self, contexts: &mut Contexts) {
        let (mut events, mut amounts, mut stacks) = (0usize, 0usize, 0usize);
        for op in &self.ops {
            match *op {
                Op::Apply {
                    thread_id,
                    events: event_count,
                    amounts: amount_count,
                } => {
                    let event_end = events + event_count as usize;
                    let amount_end = amounts + amount_count as usize;
                    contexts.apply(
                        thread_id,
                        &self.events[events..event_end],
                        &self.amounts[amounts..amount_end],
                    );
                    (events, amounts) = (event_end, amount_end);
                }
                Op::ThreadEnded {
                    thread_id,
                    timestamp_ns,
                } => contexts.thread_ended(thread_id, timestamp_ns),
                Op::Resync {
                    thread_id,
                    timestamp_ns,
                    stack,
                } => {
                    let end = stacks + stack as usize;
                    contexts.resync(thread_id, timestamp_ns, &self.stacks[stacks..end]);
                    stacks = end;
                }
            }
        }
    }
}

/// What the tree's place owns: the tree, and the memory records whose fold it takes (where
/// the aggregator splits the fold with this thread: [`crate::memory::worker`]).
#[derive(Debug, Clone)]
pub(crate) struct Owned {
    contexts: Box<Contexts>,
    memory: MemoryState,
}

impl Owned {
    /// (nodes, memory bytes of the tree and the memory records' share).
    fn measure(&self) -> (usize, usize) {
        let bytes = self.contexts.memory_bytes() + self.memory.memory_bytes();
        (self.contexts.len(), bytes)
    }
}

/// What the worker is asked.
enum Request {
    Apply(Job),
    Export(Sender<ContextTree>),
    /// (nodes, memory bytes)
    Measure(Sender<(usize, usize)>),
    Copy(Sender<Owned>),
    /// Call edges over about this window.
    Edges(u64, Sender<CallEdges>),
    /// The memory records' share at (now, window).
    Memory(u64, u64, Sender<Arc<MemorySnapshot>>),
}

/// The tree on a thread of its own.
pub(crate) struct Worker {
    thread: WorkerThread<Request>,
    /// Applied jobs come back here to be filled again (no allocation per job).
    recycled: Receiver<Job>,
    /// Behind a lock only so that reads (`&self`) can hand it over; the hot path takes it
    /// with `get_mut`, without locking.
    gathering: Mutex<Job>,
    /// Changes handed over so far: changes whenever the tree will.
    generation: u64,
    /// The tree's node cap and depth limit (for a fresh tree if the worker is gone).
    limits: (u32, u32),
}

impl Worker {
    /// Starts the worker thread; gives `owned` back when no thread can be made.
    fn start(owned: Box<Owned>, limits: (u32, u32)) -> Result<Self, Box<Owned>> {
        let (recycle, recycled) = sync_channel::<Job>(QUEUED_JOBS + 1);
        let generation = owned.contexts.generation;
        let thread = WorkerThread::start(
            "highrise-contexts",
            owned,
            QUEUED_JOBS,
            move |owned: &mut Owned, request| match request {
                Request::Apply(mut job) => {
                    job.apply_to(&mut owned.contexts);
                    owned
                        .memory
                        .fold(&job.memory, job.memory_now_ns, job.memory_window_ns);
                    job.clear();
                    let _ = recycle.try_send(job);
                }
                Request::Export(reply) => {
                    let _ = reply.send(owned.contexts.export());
                }
                Request::Measure(reply) => {
                    let _ = reply.send(owned.measure());
                }
                Request::Edges(window_ns, reply) => {
                    let _ = reply.send(owned.contexts.edges(window_ns));
                }
                Request::Copy(reply) => {
                    let _ = reply.send(owned.clone());
                }
                Request::Memory(now_ns, window_ns, reply) => {
                    let _ = reply.send(owned.memory.snapshot_at(now_ns, window_ns));
                }
            },
        )?;
        Ok(Self {
            thread,
            recycled,
            gathering: Mutex::default(),
            generation,
            limits,
        })
    }

    /// The hot path's job (no lock taken).
    fn gathering(&mut self) -> &mut Job {
        self.gathering
            .get_mut()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Hands over the gathered changes (waiting while [`QUEUED_JOBS`] are queued).
    fn hand_over(&self) {
        let mut gathering = self
            .gathering
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if gathering.is_empty() {
            return;
        }
        let next = self.recycled.try_recv().unwrap_or_default();
        let job = std::mem::replace(&mut *gathering, next);
        self.thread.send(Request::Apply(job));
    }

    /// One change gathered.
    fn gathered(&mut self) {
        self.generation += 1;
        let job = self.gathering();
        if job.events.len() >= JOB_EVENTS || job.ops.len() >= JOB_OPS {
            self.hand_over();
        }
    }

    /// Asks the worker (after everything gathered) and waits for its answer; `None` when
    /// the worker is gone.
    fn ask<T>(&self, request: impl FnOnce(Sender<T>) -> Request) -> Option<T> {
        self.hand_over();
        self.thread.ask(request)
    }
}

/// The calling-context tree of an [`crate::Aggregator`], wherever it runs.
pub(crate) enum ContextsHandle {
    Inline(Box<Owned>),
    Thread(Box<Worker>),
}

impl std::fmt::Debug for ContextsHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Inline(owned) => f.debug_tuple("Inline").field(owned).finish(),
            Self::Thread(worker) => f
                .debug_struct("Thread")
                .field("generation", &worker.generation)
                .finish_non_exhaustive(),
        }
    }
}

impl Clone for ContextsHandle {
    /// An independent copy (on a thread of its own too when this one is).
    fn clone(&self) -> Self {
        match self {
            Self::Inline(owned) => Self::Inline(owned.clone()),
            Self::Thread(worker) => {
                let (max_nodes, max_depth) = worker.limits;
                let owned = worker.ask(Request::Copy).unwrap_or_else(|| Owned {
                    contexts: Box::new(Contexts::new(max_nodes, max_depth)),
                    memory: MemoryState::default(),
                });
                let mut copy = Self::placed(Box::new(owned), worker.limits, true);
                if let Self::Thread(copy) = &mut copy {
                    copy.generation = worker.generation;
                }
                copy
            }
        }
    }
}

impl ContextsHandle {
    /// A tree of at most `max_nodes` nodes, on its own thread when `own_thread` (and a
    /// thread can be made).
    pub(crate) fn new(max_nodes: u32, max_depth: u32, own_thread: bool) -> Self {
        let owned = Box::new(Owned {
            contexts: Box::new(Contexts::new(max_nodes, max_depth)),
            memory: MemoryState::default(),
        });
        Self::placed(owned, (max_nodes, max_depth), own_thread)
    }

    fn placed(owned: Box<Owned>, limits: (u32, u32), own_thread: bool) -> Self {
        if !own_thread {
            return Self::Inline(owned);
        }
        match Worker::start(owned, limits) {
            Ok(worker) => Self::Thread(Box::new(worker)),
            Err(owned) => Self::Inline(owned),
        }
    }

    /// Whether the tree runs on a thread of its own.
    pub(crate) fn on_own_thread(&self) -> bool {
        matches!(self, Self::Thread(_))
    }

    pub(crate) fn apply(&mut self, thread_id: u64, events: &[Event], amounts: &[MemoryAmount]) {
        match self {
            Self::Inline(owned) => owned.contexts.apply(thread_id, events, amounts),
            Self::Thread(worker) => {
                let job = worker.gathering();
                job.events.extend_from_slice(events);
                job.amounts.extend_from_slice(amounts);
                job.ops.push(Op::Apply {
                    thread_id,
                    events: events.len() as u32,
                    amounts: amounts.len() as u32,
                });
                worker.gathered();
            }
        }
    }

    pub(crate) fn thread_ended(&mut self, thread_id: u64, timestamp_ns: u64) {
        match self {
            Self::Inline(owned) => owned.contexts.thread_ended(thread_id, timestamp_ns),
            Self::Thread(worker) => {
                worker.gathering().ops.push(Op::ThreadEnded {
                    thread_id,
                    timestamp_ns,
                });
                worker.gathered();
            }
        }
    }

    pub(crate) fn resync(&mut self, thread_id: u64, timestamp_ns: u64, stack: &[u32]) {
        match self {
            Self::Inline(owned) => owned.contexts.resync(thread_id, timestamp_ns, stack),
            Self::Thread(worker) => {
                let job = worker.gathering();
                job.stacks.extend_from_slice(stack);
                job.ops.push(Op::Resync {
                    thread_id,
                    timestamp_ns,
                    stack: stack.len() as u32,
                });
                worker.gathered();
            }
        }
    }

    /// Changes whenever the tree does.
    pub(crate) fn generation(&self) -> u64 {
        match self {
            Self::Inline(owned) => owned.contexts.generation,
            Self::Thread(worker) => worker.generation,
        }
    }

    pub(crate) fn export(&self) -> ContextTree {
        match self {
            Self::Inline(owned) => owned.contexts.export(),
            Self::Thread(worker) => worker.ask(Request::Export).unwrap_or_default(),
        }
    }

    /// The call edges, with their calls over about the last `window_ns`.
    pub(crate) fn edges(&mut self, window_ns: u64) -> CallEdges {
        match self {
            Self::Inline(owned) => owned.contexts.edges(window_ns),
            Self::Thread(worker) => worker
                .ask(|reply| Request::Edges(window_ns, reply))
                .unwrap_or_default(),
        }
    }

    /// (nodes, memory bytes).
    pub(crate) fn measure(&self) -> (usize, usize) {
        match self {
            Self::Inline(owned) => owned.measure(),
            Self::Thread(worker) => worker.ask(Request::Measure).unwrap_or_default(),
        }
    }
}

/// The memory records' share this thread folds ([`MemoryFold::SharedWithTree`](crate::MemoryFold)).
impl FoldShare for ContextsHandle {
    /// Takes the fold of `records` (emptied), made with a "now" no later than `now_ns`.
    fn fold_memory(&mut self, records: &mut Vec<Pending>, now_ns: u64, window_ns: u64) {
        if records.is_empty() {
            return;
        }
        match self {
            Self::Inline(owned) => {
                owned.memory.fold(records, now_ns, window_ns);
                records.clear();
            }
            Self::Thread(worker) => {
                let job = worker.gathering();
                job.memory.append(records);
                job.memory_now_ns = now_ns;
                job.memory_window_ns = window_ns;
                if job.memory.len() >= JOB_MEMORY_RECORDS {
                    worker.hand_over();
                }
            }
        }
    }

    /// The memory records' share folded here ([`Self::fold_memory`]), at (now, window).
    fn memory_snapshot(&mut self, now_ns: u64, window_ns: u64) -> Arc<MemorySnapshot> {
        match self {
            Self::Inline(owned) => owned.memory.snapshot_at(now_ns, window_ns),
            Self::Thread(worker) => worker
                .ask(|reply| Request::Memory(now_ns, window_ns, reply))
                .unwrap_or_default(),
        }
    }
}
