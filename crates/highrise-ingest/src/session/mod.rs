//! The worker side of a session: one thread per connection that validates the decoded stream,
//! keeps the session's bookkeeping, feeds the sink and publishes reports.
//!
//! [`SessionProcessor`] is that logic without the thread: live sessions (fed by the reader
//! task) and replays (fed from a recording) go through the same code.
//!
//! - `worker`: the thread's loop (items, commands, recording controls, publish ticks);
//! - `processor`: [`SessionProcessor`], turning frames into reader items for the session;
//! - `state`: the session's state, validation and bookkeeping, its report;
//! - `recorder`: the recording tee (`.hrec` writer, frames synthesized mid-session);
//! - `publisher`: sending reports without ever queueing more than the channel holds.

mod dense;
mod processor;
mod publisher;
mod recorder;
mod state;
mod worker;

pub use processor::SessionProcessor;
pub(crate) use publisher::Publisher;
pub(crate) use worker::{run_worker, Control, RecordPlan, WorkerSetup};
