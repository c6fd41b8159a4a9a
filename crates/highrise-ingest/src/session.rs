//! The worker side of a session: one thread per connection that validates the decoded stream,
//! keeps the session's bookkeeping, feeds the sink and publishes reports.
//!
//! [`SessionProcessor`] is that logic without the thread: live sessions (fed by the reader
//! task) and replays (fed from a recording) go through the same code.

use std::collections::HashMap;
use std::fs::File;
use std::io::BufWriter;
use std::net::{Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use crossbeam_channel::{select, tick, Receiver, Sender, TrySendError};
use highrise_protocol::{
    decode_agent_message, decode_events, encode_message, AgentMessage, Event, FrameHeader, Hello,
    MethodDef, ProtocolError, FRAME_HEADER_BYTES, MAGIC, MAX_METHOD_ID, PROTOCOL_VERSION,
};
use highrise_record::{RecordingHeader, RecordingWriter};

use crate::connection::{check_hello, ReaderItem};
use crate::report::{
    RecordingState, RecordingStatus, SessionEnd, SessionError, SessionId, SessionInfo,
    SessionReport, SessionSource, SessionStats, SessionStatus, ThreadInfo, MAX_KEPT_ERRORS,
};
use crate::sink::SessionSink;

/// How long the final report of a session may wait for room in a full report channel.
const FINAL_REPORT_TIMEOUT: Duration = Duration::from_secs(2);

/// Definitions per synthesized `DefineMethods` frame (keeps each frame far below the 4 MiB
/// frame limit).
const SYNTHESIZED_DEFINITIONS_PER_FRAME: usize = 4096;

/// Where each session is recorded to when every session is (`highrise record`).
pub(crate) type RecordPlan = Arc<dyn Fn(SessionId, &Hello) -> PathBuf + Send + Sync>;

/// Requests to a session's worker that are not the sink's business.
#[derive(Debug)]
pub(crate) enum Control {
    StartRecording {
        path: PathBuf,
        reply: Sender<Result<(), crate::RecordingError>>,
    },
    StopRecording {
        reply: Sender<Option<RecordingStatus>>,
    },
}

/// Everything a worker thread needs.
pub(crate) struct WorkerSetup<S: SessionSink> {
    pub session_id: SessionId,
    pub peer: SocketAddr,
    pub items: Receiver<ReaderItem>,
    pub commands: Receiver<S::Command>,
    pub controls: Receiver<Control>,
    pub reports: Sender<SessionReport<S::Snapshot>>,
    pub make_sink: crate::server::SinkFactory<S>,
    pub publish_interval: Duration,
    pub shutting_down: Arc<AtomicBool>,
    /// Set: the reader hands over each frame's raw payload (only while recording).
    pub tee_raw: Arc<AtomicBool>,
    /// Record the whole session to the path this gives (`highrise record`).
    pub record_to: Option<RecordPlan>,
}

pub(crate) fn run_worker<S: SessionSink>(setup: WorkerSetup<S>) {
    let make_sink = Arc::clone(&setup.make_sink);
    let mut processor =
        SessionProcessor::new(setup.session_id, setup.peer, move |hello| make_sink(hello));
    let mut recorder: Option<Recorder> = None;
    let ticker = tick(setup.publish_interval);
    let mut publisher = Publisher::new(setup.reports);
    publisher.publish(&mut processor.session, true);
    loop {
        select! {
            recv(setup.items) -> item => {
                let Ok(item) = item else {
                    // The reader is gone without a word: only when the server shuts down.
                    let end = if setup.shutting_down.load(Ordering::Relaxed) {
                        SessionEnd::ServerShutdown
                    } else {
                        SessionEnd::Disconnected
                    };
                    processor.session.end(end);
                    break;
                };
                let opened_hello = match &item {
                    ReaderItem::Opened { hello, .. } => Some(hello.clone()),
                    _ => None,
                };
                let record_from_start = opened_hello.is_some() && setup.record_to.is_some();
                let arrived = item.arrived();
                let tee = if recorder.is_some() || record_from_start {
                    tee_bytes(&item)
                } else {
                    None
                };
                let ended = processor.handle(item);
                if let (Some(hello), Some(record_to)) = (opened_hello, setup.record_to.as_ref()) {
                    let path = record_to(setup.session_id, &hello);
                    let hello_frame = tee.zip(arrived);
                    let started = start_recording(
                        &mut processor,
                        &mut recorder,
                        path,
                        &setup.tee_raw,
                        hello_frame,
                    );
                    if let Err(error) = started {
                        setup.tee_raw.store(false, Ordering::Relaxed);
                        processor.session.record_error(SessionError::Recording(error.to_string()));
                    }
                } else if let (Some(active), Some(arrived)) = (recorder.as_mut(), arrived) {
                    let agent_time_ns = processor.session.stats.last_timestamp_ns;
                    active.write(tee.as_deref(), arrived, agent_time_ns, &mut processor.session);
                    if active.failed() {
                        setup.tee_raw.store(false, Ordering::Relaxed);
                        recorder = None;
                    }
                }
                if ended {
                    break;
                }
            },
            recv(setup.commands) -> command => {
                if let Ok(command) = command {
                    processor.command(command);
                }
            },
            recv(setup.controls) -> control => match control {
                Ok(Control::StartRecording { path, reply }) => {
                    let result =
                        start_recording(&mut processor, &mut recorder, path, &setup.tee_raw, None);
                    let _ = reply.send(result);
                }
                Ok(Control::StopRecording { reply }) => {
                    setup.tee_raw.store(false, Ordering::Relaxed);
                    let status = recorder.take().map(|active| active.finish(&mut processor.session));
                    let _ = reply.send(status);
                }
                Err(_) => {}
            },
            recv(ticker) -> _ => {
                if let Some(active) = recorder.as_mut() {
                    // A killed recorder process loses at most one tick of frames.
                    active.flush(&mut processor.session);
                }
                publisher.publish(&mut processor.session, false);
            },
        }
    }
    if let Some(active) = recorder.take() {
        active.finish(&mut processor.session);
    }
    publisher.publish_final(&mut processor.session);
}

/// The bytes to record for an item: the raw payload when the reader kept it, else the message
/// encoded again (items queued before the recording started; the encoding is canonical, so
/// this is byte-identical for every encoder that writes the shortest varints, as the spec
/// asks). `None`: nothing to record (the stream closed, or an undecodable frame the reader
/// did not keep).
fn tee_bytes(item: &ReaderItem) -> Option<Vec<u8>> {
    match item {
        ReaderItem::Opened { hello, raw, .. } => raw
            .clone()
            .or_else(|| Some(encode_message(&AgentMessage::Hello(hello.clone())))),
        ReaderItem::Message { message, raw, .. } => {
            raw.clone().or_else(|| Some(encode_message(message)))
        }
        ReaderItem::Skipped { raw, .. } => raw.clone(),
        ReaderItem::Closed(_) => None,
    }
}

/// Starts recording. `hello_frame`: the session has just opened and this is its Hello as
/// received (with its arrival); otherwise the file starts with frames synthesized from the
/// session's state.
fn start_recording<S: SessionSink>(
    processor: &mut SessionProcessor<S>,
    recorder: &mut Option<Recorder>,
    path: PathBuf,
    tee_raw: &AtomicBool,
    hello_frame: Option<(Vec<u8>, Instant)>,
) -> Result<(), crate::RecordingError> {
    if let Some(active) = recorder.as_ref() {
        return Err(crate::RecordingError::AlreadyRecording {
            path: active.path.clone(),
        });
    }
    if processor.session.hello.is_none() {
        return Err(crate::RecordingError::NotOpen);
    }
    // Tee from now on, so frames the reader decodes meanwhile keep their raw bytes.
    tee_raw.store(true, Ordering::Relaxed);
    let started = hello_frame
        .as_ref()
        .map_or_else(Instant::now, |(_, arrived)| *arrived);
    let mut active = Recorder::create(path, started)?;
    let agent_time_ns = processor.session.stats.last_timestamp_ns;
    let prefix = match hello_frame {
        Some((hello, _)) => vec![hello],
        // Everything the session knows so far, as frames, so the file stands on its own.
        None => processor.session.synthesize_prefix(),
    };
    for payload in prefix {
        active.write(
            Some(&payload),
            started,
            agent_time_ns,
            &mut processor.session,
        );
    }
    if let RecordingState::Failed(error) = active.status.state.clone() {
        tee_raw.store(false, Ordering::Relaxed);
        return Err(crate::RecordingError::Write(error));
    }
    processor.session.stats.recording = Some(active.status.clone());
    processor.session.dirty = true;
    *recorder = Some(active);
    Ok(())
}

/// A session's recording in progress.
struct Recorder {
    path: PathBuf,
    writer: Option<RecordingWriter<BufWriter<File>>>,
    started: Instant,
    status: RecordingStatus,
    /// Frames that could not be recorded (undecodable ones queued before it started).
    missed_frames: u64,
    /// Frames written when the file was last flushed.
    flushed_frames: u64,
}

impl Recorder {
    fn create(path: PathBuf, started: Instant) -> Result<Self, crate::RecordingError> {
        let file = File::create(&path).map_err(|source| crate::RecordingError::Create {
            path: path.clone(),
            source,
        })?;
        let created_unix_ns = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |since| since.as_nanos() as u64);
        let writer = RecordingWriter::new(
            BufWriter::with_capacity(1 << 20, file),
            &RecordingHeader::new(created_unix_ns),
        )
        .map_err(|error| crate::RecordingError::Write(error.to_string()))?;
        Ok(Self {
            status: RecordingStatus {
                path: path.clone(),
                frames: 0,
                bytes: writer.bytes(),
                state: RecordingState::Active,
            },
            path,
            writer: Some(writer),
            started,
            missed_frames: 0,
            flushed_frames: 0,
        })
    }

    fn failed(&self) -> bool {
        self.writer.is_none()
    }

    /// Appends one frame; an error stops the recording and is kept in the session's errors.
    fn write<S: SessionSink>(
        &mut self,
        payload: Option<&[u8]>,
        arrived: Instant,
        agent_time_ns: u64,
        session: &mut Session<S>,
    ) {
        let Some(writer) = self.writer.as_mut() else {
            return;
        };
        let Some(payload) = payload else {
            self.missed_frames += 1;
            return;
        };
        let arrival_ns = arrived.saturating_duration_since(self.started).as_nanos() as u64;
        match writer.write_payload(arrival_ns, payload, agent_time_ns) {
            Ok(()) => {
                self.status.frames = writer.frames();
                self.status.bytes = writer.bytes();
                if let Some(status) = session.stats.recording.as_mut() {
                    status.frames = self.status.frames;
                    status.bytes = self.status.bytes;
                }
            }
            Err(error) => {
                let message = format!("{}: {error}", self.path.display());
                tracing::warn!(session_id = session.session_id, %message, "recording failed");
                self.writer = None;
                self.status.state = RecordingState::Failed(message.clone());
                session.stats.recording = Some(self.status.clone());
                session.record_error(SessionError::Recording(message));
            }
        }
    }

    /// Pushes buffered frames to the file (when any were written since the last flush).
    fn flush<S: SessionSink>(&mut self, session: &mut Session<S>) {
        let Some(writer) = self.writer.as_mut() else {
            return;
        };
        if writer.frames() == self.flushed_frames {
            return;
        }
        self.flushed_frames = writer.frames();
        if let Err(error) = writer.flush() {
            let message = format!("{}: {error}", self.path.display());
            self.writer = None;
            self.status.state = RecordingState::Failed(message.clone());
            session.stats.recording = Some(self.status.clone());
            session.record_error(SessionError::Recording(message));
        }
    }

    /// Writes the footer; the final status goes into the session's stats.
    fn finish<S: SessionSink>(mut self, session: &mut Session<S>) -> RecordingStatus {
        if let Some(writer) = self.writer.take() {
            match writer.finish() {
                Ok(_) => self.status.state = RecordingState::Finished,
                Err(error) => {
                    let message = format!("{}: {error}", self.path.display());
                    self.status.state = RecordingState::Failed(message.clone());
                    session.record_error(SessionError::Recording(message));
                }
            }
        }
        if self.missed_frames > 0 {
            tracing::debug!(missed = self.missed_frames, "frames not recorded");
        }
        session.stats.recording = Some(self.status.clone());
        session.dirty = true;
        self.status
    }
}

/// Sends reports without ever queueing more than the channel holds.
pub(crate) struct Publisher<T> {
    reports: Sender<SessionReport<T>>,
    last_publish: Instant,
    events_at_last_publish: u64,
}

impl<T> Publisher<T> {
    pub(crate) fn new(reports: Sender<SessionReport<T>>) -> Self {
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
            let new_events = session
                .stats
                .events
                .saturating_sub(self.events_at_last_publish);
            session.stats.events_per_s = new_events as f64 / elapsed_s;
        }
        self.last_publish = now;
        self.events_at_last_publish = session.stats.events;
    }

    /// Publishes when something changed (or `force`). A full channel leaves the session dirty,
    /// so the next tick retries with a fresher report instead of queueing this one.
    pub(crate) fn publish<S: SessionSink<Snapshot = T>>(
        &mut self,
        session: &mut Session<S>,
        force: bool,
    ) {
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

    /// The last report must arrive: wait a while for room. It reads 0 events/s: nothing flows
    /// after it, and a rate over the last moments (a replay reads its tail in a burst, tens of
    /// millions of events per second) would otherwise stay on screen for good.
    pub(crate) fn publish_final<S: SessionSink<Snapshot = T>>(&mut self, session: &mut Session<S>) {
        self.update_rate(session);
        session.stats.events_per_s = 0.0;
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

/// One session's validation, bookkeeping and sink feeding, without a thread or a socket:
/// the code path live sessions and replays share. Feed it frames in stream order
/// ([`Self::feed_frame`] / [`Self::feed_payload`]); read it with [`Self::report`] and
/// [`Self::sink_mut`].
pub struct SessionProcessor<S: SessionSink> {
    pub(crate) session: Session<S>,
    make_sink: Box<dyn FnMut(&Hello) -> S + Send>,
}

impl<S: SessionSink> std::fmt::Debug for SessionProcessor<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SessionProcessor")
            .field("session_id", &self.session.session_id)
            .field("status", &self.session.status)
            .finish_non_exhaustive()
    }
}

impl<S: SessionSink> SessionProcessor<S> {
    /// A session that has seen nothing yet; `make_sink` builds the sink from its Hello.
    pub fn new(
        session_id: SessionId,
        peer: SocketAddr,
        make_sink: impl FnMut(&Hello) -> S + Send + 'static,
    ) -> Self {
        Self {
            session: Session::new(session_id, peer),
            make_sink: Box::new(make_sink),
        }
    }

    /// A processor for replaying the recording at `path` (the session's source says so).
    pub fn for_replay(
        session_id: SessionId,
        path: PathBuf,
        make_sink: impl FnMut(&Hello) -> S + Send + 'static,
    ) -> Self {
        let mut processor = Self::new(
            session_id,
            SocketAddr::from((Ipv4Addr::UNSPECIFIED, 0)),
            make_sink,
        );
        processor.session.stats.source = SessionSource::Replay { path };
        processor
    }

    /// One whole wire frame (4-byte length header, then the payload), as the reader would
    /// have read it. A header that disagrees with the frame's length ends the session as a
    /// framing error would. Returns true once the session has ended.
    pub fn feed_frame(&mut self, frame: &[u8]) -> bool {
        let parsed = frame
            .split_first_chunk::<FRAME_HEADER_BYTES>()
            .ok_or(ProtocolError::Truncated {
                got_bytes: frame.len() as u64,
                expected_bytes: FRAME_HEADER_BYTES as u64,
            })
            .and_then(|(header, payload)| {
                let header = FrameHeader::parse(*header)?;
                if header.payload_len_bytes as usize == payload.len() {
                    Ok(payload)
                } else {
                    Err(ProtocolError::Truncated {
                        got_bytes: payload.len() as u64,
                        expected_bytes: u64::from(header.payload_len_bytes),
                    })
                }
            });
        match parsed {
            Ok(payload) => self.feed_payload(payload),
            Err(error) => self.handle(ReaderItem::Closed(Some(error.into()))),
        }
    }

    /// One frame's payload. The first must be a Hello (checked as the live reader checks it:
    /// magic, version); later ones are decoded and applied, or skipped with the error kept.
    /// Returns true once the session has ended.
    pub fn feed_payload(&mut self, payload: &[u8]) -> bool {
        if self.is_ended() {
            return true;
        }
        let frame_bytes = (FRAME_HEADER_BYTES + payload.len()) as u64;
        let arrived = None;
        let item = if self.session.hello.is_none() {
            match check_hello(payload) {
                Ok(hello) => ReaderItem::Opened {
                    hello,
                    frame_bytes,
                    arrived,
                    raw: None,
                },
                Err(error) => ReaderItem::Closed(Some(error)),
            }
        } else {
            match decode_agent_message(payload) {
                Ok(message) => ReaderItem::Message {
                    message,
                    frame_bytes,
                    arrived,
                    raw: None,
                },
                Err(error) => ReaderItem::Skipped {
                    error,
                    frame_bytes,
                    arrived,
                    raw: None,
                },
            }
        };
        self.handle(item)
    }

    /// The stream is over without a Goodbye (a recording cut short, a closed socket).
    pub fn finish(&mut self) {
        if !self.is_ended() {
            self.session.end(SessionEnd::Disconnected);
        }
    }

    /// Ends the session with this reason (if it has not ended).
    pub fn end(&mut self, end: SessionEnd) {
        if !self.is_ended() {
            self.session.end(end);
        }
    }

    /// A consumer command for the sink (kept until the Hello if it comes first).
    pub fn command(&mut self, command: S::Command) {
        self.session.command(command);
    }

    /// The whole-state report, as a live session publishes it.
    pub fn report(&mut self) -> SessionReport<S::Snapshot> {
        self.session.report()
    }

    /// The sink, once the Hello built it.
    pub fn sink(&self) -> Option<&S> {
        self.session.sink.as_ref()
    }

    /// The sink, mutably (e.g. to take a snapshot at a chosen moment).
    pub fn sink_mut(&mut self) -> Option<&mut S> {
        self.session.sink.as_mut()
    }

    /// The session's counters so far.
    pub fn stats(&self) -> &SessionStats {
        &self.session.stats
    }

    /// The Hello, once accepted.
    pub fn hello(&self) -> Option<&Hello> {
        self.session.hello.as_ref()
    }

    /// The latest agent timestamp seen, in ns: the session's program time.
    pub fn last_timestamp_ns(&self) -> u64 {
        self.session.stats.last_timestamp_ns
    }

    /// True once the session has ended (Goodbye, failure, [`Self::finish`]).
    pub fn is_ended(&self) -> bool {
        matches!(self.session.status, SessionStatus::Ended(_))
    }

    /// Applies one reader item. Returns true when the session has ended.
    pub(crate) fn handle(&mut self, item: ReaderItem) -> bool {
        let session = &mut self.session;
        match item {
            ReaderItem::Opened {
                hello, frame_bytes, ..
            } => {
                session.count_frame(frame_bytes);
                let sink = (self.make_sink)(&hello);
                session.open(&hello, sink);
                false
            }
            ReaderItem::Message {
                message,
                frame_bytes,
                ..
            } => {
                session.count_frame(frame_bytes);
                if session.apply(message) {
                    session.end(SessionEnd::Goodbye);
                    return true;
                }
                false
            }
            ReaderItem::Skipped {
                error, frame_bytes, ..
            } => {
                session.count_frame(frame_bytes);
                session.stats.skipped_records += 1;
                session.record_error(error.into());
                false
            }
            ReaderItem::Closed(None) => {
                session.end(SessionEnd::Disconnected);
                true
            }
            ReaderItem::Closed(Some(error)) => {
                session.record_error(error.clone());
                session.end(SessionEnd::Failed(error));
                true
            }
        }
    }
}

/// One session's state on its worker thread.
pub(crate) struct Session<S: SessionSink> {
    session_id: SessionId,
    /// The accepted Hello, kept for recordings started mid-session.
    hello: Option<Hello>,
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
            hello: None,
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
        self.hello = Some(hello.clone());
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

    pub(crate) fn mark_dirty(&mut self) {
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

    /// Frames (payloads) that bring a fresh reader to this session's current state: Hello,
    /// definitions, live threads, the agent's drop totals, each open stack (from the sink) and
    /// a heartbeat at the latest timestamp. See RECORDING.md for what this approximates.
    fn synthesize_prefix(&self) -> Vec<Vec<u8>> {
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
            .definition_chunks
            .iter()
            .flat_map(|chunk| chunk.iter().cloned())
            .collect();
        for chunk in definitions.chunks(SYNTHESIZED_DEFINITIONS_PER_FRAME) {
            frames.push(encode_message(&AgentMessage::DefineMethods(chunk.to_vec())));
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
        if let Some(sink) = self.sink.as_ref() {
            for (thread_id, stack) in sink.open_stacks() {
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
