//! What a session feeds its validated stream into.

use highrise_protocol::{
    ClassDef, ClassRelation, Event, EventKind, Hello, LiveClass, MemoryAmount, MethodDef,
};

/// Receives one session's validated stream on the session's worker thread.
///
/// Everything a sink is given has been checked: methods are defined before any event or
/// resync names them, events of one call are one thread's and in time order, timestamps are
/// nanoseconds. A sink publishes its state as a [`SessionSink::Snapshot`] when asked.
pub trait SessionSink: Send + 'static {
    /// What the sink publishes with every report (e.g. the aggregator's statistics).
    type Snapshot: Clone + Send + 'static;
    /// Commands the consumer can send to a live session (e.g. change the window).
    type Command: Send + 'static;

    /// New, valid method definitions, in the order received.
    fn define_methods(&mut self, definitions: &[MethodDef]);
    /// A thread announced itself.
    fn thread_started(&mut self, thread_id: u64, name: &str, timestamp_ns: u64);
    /// A thread ended.
    fn thread_ended(&mut self, thread_id: u64, timestamp_ns: u64);
    /// Events of one thread, all naming defined methods.
    fn events(&mut self, thread_id: u64, events: &[Event]);
    /// New, valid class definitions (protocol version 2), in the order received. The default
    /// ignores them.
    fn define_classes(&mut self, _definitions: &[ClassDef]) {}
    /// Records of one thread (protocol version 2): enters and exits as in
    /// [`events`](Self::events), and [`EventKind::Memory`] records naming defined classes,
    /// whose amounts are `amounts`, in order (one per memory record). The default drops the
    /// memory records and feeds the rest to [`events`](Self::events).
    fn records(&mut self, thread_id: u64, events: &[Event], amounts: &[MemoryAmount]) {
        if amounts.is_empty() {
            self.events(thread_id, events);
        } else {
            let calls: Vec<Event> = events
                .iter()
                .filter(|event| event.kind != EventKind::Memory)
                .copied()
                .collect();
            self.events(thread_id, &calls);
        }
    }
    /// The agent's `MemoryDropped` running totals (allocations, bytes, frees it could not
    /// send); they only grow. The default ignores them.
    fn memory_dropped(&mut self, _allocations: u64, _bytes: u64, _frees: u64) {}
    /// A snapshot of the objects live per class as a phase of `thread_id` ended (the agent's
    /// `LiveObjects`), every class in it defined. The default ignores it.
    fn live_objects(
        &mut self,
        _thread_id: u64,
        _timestamp_ns: u64,
        _heap_live_bytes: Option<u64>,
        _classes: &[LiveClass],
    ) {
    }
    /// New class relations (the class diagram), each between defined classes, each sent
    /// once. The default ignores them; the session's reports carry them all too.
    fn class_relations(&mut self, _relations: &[ClassRelation]) {}
    /// After lost events: the thread's whole stack (outermost first) at `timestamp_ns`.
    fn resync(&mut self, thread_id: u64, timestamp_ns: u64, stack: &[u32]);
    /// The agent's clock moved on without events.
    fn heartbeat(&mut self, timestamp_ns: u64);
    /// The agent's running totals of what it dropped (its buffer was full), from its
    /// `Dropped` message; totals only grow. The default ignores them.
    fn agent_dropped(&mut self, _events_dropped: u64, _batches_dropped: u64) {}
    /// A command from the consumer.
    fn command(&mut self, command: Self::Command);
    /// The state to publish now.
    fn snapshot(&mut self) -> Self::Snapshot;
    /// The session ended: the next snapshot is its last (e.g. attach everything kept back
    /// for rate). The default does nothing.
    fn session_ended(&mut self) {}
    /// Each live thread's open stack (outermost method first) as `(thread_id, method ids)`,
    /// if the sink tracks stacks. A recording started mid-session writes a `Resync` of each, so
    /// the file is self-contained; the default (no stacks) makes replays start with empty
    /// stacks.
    fn open_stacks(&self) -> Vec<(u64, Vec<u32>)> {
        Vec::new()
    }
}

/// A sink that keeps nothing: for `serve`-style bookkeeping without statistics.
#[derive(Debug, Default, Clone, Copy)]
pub struct NullSink;

impl NullSink {
    /// A factory usable with [`crate::IngestServer::start`].
    pub fn factory(_hello: &Hello) -> Self {
        Self
    }
}

impl SessionSink for NullSink {
    type Snapshot = ();
    type Command = ();
    fn define_methods(&mut self, _definitions: &[MethodDef]) {}
    fn thread_started(&mut self, _thread_id: u64, _name: &str, _timestamp_ns: u64) {}
    fn thread_ended(&mut self, _thread_id: u64, _timestamp_ns: u64) {}
    fn events(&mut self, _thread_id: u64, _events: &[Event]) {}
    fn resync(&mut self, _thread_id: u64, _timestamp_ns: u64, _stack: &[u32]) {}
    fn heartbeat(&mut self, _timestamp_ns: u64) {}
    fn command(&mut self, _command: ()) {}
    fn snapshot(&mut self) {}
}

/// Builds a session's sink from its Hello.
pub(crate) type SinkFactory<S> = std::sync::Arc<dyn Fn(&Hello) -> S + Send + Sync>;
