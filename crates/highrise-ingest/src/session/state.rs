//! One session's state: validation of each message, the bookkeeping (definitions, threads,
//! counters, errors), feeding the sink, the whole-state report and the frames that bring a
//! fresh recording up to the current state.

use std::collections::{HashMap, HashSet};
use std::net::SocketAddr;
use std::sync::Arc;

use highrise_protocol::{
    decode_events, decode_records, encode_message, AgentMessage, ClassDef, ClassRelation, Event,
    EventBatch, EventKind, Hello, Measure, MemoryAmount, MethodDef, MAGIC, MAX_CLASS_ID,
    MAX_METHOD_ID, MAX_METHOD_ID_GAP, MAX_NOTICE_KEY_BYTES, MAX_NOTICE_TEXT_BYTES,
    PROTOCOL_VERSION,
};

use crate::session_report::{
    Notice, SessionEnd, SessionError, SessionId, SessionInfo, SessionReport, SessionStats,
    SessionStatus, ThreadInfo, MAX_KEPT_ERRORS, MAX_NOTICES,
};
use crate::sink::SessionSink;

use super::dense::{DenseTable, Refusal};

/// Definitions per synthesized `DefineMethods` frame (keeps each frame far below the 4 MiB
/// frame limit).
const SYNTHESIZED_DEFINITIONS_PER_FRAME: usize = 4096;

/// Most class relations a session keeps (a class diagram far larger than any program's).
pub const MAX_CLASS_RELATIONS: usize = 1 << 20;

/// One session's state on its worker thread.
pub(crate) struct Session<S: SessionSink> {
    pub(super) session_id: SessionId,
    /// The accepted Hello, kept for recordings started mid-session.
    pub(super) hello: Option<Hello>,
    peer: SocketAddr,
    info: Option<SessionInfo>,
    pub(super) status: SessionStatus,
    pub(super) stats: SessionStats,
    errors: Vec<SessionError>,
    methods: DenseTable<MethodDef>,
    classes: DenseTable<ClassDef>,
    /// Class relations (the class diagram) in arrival order, each once.
    relation_chunks: Vec<Arc<[ClassRelation]>>,
    relations_seen: HashSet<ClassRelation>,
    threads: Arc<Vec<ThreadInfo>>,
    thread_index: HashMap<u64, usize>,
    pub(super) sink: Option<S>,
    early_commands: Vec<S::Command>,
    clock_unit_ns: u32,
    event_buffer: Vec<Event>,
    amount_buffer: Vec<MemoryAmount>,
    /// Something changed since the last report was sent.
    pub(super) dirty: bool,
    /// highrise failed on this session ([`Self::crash`]) with this message: its sink is fed
    /// nothing more.
    crashed: Option<String>,
    /// After a crash: the one snapshot taken then (`None` if that failed too), published
    /// from then on instead of asking the broken sink again.
    crash_snapshot: Option<Option<S::Snapshot>>,
}

impl<S: SessionSink> Session<S> {
    pub(super) fn new(session_id: SessionId, peer: SocketAddr) -> Self {
        Self {
            session_id,
            hello: None,
            peer,
            info: None,
            status: SessionStatus::Handshaking,
            stats: SessionStats::default(),
            errors: Vec::new(),
            methods: DenseTable::new(MAX_METHOD_ID, MAX_METHOD_ID_GAP),
            classes: DenseTable::new(MAX_CLASS_ID, MAX_METHOD_ID_GAP),
            relation_chunks: Vec::new(),
            relations_seen: HashSet::new(),
            threads: Arc::new(Vec::new()),
            thread_index: HashMap::new(),
            sink: None,
            early_commands: Vec::new(),
            clock_unit_ns: 1,
            event_buffer: Vec::new(),
            amount_buffer: Vec::new(),
            dirty: true,
            crashed: None,
            crash_snapshot: None,
        }
    }

    pub(super) fn open(&mut self, hello: &Hello, sink: S) {
        self.hello = Some(hello.clone());
        self.info = Some(SessionInfo {
            agent: hello.agent.clone(),
            program: hello.program.clone(),
            version_label: hello.version_label.clone(),
            pid: hello.pid,
            clock_unit_ns: hello.clock_unit_ns,
            clock_zero_unix_ns: hello.clock_zero_unix_ns,
            measure: Measure::EXACT,
            notices: Vec::new(),
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
        self.sink = Some(sink);
        for command in std::mem::take(&mut self.early_commands) {
            self.with_sink(|sink| sink.command(command));
        }
        self.dirty = true;
    }

    /// Hands a consumer command to the sink; commands that arrive before the Hello wait for it
    /// (at most the command queue's capacity of them).
    pub(super) fn command(&mut self, command: S::Command) {
        if self.sink.is_some() {
            self.with_sink(|sink| sink.command(command));
        } else {
            self.early_commands.push(command);
        }
        self.dirty = true;
    }

    pub(crate) fn mark_dirty(&mut self) {
        self.dirty = true;
    }

    pub(super) fn count_frame(&mut self, frame_bytes: u64) {
        self.stats.frames += 1;
        self.stats.bytes += frame_bytes;
    }

    pub(super) fn record_error(&mut self, error: SessionError) {
        tracing::debug!(session_id = self.session_id, %error, "session error");
        self.stats.errors_total += 1;
        if self.errors.len() < MAX_KEPT_ERRORS {
            self.errors.push(error);
        }
        self.dirty = true;
    }

    /// Ends the session. A crashed session ends failed with its crash, whatever ended it.
    pub(super) fn end(&mut self, end: SessionEnd) {
        self.dirty = true;
        if let Some(message) = self.crashed.clone() {
            self.status = SessionStatus::Ended(SessionEnd::Failed(SessionError::Crashed(message)));
            return;
        }
        self.status = SessionStatus::Ended(end);
        self.with_sink(|sink| sink.session_ended());
    }

    /// highrise failed on this session's data (a caught panic): the session is marked failed
    /// with the message (kept among its errors whatever their number) and its sink is fed
    /// nothing more. The stream is still read, counted and recorded until the agent ends it,
    /// so the program goes on undisturbed (an agent whose socket closed would reconnect and
    /// crash a new session, over and over); the session then ends failed with this message.
    pub(super) fn crash(&mut self, message: String) {
        if self.crashed.is_some() {
            return;
        }
        tracing::error!(session_id = self.session_id, %message, "session failed: a bug in highrise");
        self.crashed = Some(message.clone());
        let error = SessionError::Crashed(message);
        if matches!(self.status, SessionStatus::Ended(_)) {
            // Its last snapshot failed: the end it had is not the whole story.
            self.status = SessionStatus::Ended(SessionEnd::Failed(error.clone()));
        }
        if self.errors.len() >= MAX_KEPT_ERRORS {
            self.errors.pop();
        }
        self.errors.push(error);
        self.stats.errors_total += 1;
        self.dirty = true;
    }

    /// The crash's message once highrise failed on this session ([`Self::crash`]).
    pub(super) fn crash_message(&self) -> Option<&str> {
        self.crashed.as_deref()
    }

    fn ticks_to_ns(&self, ticks: u64) -> u64 {
        ticks.saturating_mul(u64::from(self.clock_unit_ns))
    }

    fn note_timestamp(&mut self, timestamp_ns: u64) {
        self.stats.last_timestamp_ns = self.stats.last_timestamp_ns.max(timestamp_ns);
    }

    /// Applies one message. Returns true when the message was a Goodbye.
    pub(super) fn apply(&mut self, message: AgentMessage) -> bool {
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
                self.with_sink(|sink| sink.agent_dropped(events_dropped, batches_dropped));
            }
            AgentMessage::DefineClasses(definitions) => self.define_classes(definitions),
            AgentMessage::Records(batch) => self.records(&batch),
            AgentMessage::MemoryDropped {
                allocations_dropped,
                bytes_dropped,
                frees_dropped,
            } => {
                let stats = &mut self.stats;
                stats.agent_allocations_dropped =
                    stats.agent_allocations_dropped.max(allocations_dropped);
                stats.agent_allocation_bytes_dropped =
                    stats.agent_allocation_bytes_dropped.max(bytes_dropped);
                stats.agent_frees_dropped = stats.agent_frees_dropped.max(frees_dropped);
                let (allocations, bytes, frees) = (
                    stats.agent_allocations_dropped,
                    stats.agent_allocation_bytes_dropped,
                    stats.agent_frees_dropped,
                );
                self.with_sink(|sink| sink.memory_dropped(allocations, bytes, frees));
            }
            AgentMessage::LiveObjects(mut snapshot) => {
                let before = snapshot.classes.len();
                let mut undefined: Vec<u32> = Vec::new();
                snapshot.classes.retain(|class| {
                    let defined = self.is_class_defined(class.class_id);
                    if !defined {
                        undefined.push(class.class_id);
                    }
                    defined
                });
                for class_id in undefined {
                    self.record_error(SessionError::UndefinedClass {
                        class_id,
                        records: 1,
                    });
                }
                self.stats.skipped_records += (before - snapshot.classes.len()) as u64;
                let timestamp_ns = self.ticks_to_ns(snapshot.timestamp);
                self.with_sink(|sink| {
                    sink.live_objects(
                        snapshot.thread_id,
                        timestamp_ns,
                        snapshot.heap_live_bytes,
                        &snapshot.classes,
                    )
                });
                self.note_timestamp(timestamp_ns);
            }
            AgentMessage::ClassRelations(relations) => self.relate_classes(relations),
            AgentMessage::Measure(measure) => {
                if let Some(info) = self.info.as_mut() {
                    info.measure = measure;
                }
            }
            AgentMessage::Notice { key, text } => self.take_notice(key, text),
            AgentMessage::Goodbye { timestamp } => {
                let timestamp_ns = self.ticks_to_ns(timestamp);
                self.with_sink(|sink| sink.heartbeat(timestamp_ns));
                self.note_timestamp(timestamp_ns);
                return true;
            }
        }
        false
    }

    /// Keeps the agent's notice (the latest per key); a key or text too long, or one key too
    /// many, is an error and skips it.
    fn take_notice(&mut self, key: String, text: String) {
        let problem = if key.len() > MAX_NOTICE_KEY_BYTES || text.len() > MAX_NOTICE_TEXT_BYTES {
            Some(format!(
                "a notice's key ({} bytes) or text ({} bytes) is too long (at most {MAX_NOTICE_KEY_BYTES} and {MAX_NOTICE_TEXT_BYTES})",
                key.len(),
                text.len()
            ))
        } else {
            let Some(info) = self.info.as_mut() else {
                return;
            };
            if let Some(notice) = info.notices.iter_mut().find(|notice| notice.key == key) {
                notice.text = text;
                None
            } else if info.notices.len() < MAX_NOTICES {
                info.notices.push(Notice { key, text });
                None
            } else {
                Some(format!("more than {MAX_NOTICES} notice keys"))
            }
        };
        if let Some(problem) = problem {
            self.stats.skipped_records += 1;
            self.record_error(SessionError::Unexpected(problem));
        }
    }

    /// Feeds the sink, at the session's boundary for panics: one in the sink (the aggregator,
    /// alerts, …) fails this session with its message ([`Self::crash`]) and nothing else.
    fn with_sink(&mut self, feed: impl FnOnce(&mut S)) {
        if self.crashed.is_some() {
            return;
        }
        if let Some(sink) = self.sink.as_mut() {
            if let Err(message) = highrise_guard::catch(|| feed(sink)) {
                self.crash(message);
            }
        }
    }

    fn is_defined(&self, method_id: u32) -> bool {
        self.methods.contains(method_id)
    }

    /// Method definitions: dense ids below [`MAX_METHOD_ID`], a re-definition must be identical.
    fn define_methods(&mut self, definitions: Vec<MethodDef>) {
        let (accepted, refusals) = self.methods.admit(definitions, |definition| definition.id);
        for (method_id, refusal) in refusals {
            let error = match refusal {
                Refusal::Duplicate => {
                    self.stats.duplicate_definitions += 1;
                    continue;
                }
                Refusal::TooLarge => SessionError::MethodIdTooLarge {
                    method_id,
                    max_method_id: MAX_METHOD_ID,
                },
                Refusal::TooSparse { defined } => {
                    SessionError::MethodIdTooSparse { method_id, defined }
                }
                Refusal::Conflicting => SessionError::ConflictingDefinition { method_id },
            };
            self.stats.skipped_records += 1;
            self.record_error(error);
        }
        let Some(accepted) = accepted else {
            return;
        };
        self.stats.definitions = self.methods.len();
        self.with_sink(|sink| {
            maybe_inject_panic(&accepted);
            sink.define_methods(&accepted)
        });
    }

    fn is_class_defined(&self, class_id: u32) -> bool {
        self.classes.contains(class_id)
    }

    /// Class definitions, checked like method definitions (dense ids below
    /// [`MAX_CLASS_ID`], a re-definition must be identical).
    fn define_classes(&mut self, definitions: Vec<ClassDef>) {
        let (accepted, refusals) = self.classes.admit(definitions, |definition| definition.id);
        for (class_id, refusal) in refusals {
            let reason = match refusal {
                Refusal::Duplicate => {
                    self.stats.duplicate_definitions += 1;
                    continue;
                }
                Refusal::TooLarge => format!("at or above the maximum {MAX_CLASS_ID}"),
                Refusal::TooSparse { defined } => {
                    format!("not dense: only {defined} class(es) defined so far")
                }
                Refusal::Conflicting => "conflicting redefinition (first definition kept)".into(),
            };
            self.stats.skipped_records += 1;
            self.record_error(SessionError::BadClassDefinition { class_id, reason });
        }
        let Some(accepted) = accepted else {
            return;
        };
        self.stats.class_definitions = self.classes.len();
        self.with_sink(|sink| sink.define_classes(&accepted));
    }

    /// Class relations: each between defined classes (else skipped with an error), each kept
    /// once, at most [`MAX_CLASS_RELATIONS`] of them.
    fn relate_classes(&mut self, relations: Vec<ClassRelation>) {
        let mut accepted: Vec<ClassRelation> = Vec::new();
        for relation in relations {
            let undefined = [relation.from_class, relation.to_class]
                .into_iter()
                .find(|&class_id| !self.is_class_defined(class_id));
            if let Some(class_id) = undefined {
                self.stats.skipped_records += 1;
                self.record_error(SessionError::UndefinedClass {
                    class_id,
                    records: 1,
                });
                continue;
            }
            if self.relations_seen.contains(&relation) {
                continue;
            }
            if self.relations_seen.len() >= MAX_CLASS_RELATIONS {
                self.stats.skipped_records += 1;
                self.record_error(SessionError::Unexpected(format!(
                    "more than {MAX_CLASS_RELATIONS} class relations; the rest skipped"
                )));
                continue;
            }
            self.relations_seen.insert(relation.clone());
            accepted.push(relation);
        }
        if accepted.is_empty() {
            return;
        }
        self.with_sink(|sink| sink.class_relations(&accepted));
        self.relation_chunks.push(accepted.into());
    }

    /// A `Records` batch: decoded, records naming undefined methods or classes removed (and
    /// counted), the rest fed to the sink in order.
    fn records(&mut self, batch: &EventBatch) {
        let mut events = std::mem::take(&mut self.event_buffer);
        let mut amounts = std::mem::take(&mut self.amount_buffer);
        events.clear();
        amounts.clear();
        match decode_records(batch, self.clock_unit_ns, &mut events, &mut amounts) {
            Ok(()) => {
                self.drop_undefined_classes(&mut events, &mut amounts);
                let memory = amounts.len() as u64;
                self.stats.memory_records += memory;
                self.stats.allocations += amounts
                    .iter()
                    .filter(|amount| !amount.free)
                    .map(|amount| amount.count)
                    .sum::<u64>();
                if memory == 0 {
                    self.accept_events(batch.thread_id, &mut events);
                } else {
                    self.accept_records(batch.thread_id, &mut events, &amounts);
                }
            }
            Err(error) => {
                self.stats.skipped_records += 1;
                self.record_error(error.into());
            }
        }
        self.event_buffer = events;
        self.amount_buffer = amounts;
    }

    /// Removes memory records naming undefined classes (with their amounts), counting them.
    fn drop_undefined_classes(&mut self, events: &mut Vec<Event>, amounts: &mut Vec<MemoryAmount>) {
        let all_defined = events
            .iter()
            .all(|e| e.kind != EventKind::Memory || self.is_class_defined(e.method_id));
        if all_defined {
            return;
        }
        let mut undefined: Vec<(u32, u64)> = Vec::new();
        let (mut read, mut kept_amounts) = (0usize, 0usize);
        events.retain(|event| {
            if event.kind != EventKind::Memory {
                return true;
            }
            let amount = amounts[read];
            read += 1;
            if self.is_class_defined(event.method_id) {
                amounts[kept_amounts] = amount;
                kept_amounts += 1;
                return true;
            }
            match undefined.iter_mut().find(|(id, _)| *id == event.method_id) {
                Some((_, count)) => *count += 1,
                None => undefined.push((event.method_id, 1)),
            }
            false
        });
        amounts.truncate(kept_amounts);
        for (class_id, records) in undefined {
            self.stats.skipped_records += records;
            self.record_error(SessionError::UndefinedClass { class_id, records });
        }
    }

    /// Like [`accept_events`](Self::accept_events) for a batch that holds memory records.
    fn accept_records(
        &mut self,
        thread_id: u64,
        events: &mut Vec<Event>,
        amounts: &[MemoryAmount],
    ) {
        self.drop_undefined_methods(events, Some(amounts));
        let calls = events
            .iter()
            .filter(|e| e.kind != EventKind::Memory)
            .count() as u64;
        self.stats.batches += 1;
        self.stats.events += calls;
        if let Some(last) = events.last() {
            self.note_timestamp(last.timestamp_ns);
        }
        self.thread_mut(thread_id, true).events += calls;
        self.with_sink(|sink| sink.records(thread_id, events, amounts));
    }

    fn accept_events(&mut self, thread_id: u64, events: &mut Vec<Event>) {
        self.drop_undefined_methods(events, None);
        self.stats.batches += 1;
        self.stats.events += events.len() as u64;
        if let Some(last) = events.last() {
            self.note_timestamp(last.timestamp_ns);
        }
        self.thread_mut(thread_id, true).events += events.len() as u64;
        self.with_sink(|sink| sink.events(thread_id, events));
    }

    /// Removes enters and exits naming undefined methods, counting them. Memory records (only
    /// in batches that have `amounts`) stay: their classes were checked already.
    fn drop_undefined_methods(
        &mut self,
        events: &mut Vec<Event>,
        amounts: Option<&[MemoryAmount]>,
    ) {
        let is_call = |event: &Event| amounts.is_none() || event.kind != EventKind::Memory;
        let all_defined = events
            .iter()
            .all(|event| !is_call(event) || self.is_defined(event.method_id));
        if all_defined {
            return;
        }
        let mut undefined: Vec<(u32, u64)> = Vec::new();
        events.retain(|event| {
            if !is_call(event) || self.is_defined(event.method_id) {
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

    /// Frames (payloads) that bring a fresh reader to this session's current state: Hello,
    /// definitions, live threads, the agent's drop totals, each open stack (from the sink) and
    /// a heartbeat at the latest timestamp. See RECORDING.md for what this approximates.
    pub(super) fn synthesize_prefix(&self) -> Vec<Vec<u8>> {
        let Some(hello) = self.hello.clone() else {
            return Vec::new();
        };
        let unit = u64::from(self.clock_unit_ns.max(1));
        let ticks = |ns: u64| ns / unit;
        let now = ticks(self.stats.last_timestamp_ns);
        let mut frames = vec![encode_message(&AgentMessage::Hello(Hello {
            magic: MAGIC,
            protocol_version: PROTOCOL_VERSION,
            ..hello
        }))];
        let definitions: Vec<MethodDef> = self
            .methods
            .chunks()
            .iter()
            .flat_map(|chunk| chunk.iter().cloned())
            .collect();
        for chunk in definitions.chunks(SYNTHESIZED_DEFINITIONS_PER_FRAME) {
            frames.push(encode_message(&AgentMessage::DefineMethods(chunk.to_vec())));
        }
        let classes: Vec<ClassDef> = self
            .classes
            .chunks()
            .iter()
            .flat_map(|chunk| chunk.iter().cloned())
            .collect();
        for chunk in classes.chunks(SYNTHESIZED_DEFINITIONS_PER_FRAME) {
            frames.push(encode_message(&AgentMessage::DefineClasses(chunk.to_vec())));
        }
        let relations: Vec<ClassRelation> = self
            .relation_chunks
            .iter()
            .flat_map(|chunk| chunk.iter().cloned())
            .collect();
        for chunk in relations.chunks(SYNTHESIZED_DEFINITIONS_PER_FRAME) {
            frames.push(encode_message(&AgentMessage::ClassRelations(
                chunk.to_vec(),
            )));
        }
        if let Some(info) = self
            .info
            .as_ref()
            .filter(|info| info.measure.is_estimated())
        {
            frames.push(encode_message(&AgentMessage::Measure(info.measure)));
        }
        for notice in self.info.iter().flat_map(|info| &info.notices) {
            frames.push(encode_message(&AgentMessage::Notice {
                key: notice.key.clone(),
                text: notice.text.clone(),
            }));
        }
        for thread in self
            .threads
            .iter()
            .filter(|thread| thread.ended_ns.is_none())
        {
            frames.push(encode_message(&AgentMessage::ThreadStart {
                thread_id: thread.thread_id,
                name: thread.name.clone(),
                timestamp: ticks(thread.started_ns.unwrap_or(self.stats.last_timestamp_ns)),
            }));
        }
        if self.stats.agent_events_dropped > 0 || self.stats.agent_batches_dropped > 0 {
            frames.push(encode_message(&AgentMessage::Dropped {
                events_dropped: self.stats.agent_events_dropped,
                batches_dropped: self.stats.agent_batches_dropped,
            }));
        }
        let stats = &self.stats;
        if stats.agent_allocations_dropped
            + stats.agent_allocation_bytes_dropped
            + stats.agent_frees_dropped
            > 0
        {
            frames.push(encode_message(&AgentMessage::MemoryDropped {
                allocations_dropped: stats.agent_allocations_dropped,
                bytes_dropped: stats.agent_allocation_bytes_dropped,
                frees_dropped: stats.agent_frees_dropped,
            }));
        }
        if let Some(sink) = self.sink.as_ref() {
            // A sink that fails here leaves the recording without resyncs, nothing worse.
            let stacks = highrise_guard::catch(|| sink.open_stacks()).unwrap_or_default();
            for (thread_id, stack) in stacks {
                if stack.is_empty() {
                    continue;
                }
                frames.push(encode_message(&AgentMessage::Resync {
                    thread_id,
                    timestamp: now,
                    stack,
                }));
            }
        }
        frames.push(encode_message(&AgentMessage::Heartbeat { timestamp: now }));
        frames
    }

    /// The sink's snapshot, caught like every sink call. After a crash it is taken once more
    /// (what was counted so far stays readable) and kept; if that panics too, `None`, and
    /// consumers keep the last snapshot they had.
    fn snapshot(&mut self) -> Option<S::Snapshot> {
        if let Some(kept) = &self.crash_snapshot {
            return kept.clone();
        }
        let sink = self.sink.as_mut()?;
        let snapshot = match highrise_guard::catch(|| sink.snapshot()) {
            Ok(snapshot) => Some(snapshot),
            Err(message) => {
                self.crash(message);
                None
            }
        };
        if self.crashed.is_some() {
            self.crash_snapshot = Some(snapshot.clone());
        }
        snapshot
    }

    pub(super) fn report(&mut self) -> SessionReport<S::Snapshot> {
        let sink = self.snapshot();
        SessionReport {
            session_id: self.session_id,
            peer: self.peer,
            info: self.info.clone(),
            status: self.status.clone(),
            stats: self.stats.clone(),
            errors: self.errors.clone(),
            definition_chunks: self.methods.chunks().to_vec(),
            class_chunks: self.classes.chunks().to_vec(),
            relation_chunks: self.relation_chunks.clone(),
            threads: Arc::clone(&self.threads),
            sink,
        }
    }
}

/// Panics (on purpose, for tests) when one of `methods` is the test hook's method
/// ([`highrise_guard::TEST_PANIC_ENV`]).
fn maybe_inject_panic(methods: &[MethodDef]) {
    if let Some(name) = highrise_guard::injected_panic() {
        if let Some(definition) = methods.iter().find(|definition| definition.method == name) {
            panic!(
                "injected panic ({}) on the definition of method id {}",
                highrise_guard::TEST_PANIC_ENV,
                definition.id
            );
        }
    }
}
