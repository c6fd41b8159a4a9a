//! The worker side of a session: one thread per connection that validates the decoded stream,
//! keeps the session's bookkeeping, feeds the sink and publishes reports.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crossbeam_channel::{select, tick, Receiver, Sender, TrySendError};
use highrise_protocol::{decode_events, AgentMessage, Event, Hello, MethodDef, MAX_METHOD_ID};

use crate::connection::ReaderItem;
use crate::report::{
    SessionEnd, SessionError, SessionId, SessionInfo, SessionReport, SessionStats, SessionStatus,
    ThreadInfo, MAX_KEPT_ERRORS,
};
use crate::sink::SessionSink;

/// How long the final report of a session may wait for room in a full report channel.
const FINAL_REPORT_TIMEOUT: Duration = Duration::from_secs(2);

/// Everything a worker thread needs.
pub(crate) struct WorkerSetup<S: SessionSink, F> {
    pub session_id: SessionId,
    pub peer: SocketAddr,
    pub items: Receiver<ReaderItem>,
    pub commands: Receiver<S::Command>,
    pub reports: Sender<SessionReport<S::Snapshot>>,
    pub make_sink: Arc<F>,
    pub publish_interval: Duration,
    pub shutting_down: Arc<AtomicBool>,
}

pub(crate) fn run_worker<S, F>(setup: WorkerSetup<S, F>)
where
    S: SessionSink,
    F: Fn(&Hello) -> S,
{
    let mut session = Session::<S>::new(setup.session_id, setup.peer);
    let ticker = tick(setup.publish_interval);
    let mut publisher = Publisher::new(setup.reports);
    publisher.publish(&mut session, true);
    loop {
        select! {
            recv(setup.items) -> item => match item {
                Ok(ReaderItem::Opened { hello, frame_bytes }) => {
                    session.count_frame(frame_bytes);
                    let sink = (setup.make_sink)(&hello);
                    session.open(&hello, sink);
                    publisher.publish(&mut session, true);
                }
                Ok(ReaderItem::Message { message, frame_bytes }) => {
                    session.count_frame(frame_bytes);
                    if session.apply(message) {
                        session.end(SessionEnd::Goodbye);
                        break;
                    }
                }
                Ok(ReaderItem::Skipped { error, frame_bytes }) => {
                    session.count_frame(frame_bytes);
                    session.stats.skipped_records += 1;
                    session.record_error(error.into());
                }
                Ok(ReaderItem::Closed(None)) => {
                    session.end(SessionEnd::Disconnected);
                    break;
                }
                Ok(ReaderItem::Closed(Some(error))) => {
                    session.record_error(error.clone());
                    session.end(SessionEnd::Failed(error));
                    break;
                }
                Err(_) => {
                    // The reader is gone without a word: only when the server shuts down.
                    let end = if setup.shutting_down.load(Ordering::Relaxed) {
                        SessionEnd::ServerShutdown
                    } else {
                        SessionEnd::Disconnected
                    };
                    session.end(end);
                    break;
                }
            },
            recv(setup.commands) -> command => {
                if let Ok(command) = command {
                    session.command(command);
                }
            },
            recv(ticker) -> _ => publisher.publish(&mut session, false),
        }
    }
    publisher.publish_final(&mut session);
}

/// Sends reports without ever queueing more than the channel holds.
struct Publisher<T> {
    reports: Sender<SessionReport<T>>,
    last_publish: Instant,
    events_at_last_publish: u64,
}

impl<T> Publisher<T> {
    fn new(reports: Sender<SessionReport<T>>) -> Self {
        Self {
            reports,
            last_publish: Instant::now(),
            events_at_last_publish: 0,
        }
    }

    fn update_rate<S: SessionSink<Snapshot = T>>(&mut self, session: &mut Session<S>) {
        let now = Instant::now();
        let elapsed_s = now.duration_since(self.last_publish).as_secs_f64();
        if elapsed_s > 0.0 {
            let new_events = session.stats.events - self.events_at_last_publish;
            session.stats.events_per_s = new_events as f64 / elapsed_s;
        }
        self.last_publish = now;
        self.events_at_last_publish = session.stats.events;
    }

    /// Publishes when something changed (or `force`). A full channel leaves the session dirty,
    /// so the next tick retries with a fresher report instead of queueing this one.
    fn publish<S: SessionSink<Snapshot = T>>(&mut self, session: &mut Session<S>, force: bool) {
        if !(force || session.dirty || session.stats.events_per_s != 0.0) {
            return;
        }
        self.update_rate(session);
        match self.reports.try_send(session.report()) {
            Ok(()) => session.dirty = false,
            Err(TrySendError::Full(_)) => session.dirty = true,
            Err(TrySendError::Disconnected(_)) => session.dirty = false,
        }
    }

    /// The last report must arrive: wait a while for room.
    fn publish_final<S: SessionSink<Snapshot = T>>(&mut self, session: &mut Session<S>) {
        self.update_rate(session);
        let report = session.report();
        if self
            .reports
            .send_timeout(report, FINAL_REPORT_TIMEOUT)
            .is_err()
        {
            tracing::warn!(
                session_id = session.session_id,
                "final session report dropped: the consumer did not read reports"
            );
        }
    }
}

/// One session's state on its worker thread.
struct Session<S: SessionSink> {
    session_id: SessionId,
    peer: SocketAddr,
    info: Option<SessionInfo>,
    status: SessionStatus,
    stats: SessionStats,
    errors: Vec<SessionError>,
    definition_chunks: Vec<Arc<[MethodDef]>>,
    /// Indexed by method id: the definition's position (chunk, index), for duplicate checks
    /// and the per-event "is it defined" test.
    defined: Vec<Option<(u32, u32)>>,
    threads: Arc<Vec<ThreadInfo>>,
    thread_index: HashMap<u64, usize>,
    sink: Option<S>,
    early_commands: Vec<S::Command>,
    clock_unit_ns: u32,
    event_buffer: Vec<Event>,
    /// Something changed since the last report was sent.
    dirty: bool,
}

impl<S: SessionSink> Session<S> {
    fn new(session_id: SessionId, peer: SocketAddr) -> Self {
        Self {
            session_id,
            peer,
            info: None,
            status: SessionStatus::Handshaking,
            stats: SessionStats::default(),
            errors: Vec::new(),
            definition_chunks: Vec::new(),
            defined: Vec::new(),
            threads: Arc::new(Vec::new()),
            thread_index: HashMap::new(),
            sink: None,
            early_commands: Vec::new(),
            clock_unit_ns: 1,
            event_buffer: Vec::new(),
            dirty: true,
        }
    }

    fn open(&mut self, hello: &Hello, sink: S) {
        self.info = Some(SessionInfo {
            agent: hello.agent.clone(),
            program: hello.program.clone(),
            version_label: hello.version_label.clone(),
            pid: hello.pid,
            clock_unit_ns: hello.clock_unit_ns,
            clock_zero_unix_ns: hello.clock_zero_unix_ns,
        });
        // A zero unit would flatten every timestamp; treat it as nanoseconds and say so.
        self.clock_unit_ns = if hello.clock_unit_ns == 0 {
            self.record_error(SessionError::Unexpected(
                "Hello declares clock_unit_ns 0; using 1 ns".into(),
            ));
            1
        } else {
            hello.clock_unit_ns
        };
        self.status = SessionStatus::Connected;
        let mut sink = sink;
        for command in self.early_commands.drain(..) {
            sink.command(command);
        }
        self.sink = Some(sink);
        self.dirty = true;
    }

    /// Hands a consumer command to the sink; commands that arrive before the Hello wait for it
    /// (at most the command queue's capacity of them).
    fn command(&mut self, command: S::Command) {
        match self.sink.as_mut() {
            Some(sink) => sink.command(command),
            None => self.early_commands.push(command),
        }
        self.dirty = true;
    }

    fn count_frame(&mut self, frame_bytes: u64) {
        self.stats.frames += 1;
        self.stats.bytes += frame_bytes;
    }

    fn record_error(&mut self, error: SessionError) {
        tracing::debug!(session_id = self.session_id, %error, "session error");
        self.stats.errors_total += 1;
        if self.errors.len() < MAX_KEPT_ERRORS {
            self.errors.push(error);
        }
        self.dirty = true;
    }

    fn end(&mut self, end: SessionEnd) {
        self.status = SessionStatus::Ended(end);
        self.dirty = true;
    }

    fn ticks_to_ns(&self, ticks: u64) -> u64 {
        ticks.saturating_mul(u64::from(self.clock_unit_ns))
    }

    fn note_timestamp(&mut self, timestamp_ns: u64) {
        self.stats.last_timestamp_ns = self.stats.last_timestamp_ns.max(timestamp_ns);
    }

    /// Applies one message. Returns true when the message was a Goodbye.
    fn apply(&mut self, message: AgentMessage) -> bool {
        self.dirty = true;
        if self.sink.is_none() {
            // The reader only sends messages after Opened; nothing to feed otherwise.
            return false;
        }
        match message {
            AgentMessage::Hello(_) => {
                self.stats.skipped_records += 1;
                self.record_error(SessionError::Unexpected(
                    "a second Hello was ignored".into(),
                ));
            }
            AgentMessage::DefineMethods(definitions) => self.define_methods(definitions),
            AgentMessage::ThreadStart {
                thread_id,
                name,
                timestamp,
            } => {
                let timestamp_ns = self.ticks_to_ns(timestamp);
                self.with_sink(|sink| sink.thread_started(thread_id, &name, timestamp_ns));
                let thread = self.thread_mut(thread_id, false);
                thread.name = name;
                thread.started_ns = Some(timestamp_ns);
                self.note_timestamp(timestamp_ns);
            }
            AgentMessage::ThreadEnd {
                thread_id,
                timestamp,
            } => {
                let timestamp_ns = self.ticks_to_ns(timestamp);
                self.with_sink(|sink| sink.thread_ended(thread_id, timestamp_ns));
                self.thread_mut(thread_id, true).ended_ns = Some(timestamp_ns);
                self.note_timestamp(timestamp_ns);
            }
            AgentMessage::Events(batch) => {
                let mut events = std::mem::take(&mut self.event_buffer);
                events.clear();
                match decode_events(&batch, self.clock_unit_ns, &mut events) {
                    Ok(()) => self.accept_events(batch.thread_id, &mut events),
                    Err(error) => {
                        self.stats.skipped_records += 1;
                        self.record_error(error.into());
                    }
                }
                self.event_buffer = events;
            }
            AgentMessage::Heartbeat { timestamp } => {
                let timestamp_ns = self.ticks_to_ns(timestamp);
                self.with_sink(|sink| sink.heartbeat(timestamp_ns));
                self.stats.heartbeats += 1;
                self.note_timestamp(timestamp_ns);
            }
            AgentMessage::Resync {
                thread_id,
                timestamp,
                stack,
            } => {
                if let Some(&method_id) = stack.iter().find(|id| !self.is_defined(**id)) {
                    self.stats.skipped_records += 1;
                    self.record_error(SessionError::UndefinedMethod {
                        method_id,
                        events: 0,
                    });
                } else {
                    let timestamp_ns = self.ticks_to_ns(timestamp);
                    self.with_sink(|sink| sink.resync(thread_id, timestamp_ns, &stack));
                    self.thread_mut(thread_id, true);
                    self.stats.resyncs += 1;
                    self.note_timestamp(timestamp_ns);
                }
            }
            AgentMessage::Dropped {
                events_dropped,
                batches_dropped,
            } => {
                self.stats.agent_events_dropped =
                    self.stats.agent_events_dropped.max(events_dropped);
                self.stats.agent_batches_dropped =
                    self.stats.agent_batches_dropped.max(batches_dropped);
            }
            AgentMessage::Goodbye { timestamp } => {
                let timestamp_ns = self.ticks_to_ns(timestamp);
                self.with_sink(|sink| sink.heartbeat(timestamp_ns));
                self.note_timestamp(timestamp_ns);
                return true;
            }
        }
        false
    }

    fn with_sink(&mut self, feed: impl FnOnce(&mut S)) {
        if let Some(sink) = self.sink.as_mut() {
            feed(sink);
        }
    }

    fn is_defined(&self, method_id: u32) -> bool {
        matches!(self.defined.get(method_id as usize), Some(Some(_)))
    }

    fn define_methods(&mut self, definitions: Vec<MethodDef>) {
        let chunk_index = self.definition_chunks.len() as u32;
        let mut accepted: Vec<MethodDef> = Vec::with_capacity(definitions.len());
        for definition in definitions {
            let id = definition.id;
            if id >= MAX_METHOD_ID {
                self.stats.skipped_records += 1;
                self.record_error(SessionError::MethodIdTooLarge {
                    method_id: id,
                    max_method_id: MAX_METHOD_ID,
                });
                continue;
            }
            let slot = id as usize;
            if self.defined.len() <= slot {
                self.defined.resize(slot + 1, None);
            }
            if let Some((chunk, index)) = self.defined[slot] {
                let existing = if chunk == chunk_index {
                    &accepted[index as usize]
                } else {
                    &self.definition_chunks[chunk as usize][index as usize]
                };
                if *existing == definition {
                    self.stats.duplicate_definitions += 1;
                } else {
                    self.stats.skipped_records += 1;
                    self.record_error(SessionError::ConflictingDefinition { method_id: id });
                }
                continue;
            }
            self.defined[slot] = Some((chunk_index, accepted.len() as u32));
            accepted.push(definition);
        }
        if accepted.is_empty() {
            return;
        }
        self.stats.definitions += accepted.len() as u64;
        self.with_sink(|sink| sink.define_methods(&accepted));
        self.definition_chunks.push(accepted.into());
    }

    fn accept_events(&mut self, thread_id: u64, events: &mut Vec<Event>) {
        let all_defined = events.iter().all(|event| self.is_defined(event.method_id));
        if !all_defined {
            let mut undefined: Vec<(u32, u64)> = Vec::new();
            events.retain(|event| {
                if self.is_defined(event.method_id) {
                    return true;
                }
                match undefined.iter_mut().find(|(id, _)| *id == event.method_id) {
                    Some((_, count)) => *count += 1,
                    None => undefined.push((event.method_id, 1)),
                }
                false
            });
            for (method_id, count) in undefined {
                self.stats.skipped_records += count;
                self.record_error(SessionError::UndefinedMethod {
                    method_id,
                    events: count,
                });
            }
        }
        self.stats.batches += 1;
        self.stats.events += events.len() as u64;
        if let Some(last) = events.last() {
            self.note_timestamp(last.timestamp_ns);
        }
        self.thread_mut(thread_id, true).events += events.len() as u64;
        self.with_sink(|sink| sink.events(thread_id, events));
    }

    /// The thread's bookkeeping, created on first sight (`implicit`: seen without ThreadStart).
    fn thread_mut(&mut self, thread_id: u64, implicit: bool) -> &mut ThreadInfo {
        let threads = Arc::make_mut(&mut self.threads);
        let index = *self.thread_index.entry(thread_id).or_insert_with(|| {
            if implicit {
                self.stats.threads_implicit += 1;
            }
            threads.push(ThreadInfo {
                thread_id,
                name: String::new(),
                events: 0,
                started_ns: None,
                ended_ns: None,
            });
            threads.len() - 1
        });
        &mut threads[index]
    }

    fn report(&mut self) -> SessionReport<S::Snapshot> {
        SessionReport {
            session_id: self.session_id,
            peer: self.peer,
            info: self.info.clone(),
            status: self.status.clone(),
            stats: self.stats.clone(),
            errors: self.errors.clone(),
            definition_chunks: self.definition_chunks.clone(),
            threads: Arc::clone(&self.threads),
            sink: self.sink.as_mut().map(|sink| sink.snapshot()),
        }
    }
}
