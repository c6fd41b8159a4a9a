//! The calling-context tree (CCT): one node per distinct call path (root → … → method), with
//! per node the calls made through that path, the time spent in it (inclusive) and the objects
//! created in it per class — the tree of Fernandez Blanco et al. (2018), "object allocation
//! sites", built live from the enter/exit stream.
//!
//! It replays each thread's stack on its own (the engine's stack semantics: an exit closes the
//! matching frame and any above it, an exit with no match is ignored, a resync replaces the
//! stack), so it is independent of the windowed statistics. Cumulative since the session
//! started. Memory: 40 bytes per node plus 40 per (node, class) with
//! allocations plus the child index; bounded by [`ContextTree`]'s node cap: past it, a
//! missing child is counted in its parent's "(other contexts)" child.

use std::collections::HashMap;
use std::hash::BuildHasherDefault;

use highrise_protocol::{Event, EventKind, MemoryAmount};

use crate::memory::{Amount, IdHasher};

/// The method id of a node standing for the contexts beyond the cap.
pub const OTHER_CONTEXTS: u32 = u32::MAX;

const NONE: u32 = u32::MAX;

/// Default most nodes a tree keeps.
pub const DEFAULT_MAX_CONTEXT_NODES: u32 = 1 << 20;

#[derive(Debug, Clone, Copy)]
struct Node {
    method_id: u32,
    first_child: u32,
    last_child: u32,
    next_sibling: u32,
    /// Head of this node's class list in `classes`.
    classes: u32,
    calls: u64,
    time_ns: u64,
}

impl Node {
    /// A node with no children, calls or allocations yet.
    fn new(method_id: u32) -> Self {
        Self {
            method_id,
            first_child: NONE,
            last_child: NONE,
            next_sibling: NONE,
            classes: NONE,
            calls: 0,
            time_ns: 0,
        }
    }
}

#[derive(Debug, Clone, Copy)]
struct ClassSlot {
    class_id: u32,
    next: u32,
    amount: Amount,
}

/// One open frame of a thread: its node, its method (an overflow node stands for many), and
/// when it was entered.
#[derive(Debug, Clone, Copy)]
struct Open {
    node: u32,
    method_id: u32,
    enter_ns: u64,
}

/// One thread's stack.
#[derive(Debug, Clone, Default)]
struct ThreadStack {
    frames: Vec<Open>,
    /// Frames beyond the depth limit (not tracked).
    phantom: u32,
}

/// The live tree.
#[derive(Debug, Clone)]
pub(crate) struct Contexts {
    nodes: Vec<Node>,
    children: HashMap<u64, u32, BuildHasherDefault<IdHasher>>,
    classes: Vec<ClassSlot>,
    threads: HashMap<u64, ThreadStack>,
    max_nodes: u32,
    max_depth: u32,
    /// Calls that went to an "(other contexts)" node because of the cap.
    capped_calls: u64,
    pub(crate) generation: u64,
}

impl Contexts {
    pub(crate) fn new(max_nodes: u32, max_depth: u32) -> Self {
        Self {
            nodes: vec![Node::new(NONE)],
            children: HashMap::default(),
            classes: Vec::new(),
            threads: HashMap::new(),
            max_nodes: max_nodes.max(16),
            max_depth: max_depth.max(1),
            capped_calls: 0,
            generation: 0,
        }
    }

    /// The child of `parent` for `method_id`, created (in order of first call) if new; past
    /// the cap, the parent's "(other contexts)" child.
    fn child(&mut self, parent: u32, method_id: u32) -> u32 {
        let key = u64::from(parent) << 32 | u64::from(method_id);
        if let Some(&node) = self.children.get(&key) {
            return node;
        }
        if self.nodes.len() as u32 >= self.max_nodes && method_id != OTHER_CONTEXTS {
            // The parent's overflow child (itself one node over the cap at most per parent,
            // and children of an overflow node fold into it).
            if self.nodes[parent as usize].method_id == OTHER_CONTEXTS {
                return parent;
            }
            return self.child_unbounded(parent, OTHER_CONTEXTS);
        }
        self.child_unbounded(parent, method_id)
    }

    fn child_unbounded(&mut self, parent: u32, method_id: u32) -> u32 {
        let key = u64::from(parent) << 32 | u64::from(method_id);
        if let Some(&node) = self.children.get(&key) {
            return node;
        }
        let node = self.nodes.len() as u32;
        self.nodes.push(Node::new(method_id));
        let parent_node = &mut self.nodes[parent as usize];
        let previous_last = parent_node.last_child;
        parent_node.last_child = node;
        if previous_last == NONE {
            parent_node.first_child = node;
        } else {
            self.nodes[previous_last as usize].next_sibling = node;
        }
        self.children.insert(key, node);
        node
    }

    fn enter(&mut self, thread: &mut ThreadStack, method_id: u32, timestamp_ns: u64, call: bool) {
        if thread.phantom > 0 || thread.frames.len() as u32 >= self.max_depth {
            thread.phantom += 1;
            return;
        }
        let parent = thread.frames.last().map_or(0, |open| open.node);
        let node = self.child(parent, method_id);
        if call {
            self.nodes[node as usize].calls += 1;
            if self.nodes[node as usize].method_id == OTHER_CONTEXTS {
                self.capped_calls += 1;
            }
        }
        thread.frames.push(Open {
            node,
            method_id,
            enter_ns: timestamp_ns,
        });
    }

    fn pop(&mut self, thread: &mut ThreadStack, timestamp_ns: u64) {
        if let Some(open) = thread.frames.pop() {
            // A frame folded into its parent's overflow node does not add its time twice.
            let folded = thread
                .frames
                .last()
                .is_some_and(|parent| parent.node == open.node);
            if !folded {
                let node = &mut self.nodes[open.node as usize];
                node.time_ns = node
                    .time_ns
                    .saturating_add(timestamp_ns.saturating_sub(open.enter_ns));
            }
        }
    }

    fn exit(&mut self, thread: &mut ThreadStack, method_id: u32, timestamp_ns: u64) {
        if thread.phantom > 0 {
            thread.phantom -= 1;
            return;
        }
        let position = thread
            .frames
            .iter()
            .rposition(|open| open.method_id == method_id);
        if let Some(position) = position {
            while thread.frames.len() > position {
                self.pop(thread, timestamp_ns);
            }
        }
    }

    fn memory(&mut self, node: u32, class_id: u32, amount: MemoryAmount) {
        let mut slot = self.nodes[node as usize].classes;
        while slot != NONE {
            let entry = &mut self.classes[slot as usize];
            if entry.class_id == class_id {
                entry.amount.add_record(amount);
                return;
            }
            slot = entry.next;
        }
        let mut fresh = Amount::default();
        fresh.add_record(amount);
        self.classes.push(ClassSlot {
            class_id,
            next: self.nodes[node as usize].classes,
            amount: fresh,
        });
        self.nodes[node as usize].classes = (self.classes.len() - 1) as u32;
    }

    /// One thread's batch (enters, exits and memory records with their amounts).
    pub(crate) fn apply(&mut self, thread_id: u64, events: &[Event], amounts: &[MemoryAmount]) {
        let mut thread = self.threads.remove(&thread_id).unwrap_or_default();
        let mut next_amount = 0usize;
        for event in events {
            match event.kind {
                EventKind::Enter => {
                    self.enter(&mut thread, event.method_id, event.timestamp_ns, true)
                }
                EventKind::Exit => self.exit(&mut thread, event.method_id, event.timestamp_ns),
                EventKind::Memory => {
                    if let Some(&amount) = amounts.get(next_amount) {
                        next_amount += 1;
                        // Beyond the depth limit: the deepest tracked frame (as the engine).
                        let node = thread.frames.last().map_or(0, |open| open.node);
                        self.memory(node, event.method_id, amount);
                    }
                }
            }
        }
        self.threads.insert(thread_id, thread);
        self.generation += 1;
    }

    /// After lost events: the thread's whole stack; frames common with the current one stay.
    pub(crate) fn resync(&mut self, thread_id: u64, timestamp_ns: u64, stack: &[u32]) {
        let mut thread = self.threads.remove(&thread_id).unwrap_or_default();
        thread.phantom = 0;
        let common = thread
            .frames
            .iter()
            .zip(stack)
            .take_while(|(open, &method_id)| open.method_id == method_id)
            .count();
        while thread.frames.len() > common {
            self.pop(&mut thread, timestamp_ns);
        }
        for &method_id in &stack[common..] {
            self.enter(&mut thread, method_id, timestamp_ns, false);
        }
        self.threads.insert(thread_id, thread);
        self.generation += 1;
    }

    /// A thread ended: its open frames close.
    pub(crate) fn thread_ended(&mut self, thread_id: u64, timestamp_ns: u64) {
        if let Some(mut thread) = self.threads.remove(&thread_id) {
            while !thread.frames.is_empty() {
                self.pop(&mut thread, timestamp_ns);
            }
            self.generation += 1;
        }
    }

    /// The tree as it is now, in depth-first preorder (children in order of first call).
    /// Open frames' time so far is not included (it is added when they close).
    pub(crate) fn export(&self) -> ContextTree {
        let mut nodes = Vec::with_capacity(self.nodes.len());
        let mut amounts = Vec::new();
        // (node, depth) to visit; children pushed in reverse so the first child comes first.
        let mut pending = vec![(0u32, 0u16)];
        let mut kids = Vec::new();
        while let Some((index, depth)) = pending.pop() {
            let node = &self.nodes[index as usize];
            let start = amounts.len() as u32;
            let mut slot = node.classes;
            while slot != NONE {
                let entry = &self.classes[slot as usize];
                amounts.push((entry.class_id, entry.amount));
                slot = entry.next;
            }
            amounts[start as usize..].sort_unstable_by_key(|(class_id, _)| *class_id);
            nodes.push(ContextNode {
                method_id: node.method_id,
                depth,
                calls: node.calls,
                time_ns: node.time_ns,
                direct: start..amounts.len() as u32,
                subtree_len: 0,
            });
            kids.clear();
            let mut child = node.first_child;
            while child != NONE {
                kids.push(child);
                child = self.nodes[child as usize].next_sibling;
            }
            for &child in kids.iter().rev() {
                pending.push((child, depth.saturating_add(1)));
            }
        }
        // Subtree sizes from the preorder depths.
        let mut open: Vec<usize> = Vec::new();
        for index in 0..nodes.len() {
            while let Some(&top) = open.last() {
                if nodes[top].depth >= nodes[index].depth {
                    nodes[top].subtree_len = (index - top) as u32;
                    open.pop();
                } else {
                    break;
                }
            }
            open.push(index);
        }
        let total = nodes.len();
        for top in open {
            nodes[top].subtree_len = (total - top) as u32;
        }
        ContextTree {
            nodes,
            amounts,
            capped_calls: self.capped_calls,
            max_nodes: self.max_nodes,
            generation: self.generation,
        }
    }

    /// Nodes held.
    pub(crate) fn len(&self) -> usize {
        self.nodes.len()
    }

    pub(crate) fn memory_bytes(&self) -> usize {
        self.nodes.capacity() * size_of::<Node>()
            + self.classes.capacity() * size_of::<ClassSlot>()
            + self.children.capacity() * (size_of::<(u64, u32)>() + 1)
            + self
                .threads
                .values()
                .map(|thread| thread.frames.capacity() * size_of::<Open>() + 48)
                .sum::<usize>()
    }
}

/// One node of an exported [`ContextTree`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContextNode {
    /// The method (`OTHER_CONTEXTS` for the contexts beyond the cap; `u32::MAX` for the root
    /// too, which is node 0 at depth 0).
    pub method_id: u32,
    /// 0 for the root; its children (each thread's outermost methods) are at 1.
    pub depth: u16,
    /// Calls made through this path.
    pub calls: u64,
    /// Time in this path's frames, callees included, summed over its closed calls.
    pub time_ns: u64,
    /// This node's allocations per class (created directly in it) in
    /// [`ContextTree::amounts`], sorted by class id.
    pub direct: std::ops::Range<u32>,
    /// Nodes in this node's subtree, itself included: its subtree is
    /// `nodes[index..index + subtree_len]`.
    pub subtree_len: u32,
}

/// The calling-context tree at one moment, in depth-first preorder with children in order of
/// first call (the order of the paper's Figure 1, top to bottom).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ContextTree {
    pub nodes: Vec<ContextNode>,
    /// `(class id, amount)` slices the nodes' `direct` ranges index.
    pub amounts: Vec<(u32, Amount)>,
    /// Calls that went to "(other contexts)" nodes because the tree reached its node cap.
    pub capped_calls: u64,
    /// The node cap.
    pub max_nodes: u32,
    /// Changes whenever the tree does.
    pub generation: u64,
}

impl ContextTree {
    /// A node's direct allocations, per class.
    pub fn direct(&self, node: usize) -> &[(u32, Amount)] {
        let range = &self.nodes[node].direct;
        &self.amounts[range.start as usize..range.end as usize]
    }

    /// A node's allocations including its callees', per class (sorted by class id).
    pub fn inclusive(&self, node: usize) -> Vec<(u32, Amount)> {
        let end = node + self.nodes[node].subtree_len as usize;
        let mut by_class: Vec<(u32, Amount)> = Vec::new();
        for index in node..end {
            for &(class_id, amount) in self.direct(index) {
                match by_class.binary_search_by_key(&class_id, |(id, _)| *id) {
                    Ok(at) => by_class[at].1.add(&amount),
                    Err(at) => by_class.insert(at, (class_id, amount)),
                }
            }
        }
        by_class
    }

    /// The children of `node`, in order of first call.
    pub fn children(&self, node: usize) -> impl Iterator<Item = usize> + '_ {
        let end = node + self.nodes[node].subtree_len as usize;
        let mut next = node + 1;
        std::iter::from_fn(move || {
            if next >= end {
                return None;
            }
            let child = next;
            next += self.nodes[child].subtree_len as usize;
            Some(child)
        })
    }
}
