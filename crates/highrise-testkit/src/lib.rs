//! `highrise-testkit`: the test support the highrise crates share. A dev-dependency only
//! (`[dev-dependencies]`, never a normal dependency; not published).
//!
//! Where to start:
//! - [`messages`]: agent messages as a test writes them: [`messages::hello`],
//!   [`messages::method`], [`messages::batch`] (events from `(time, method, kind)` triples),
//!   [`messages::frames`] (messages as wire bytes).
//! - [`synthetic`]: a seeded, realistic event stream ([`synthetic::realistic_batches`]) for
//!   size tests and benchmarks.
//! - `server` (feature `server`): a real ingest listener on a free loopback port
//!   (`server::start`, `server::test_config`), waiting for session reports
//!   (`server::wait_for_report`, `server::wait_for_ended`), and an agent-side socket
//!   (`server::Client`).
//! - `load` (feature `server`): many well-formed and hostile connections at once, every
//!   well-formed session's final report checked against what it sent (`load::run_load`).
//!
//! Each crate's own helpers (its recording sinks, reference implementations) stay in its
//! `tests/support/mod.rs`.

#[cfg(feature = "server")]
pub mod load;
pub mod messages;
#[cfg(feature = "server")]
pub mod server;
pub mod synthetic;
