//! What the consumer sees of a session.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use highrise_protocol::{ClassDef, ClassRelation, Measure, MethodDef, ProtocolError};

/// The server's name for one connection, unique for the server's lifetime.
pub type SessionId = u64;

/// Most errors a report keeps (the first ones; `SessionStats::errors_total` counts all).
pub const MAX_KEPT_ERRORS: usize = 64;

/// Who connected: the agent's Hello, as received.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionInfo {
    pub agent: String,
    pub program: String,
    pub version_label: String,
    pub pid: u32,
    pub clock_unit_ns: u32,
    pub clock_zero_unix_ns: u64,
    /// How the agent measures (its `Measure` message; exact when it sent none).
    pub measure: Measure,
    /// The agent's notices (`Notice` messages), the latest per key, in the order the keys came
    /// (at most [`MAX_NOTICES`]).
    pub notices: Vec<Notice>,
}

/// Most notice keys a session keeps; a notice with another key after them is an error.
pub const MAX_NOTICES: usize = 16;

/// A fact about a session its user should see (the protocol's `Notice`): what the agent could
/// not instrument, what counts as a thread.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Notice {
    pub key: String,
    pub text: String,
}

/// Where a session is in its life.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SessionStatus {
    /// Connected, no Hello yet.
    Handshaking,
    /// Hello accepted; data may flow.
    Connected,
    /// Over; see the reason.
    Ended(SessionEnd),
}

/// Why a session ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SessionEnd {
    /// The agent said Goodbye.
    Goodbye,
    /// The connection closed between frames without a Goodbye (the program died or was killed).
    Disconnected,
    /// An error made the stream unreadable; the error is also in the report's errors.
    Failed(SessionError),
    /// The server shut down.
    ServerShutdown,
    /// The viewer closed the session (the panel's Detach): the agent sees its connection end and
    /// takes itself out of the program.
    Detached,
}

impl SessionEnd {
    /// How the session ended, as `highrise serve` and the web page say it.
    pub fn describe(&self) -> String {
        match self {
            SessionEnd::Goodbye => "goodbye".to_string(),
            SessionEnd::Disconnected => "disconnected without goodbye".to_string(),
            SessionEnd::Failed(error) => format!("failed: {error}"),
            SessionEnd::ServerShutdown => "server shut down".to_string(),
            SessionEnd::Detached => "detached".to_string(),
        }
    }
}

/// Something wrong with what a session sent. Each is kept in the report; only framing and
/// transport errors (and a bad Hello) end the session, the others skip one record.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SessionError {
    /// The bytes broke the protocol (framing, Hello, malformed message, unknown tag).
    #[error(transparent)]
    Protocol(#[from] ProtocolError),
    /// The connection failed (reset, …).
    #[error("connection error: {0}")]
    Io(String),
    /// A message other than Hello came first, or a second Hello.
    #[error("unexpected message: {0}")]
    Unexpected(String),
    /// Events named a method never defined; those events were skipped.
    #[error("{events} event(s) for undefined method id {method_id} skipped")]
    UndefinedMethod { method_id: u32, events: u64 },
    /// A method id was defined again with different content; the first definition is kept.
    #[error("conflicting redefinition of method id {method_id} ignored (first definition kept)")]
    ConflictingDefinition { method_id: u32 },
    /// A method id at or over the protocol's maximum; the definition was skipped.
    #[error(
        "method id {method_id} is at or above the maximum {max_method_id}; definition skipped"
    )]
    MethodIdTooLarge { method_id: u32, max_method_id: u32 },
    /// A method id [`highrise_protocol::MAX_METHOD_ID_GAP`] or more above the number of
    /// methods defined so far (ids are dense); the definition was skipped.
    #[error(
        "method id {method_id} is not dense: only {defined} method(s) defined so far; definition skipped"
    )]
    MethodIdTooSparse { method_id: u32, defined: u64 },
    /// Memory records named a class never defined; those records were skipped.
    #[error("{records} memory record(s) for undefined class id {class_id} skipped")]
    UndefinedClass { class_id: u32, records: u64 },
    /// A class definition was skipped: its id is too large or not dense, or it conflicts with
    /// the first definition of that id.
    #[error("class id {class_id}: {reason}; definition skipped")]
    BadClassDefinition { class_id: u32, reason: String },
    /// The agent is not on loopback and its Hello had no token, or not the server's
    /// ([`crate::IngestConfig::token`]); the agent got a `Reject` and the session ended.
    #[error("unauthorized: {0}")]
    Unauthorized(String),
    /// Writing the session's recording failed; the recording stopped, the session went on.
    #[error("recording stopped: {0}")]
    Recording(String),
    /// highrise itself failed on this session's data (a panic in its processing, caught at
    /// the session's boundary): a bug in highrise, not in the program. The sink is fed nothing
    /// more; the stream is still read, counted and recorded to its end, when the session ends
    /// failed with this; what it showed so far stays readable, other sessions go on.
    #[error("highrise failed on this session (a bug; report this): {0}")]
    Crashed(String),
}

impl SessionError {
    /// True for [`SessionError::Crashed`]: highrise's own failure, not the program's.
    pub fn is_crash(&self) -> bool {
        matches!(self, Self::Crashed(_))
    }

    pub(crate) fn io(error: &std::io::Error) -> Self {
        Self::Io(format!("{} ({:?})", error, error.kind()))
    }
}

/// Where a session's frames come from.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum SessionSource {
    /// An agent connected over TCP.
    #[default]
    Live,
    /// A recording replayed in-process ([`crate::IngestServer::open_replay`]).
    Replay { path: PathBuf },
}

/// A session's recording to a `.hrec` file ([`crate::IngestServer::start_recording`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordingStatus {
    pub path: PathBuf,
    /// Frames written (synthesized ones included when it started mid-session).
    pub frames: u64,
    /// Bytes written.
    pub bytes: u64,
    pub state: RecordingState,
}

/// Whether a recording is still being written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RecordingState {
    Active,
    /// Stopped by request or because the session ended; the file is finished (footer written).
    Finished,
    /// Stopped by an I/O error (also in the session's errors); the file holds what was
    /// written before it and reads as an interrupted recording. The session went on.
    Failed(String),
}

impl SessionStats {
    /// What the session receives, in its own unit: events (exact), samples (sampled: a `Resync`
    /// per thread sample), or both (adaptive). The window's panel and `serve` both say it so.
    pub fn flow(&self, measure: &Measure) -> String {
        use highrise_protocol::MeasureMode;
        match measure.mode {
            MeasureMode::Exact => format!("{} events ({:.0}/s)", self.events, self.events_per_s),
            MeasureMode::Sampled => {
                format!("{} samples ({:.0}/s)", self.resyncs, self.resyncs_per_s)
            }
            MeasureMode::Adaptive => format!(
                "{} events ({:.0}/s), {} samples ({:.0}/s)",
                self.events, self.events_per_s, self.resyncs, self.resyncs_per_s
            ),
        }
    }
}

/// Counters of one session. Everything the session received is counted somewhere here.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SessionStats {
    /// Live socket or replayed file. (Kept here, not in [`SessionInfo`], so that report and
    /// info literals written before recordings existed stay valid.)
    pub source: SessionSource,
    /// The session's current or latest recording, if it was ever recorded.
    pub recording: Option<RecordingStatus>,
    /// Frames read, including skipped ones.
    pub frames: u64,
    /// Bytes read from the socket (headers included).
    pub bytes: u64,
    /// Events accepted and handed to the sink.
    pub events: u64,
    /// Event rate per second of wall time, over the last half second or more (0 in the final
    /// report).
    pub events_per_s: f64,
    /// `Resync` rate, measured as `events_per_s`: a sampled agent sends one per thread sample.
    pub resyncs_per_s: f64,
    /// Event batches accepted (`Events` and `Records`).
    pub batches: u64,
    /// Memory records accepted (version 2: allocation counts of one frame and class).
    pub memory_records: u64,
    /// Objects created, summed over the accepted memory records.
    pub allocations: u64,
    /// Class definitions accepted.
    pub class_definitions: u64,
    /// Method definitions accepted.
    pub definitions: u64,
    /// Identical re-definitions (harmless, ignored).
    pub duplicate_definitions: u64,
    pub heartbeats: u64,
    pub resyncs: u64,
    /// Threads that were seen only through events (no ThreadStart).
    pub threads_implicit: u64,
    /// Records (frames, events, definitions) skipped because of an error.
    pub skipped_records: u64,
    /// Every error, including those beyond the kept ones.
    pub errors_total: u64,
    /// The agent's own drop counters, from its latest `Dropped` message.
    pub agent_events_dropped: u64,
    pub agent_batches_dropped: u64,
    /// The agent's `MemoryDropped` totals: allocations, their bytes and frees it counted but
    /// could not send.
    pub agent_allocations_dropped: u64,
    pub agent_allocation_bytes_dropped: u64,
    pub agent_frees_dropped: u64,
    /// Latest agent timestamp seen (events or heartbeat), in ns.
    pub last_timestamp_ns: u64,
}

/// One thread of the profiled program.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ThreadInfo {
    pub thread_id: u64,
    /// Empty when the thread was only seen through events.
    pub name: String,
    pub events: u64,
    pub started_ns: Option<u64>,
    pub ended_ns: Option<u64>,
}

/// A whole-state snapshot of one session, as published to the consumer.
#[derive(Debug, Clone)]
pub struct SessionReport<T> {
    pub session_id: SessionId,
    pub peer: SocketAddr,
    /// From the Hello; `None` while handshaking or when the Hello was refused.
    pub info: Option<SessionInfo>,
    pub status: SessionStatus,
    pub stats: SessionStats,
    /// The first [`MAX_KEPT_ERRORS`] errors.
    pub errors: Vec<SessionError>,
    /// Method definitions in arrival order, in chunks as they arrived. Append-only: a consumer
    /// that remembers how many it has seen can take only the new ones.
    pub definition_chunks: Vec<Arc<[MethodDef]>>,
    /// Class definitions (version 2) the same way.
    pub class_chunks: Vec<Arc<[ClassDef]>>,
    /// Class relations (the class diagram) the same way, each once.
    pub relation_chunks: Vec<Arc<[ClassRelation]>>,
    /// Threads in order of first appearance.
    pub threads: Arc<Vec<ThreadInfo>>,
    /// The sink's snapshot; `None` until the Hello was accepted.
    pub sink: Option<T>,
}

impl<T> SessionReport<T> {
    /// The session as people name it: the program and its version label (`session N` before
    /// its Hello).
    pub fn title(&self) -> String {
        match &self.info {
            Some(info) if info.version_label.is_empty() => info.program.clone(),
            Some(info) => format!("{} ({})", info.program, info.version_label),
            None => format!("session {}", self.session_id),
        }
    }

    /// All definitions in arrival order.
    pub fn definitions(&self) -> impl Iterator<Item = &MethodDef> + '_ {
        self.definition_chunks.iter().flat_map(|chunk| chunk.iter())
    }

    /// All class definitions in arrival order.
    pub fn classes(&self) -> impl Iterator<Item = &ClassDef> + '_ {
        self.class_chunks.iter().flat_map(|chunk| chunk.iter())
    }

    /// All class relations in arrival order.
    pub fn relations(&self) -> impl Iterator<Item = &ClassRelation> + '_ {
        self.relation_chunks.iter().flat_map(|chunk| chunk.iter())
    }

    /// True once the session is over; no report follows an ended one.
    pub fn is_ended(&self) -> bool {
        matches!(self.status, SessionStatus::Ended(_))
    }

    /// The message when highrise itself failed on this session ([`SessionError::Crashed`]):
    /// from the crash on (the session is read to its end, then ends failed with it).
    pub fn crash(&self) -> Option<&str> {
        fn crashed(error: &SessionError) -> Option<&str> {
            match error {
                SessionError::Crashed(message) => Some(message),
                _ => None,
            }
        }
        match &self.status {
            SessionStatus::Ended(SessionEnd::Failed(error)) if error.is_crash() => crashed(error),
            _ => self.errors.iter().find_map(crashed),
        }
    }
}

#[cfg(test)]
mod tests {
    use highrise_protocol::{Measure, MeasureMode};

    use super::SessionStats;

    #[test]
    fn a_sampled_session_flows_in_samples_not_events() {
        let stats = SessionStats {
            events: 1200,
            events_per_s: 400.0,
            resyncs: 950,
            resyncs_per_s: 98.6,
            ..SessionStats::default()
        };
        let sampled = Measure {
            mode: MeasureMode::Sampled,
            sample_period_us: 10_000,
            sampled_methods: 0,
        };
        let adaptive = Measure {
            mode: MeasureMode::Adaptive,
            ..sampled
        };
        assert_eq!(stats.flow(&Measure::EXACT), "1200 events (400/s)");
        assert_eq!(stats.flow(&sampled), "950 samples (99/s)");
        assert_eq!(
            stats.flow(&adaptive),
            "1200 events (400/s), 950 samples (99/s)"
        );
    }
}

/// Starting or stopping a session's recording failed. The session itself is never affected.
#[derive(Debug, thiserror::Error)]
pub enum RecordingError {
    #[error("no live session {0}")]
    NoSuchSession(SessionId),
    #[error("the session is already being recorded to {}", path.display())]
    AlreadyRecording { path: PathBuf },
    #[error("the session has not said Hello yet; nothing to record")]
    NotOpen,
    #[error("cannot create the recording {}: {source}", path.display())]
    Create {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot write the recording: {0}")]
    Write(String),
    #[error("the session did not answer in time")]
    Timeout,
}
