//! Allocation counts: the fold of memory records ([`fold`]: per method over the window and
//! since the start, per class, per (method, class)) and where it runs ([`worker`]: inline, on
//! a thread of its own, or shared with the calling-context tree's thread through
//! [`FoldShare`]). Start at [`MemoryHandle`], what the engine holds.
//!
//! Nothing here knows the calling-context tree: the tree's thread takes its share of the fold
//! through the [`FoldShare`] trait it implements.

mod fold;
mod worker;

pub use fold::{
    Amount, MemoryDrops, MemorySnapshot, MethodClassAmount, MethodMemory, OUTSIDE_METHODS,
};
pub(crate) use fold::{MemoryState, Pending};
pub(crate) use worker::{FoldShare, MemoryHandle};
