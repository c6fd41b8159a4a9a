//! `highrise-ingest`: the TCP server agents connect to, and the runtime of their sessions.
//!
//! Each connection is a session. A tokio task per connection reads length-prefixed frames and
//! decodes messages ([`highrise_protocol`]); a worker thread per session validates them, keeps
//! the session's bookkeeping (definitions, threads, counters, errors) and feeds a
//! [`SessionSink`] — in the product the aggregator (`highrise_aggregate_sink::AggregateSink`) —
//! off any render thread.
//! Each consumer (the viewer, `highrise serve`, …) receives whole [`SessionReport`]s in its own
//! mailbox ([`Updates`]): every session's first and final report exactly once, whatever the
//! load, and the reports between coalesced per session (latest wins) — reports are snapshots,
//! so a slow consumer only ever misses stale ones and never makes anything grow.
//!
//! Where to start: [`IngestServer::start`] with an [`IngestConfig`], then read
//! [`IngestServer::updates`]. The crate in three parts:
//! - transport: `server` (listener, accept loop), `spawner` (a session's queues and worker thread), `connection` (one reader
//!   task per socket, frames through the protocol's sans-IO `FrameDecoder`), `token` (who may
//!   connect); panics are caught per session with `highrise_guard`;
//! - the session runtime: `session/` (the worker, [`SessionProcessor`], state and reports),
//!   `session_report`, `updates` (the consumers' mailboxes), `sink` (the
//!   [`SessionSink`] trait; the product's sink, which aggregates, is `highrise-aggregate-sink`);
//! - session sources and sinks besides sockets: `local` (in-process sessions,
//!   [`IngestServer::local_sessions`]: the OTLP bridge opens one per OpenTelemetry resource),
//!   recording (`.hrec`, format in `highrise-record`): [`IngestServer::start_recording`] /
//!   [`IngestServer::stop_recording`] record a live session (also mid-session; the worker's
//!   tee, `session/recorder.rs`) and [`IngestConfig::record_sessions_to`] every session from
//!   its start; replay (`replay`): [`IngestServer::open_replay`] plays a recording as a new
//!   session ([`ReplayHandle`]: pause, speed, seek) through the same [`SessionProcessor`]
//!   (which `highrise-report` also uses to replay synchronously).
//!
//! Calls between sessions (OpenTelemetry services) are not ingest's: `highrise_links`.

mod config;
mod connection;
mod local;
mod replay;
mod server;
mod session;
mod session_report;
mod sink;
mod spawner;
mod token;
mod updates;

pub use config::{recording_path, IngestConfig};
pub use local::{LocalSession, LocalSessions, SessionClosed};
pub use replay::{
    ReplayError, ReplayHandle, ReplayProgress, ReplayReader, MAX_REPLAY_SPEED, MIN_REPLAY_SPEED,
};
pub use server::{IngestError, IngestServer};
pub use session::SessionProcessor;
pub use session_report::{
    Notice, RecordingError, RecordingState, RecordingStatus, SessionEnd, SessionError, SessionId,
    SessionInfo, SessionReport, SessionSource, SessionStats, SessionStatus, ThreadInfo,
    MAX_KEPT_ERRORS, MAX_NOTICES,
};
pub use sink::{NullSink, SessionSink};
pub use token::{generate_token, peer_token_ok, settle_token, token_from_env, ServerToken};
pub use updates::{RecvTimeoutError, TryRecvError, Updates};
