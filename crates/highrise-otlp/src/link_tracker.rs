//! Calls between services: a span whose parent span is in another resource's session. Pure:
//! times come from the caller.
//!
//! Every placed span goes into a span index (trace, span) → (session, method). A span that may
//! have a remote parent ([`SpanIn::remote_parent`](crate::spans::SpanIn)) looks its parent up
//! there; a parent that has not arrived yet (the callee's batch often comes first: its span
//! ends first) is waited for. A link found is counted once the callee's session horizon passes
//! its start, so arcs and buildings show the same moment. The index and the waiting children
//! are two generations each, turned every [`GENERATION_NS`] or at [`GENERATION_SPANS`] keys
//! (with at most [`MAX_CHILDREN_WAITING`] children per key), and at most [`MAX_LINKS`] pairs
//! are counted, each with the last [`SECONDS_KEPT`] seconds, so memory stays bounded whatever
//! the rate: a parent is found if it arrives within one to two generations of its child.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::sync::Arc;

use highrise_links::{CallsBySecond, MethodRef, SessionLink};

/// How long spans stay findable at least (at most twice this).
pub const GENERATION_NS: u64 = 30_000_000_000;
/// Spans per generation at most; beyond, the generation turns early.
pub const GENERATION_SPANS: usize = 1 << 20;
/// The window `calls_window` counts over.
pub const WINDOW_NS: u64 = 3_000_000_000;
const BUCKET_NS: u64 = 250_000_000;
/// Children waiting for one parent span at most (more are not linked).
pub const MAX_CHILDREN_WAITING: usize = 4_096;
/// Distinct (caller, callee) links counted at most (calls of further pairs are not counted).
pub const MAX_LINKS: usize = 65_536;
/// Seconds of [`SessionLink::calls_by_second`] kept per link at most (the oldest tenth goes
/// when full).
pub const SECONDS_KEPT: usize = 3_600;
const BUCKETS: usize = (WINDOW_NS / BUCKET_NS) as usize;

type SpanKey = (u128, u64);
/// Seeded per map (DoS-resistant enough for ids that came over the wire), much cheaper than
/// the standard SipHash for these small keys.
type Map<K, V> = HashMap<K, V, foldhash::fast::RandomState>;

/// Two generations of a map; the older one is dropped when the newer one is full or old.
#[derive(Debug)]
struct Generations<V> {
    current: Map<SpanKey, V>,
    previous: Map<SpanKey, V>,
    started_ns: u64,
}

impl<V> Generations<V> {
    fn new() -> Self {
        Self {
            current: Map::default(),
            previous: Map::default(),
            started_ns: 0,
        }
    }

    fn turn_if_due(&mut self, now_ns: u64) {
        if self.current.len() >= GENERATION_SPANS
            || now_ns.saturating_sub(self.started_ns) >= GENERATION_NS
        {
            // The next generation likely holds as many: no regrowth on the way.
            let room = self.current.len();
            self.previous = std::mem::replace(
                &mut self.current,
                Map::with_capacity_and_hasher(room, Default::default()),
            );
            self.started_ns = now_ns;
        }
    }

    fn get(&self, key: &SpanKey) -> Option<&V> {
        self.current.get(key).or_else(|| self.previous.get(key))
    }

    fn remove(&mut self, key: &SpanKey) -> Option<V> {
        self.current
            .remove(key)
            .or_else(|| self.previous.remove(key))
    }

    fn is_empty(&self) -> bool {
        self.current.is_empty() && self.previous.is_empty()
    }
}

/// What the tracker needs of a placed span.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SpanIds {
    pub trace_id: u128,
    pub span_id: u64,
    /// 0: a root span.
    pub parent_span_id: u64,
    /// Its parent may be in another service ([`crate::spans::SpanIn::remote_parent`]).
    pub remote_parent: bool,
    pub start_unix_ns: u64,
}

impl SpanIds {
    pub fn of(span: &crate::spans::SpanIn) -> Self {
        Self {
            trace_id: span.trace_id,
            span_id: span.span_id,
            parent_span_id: span.parent_span_id,
            remote_parent: span.remote_parent,
            start_unix_ns: span.start_unix_ns,
        }
    }
}

#[derive(Debug, Clone, Copy)]
struct Child {
    callee: MethodRef,
    start_unix_ns: u64,
}

#[derive(Debug, Default)]
struct LinkCounts {
    total: u64,
    /// Calls per bucket of `BUCKET_NS`, ring by bucket number.
    recent: [u64; BUCKETS],
    /// The bucket number each slot of `recent` holds.
    recent_bucket: [u64; BUCKETS],
    /// Copied on write: a snapshot published since holds the old one.
    by_second: CallsBySecond,
}

/// Links found in one callee session, soonest start first: (start, caller, callee).
type DueLinks = BinaryHeap<Reverse<(u64, MethodRef, MethodRef)>>;

/// Cross-service calls, found and counted.
#[derive(Debug)]
pub struct LinkTracker {
    spans: Generations<MethodRef>,
    waiting: Generations<Vec<Child>>,
    /// Links found, per callee session by the callee's start, until that session's horizon
    /// passes it.
    due: HashMap<u64, DueLinks>,
    counts: HashMap<(MethodRef, MethodRef), LinkCounts>,
    changed: bool,
}

impl Default for LinkTracker {
    fn default() -> Self {
        Self::new()
    }
}

impl LinkTracker {
    pub fn new() -> Self {
        Self {
            spans: Generations::new(),
            waiting: Generations::new(),
            due: HashMap::new(),
            counts: HashMap::new(),
            changed: false,
        }
    }

    /// A span placed as `method` (its session and method id), at `now_ns` (any monotonic clock
    /// in nanoseconds, for the generations).
    pub fn observe(&mut self, method: MethodRef, span: SpanIds, now_ns: u64) {
        let SpanIds {
            trace_id,
            span_id,
            parent_span_id,
            remote_parent,
            start_unix_ns,
        } = span;
        self.spans.turn_if_due(now_ns);
        self.spans.current.insert((trace_id, span_id), method);
        if !self.waiting.is_empty() {
            if let Some(children) = self.waiting.remove(&(trace_id, span_id)) {
                for child in children {
                    self.link(method, child.callee, child.start_unix_ns);
                }
            }
        }
        if !remote_parent || parent_span_id == 0 {
            return;
        }
        match self.spans.get(&(trace_id, parent_span_id)) {
            Some(&caller) => self.link(caller, method, start_unix_ns),
            None => {
                self.waiting.turn_if_due(now_ns);
                let children = self
                    .waiting
                    .current
                    .entry((trace_id, parent_span_id))
                    .or_default();
                if children.len() < MAX_CHILDREN_WAITING {
                    children.push(Child {
                        callee: method,
                        start_unix_ns,
                    });
                }
            }
        }
    }

    fn link(&mut self, caller: MethodRef, callee: MethodRef, start_unix_ns: u64) {
        // A parent in the same session is an ordinary nested call.
        if caller.session_id != callee.session_id {
            self.due
                .entry(callee.session_id)
                .or_default()
                .push(Reverse((start_unix_ns, caller, callee)));
        }
    }

    /// Moves `session_id`'s horizon: its links that started by then are counted.
    pub fn advance(&mut self, session_id: u64, horizon_unix_ns: u64) {
        let Some(due) = self.due.get_mut(&session_id) else {
            return;
        };
        while let Some(&Reverse((start, caller, callee))) = due.peek() {
            if start > horizon_unix_ns {
                break;
            }
            due.pop();
            if self.counts.len() >= MAX_LINKS && !self.counts.contains_key(&(caller, callee)) {
                continue;
            }
            let counts = self.counts.entry((caller, callee)).or_default();
            counts.total += 1;
            let bucket = start / BUCKET_NS;
            let slot = (bucket % BUCKETS as u64) as usize;
            // A link counted late (its parent arrived late) never wipes a newer bucket.
            if counts.recent_bucket[slot] < bucket {
                counts.recent_bucket[slot] = bucket;
                counts.recent[slot] = 0;
            }
            if counts.recent_bucket[slot] == bucket {
                counts.recent[slot] += 1;
            }
            let second = start / 1_000_000_000;
            let by_second = Arc::make_mut(&mut counts.by_second);
            // Nearly always the last second or a new one; a link found late lands in place.
            match by_second.binary_search_by_key(&second, |&(second, _)| second) {
                Ok(index) => by_second[index].1 += 1,
                Err(index) => {
                    by_second.insert(index, (second, 1));
                    if by_second.len() > SECONDS_KEPT {
                        by_second.drain(..SECONDS_KEPT / 10);
                    }
                }
            }
            self.changed = true;
        }
    }

    /// The links when they changed since the last call (or when `always`), calls in the window
    /// ending at `now_unix_ns`.
    pub fn take_links(&mut self, now_unix_ns: u64, always: bool) -> Option<Vec<SessionLink>> {
        if !self.changed && !always {
            return None;
        }
        self.changed = false;
        let newest = now_unix_ns / BUCKET_NS;
        let oldest = newest.saturating_sub(BUCKETS as u64 - 1);
        let mut links: Vec<SessionLink> = self
            .counts
            .iter()
            .map(|(&(caller, callee), counts)| SessionLink {
                caller,
                callee,
                calls_total: counts.total,
                calls_window: counts
                    .recent_bucket
                    .iter()
                    .zip(counts.recent)
                    .filter(|(&bucket, _)| (oldest..=newest).contains(&bucket))
                    .map(|(_, calls)| calls)
                    .sum(),
                calls_by_second: Arc::clone(&counts.by_second),
            })
            .collect();
        links.sort_by_key(|link| (link.caller, link.callee));
        Some(links)
    }

    /// `session_id` ended: its links still waiting are counted.
    pub fn end_session(&mut self, session_id: u64) {
        self.advance(session_id, u64::MAX);
        self.due.remove(&session_id);
    }

    /// Links found and not yet counted (their callee's horizon is behind them).
    pub fn due_len(&self) -> usize {
        self.due.values().map(BinaryHeap::len).sum()
    }

    /// The window `calls_window` counts over, seconds.
    pub fn window_s() -> f32 {
        WINDOW_NS as f32 / 1e9
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: u64 = 1_000_000_000;

    fn ids(trace_id: u128, span_id: u64, parent_span_id: u64, remote: bool, start: u64) -> SpanIds {
        SpanIds {
            trace_id,
            span_id,
            parent_span_id,
            remote_parent: remote,
            start_unix_ns: start,
        }
    }

    fn at(session_id: u64, method_id: u32) -> MethodRef {
        MethodRef {
            session_id,
            method_id,
        }
    }

    #[test]
    fn a_parent_in_another_session_is_a_link_whichever_arrives_first() {
        let mut links = LinkTracker::new();
        // Trace 1: the caller first. Trace 2: the callee first.
        links.observe(at(1, 4), ids(1, 10, 0, false, 100 * S), 0);
        links.observe(at(2, 0), ids(1, 11, 10, true, 100 * S + 5), 0);
        links.observe(at(2, 0), ids(2, 21, 20, true, 101 * S), 0);
        links.observe(at(1, 4), ids(2, 20, 0, false, 101 * S - 5), 0);
        // A local child (not remote) and a remote-kind child of a local parent: no link.
        links.observe(at(1, 5), ids(1, 12, 10, false, 100 * S + 7), 0);
        links.observe(at(1, 6), ids(1, 13, 10, true, 100 * S + 8), 0);
        assert_eq!(links.due_len(), 2);
        // Counted only once the callee's session (2) reaches their starts.
        links.advance(1, 200 * S);
        assert!(links
            .take_links(200 * S, false)
            .is_none_or(|l| l.is_empty()));
        links.advance(2, 100 * S + 10);
        let found = links.take_links(100 * S + 10, false).unwrap();
        assert_eq!(found.len(), 1);
        assert_eq!((found[0].calls_total, found[0].calls_window), (1, 1));
        links.advance(2, 101 * S);
        let found = links.take_links(101 * S, false).unwrap();
        assert_eq!(found[0].caller, at(1, 4));
        assert_eq!(found[0].callee, at(2, 0));
        assert_eq!((found[0].calls_total, found[0].calls_window), (2, 2));
        assert!(links.take_links(101 * S, false).is_none(), "unchanged");
        // Three seconds later the window has emptied; the total stays.
        let later = links.take_links(105 * S, true).unwrap();
        assert_eq!((later[0].calls_total, later[0].calls_window), (2, 0));
        assert_eq!(*later[0].calls_by_second, [(100, 1), (101, 1)]);
    }

    #[test]
    fn generations_bound_what_is_kept() {
        let mut links = LinkTracker::new();
        links.observe(at(1, 0), ids(7, 1, 0, false, S), 0);
        // Two generations later the parent is forgotten: the child waits instead.
        links.observe(at(1, 0), ids(7, 2, 0, false, S), GENERATION_NS);
        links.observe(at(1, 0), ids(7, 3, 0, false, S), 2 * GENERATION_NS);
        links.observe(at(2, 0), ids(7, 4, 1, true, S), 2 * GENERATION_NS);
        assert_eq!(links.due_len(), 0);
        // Still one generation back: found.
        links.observe(at(2, 0), ids(7, 5, 2, true, S), 2 * GENERATION_NS);
        assert_eq!(links.due_len(), 1);
    }

    #[test]
    fn a_link_counted_late_keeps_the_newer_counts() {
        let mut links = LinkTracker::new();
        // A link at 104 s is counted, then one whose parent came late, at 101 s: the same ring
        // slot 12 buckets older (3 s ring of 250 ms buckets).
        links.observe(at(1, 0), ids(1, 10, 0, false, 104 * S), 0);
        links.observe(at(2, 0), ids(1, 11, 10, true, 104 * S), 0);
        links.advance(2, 104 * S);
        links.observe(at(2, 0), ids(2, 21, 20, true, 101 * S), 0);
        links.observe(at(1, 0), ids(2, 20, 0, false, 101 * S), 0);
        links.advance(2, 104 * S);
        let found = links.take_links(104 * S, true).unwrap();
        assert_eq!((found[0].calls_total, found[0].calls_window), (2, 1));
        assert_eq!(*found[0].calls_by_second, [(101, 1), (104, 1)]);
    }
}
