//! Call edges: how often each method called each other method, since the session started and
//! over about the last window — the arcs between buildings.
//!
//! Read off the calling-context tree rather than counted per event: every node below a
//! method's node is one (caller, callee) pair, so an edge's calls are the sum of its nodes'
//! calls, computed when edges are read (linear in the nodes). Only calls the tree cannot place
//! (past its node cap, in "(other contexts)" nodes) are counted per call, in a table capped at
//! [`MAX_OVERFLOW_EDGES`]. Calls over the window are the difference with the totals of an
//! earlier read about a window ago ([`EdgeHistory`]), so they are as fresh as the reads are
//! frequent (the viewer reads twice a second).

use std::collections::VecDeque;

use crate::keyed::{KeyedTable, FREE_KEY};

/// Most (caller, callee) pairs counted per call below "(other contexts)" nodes; calls of
/// further pairs are counted in [`CallEdges::capped_calls`].
pub const MAX_OVERFLOW_EDGES: usize = 1 << 18;

/// One caller → callee pair.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CallEdge {
    pub caller: u32,
    pub callee: u32,
    /// Calls since the session started.
    pub calls: u64,
    /// Calls over [`CallEdges::span_ns`] (about the last window).
    pub recent_calls: u64,
}

/// Every call edge of a session at one moment, sorted by (caller, callee).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CallEdges {
    pub edges: Vec<CallEdge>,
    /// The stretch of the program's clock `recent_calls` cover, ending at `now_ns`: about
    /// the window once the session is that old (less before).
    pub span_ns: u64,
    /// The latest timestamp the tree had seen.
    pub now_ns: u64,
    /// Calls not attributed to an edge because the overflow table was full.
    pub capped_calls: u64,
}

impl CallEdges {
    /// Calls per second of an edge over the recent span (0 when the span is empty).
    pub fn calls_per_s(&self, edge: &CallEdge) -> f64 {
        if self.span_ns == 0 {
            return 0.0;
        }
        edge.recent_calls as f64 * 1e9 / self.span_ns as f64
    }

    /// The edges into `method_id` (its callers).
    pub fn callers_of(&self, method_id: u32) -> impl Iterator<Item = &CallEdge> + '_ {
        self.edges
            .iter()
            .filter(move |edge| edge.callee == method_id)
    }

    /// The edges out of `method_id` (its callees): a contiguous run, edges being sorted.
    pub fn callees_of(&self, method_id: u32) -> &[CallEdge] {
        let start = self.edges.partition_point(|edge| edge.caller < method_id);
        let end = self.edges.partition_point(|edge| edge.caller <= method_id);
        &self.edges[start..end]
    }

    /// The `count` edges with the most recent calls, most first (ties: total calls, then
    /// caller and callee).
    pub fn top_recent(&self, count: usize) -> Vec<CallEdge> {
        let mut edges: Vec<CallEdge> = self
            .edges
            .iter()
            .filter(|edge| edge.recent_calls > 0)
            .copied()
            .collect();
        let order = |edge: &CallEdge| {
            (
                std::cmp::Reverse(edge.recent_calls),
                std::cmp::Reverse(edge.calls),
                edge.caller,
                edge.callee,
            )
        };
        if edges.len() > count {
            edges.select_nth_unstable_by_key(count, order);
            edges.truncate(count);
        }
        edges.sort_unstable_by_key(order);
        edges
    }
}

/// Calls per (caller, callee), sorted by the pair.
pub(crate) type EdgeTotals = Vec<((u32, u32), u64)>;

/// Calls below "(other contexts)" nodes, per (caller, callee). Calls are queued
/// ([`count`](Self::count)) and folded in per batch ([`fold`](Self::fold)), prefetching each
/// one's slot a few calls ahead: past the tree's cap nearly every call of an endless walk
/// lands here, and a lookup in a table of up to [`MAX_OVERFLOW_EDGES`] edges is a cache miss.
#[derive(Debug, Clone, Default)]
pub(crate) struct OverflowEdges {
    /// Calls per caller << 32 | callee.
    calls: KeyedTable<u64>,
    pending: Vec<u64>,
    pub(crate) capped_calls: u64,
}

/// How many calls ahead [`OverflowEdges::fold`] prefetches.
const EDGE_PREFETCH_AHEAD: usize = 8;

impl OverflowEdges {
    #[inline(always)]
    pub(crate) fn count(&mut self, caller: u32, callee: u32) {
        // (`FREE_KEY` itself would be a method id no method has, calling another.)
        let key = (u64::from(caller) << 32 | u64::from(callee)).min(FREE_KEY - 1);
        self.pending.push(key);
    }

    /// Adds the queued calls.
    pub(crate) fn fold(&mut self) {
        let pending = std::mem::take(&mut self.pending);
        for (index, &key) in pending.iter().enumerate() {
            if let Some(&ahead) = pending.get(index + EDGE_PREFETCH_AHEAD) {
                self.calls.prefetch(ahead);
            }
            if let Some(calls) = self.calls.get_mut(key) {
                *calls += 1;
            } else if self.calls.len() >= MAX_OVERFLOW_EDGES {
                self.capped_calls += 1;
            } else {
                *self.calls.entry(key) = 1;
            }
        }
        self.pending = pending;
        self.pending.clear();
    }

    /// The folded calls (call [`fold`](Self::fold) first).
    pub(crate) fn iter(&self) -> impl Iterator<Item = ((u32, u32), u64)> + '_ {
        self.calls
            .iter()
            .map(|(key, calls)| (((key >> 32) as u32, key as u32), calls))
    }

    pub(crate) fn memory_bytes(&self) -> usize {
        self.calls.memory_bytes() + self.pending.capacity() * size_of::<u64>()
    }
}

/// Earlier reads' totals, to tell the calls of about the last window.
#[derive(Debug, Clone, Default)]
pub(crate) struct EdgeHistory {
    /// (now_ns, totals sorted by (caller, callee)), oldest first.
    reads: VecDeque<(u64, EdgeTotals)>,
}

impl EdgeHistory {
    /// Edges from this read's `totals` (sorted by key), over about `window_ns` before `now_ns`
    /// (the session started at `start_ns`); keeps this read for later ones.
    pub(crate) fn read(
        &mut self,
        start_ns: u64,
        now_ns: u64,
        window_ns: u64,
        totals: EdgeTotals,
        capped_calls: u64,
    ) -> CallEdges {
        // The base: the newest earlier read at least a window old, else the oldest one;
        // with none, the tree's first timestamp (every call is recent).
        let cutoff = now_ns.saturating_sub(window_ns);
        while self.reads.len() >= 2 && self.reads[1].0 <= cutoff {
            self.reads.pop_front();
        }
        let (base_ns, base) = match self.reads.front() {
            Some((at, totals)) if *at < now_ns => (*at, totals.as_slice()),
            _ => (start_ns.min(now_ns), &[][..]),
        };
        let mut edges = Vec::with_capacity(totals.len());
        let mut earlier = base.iter().peekable();
        for &((caller, callee), calls) in &totals {
            while earlier
                .next_if(|(key, _)| *key < (caller, callee))
                .is_some()
            {}
            let before = earlier
                .next_if(|(key, _)| *key == (caller, callee))
                .map_or(0, |(_, calls)| *calls);
            edges.push(CallEdge {
                caller,
                callee,
                calls,
                recent_calls: calls.saturating_sub(before),
            });
        }
        // Reads closer together than a sixteenth of the window add nothing to the history.
        let spaced = self
            .reads
            .back()
            .is_none_or(|(at, _)| now_ns >= at.saturating_add(window_ns / 16));
        if spaced {
            self.reads.push_back((now_ns, totals));
        }
        CallEdges {
            edges,
            span_ns: now_ns.saturating_sub(base_ns),
            now_ns,
            capped_calls,
        }
    }

    pub(crate) fn memory_bytes(&self) -> usize {
        self.reads
            .iter()
            .map(|(_, totals)| totals.capacity() * 16 + 32)
            .sum()
    }
}

/// Sums `(key, calls)` pairs per key, sorted by key.
pub(crate) fn totals(pairs: impl Iterator<Item = ((u32, u32), u64)>) -> EdgeTotals {
    let mut pairs: EdgeTotals = pairs.filter(|(_, calls)| *calls > 0).collect();
    pairs.sort_unstable_by_key(|(key, _)| *key);
    pairs.dedup_by(|later, kept| {
        if later.0 == kept.0 {
            kept.1 += later.1;
            true
        } else {
            false
        }
    });
    pairs
}
