//! The recording tee: while a session is recorded, the worker hands each frame (as received,
//! with its arrival time) to the recording's thread, which compresses it into a `.hrec` file;
//! an I/O error stops the recording, never the session.

use std::fs::File;
use std::io::BufWriter;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use crossbeam_channel::{bounded, Receiver, Sender};

use highrise_protocol::{encode_message, AgentMessage};
use highrise_record::{RecordingHeader, RecordingWriter};

use super::processor::SessionProcessor;
use super::state::Session;
use crate::connection::ReaderItem;
use crate::session_report::{RecordingState, RecordingStatus, SessionError};
use crate::sink::SessionSink;

/// The bytes to record for an item: the raw payload when the reader kept it, else the message
/// encoded again (items queued before the recording started; the encoding is canonical, so
/// this is byte-identical for every encoder that writes the shortest varints, as the spec
/// asks). `None`: nothing to record (the stream closed, or an undecodable frame the reader
/// did not keep).
pub(super) fn tee_bytes(item: &ReaderItem) -> Option<Vec<u8>> {
    match item {
        ReaderItem::Opened { hello, raw, .. } => raw
            .clone()
            .or_else(|| Some(encode_message(&AgentMessage::Hello(hello.clone())))),
        ReaderItem::Message { message, raw, .. } => {
            raw.clone().or_else(|| Some(encode_message(message)))
        }
        ReaderItem::Skipped { raw, .. } => raw.clone(),
        ReaderItem::Closed(_) | ReaderItem::Detached => None,
    }
}

/// Starts recording. `hello_frame`: the session has just opened and this is its Hello as
/// received (with its arrival); otherwise the file starts with frames synthesized from the
/// session's state.
pub(super) fn start_recording<S: SessionSink>(
    processor: &mut SessionProcessor<S>,
    recorder: &mut Option<Recorder>,
    path: PathBuf,
    tee_raw: &AtomicBool,
    hello_frame: Option<(Vec<u8>, Instant)>,
) -> Result<(), crate::session_report::RecordingError> {
    if let Some(active) = recorder.as_ref() {
        return Err(crate::session_report::RecordingError::AlreadyRecording {
            path: active.path.clone(),
        });
    }
    if processor.session.hello.is_none() {
        return Err(crate::session_report::RecordingError::NotOpen);
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
        return Err(crate::session_report::RecordingError::Write(error));
    }
    processor.session.stats.recording = Some(active.status.clone());
    processor.session.dirty = true;
    *recorder = Some(active);
    Ok(())
}

/// Frames are handed to the recording thread in batches of about this many bytes…
const BATCH_BYTES: usize = 256 * 1024;
/// …at most this many batches queued (≈ 4 MiB of frames): past that the worker waits for the
/// recording thread, as it would wait for a slow disk.
const QUEUED_BATCHES: usize = 16;

/// What the worker sends the recording thread.
enum ToRecordingThread {
    /// Frames, each `arrival_ns:u64 agent_time_ns:u64 len:u32 payload` (native endian).
    Frames(Vec<u8>),
    /// Make everything so far readable from the file.
    Flush,
}

/// What the recording thread tells the worker.
#[derive(Default)]
struct Shared {
    /// Bytes in the file so far.
    bytes: AtomicU64,
    /// The thread has stopped on an error (kept in `error`).
    failed: AtomicBool,
    error: Mutex<Option<String>>,
}

/// A session's recording in progress. The worker only batches frames (a copy); compressing and
/// writing happen on the recording's own thread, so recording costs the session's worker
/// almost nothing.
pub(super) struct Recorder {
    path: PathBuf,
    /// `None` once the recording stopped (finished or failed).
    to_thread: Option<Sender<ToRecordingThread>>,
    thread: Option<JoinHandle<Result<u64, String>>>,
    /// Emptied batches coming back for reuse.
    spare: Receiver<Vec<u8>>,
    shared: Arc<Shared>,
    batch: Vec<u8>,
    started: Instant,
    status: RecordingStatus,
    /// Frames that could not be recorded (undecodable ones queued before it started).
    missed_frames: u64,
    /// Frames handed over when the file was last flushed.
    flushed_frames: u64,
}

impl Recorder {
    fn create(
        path: PathBuf,
        started: Instant,
    ) -> Result<Self, crate::session_report::RecordingError> {
        let file = File::create(&path).map_err(|source| {
            crate::session_report::RecordingError::Create {
                path: path.clone(),
                source,
            }
        })?;
        let created_unix_ns = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |since| since.as_nanos() as u64);
        let writer = RecordingWriter::new(
            BufWriter::with_capacity(1 << 20, file),
            &RecordingHeader::new(created_unix_ns),
        )
        .map_err(|error| crate::session_report::RecordingError::Write(error.to_string()))?;
        let shared = Arc::new(Shared::default());
        shared.bytes.store(writer.bytes(), Ordering::Relaxed);
        let (to_thread, commands) = bounded(QUEUED_BATCHES);
        let (give_back, spare) = bounded(QUEUED_BATCHES);
        let thread_shared = Arc::clone(&shared);
        let thread = std::thread::Builder::new()
            .name("highrise-recording".into())
            .spawn(move || recording_thread(writer, &commands, &give_back, &thread_shared))
            .map_err(|error| {
                crate::session_report::RecordingError::Write(format!(
                    "no recording thread: {error}"
                ))
            })?;
        Ok(Self {
            status: RecordingStatus {
                path: path.clone(),
                frames: 0,
                bytes: shared.bytes.load(Ordering::Relaxed),
                state: RecordingState::Active,
            },
            path,
            to_thread: Some(to_thread),
            thread: Some(thread),
            spare,
            shared,
            batch: Vec::with_capacity(BATCH_BYTES),
            started,
            missed_frames: 0,
            flushed_frames: 0,
        })
    }

    pub(super) fn failed(&self) -> bool {
        self.to_thread.is_none()
    }

    /// Appends one frame; an error stops the recording and is kept in the session's errors.
    pub(super) fn write<S: SessionSink>(
        &mut self,
        payload: Option<&[u8]>,
        arrived: Instant,
        agent_time_ns: u64,
        session: &mut Session<S>,
    ) {
        if self.to_thread.is_none() {
            return;
        }
        let Some(payload) = payload else {
            self.missed_frames += 1;
            return;
        };
        if self.shared.failed.load(Ordering::Relaxed) {
            self.fail(session);
            return;
        }
        let arrival_ns = arrived.saturating_duration_since(self.started).as_nanos() as u64;
        self.batch.extend_from_slice(&arrival_ns.to_ne_bytes());
        self.batch.extend_from_slice(&agent_time_ns.to_ne_bytes());
        self.batch
            .extend_from_slice(&(payload.len() as u32).to_ne_bytes());
        self.batch.extend_from_slice(payload);
        self.status.frames += 1;
        self.status.bytes = self.shared.bytes.load(Ordering::Relaxed);
        if let Some(status) = session.stats.recording.as_mut() {
            status.frames = self.status.frames;
            status.bytes = self.status.bytes;
        }
        if self.batch.len() >= BATCH_BYTES {
            self.send_batch(session);
        }
    }

    /// Hands the open batch to the recording thread (waiting while its queue is full).
    fn send_batch<S: SessionSink>(&mut self, session: &mut Session<S>) {
        if self.batch.is_empty() {
            return;
        }
        let next = self
            .spare
            .try_recv()
            .unwrap_or_else(|_| Vec::with_capacity(BATCH_BYTES));
        let batch = std::mem::replace(&mut self.batch, next);
        self.send(ToRecordingThread::Frames(batch), session);
    }

    fn send<S: SessionSink>(&mut self, command: ToRecordingThread, session: &mut Session<S>) {
        let Some(to_thread) = self.to_thread.as_ref() else {
            return;
        };
        if to_thread.send(command).is_err() {
            // The thread stopped on an error.
            self.fail(session);
        }
    }

    /// Asks for the frames so far to reach the file (when any came since the last flush): a
    /// killed process loses at most what was handed over since, plus what the recording
    /// thread had not written yet (normally a few milliseconds; at most the queue).
    pub(super) fn flush<S: SessionSink>(&mut self, session: &mut Session<S>) {
        if self.to_thread.is_none() {
            return;
        }
        if self.shared.failed.load(Ordering::Relaxed) {
            self.fail(session);
            return;
        }
        self.status.bytes = self.shared.bytes.load(Ordering::Relaxed);
        if let Some(status) = session.stats.recording.as_mut() {
            status.bytes = self.status.bytes;
        }
        if self.status.frames == self.flushed_frames {
            return;
        }
        self.flushed_frames = self.status.frames;
        self.send_batch(session);
        self.send(ToRecordingThread::Flush, session);
    }

    /// The recording thread stopped on an error: the recording stops, the session goes on.
    fn fail<S: SessionSink>(&mut self, session: &mut Session<S>) {
        self.to_thread = None;
        let error = match self.thread.take().map(JoinHandle::join) {
            Some(Ok(Err(error))) => error,
            Some(Err(_)) => "the recording thread panicked".into(),
            _ => lock(&self.shared.error)
                .clone()
                .unwrap_or_else(|| "the recording thread stopped".into()),
        };
        let message = format!("{}: {error}", self.path.display());
        tracing::warn!(session_id = session.session_id, %message, "recording failed");
        self.status.state = RecordingState::Failed(message.clone());
        session.stats.recording = Some(self.status.clone());
        session.record_error(SessionError::Recording(message));
    }

    /// Writes the footer (waiting for the recording thread to write everything queued); the
    /// final status goes into the session's stats.
    pub(super) fn finish<S: SessionSink>(mut self, session: &mut Session<S>) -> RecordingStatus {
        if self.to_thread.is_some() {
            self.send_batch(session);
        }
        if self.to_thread.take().is_some() {
            // Dropping the sender ends the thread's loop: it finishes the file.
            match self.thread.take().map(JoinHandle::join) {
                Some(Ok(Ok(bytes))) => {
                    self.status.bytes = bytes;
                    self.status.state = RecordingState::Finished;
                }
                Some(Ok(Err(error))) => {
                    let message = format!("{}: {error}", self.path.display());
                    self.status.state = RecordingState::Failed(message.clone());
                    session.record_error(SessionError::Recording(message));
                }
                Some(Err(_)) | None => {
                    let message = format!("{}: the recording thread panicked", self.path.display());
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

/// The recording's thread: writes (compresses) the frames it is handed until the worker lets
/// go, then finishes the file. Returns the file's size, or why it stopped.
fn recording_thread(
    mut writer: RecordingWriter<BufWriter<File>>,
    commands: &Receiver<ToRecordingThread>,
    give_back: &Sender<Vec<u8>>,
    shared: &Shared,
) -> Result<u64, String> {
    let result = (|| -> Result<u64, highrise_record::RecordError> {
        for command in commands {
            match command {
                ToRecordingThread::Frames(mut batch) => {
                    write_batch(&mut writer, &batch)?;
                    batch.clear();
                    let _ = give_back.try_send(batch);
                }
                ToRecordingThread::Flush => writer.flush()?,
            }
            shared.bytes.store(writer.bytes(), Ordering::Relaxed);
        }
        let file = writer.finish()?;
        let bytes = file.get_ref().metadata().map_or(0, |meta| meta.len());
        shared.bytes.store(bytes, Ordering::Relaxed);
        Ok(bytes)
    })();
    result.map_err(|error| {
        let message = error.to_string();
        *lock(&shared.error) = Some(message.clone());
        shared.failed.store(true, Ordering::Relaxed);
        message
    })
}

/// Writes the frames of one batch (see [`ToRecordingThread::Frames`]).
fn write_batch(
    writer: &mut RecordingWriter<BufWriter<File>>,
    mut batch: &[u8],
) -> Result<(), highrise_record::RecordError> {
    const HEAD: usize = 8 + 8 + 4;
    while let Some((head, rest)) = batch.split_first_chunk::<HEAD>() {
        let word = |at: usize| {
            let mut bytes = [0u8; 8];
            bytes.copy_from_slice(&head[at..at + 8]);
            u64::from_ne_bytes(bytes)
        };
        let mut len = [0u8; 4];
        len.copy_from_slice(&head[16..20]);
        let len = (u32::from_ne_bytes(len) as usize).min(rest.len());
        let (payload, rest) = rest.split_at(len);
        writer.write_payload(word(0), payload, word(8))?;
        batch = rest;
    }
    Ok(())
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}
