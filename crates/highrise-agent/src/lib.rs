//! `highrise-agent`: what a Rust program links to be seen live in the highrise viewer.
//!
//! # Where to start
//!
//! One line in `main` connects to the viewer (`HIGHRISE_ADDR`, default `127.0.0.1:7878`) and
//! keeps the agent running until the guard drops (a viewer on another machine, listening with
//! `--allow-remote`, also wants its token: `HIGHRISE_TOKEN`, or [`AgentBuilder::token`]):
//!
//! ```no_run
//! let _highrise = highrise_agent::init("my-program"); // first line of `main`
//! // ... the program; dropping the guard flushes and says goodbye
//! ```
//!
//! Then mark methods, in either or both of two ways:
//!
//! 1. **`tracing`** (no code changes when the program already uses `#[tracing::instrument]`
//!    or spans): add [`layer()`] to the subscriber. See [`HighriseLayer`] for how spans become
//!    package / class / method.
//! 2. **Direct scopes** for hot code (about 10–20 ns per call, see `BENCHMARKS.md`):
//!    [`#[profile]`](macro@profile) on a function, a method, or a whole `impl` block (then
//!    class = the impl's type), and [`scope!`] for a block. [`phase!`] marks a phase of the
//!    run (`highrise.phase.NAME`) for `highrise classes` and `highrise predict`.
//!
//! ```
//! mod board {
//!     pub struct Board;
//!
//!     #[highrise_agent::profile] // class "Board" for every method below
//!     impl Board {
//!         pub fn step(&mut self) { /* ... */ }
//!     }
//!
//!     #[highrise_agent::profile] // class "board" (the module)
//!     pub fn clear_lines() {
//!         highrise_agent::scope!("count_full_rows");
//!     }
//! }
//! ```
//!
//! Names: package = the module path (`my_game::board` → `my_game.board`); class = the impl's
//! self type, or the module's last segment for free functions and scopes; method = the
//! function name (or the scope's name).
//!
//! # Cost and behaviour
//!
//! Each thread records raw `(TSC, method)` pairs into its own ring buffer: no lock, no
//! allocation, no system call per event. One background thread (`highrise-agent`) drains all
//! rings every 10 ms, encodes them and writes to the viewer. The host program never waits for
//! the network: with no viewer, a slow one, or a lost connection, rings fill, events are
//! dropped and counted (the viewer shows "N events dropped"), and after a loss the agent sends
//! each affected thread's whole stack so the viewer's stacks stay right. It reconnects with
//! backoff, sends heartbeats while idle, flushes ended threads, and says Goodbye when the
//! guard drops.
//!
//! # Allocations
//!
//! With [`Allocator`] as the program's global allocator, the viewer also shows how many
//! allocations (and bytes, and frees) each method makes, per calling context, live:
//!
//! ```no_run
//! #[global_allocator]
//! static ALLOC: highrise_agent::Allocator = highrise_agent::Allocator::system();
//! ```
//!
//! Counts are exact per frame: each thread's counters are written into its ring just before
//! its next enter or exit. Rust allocations carry no type, so they are one class,
//! `(untyped)`, unless made inside [`alloc_as`]`::<T, _>(|| ...)`, which names them `T`. Off with [`AgentBuilder::allocations`]`(false)` or `HIGHRISE_ALLOC=off`.
//!
//! # Switches
//!
//! - Cargo feature `enable` (default): off, [`profile`] and [`scope!`] expand to nothing, the
//!   layer records nothing and [`init`] returns a guard that does nothing. Same API.
//! - At run time: [`set_enabled`]`(false)` stops recording (about 1 ns per scope).
//!
//! # Modules
//!
//! - `agent`: [`init`], [`AgentBuilder`], [`AgentGuard`], [`stats`], [`set_enabled`].
//! - `scope`: [`ScopeGuard`] and [`scope!`]; `callsite`: method ids per call site.
//! - `layer`: [`HighriseLayer`].
//! - `thread` (hot path, per-thread rings), `sender` (the background thread), `wire`
//!   (messages; tested against `agent-protocol/golden/`), `clock` (TSC via `quanta`).
#![cfg_attr(not(feature = "enable"), allow(dead_code, unused_imports))]

mod agent;
mod alloc;
mod callsite;
#[cfg(feature = "enable")]
mod clock;
mod layer;
mod scope;
#[cfg(feature = "enable")]
mod sender;
#[cfg(feature = "enable")]
mod thread;
#[cfg(feature = "enable")]
mod wire;

pub use agent::{
    flush, init, is_enabled, set_enabled, stats, AgentBuilder, AgentError, AgentGuard, AgentStats,
};
pub use alloc::{alloc_as, Allocator};
pub use highrise_agent_macros::profile;
pub use layer::{layer, HighriseLayer};
pub use scope::ScopeGuard;

/// The agent's reading of the viewer's answer to its Hello, for the fuzz target
/// (`fuzz/fuzz_targets/agent_answer.rs`). Not a stable API.
#[cfg(feature = "enable")]
#[doc(hidden)]
pub mod __fuzz {
    pub use crate::sender::read_answer;
}

/// What the macros expand to. Not a stable API.
#[doc(hidden)]
pub mod __private {
    pub use crate::callsite::{Callsite, MethodInfo};
    pub use crate::scope::enter;
    pub use highrise_protocol::{PHASE_MARK_CLASS, PHASE_MARK_PACKAGE};
}
