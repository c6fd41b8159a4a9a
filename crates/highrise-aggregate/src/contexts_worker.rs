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
//! it, as inline. The thread itself is [`crate::worker::WorkerThread`].

use std::sync::mpsc::{sync_channel, Receiver, Sender};
use std::sync::Mutex;

use highrise_protocol::{Event, MemoryAmount};

use crate::contexts::{ContextTree, Contexts};
use crate::edges::CallEdges;
use crate::worker::WorkerThread;

/// Events gathered before a job is handed to the worker.
const JOB_EVENTS: usize = 16 * 1024;
/// Jobs that may wait for the worker before the aggregator waits for it.
const QUEUED_JOBS: usize = 8;
/// Changes gathered before a job is handed over, whatever their events.
const JOB_OPS: usize = 1024;

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
}

impl Job {
    fn is_empty(&self) -> bool {
        self.ops.is_empty()
    }

    fn clear(&mut self) {
        self.ops.clear();
        self.events.clear();
        self.amounts.clear();
        self.stacks.clear();
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

/// What the worker is asked.
enum Request {
    Apply(Job),
    Export(Sender<ContextTree>),
    /// (nodes, memory bytes)
    Measure(Sender<(usize, usize)>),
    Copy(Sender<Contexts>),
    /// Call edges over about this window.
    Edges(u64, Sender<CallEdges>),
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
    /// Starts the worker thread; gives `contexts` back when no thread can be made.
    fn start(contexts: Box<Contexts>, limits: (u32, u32)) -> Result<Self, Box<Contexts>> {
        let (recycle, recycled) = sync_channel::<Job>(QUEUED_JOBS + 1);
        let generation = contexts.generation;
        let thread = WorkerThread::start(
            "highrise-contexts",
            contexts,
            QUEUED_JOBS,
            move |contexts: &mut Contexts, request| match request {
                Request::Apply(mut job) => {
                    job.apply_to(contexts);
                    job.clear();
                    let _ = recycle.try_send(job);
                }
                Request::Export(reply) => {
                    let _ = reply.send(contexts.export());
                }
                Request::Measure(reply) => {
                    let _ = reply.send((contexts.len(), contexts.memory_bytes()));
                }
                Request::Edges(window_ns, reply) => {
                    let _ = reply.send(contexts.edges(window_ns));
                }
                Request::Copy(reply) => {
                    let _ = reply.send(contexts.clone());
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
    Inline(Box<Contexts>),
    Thread(Worker),
}

impl std::fmt::Debug for ContextsHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Inline(contexts) => f.debug_tuple("Inline").field(contexts).finish(),
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
            Self::Inline(contexts) => Self::Inline(contexts.clone()),
            Self::Thread(worker) => {
                let (max_nodes, max_depth) = worker.limits;
                let contexts = worker
                    .ask(Request::Copy)
                    .unwrap_or_else(|| Contexts::new(max_nodes, max_depth));
                let mut copy = Self::placed(Box::new(contexts), worker.limits, true);
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
        let contexts = Box::new(Contexts::new(max_nodes, max_depth));
        Self::placed(contexts, (max_nodes, max_depth), own_thread)
    }

    fn placed(contexts: Box<Contexts>, limits: (u32, u32), own_thread: bool) -> Self {
        if !own_thread {
            return Self::Inline(contexts);
        }
        match Worker::start(contexts, limits) {
            Ok(worker) => Self::Thread(worker),
            Err(contexts) => Self::Inline(contexts),
        }
    }

    pub(crate) fn apply(&mut self, thread_id: u64, events: &[Event], amounts: &[MemoryAmount]) {
        match self {
            Self::Inline(contexts) => contexts.apply(thread_id, events, amounts),
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
            Self::Inline(contexts) => contexts.thread_ended(thread_id, timestamp_ns),
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
            Self::Inline(contexts) => contexts.resync(thread_id, timestamp_ns, stack),
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
            Self::Inline(contexts) => contexts.generation,
            Self::Thread(worker) => worker.generation,
        }
    }

    pub(crate) fn export(&self) -> ContextTree {
        match self {
            Self::Inline(contexts) => contexts.export(),
            Self::Thread(worker) => worker.ask(Request::Export).unwrap_or_default(),
        }
    }

    /// The call edges, with their calls over about the last `window_ns`.
    pub(crate) fn edges(&mut self, window_ns: u64) -> CallEdges {
        match self {
            Self::Inline(contexts) => contexts.edges(window_ns),
            Self::Thread(worker) => worker
                .ask(|reply| Request::Edges(window_ns, reply))
                .unwrap_or_default(),
        }
    }

    /// (nodes, memory bytes).
    pub(crate) fn measure(&self) -> (usize, usize) {
        match self {
            Self::Inline(contexts) => (contexts.len(), contexts.memory_bytes()),
            Self::Thread(worker) => worker.ask(Request::Measure).unwrap_or_default(),
        }
    }
}
