//! `highrise-report`: what `highrise report` and `highrise replay` do, as a library (no engine,
//! no window), so CI and tests use it directly.
//!
//! Where to start:
//! - [`summarize`]: replays a `.hrec` recording through the same session logic and aggregator
//!   as a live session ([`highrise_ingest::SessionProcessor`] + the aggregator), samples the
//!   aggregator every [`SAMPLE_INTERVAL_NS`] of program time and returns a [`RunSummary`]:
//!   per-method mean and max elevation, max thread count, calls.
//! - [`compare`]: two summaries → a [`Comparison`]: per-method elevation differences (B − A,
//!   in percentage points) and the structural diff (packages, classes, methods added,
//!   removed, moved between packages), sorted by magnitude; [`Comparison::regressions`] is the
//!   CI gate.
//! - [`render_summary`] / [`render_comparison`]: the readable tables; the types serialize to
//!   JSON with serde.
//! - [`replay_to`]: sends a recording to a running viewer over TCP as a new session, at the
//!   recorded pacing × speed.

mod compare;
mod render;
mod send;
mod summary;

pub use compare::{
    compare, structure, ClassMove, Comparison, MethodDelta, MethodKey, MethodMove, RunLabel,
    Structure,
};
pub use render::{render_comparison, render_summary};
pub use send::{replay_to, SendError, SendSummary};
pub use summary::{summarize, MethodSummary, ReportError, RunSummary, SAMPLE_INTERVAL_NS};
