//! The calling-context tree (CCT): one node per distinct call path (root → … → method), with
//! per node the calls made through that path, the time spent in it (inclusive) and the objects
//! created in it per class — the tree of Fernandez Blanco et al. (2018), "object allocation
//! sites", built live from the enter/exit stream.
//!
//! It replays each thread's stack on its own (the engine's stack semantics: an exit closes the
//! matching frame and any above it, an exit with no match is ignored, a resync replaces the
//! stack), so it is independent of the windowed statistics and can run on a thread of its
//! own ([`super::worker`]). Cumulative since the session started. Memory: 40 bytes per node
//! plus 40 per (node, class) with allocations, plus 8 to 16 bytes per node and per
//! (node, class) of hash index; bounded by [`ContextTree`]'s node cap: past it, a missing
//! child is counted in its parent's "(other contexts)" child, and a missing child of an
//! "(other contexts)" node in that node itself.

use std::collections::HashMap;

use highrise_protocol::{Event, EventKind, MemoryAmount};

use crate::edges::{totals, CallEdges, EdgeHistory, OverflowEdges};
use crate::memory::Amount;
use crate::prefetch::prefetch;

/// The method id of a node standing for the contexts beyond the cap.
pub const OTHER_CONTEXTS: u32 = u32::MAX;

const NONE: u32 = u32::MAX;

/// Events per chunk of [`Contexts::apply`]: the path lookups of a chunk are prefetched
/// before it is applied.
const CHUNK_EVENTS: usize = 64;

/// How many memory records ahead [`Contexts::fold_classes`] prefetches.
const CLASS_PREFETCH_AHEAD: usize = 8;

/// The path hash of the root.
const ROOT_HASH: u64 = 0x243f_6a88_85a3_08d3;

#[derive(Debug, Clone, Copy)]
struct Node {
    method_id: u32,
    parent: u32,
    /// The newest child; older ones follow through `next_sibling` (export reverses them).
    first_child: u32,
    next_sibling: u32,
    /// The "(other contexts)" child, once the cap made one.
    other: u32,
    calls: u64,
    time_ns: u64,
}

impl Node {
    /// A node with no children, calls or allocations yet.
    fn new(method_id: u32, parent: u32) -> Self {
        Self {
            method_id,
            parent,
            first_child: NONE,
            next_sibling: NONE,
            other: NONE,
            calls: 0,
            time_ns: 0,
        }
    }
}

/// One node's allocations of one class.
#[derive(Debug, Clone, Copy)]
struct ClassSlot {
    node: u32,
    class_id: u32,
    amount: Amount,
}

/// One open frame of a thread: its node, its method (an overflow node stands for many), the
/// hash of its method path, and when it was entered.
#[derive(Debug, Clone, Copy)]
struct Open {
    node: u32,
    method_id: u32,
    path_hash: u64,
    enter_ns: u64,
}

/// One thread's stack.
#[derive(Debug, Clone, Default)]
struct ThreadStack {
    frames: Vec<Open>,
    /// Frames beyond the depth limit (not tracked).
    phantom: u32,
}

/// The hash of the path `parent path` → `method_id`.
#[inline(always)]
fn path_hash(parent_hash: u64, method_id: u32) -> u64 {
    (parent_hash.rotate_left(23) ^ u64::from(method_id)).wrapping_mul(0x9e37_79b9_7f4a_7c15)
}

/// The hash of a (node, class) key.
#[inline(always)]
fn class_hash(node: u32, class_id: u32) -> u64 {
    let key = u64::from(node) << 32 | u64::from(class_id);
    (key ^ key >> 29).wrapping_mul(0x9e37_79b9_7f4a_7c15)
}

/// An index from a 64-bit hash to a `u32` value (a node, a class slot): open addressing with
/// linear probing, load at most one half; each slot keeps 32 bits of the hash as a tag, and
/// the caller checks a candidate against what it stands for (so hash collisions cost a
/// probe, never a wrong answer). Written here rather than taken from `std`'s map so that
/// [`Contexts::apply`] can prefetch the slot a lookup will land in, and the candidate's own
/// data after it, before it needs them: the lookups of a path depend on one another, but
/// their hashes do not.
#[derive(Debug, Clone, Default)]
struct HashIndex {
    /// (tag, value); value `NONE` = free.
    slots: Vec<(u32, u32)>,
    len: usize,
}

impl HashIndex {
    #[inline(always)]
    fn home(&self, hash: u64) -> usize {
        // The top bits; `slots.len()` is a power of two (or zero).
        let bits = self.slots.len().trailing_zeros();
        if bits == 0 {
            return 0;
        }
        (hash >> (64 - bits)) as usize
    }

    #[inline(always)]
    fn tag(hash: u64) -> u32 {
        hash as u32
    }

    #[inline(always)]
    fn prefetch(&self, hash: u64) {
        if let Some(slot) = self.slots.get(self.home(hash)) {
            prefetch(slot);
        }
    }

    /// The values whose tag matches `hash`, in probe order (for the caller to check).
    #[inline(always)]
    fn candidates(&self, hash: u64) -> impl Iterator<Item = u32> + '_ {
        let mask = self.slots.len().wrapping_sub(1);
        let tag = Self::tag(hash);
        let mut index = self.home(hash);
        let mut done = self.slots.is_empty();
        std::iter::from_fn(move || {
            while !done {
                let (slot_tag, value) = self.slots[index];
                index = (index + 1) & mask;
                if value == NONE {
                    done = true;
                } else if slot_tag == tag {
                    return Some(value);
                }
            }
            None
        })
    }

    /// The first candidate, or `NONE` (no probing past it: a hint to prefetch by).
    #[inline(always)]
    fn first_candidate(&self, hash: u64) -> u32 {
        self.candidates(hash).next().unwrap_or(NONE)
    }

    /// Adds `value` under `hash` (the caller knows it is not there yet). Returns false when
    /// the index must grow first.
    fn insert(&mut self, hash: u64, value: u32) -> bool {
        if (self.len + 1) * 2 > self.slots.len() {
            return false;
        }
        let mask = self.slots.len() - 1;
        let mut index = self.home(hash);
        while self.slots[index].1 != NONE {
            index = (index + 1) & mask;
        }
        self.slots[index] = (Self::tag(hash), value);
        self.len += 1;
        true
    }

    /// An empty index with room for `len` values.
    fn with_room(len: usize) -> Self {
        let capacity = (len * 2).next_power_of_two().max(64);
        Self {
            slots: vec![(0, NONE); capacity],
            len: 0,
        }
    }

    fn memory_bytes(&self) -> usize {
        self.slots.capacity() * size_of::<(u32, u32)>()
    }
}

/// A memory record waiting for [`Contexts::fold_classes`].
#[derive(Debug, Clone, Copy)]
struct PendingClass {
    node: u32,
    class_id: u32,
    amount: MemoryAmount,
}

/// The live tree.
#[derive(Debug, Clone)]
pub(crate) struct Contexts {
    nodes: Vec<Node>,
    /// Path hash → node, for every node but the "(other contexts)" ones (reached through
    /// their parent's `other`).
    children: HashIndex,
    classes: Vec<ClassSlot>,
    /// (node, class) hash → index in `classes`.
    class_index: HashIndex,
    pending_classes: Vec<PendingClass>,
    threads: HashMap<u64, ThreadStack>,
    max_nodes: u32,
    max_depth: u32,
    /// Calls that went to an "(other contexts)" node because of the cap.
    capped_calls: u64,
    pub(crate) generation: u64,
    /// Calls the tree cannot place on an edge (below "(other contexts)" nodes), per edge.
    overflow_edges: OverflowEdges,
    edge_history: EdgeHistory,
    /// The first and the latest timestamp of an applied batch.
    first_ns: Option<u64>,
    latest_ns: u64,
    /// Scratch of [`Contexts::apply`]: per event of a chunk, its path hash (enters).
    chunk_hashes: Vec<u64>,
    /// Scratch: the stack replayed ahead of the chunk (method, path hash, folds its
    /// children in).
    scratch: Vec<(u32, u64, bool)>,
}

impl Contexts {
    pub(crate) fn new(max_nodes: u32, max_depth: u32) -> Self {
        Self {
            nodes: vec![Node::new(NONE, NONE)],
            children: HashIndex::default(),
            classes: Vec::new(),
            class_index: HashIndex::default(),
            pending_classes: Vec::new(),
            threads: HashMap::new(),
            max_nodes: max_nodes.max(16),
            // Nodes keep their depth in a u16: a deeper limit would saturate it and misplace
            // the deepest nodes in the exported preorder.
            max_depth: max_depth.clamp(1, u32::from(u16::MAX)),
            capped_calls: 0,
            generation: 0,
            overflow_edges: OverflowEdges::default(),
            edge_history: EdgeHistory::default(),
            first_ns: None,
            latest_ns: 0,
            chunk_hashes: vec![0; CHUNK_EVENTS],
            scratch: Vec::new(),
        }
    }

    /// The existing child of `parent` for `method_id` whose path hash is `hash`, or `NONE`.
    #[inline(always)]
    fn find_child(&self, parent: u32, method_id: u32, hash: u64) -> u32 {
        self.children
            .candidates(hash)
            .find(|&node| {
                let node = &self.nodes[node as usize];
                node.parent == parent && node.method_id == method_id
            })
            .unwrap_or(NONE)
    }

    /// The child of `parent` for `method_id` (path hash `hash`), created if new; past the
    /// cap, the parent's "(other contexts)" child. `hint` is a candidate found earlier.
    #[inline(always)]
    fn child(&mut self, parent: u32, method_id: u32, hash: u64, hint: u32) -> u32 {
        if let Some(node) = self.nodes.get(hint as usize) {
            if node.parent == parent && node.method_id == method_id {
                return hint;
            }
        }
        if method_id == OTHER_CONTEXTS {
            return self.other_child(parent);
        }
        if self.folds_into(parent) {
            return parent;
        }
        let found = self.find_child(parent, method_id, hash);
        if found != NONE {
            return found;
        }
        if self.nodes.len() as u32 >= self.max_nodes {
            // The parent's overflow child (itself one node over the cap at most per parent,
            // and children of an overflow node fold into it).
            // (The root's method id is `NONE` too, but it is no overflow node.)
            if parent != 0 && self.nodes[parent as usize].method_id == OTHER_CONTEXTS {
                return parent;
            }
            return self.other_child(parent);
        }
        let node = self.push_node(parent, method_id);
        if !self.children.insert(hash, node) {
            self.rebuild_children();
        }
        node
    }

    /// Whether every child of `parent` (but an "(other contexts)" one) is `parent` itself: an
    /// overflow node without children once the cap is reached (no child can be made for it any
    /// more), so no lookup is needed.
    #[inline(always)]
    fn folds_into(&self, parent: u32) -> bool {
        let node = &self.nodes[parent as usize];
        self.nodes.len() as u32 >= self.max_nodes
            && parent != 0
            && node.method_id == OTHER_CONTEXTS
            && node.first_child == NONE
    }

    /// The "(other contexts)" child of `parent`, made if new.
    fn other_child(&mut self, parent: u32) -> u32 {
        let other = self.nodes[parent as usize].other;
        if other != NONE {
            return other;
        }
        let node = self.push_node(parent, OTHER_CONTEXTS);
        self.nodes[parent as usize].other = node;
        node
    }

    /// A new child of `parent`, linked first among its children.
    fn push_node(&mut self, parent: u32, method_id: u32) -> u32 {
        let node = self.nodes.len() as u32;
        let mut fresh = Node::new(method_id, parent);
        let parent_node = &mut self.nodes[parent as usize];
        fresh.next_sibling = parent_node.first_child;
        parent_node.first_child = node;
        self.nodes.push(fresh);
        node
    }

    /// Indexes every node again in an index twice as large (path hashes recomputed from the
    /// tree: a parent's index is below its children's).
    fn rebuild_children(&mut self) {
        let mut hashes = vec![0u64; self.nodes.len()];
        hashes[0] = ROOT_HASH;
        let mut index = HashIndex::with_room(self.nodes.len() * 2);
        for (node, entry) in self.nodes.iter().enumerate().skip(1) {
            let hash = path_hash(hashes[entry.parent as usize], entry.method_id);
            hashes[node] = hash;
            if entry.method_id != OTHER_CONTEXTS {
                index.insert(hash, node as u32);
            }
        }
        self.children = index;
    }

    #[inline(always)]
    fn enter(
        &mut self,
        thread: &mut ThreadStack,
        method_id: u32,
        timestamp_ns: u64,
        call: bool,
        hint: u32,
    ) {
        if thread.phantom > 0 || thread.frames.len() as u32 >= self.max_depth {
            thread.phantom += 1;
            return;
        }
        let (parent, parent_hash) = thread
            .frames
            .last()
            .map_or((0, ROOT_HASH), |open| (open.node, open.path_hash));
        let hash = path_hash(parent_hash, method_id);
        let node = self.child(parent, method_id, hash, hint);
        if call {
            let entry = &mut self.nodes[node as usize];
            entry.calls += 1;
            let overflow = entry.method_id == OTHER_CONTEXTS;
            if overflow {
                self.capped_calls += 1;
            }
            // A call the tree cannot place on an edge: counted on its own.
            if let Some(caller) = thread.frames.last() {
                if overflow
                    || (parent != 0 && self.nodes[parent as usize].method_id == OTHER_CONTEXTS)
                {
                    self.overflow_edges.count(caller.method_id, method_id);
                }
            }
        }
        thread.frames.push(Open {
            node,
            method_id,
            path_hash: hash,
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

    #[inline(always)]
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

    /// One thread's batch (enters, exits and memory records with their amounts).
    ///
    /// In chunks of [`CHUNK_EVENTS`]: the thread's stack is first replayed on a scratch copy
    /// to hash each enter's path and prefetch its index slot; then each slot's candidate node
    /// is prefetched; then the chunk is applied in order, each candidate checked against the
    /// real parent. Memory records are queued and folded at the end of the batch.
    pub(crate) fn apply(&mut self, thread_id: u64, events: &[Event], amounts: &[MemoryAmount]) {
        if let (Some(first), Some(last)) = (events.first(), events.last()) {
            self.first_ns.get_or_insert(first.timestamp_ns);
            self.latest_ns = self.latest_ns.max(last.timestamp_ns);
        }
        let mut thread = self.threads.remove(&thread_id).unwrap_or_default();
        let mut next_amount = 0usize;
        let mut hashes = std::mem::take(&mut self.chunk_hashes);
        let mut scratch = std::mem::take(&mut self.scratch);
        let mut hints = [NONE; CHUNK_EVENTS];
        for chunk in events.chunks(CHUNK_EVENTS) {
            // Replay the chunk on a copy of the stack: each enter's path hash.
            // Frames in an overflow node that folds its children in are marked: their
            // children need no lookup (nor prefetch).
            scratch.clear();
            scratch.extend(
                thread
                    .frames
                    .iter()
                    .map(|open| (open.method_id, open.path_hash, self.folds_into(open.node))),
            );
            let mut phantom = thread.phantom;
            for (event, hash) in chunk.iter().zip(hashes.iter_mut()) {
                match event.kind {
                    EventKind::Enter => {
                        if phantom > 0 || scratch.len() as u32 >= self.max_depth {
                            phantom += 1;
                            *hash = 0;
                            continue;
                        }
                        let (parent_hash, folded) = scratch
                            .last()
                            .map_or((ROOT_HASH, false), |top| (top.1, top.2));
                        let folded = folded && event.method_id != OTHER_CONTEXTS;
                        *hash = 0;
                        if !folded {
                            *hash = path_hash(parent_hash, event.method_id);
                            self.children.prefetch(*hash);
                        }
                        scratch.push((event.method_id, *hash, folded));
                    }
                    EventKind::Exit => {
                        if phantom > 0 {
                            phantom -= 1;
                        } else if let Some(position) =
                            scratch.iter().rposition(|top| top.0 == event.method_id)
                        {
                            scratch.truncate(position);
                        }
                    }
                    EventKind::Memory => {}
                }
            }
            // The candidates (their slots now at hand), and their nodes brought in.
            for ((event, &hash), hint) in chunk.iter().zip(hashes.iter()).zip(hints.iter_mut()) {
                *hint = NONE;
                if event.kind == EventKind::Enter && hash != 0 {
                    *hint = self.children.first_candidate(hash);
                    if let Some(node) = self.nodes.get(*hint as usize) {
                        prefetch(node);
                    }
                }
            }
            for (event, &hint) in chunk.iter().zip(hints.iter()) {
                match event.kind {
                    EventKind::Enter => {
                        self.enter(&mut thread, event.method_id, event.timestamp_ns, true, hint)
                    }
                    EventKind::Exit => self.exit(&mut thread, event.method_id, event.timestamp_ns),
                    EventKind::Memory => {
                        if let Some(&amount) = amounts.get(next_amount) {
                            next_amount += 1;
                            // Beyond the depth limit: the deepest tracked frame (as the engine).
                            let node = thread.frames.last().map_or(0, |open| open.node);
                            self.pending_classes.push(PendingClass {
                                node,
                                class_id: event.method_id,
                                amount,
                            });
                        }
                    }
                }
            }
        }
        self.chunk_hashes = hashes;
        self.scratch = scratch;
        self.fold_classes();
        self.overflow_edges.fold();
        self.threads.insert(thread_id, thread);
        self.generation += 1;
    }

    /// Adds the queued memory records to their (node, class) slots, prefetching the index
    /// slot of each a few records ahead and its class slot half as far.
    fn fold_classes(&mut self) {
        let pending = std::mem::take(&mut self.pending_classes);
        if (self.class_index.len + pending.len()) * 2 > self.class_index.slots.len() {
            self.rebuild_class_index(self.class_index.len + pending.len());
        }
        for (index, record) in pending.iter().enumerate() {
            if let Some(ahead) = pending.get(index + CLASS_PREFETCH_AHEAD) {
                self.class_index
                    .prefetch(class_hash(ahead.node, ahead.class_id));
            }
            if let Some(ahead) = pending.get(index + CLASS_PREFETCH_AHEAD / 2) {
                let slot = self
                    .class_index
                    .first_candidate(class_hash(ahead.node, ahead.class_id));
                if let Some(slot) = self.classes.get(slot as usize) {
                    prefetch(slot);
                }
            }
            self.memory(record.node, record.class_id, record.amount);
        }
        self.pending_classes = pending;
        self.pending_classes.clear();
    }

    /// Room for `len` (node, class) slots in the index, rebuilt twice as large.
    fn rebuild_class_index(&mut self, len: usize) {
        let mut index = HashIndex::with_room(len.max(self.class_index.slots.len()));
        for (slot, entry) in self.classes.iter().enumerate() {
            index.insert(class_hash(entry.node, entry.class_id), slot as u32);
        }
        self.class_index = index;
    }

    /// One memory record of `node` (the index has room for one more slot).
    #[inline(always)]
    fn memory(&mut self, node: u32, class_id: u32, amount: MemoryAmount) {
        let hash = class_hash(node, class_id);
        let classes = &self.classes;
        let found = self.class_index.candidates(hash).find(|&slot| {
            let entry = &classes[slot as usize];
            entry.node == node && entry.class_id == class_id
        });
        if let Some(slot) = found {
            self.classes[slot as usize].amount.add_record(amount);
            return;
        }
        let mut fresh = Amount::default();
        fresh.add_record(amount);
        let slot = self.classes.len() as u32;
        self.classes.push(ClassSlot {
            node,
            class_id,
            amount: fresh,
        });
        let inserted = self.class_index.insert(hash, slot);
        debug_assert!(inserted, "room was made before the fold");
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
            self.enter(&mut thread, method_id, timestamp_ns, false, NONE);
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
        // Each node's class slots, grouped by node (counting sort).
        let mut class_start = vec![0u32; self.nodes.len() + 1];
        for entry in &self.classes {
            class_start[entry.node as usize + 1] += 1;
        }
        for node in 0..self.nodes.len() {
            class_start[node + 1] += class_start[node];
        }
        let mut by_node = vec![0u32; self.classes.len()];
        let mut fill = class_start.clone();
        for (slot, entry) in self.classes.iter().enumerate() {
            let at = &mut fill[entry.node as usize];
            by_node[*at as usize] = slot as u32;
            *at += 1;
        }
        let mut nodes = Vec::with_capacity(self.nodes.len());
        let mut amounts = Vec::with_capacity(self.classes.len());
        // (node, depth) to visit. Children are linked newest first, so pushing them in link
        // order pops the oldest (the first called) first.
        let mut pending = vec![(0u32, 0u16)];
        while let Some((index, depth)) = pending.pop() {
            let node = &self.nodes[index as usize];
            let start = amounts.len() as u32;
            let slots =
                class_start[index as usize] as usize..class_start[index as usize + 1] as usize;
            for &slot in &by_node[slots] {
                let entry = &self.classes[slot as usize];
                amounts.push((entry.class_id, entry.amount));
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
            let mut child = node.first_child;
            while child != NONE {
                pending.push((child, depth.saturating_add(1)));
                child = self.nodes[child as usize].next_sibling;
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

    /// The call edges so far, with their calls over about the last `window_ns` (against an
    /// earlier call of this about a window ago): every node below a method's node is one
    /// (caller, callee) pair, plus the calls counted below "(other contexts)" nodes.
    pub(crate) fn edges(&mut self, window_ns: u64) -> CallEdges {
        let nodes = &self.nodes;
        let placed = nodes.iter().skip(1).filter_map(|node| {
            let parent = node.parent as usize;
            let caller = nodes[parent].method_id;
            (parent != 0 && caller != OTHER_CONTEXTS && node.method_id != OTHER_CONTEXTS)
                .then_some(((caller, node.method_id), node.calls))
        });
        let totals = totals(placed.chain(self.overflow_edges.iter()));
        self.edge_history.read(
            self.first_ns.unwrap_or(self.latest_ns),
            self.latest_ns,
            window_ns,
            totals,
            self.overflow_edges.capped_calls,
        )
    }

    /// Nodes held.
    pub(crate) fn len(&self) -> usize {
        self.nodes.len()
    }

    pub(crate) fn memory_bytes(&self) -> usize {
        self.nodes.capacity() * size_of::<Node>()
            + self.classes.capacity() * size_of::<ClassSlot>()
            + self.children.memory_bytes()
            + self.class_index.memory_bytes()
            + self.pending_classes.capacity() * size_of::<PendingClass>()
            + self.overflow_edges.memory_bytes()
            + self.edge_history.memory_bytes()
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
