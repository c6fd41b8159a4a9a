//! The calling-context tree: the tree itself ([`tree`]: one node per distinct call path, with
//! calls, inclusive time and allocations) and where it runs ([`worker`]: inline or on a thread
//! of its own, which may also take a share of the memory fold). Start at [`ContextsHandle`],
//! what the aggregator holds; [`ContextTree`] is what it exports.

mod tree;
mod worker;

pub use tree::{ContextNode, ContextTree, OTHER_CONTEXTS};
pub(crate) use worker::ContextsHandle;
