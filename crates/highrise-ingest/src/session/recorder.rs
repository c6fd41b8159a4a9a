//! The recording tee: while a session is recorded, the worker appends each frame (as received,
//! with its arrival time) to a `.hrec` file; an I/O error stops the recording, never the session.

use std::fs::File;
use std::io::BufWriter;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use highrise_protocol::{encode_message, AgentMessage};
use highrise_record::{RecordingHeader, RecordingWriter};

use super::state::Session;
use super::SessionProcessor;
use crate::connection::ReaderItem;
use crate::report::{RecordingState, RecordingStatus, SessionError};
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
        ReaderItem::Closed(_) => None,
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
pub(super) struct Recorder {
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

    pub(super) fn failed(&self) -> bool {
        self.writer.is_none()
    }

    /// Appends one frame; an error stops the recording and is kept in the session's errors.
    pub(super) fn write<S: SessionSink>(
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
    pub(super) fn flush<S: SessionSink>(&mut self, session: &mut Session<S>) {
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
    pub(super) fn finish<S: SessionSink>(mut self, session: &mut Session<S>) -> RecordingStatus {
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
