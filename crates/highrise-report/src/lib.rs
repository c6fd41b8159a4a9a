//! `highrise-report`: what `highrise report` and `highrise replay` do, as a library (no engine,
//! no window), so CI and tests use it directly.
//!
//! Where to start:
//! - [`summarize`]: replays a `.hrec` recording through the same session logic and aggregator
//!   as a live session ([`highrise_ingest::SessionProcessor`] + the aggregator), samples the
//!   aggregator every [`SAMPLE_INTERVAL_NS`] of program time (sparser in runs of over an hour:
//!   [`sample_interval_ns`]) and returns a [`RunSummary`]:
//!   per-method mean and max elevation, max thread count, calls; and, when the agent counted
//!   allocations (protocol version 2), per method the objects it created per class, and per
//!   class over the run ([`MemorySummary`]).
//! - [`compare`]: two summaries → a [`Comparison`]: per-method elevation differences (B − A,
//!   in percentage points) and the structural diff (packages, classes, methods added,
//!   removed, moved between packages), sorted by magnitude; [`Comparison::regressions`] is the
//!   CI gate. Methods pair up by [`pairing`]'s rule, robust to whole packages moving (as in
//!   the paper's second case study), in linear expected time.
//! - [`render_summary`] / [`render_comparison`]: the readable tables, methods named as people
//!   read them per language ([`highrise_protocol::display_name`]); the types serialize to
//!   JSON with serde (the raw `signature` and the `display_name` side by side).
//! - [`phases::class_table`]: objects created, freed and live per class in each phase run of a
//!   recording (a phase = each outermost call of a method the user names), and
//!   [`predict::predict`]: a component's memory for N objects of a basis class from such data
//!   sets, by the ratio method of Murphy & Saenko (1998) and by a per-class linear fit
//!   (`highrise classes`, `highrise predict`).
//! - [`diagram::class_diagram`]: the class diagram the agents read from the program (supertypes,
//!   fields), with each association's objects made per owner from the calling contexts
//!   (`highrise classes --diagram`; [`phases::ClassTable::diagram`]).
//! - [`facts::method_lines`]: what hovering a building says (the desktop tooltip and the web
//!   page share it).
//! - [`replay_to`]: sends a recording to a running viewer over TCP as a new session, at the
//!   recorded pacing × speed.

mod compare;
pub mod diagram;
pub mod facts;
pub mod pairing;
pub mod phases;
pub mod predict;
mod render;
mod send;
mod summary;

pub use compare::{
    compare, structure, ClassMove, Comparison, MethodDelta, MethodKey, MethodMove, RunLabel,
    Structure,
};
pub use pairing::a_signatures_as_in_b;
pub use render::{render_comparison, render_summary};
pub use send::{replay_to, SendError, SendSummary};
pub use summary::{
    sample_interval_ns, summarize, summarize_observing, summarize_with, AlertSummary, AllocClass,
    AllocNode, AmountSummary, CallEdgeSummary, ClassAmount, MemorySummary, MethodSummary,
    NoticeSummary, ReportError, RunSummary, SampleObserver, MAX_SAMPLES, SAMPLE_INTERVAL_NS,
};
