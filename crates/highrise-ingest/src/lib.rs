//! `highrise-ingest`: the TCP server agents connect to.
//!
//! Each connection is a session. A tokio task per connection reads length-prefixed frames and
//! decodes messages ([`highrise_protocol`]); a worker thread per session validates them, keeps
//! the session's bookkeeping (definitions, threads, counters, errors) and feeds a
//! [`SessionSink`] — in the product the aggregator ([`AggregateSink`]) — off any render thread.
//! The consumer (the viewer, or `highrise serve`) receives whole [`SessionReport`]s through a
//! bounded crossbeam channel; reports are snapshots, so a slow consumer only ever misses stale
//! ones and never makes the server buffer without bound.
//!
//! Where to start: [`IngestServer::start`] with an [`IngestConfig`], then read
//! [`IngestServer::updates`].

mod aggregate_sink;
mod config;
mod connection;
mod report;
mod server;
mod session;
mod sink;

pub use aggregate_sink::{AggregateCommand, AggregateSink};
pub use config::IngestConfig;
pub use report::{
    SessionEnd, SessionError, SessionId, SessionInfo, SessionReport, SessionStats, SessionStatus,
    ThreadInfo, MAX_KEPT_ERRORS,
};
pub use server::{IngestError, IngestServer};
pub use sink::{NullSink, SessionSink};
