//! [`SessionProcessor`]: one session's logic without a thread or a socket, shared by live
//! sessions (fed by the reader task) and replays (fed from a recording).

use std::net::{Ipv4Addr, SocketAddr};
use std::path::PathBuf;

use highrise_protocol::{
    decode_agent_message, FrameHeader, Hello, ProtocolError, FRAME_HEADER_BYTES,
};

use super::state::Session;
use crate::connection::{check_hello, ReaderItem};
use crate::session_report::{
    SessionEnd, SessionId, SessionReport, SessionSource, SessionStats, SessionStatus,
};
use crate::sink::SessionSink;

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

    /// The message when highrise itself failed on this session (a caught panic, see
    /// [`crate::SessionError::Crashed`]).
    pub fn crash(&self) -> Option<&str> {
        self.session.crash_message()
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
                let make_sink = &mut self.make_sink;
                match highrise_guard::catch(|| make_sink(&hello)) {
                    Ok(sink) => {
                        session.open(&hello, sink);
                        false
                    }
                    Err(message) => {
                        // No sink: nothing to read the stream into.
                        session.crash(message);
                        session.end(SessionEnd::Disconnected);
                        true
                    }
                }
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
            ReaderItem::Detached => {
                session.end(SessionEnd::Detached);
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
