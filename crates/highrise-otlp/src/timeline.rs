//! One OTLP session's spans → agent messages, a fixed delay behind: spans arrive late, in
//! batches and out of order, so they wait until the session's horizon (now − delay) passes
//! their start, and are then placed, in start order, as an enter and an exit on a lane.
//!
//! Lanes are the session's threads. A span that says where it ran (`thread.id`) goes on that
//! thread's lane; others go on pooled lanes, one per trace at a time, nested under their parent
//! span (or any open span of the trace that contains them). A span that does not nest where it
//! belongs (async work overlapping its parent) gets a lane of its own beside. A span whose
//! start the horizon has already passed cannot be placed any more: it is counted ("late") and
//! reported as the session's dropped events, never placed wrongly.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::sync::Arc;

use highrise_protocol::{AgentMessage, EventKind, MethodDef, PackedEventWriter, MAX_METHOD_ID};

use crate::spans::{MethodName, SpanIn};

type Map<K, V> = HashMap<K, V, foldhash::fast::RandomState>;

/// Events per batch message at most (a batch stays far below the frame limit).
const MAX_BATCH_EVENTS: usize = 32_768;
/// Method definitions per message at most.
const MAX_DEFINITIONS_PER_MESSAGE: usize = 8_192;
/// How far span times may disagree and still nest: SDKs that anchor each span's clock on a
/// millisecond wall clock (OpenTelemetry JS) end a child up to ~1 ms after its parent, or start
/// it before its sibling ended. Overlaps this small are taken as sequential, ends this far
/// past the parent's as the parent's.
pub const SLOP_NS: u64 = 2_000_000;
/// A span starting further than this beyond the horizon is refused (a clock far off).
pub const MAX_AHEAD_NS: u64 = 10 * 60 * 1_000_000_000;

/// What became of a session's spans.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TimelineCounts {
    /// Spans handed to [`Timeline::add`].
    pub received: u64,
    /// Spans placed as an enter and an exit.
    pub placed: u64,
    /// Spans whose start the horizon had passed when they arrived (or that arrived for a time
    /// the session had already shown).
    pub late: u64,
    /// Spans refused: starting too far ahead of the horizon, or beyond the method id space.
    pub refused: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct PendingKey {
    start_unix_ns: u64,
    /// Longer spans first at the same start: the parent before its child.
    end_desc: Reverse<u64>,
    seq: u64,
}

#[derive(Debug, Clone, Copy)]
struct PendingSpan {
    key: PendingKey,
    method_id: u32,
    trace_id: u128,
    span_id: u64,
    parent_span_id: u64,
    thread: Option<i64>,
}

impl PartialEq for PendingSpan {
    fn eq(&self, other: &Self) -> bool {
        self.key == other.key
    }
}
impl Eq for PendingSpan {}
impl PartialOrd for PendingSpan {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for PendingSpan {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        // A min-heap on the key.
        other.key.cmp(&self.key)
    }
}

/// Orders spans of equal times so that each parent in the run comes before its children,
/// arrival order otherwise (stable).
fn parents_first(run: &mut [PendingSpan]) {
    let depth = |index: usize| {
        let mut depth = 0;
        let mut at = index;
        // At most the run's length: parent links may form a cycle.
        while depth < run.len() {
            let parent = run[at].parent_span_id;
            match run.iter().position(|span| {
                parent != 0 && span.span_id == parent && span.trace_id == run[at].trace_id
            }) {
                Some(up) => {
                    at = up;
                    depth += 1;
                }
                None => break,
            }
        }
        depth
    };
    let depths: Vec<usize> = (0..run.len()).map(depth).collect();
    let mut order: Vec<usize> = (0..run.len()).collect();
    order.sort_by_key(|&index| depths[index]);
    let sorted: Vec<PendingSpan> = order.iter().map(|&index| run[index]).collect();
    run.copy_from_slice(&sorted);
}

#[derive(Debug, Clone, Copy)]
struct OpenSpan {
    end_unix_ns: u64,
    method_id: u32,
    span_id: u64,
}

#[derive(Debug)]
struct Lane {
    /// The thread id on the wire.
    wire_id: u64,
    /// `Some`: a program thread's lane; `None`: a pooled lane for spans without a thread.
    thread: Option<i64>,
    /// The trace a pooled lane is serving (while its stack is not empty).
    trace_id: u128,
    stack: Vec<OpenSpan>,
    writer: Option<PackedEventWriter>,
}

/// One session's spans on their way to becoming events. Pure: times come from the caller.
#[derive(Debug)]
pub struct Timeline {
    /// Unix time of the session's clock zero.
    zero_unix_ns: u64,
    /// Everything before this is out (events and heartbeats).
    emitted_unix_ns: u64,
    pending: BinaryHeap<PendingSpan>,
    /// Scratch: the spans of equal times being placed (kept for its capacity).
    run: Vec<PendingSpan>,
    next_seq: u64,
    /// One lookup per span: foldhash (seeded per map: names came over the wire) here and for
    /// the lanes, not SipHash.
    methods: Map<Arc<MethodName>, u32>,
    undefined: Vec<MethodDef>,
    lanes: Vec<Lane>,
    thread_lanes: Map<i64, Vec<usize>>,
    thread_names: Map<i64, String>,
    trace_lanes: Map<u128, Vec<usize>>,
    /// Free pooled lanes, lowest first (lanes keep their numbers as steady as they can).
    free_pool: BinaryHeap<Reverse<usize>>,
    /// Pooled lanes by the end of the span at their bottom (when they come free); entries of
    /// lanes freed and reused since are harmless (checked when popped).
    busy_pool: BinaryHeap<Reverse<(u64, usize)>>,
    started_lanes: Vec<AgentMessage>,
    batches: Vec<AgentMessage>,
    counts: TimelineCounts,
    reported_dropped: u64,
    latest_end_unix_ns: u64,
}

impl Timeline {
    /// A session whose clock starts (and whose horizon stands) at `zero_unix_ns`.
    pub fn new(zero_unix_ns: u64) -> Self {
        Self {
            zero_unix_ns,
            emitted_unix_ns: zero_unix_ns,
            pending: BinaryHeap::new(),
            run: Vec::new(),
            next_seq: 0,
            methods: HashMap::default(),
            undefined: Vec::new(),
            lanes: Vec::new(),
            thread_lanes: Map::default(),
            thread_names: Map::default(),
            trace_lanes: Map::default(),
            free_pool: BinaryHeap::new(),
            busy_pool: BinaryHeap::new(),
            started_lanes: Vec::new(),
            batches: Vec::new(),
            counts: TimelineCounts::default(),
            reported_dropped: 0,
            latest_end_unix_ns: zero_unix_ns,
        }
    }

    pub fn zero_unix_ns(&self) -> u64 {
        self.zero_unix_ns
    }

    /// The horizon: everything up to here has been emitted.
    pub fn emitted_unix_ns(&self) -> u64 {
        self.emitted_unix_ns
    }

    pub fn counts(&self) -> TimelineCounts {
        self.counts
    }

    /// Spans waiting for the horizon.
    pub fn pending_len(&self) -> usize {
        self.pending.len()
    }

    /// Lanes (threads) so far.
    pub fn lane_count(&self) -> usize {
        self.lanes.len()
    }

    /// Nothing waiting and nothing open.
    pub fn is_idle(&self) -> bool {
        self.pending.is_empty() && self.lanes.iter().all(|lane| lane.stack.is_empty())
    }

    /// Takes a span whose times are on this session's (corrected) clock; returns its method's
    /// id, or `None` when the span cannot be placed (counted).
    pub fn add(&mut self, span: SpanIn) -> Option<u32> {
        self.counts.received += 1;
        if span.start_unix_ns < self.emitted_unix_ns {
            self.counts.late += 1;
            return None;
        }
        if span.start_unix_ns > self.emitted_unix_ns.saturating_add(MAX_AHEAD_NS) {
            self.counts.refused += 1;
            return None;
        }
        let Some(method_id) = self.method_id(span.name) else {
            self.counts.refused += 1;
            return None;
        };
        let thread = span.thread.map(|(id, name)| {
            if let Some(name) = name {
                self.thread_names.entry(id).or_insert(name);
            }
            id
        });
        self.latest_end_unix_ns = self.latest_end_unix_ns.max(span.end_unix_ns);
        self.pending.push(PendingSpan {
            key: PendingKey {
                start_unix_ns: span.start_unix_ns,
                end_desc: Reverse(span.end_unix_ns),
                seq: self.next_seq,
            },
            method_id,
            trace_id: span.trace_id,
            span_id: span.span_id,
            parent_span_id: span.parent_span_id,
            thread,
        });
        self.next_seq += 1;
        Some(method_id)
    }

    fn method_id(&mut self, name: Arc<MethodName>) -> Option<u32> {
        if let Some(&id) = self.methods.get(&*name) {
            return Some(id);
        }
        let id = u32::try_from(self.methods.len()).ok()?;
        if id >= MAX_METHOD_ID {
            return None;
        }
        self.undefined.push(MethodDef {
            id,
            package: name.package.clone(),
            class: name.class.clone(),
            method: name.method.clone(),
            signature: None,
            file: None,
            line: None,
        });
        self.methods.insert(name, id);
        Some(id)
    }

    /// Places every waiting span that starts by `horizon_unix_ns` and closes every open one
    /// that ends by then; returns the messages that say so, in stream order (definitions,
    /// thread starts, event batches, a heartbeat at the horizon, the dropped totals when they
    /// grew). A horizon behind the last one changes nothing.
    pub fn advance(&mut self, horizon_unix_ns: u64) -> Vec<AgentMessage> {
        let horizon = horizon_unix_ns.max(self.emitted_unix_ns);
        while self
            .pending
            .peek()
            .is_some_and(|span| span.key.start_unix_ns <= horizon)
        {
            let Some(first) = self.pending.pop() else {
                break;
            };
            // Spans with the same start and end (clocks with a coarse tick) would go in
            // arrival order, which puts a child exported first outside its parent: place
            // such a run parents first.
            let mut run = std::mem::take(&mut self.run);
            run.push(first);
            while let Some(next) = self.pending.peek() {
                if next.key.start_unix_ns != run[0].key.start_unix_ns
                    || next.key.end_desc != run[0].key.end_desc
                {
                    break;
                }
                if let Some(next) = self.pending.pop() {
                    run.push(next);
                }
            }
            if run.len() > 1 {
                parents_first(&mut run);
            }
            for span in run.drain(..) {
                self.place(span);
            }
            self.run = run;
        }
        for index in 0..self.lanes.len() {
            self.close_until(index, horizon);
            if self.lanes[index].thread.is_none() && self.lanes[index].stack.is_empty() {
                self.release(index);
            }
            self.flush_lane(index);
        }
        self.emitted_unix_ns = horizon;
        let mut messages = Vec::new();
        for chunk in std::mem::take(&mut self.undefined).chunks(MAX_DEFINITIONS_PER_MESSAGE) {
            messages.push(AgentMessage::DefineMethods(chunk.to_vec()));
        }
        messages.append(&mut self.started_lanes);
        messages.append(&mut self.batches);
        messages.push(AgentMessage::Heartbeat {
            timestamp: self.wire_time(horizon),
        });
        let dropped = self.counts.late + self.counts.refused;
        if dropped != self.reported_dropped {
            self.reported_dropped = dropped;
            messages.push(AgentMessage::Dropped {
                // Each unplaced span is an enter and an exit that never were.
                events_dropped: dropped * 2,
                batches_dropped: 0,
            });
        }
        messages
    }

    /// Everything out: the horizon moves to the last end seen. Returns the messages and the
    /// session time they end at (for the Goodbye).
    pub fn finish(&mut self) -> (Vec<AgentMessage>, u64) {
        let end = self.latest_end_unix_ns.max(self.emitted_unix_ns);
        let messages = self.advance(end);
        (messages, self.wire_time(end))
    }

    /// Session time of a Unix time at or after the zero.
    pub fn wire_time(&self, unix_ns: u64) -> u64 {
        unix_ns.saturating_sub(self.zero_unix_ns)
    }

    fn place(&mut self, span: PendingSpan) {
        let start = span.key.start_unix_ns;
        let end = span.key.end_desc.0;
        let lane = match span.thread {
            Some(thread) => self.thread_lane(thread, &span, start, end),
            None => self.trace_lane(&span, start, end),
        };
        // Within the slop past its parent's end: it ends with it.
        let end = self.lanes[lane]
            .stack
            .last()
            .map_or(end, |open| end.min(open.end_unix_ns));
        self.push_event(lane, start, span.method_id, EventKind::Enter);
        self.lanes[lane].stack.push(OpenSpan {
            end_unix_ns: end,
            method_id: span.method_id,
            span_id: span.span_id,
        });
        self.counts.placed += 1;
    }

    /// The first lane of `thread` where a span from `start` to `end` nests, or a new one.
    fn thread_lane(&mut self, thread: i64, span: &PendingSpan, start: u64, end: u64) -> usize {
        let candidates = self.thread_lanes.get(&thread).map_or(0, Vec::len);
        for position in 0..candidates {
            let index = self.thread_lanes[&thread][position];
            self.settle(index, start, span.parent_span_id);
            if self.nests(index, end) {
                return index;
            }
        }
        let name = match self.thread_names.get(&thread) {
            Some(name) => name.clone(),
            None => format!("thread {thread}"),
        };
        let name = if candidates == 0 {
            name
        } else {
            // Overlapping, not nested: async work on that thread.
            format!("{name} ({})", candidates + 1)
        };
        let index = self.new_lane(Some(thread), name, start);
        self.thread_lanes.entry(thread).or_default().push(index);
        index
    }

    /// Under the span's parent if a lane of its trace has it on top, else in any lane of the
    /// trace where it nests, else a free pooled lane.
    fn trace_lane(&mut self, span: &PendingSpan, start: u64, end: u64) -> usize {
        let mut nesting = None;
        let mut position = 0;
        while let Some(&index) = self
            .trace_lanes
            .get(&span.trace_id)
            .and_then(|lanes| lanes.get(position))
        {
            self.settle(index, start, span.parent_span_id);
            if self.lanes[index].stack.is_empty() {
                // Out of the trace's list: the next lane moves up to `position`.
                self.release(index);
                continue;
            }
            let top = self.lanes[index].stack.last().map(|open| open.span_id);
            if span.parent_span_id != 0 && top == Some(span.parent_span_id) {
                return index;
            }
            if nesting.is_none() && self.nests(index, end) {
                nesting = Some(index);
            }
            position += 1;
        }
        if let Some(index) = nesting {
            return index;
        }
        while let Some(&Reverse((free_at, index))) = self.busy_pool.peek() {
            if free_at > start {
                break;
            }
            self.busy_pool.pop();
            self.settle(index, start, 0);
            self.release(index);
        }
        let index = match self.free_pool.pop() {
            Some(Reverse(index)) => index,
            None => {
                let name = format!("lane {}", self.lanes.len() + 1);
                self.new_lane(None, name, start)
            }
        };
        self.lanes[index].trace_id = span.trace_id;
        self.busy_pool.push(Reverse((end, index)));
        self.trace_lanes
            .entry(span.trace_id)
            .or_default()
            .push(index);
        index
    }

    /// A pooled lane whose stack is empty goes back to the pool.
    fn release(&mut self, index: usize) {
        let lane = &self.lanes[index];
        if lane.thread.is_some() || !lane.stack.is_empty() {
            return;
        }
        let trace_id = lane.trace_id;
        if let Some(lanes) = self.trace_lanes.get_mut(&trace_id) {
            let before = lanes.len();
            lanes.retain(|&other| other != index);
            if lanes.len() != before {
                self.free_pool.push(Reverse(index));
            }
            if lanes.is_empty() {
                self.trace_lanes.remove(&trace_id);
            }
        }
    }

    /// Whether a span ending at `end` fits in the lane's top span (within the slop).
    fn nests(&self, index: usize, end: u64) -> bool {
        self.lanes[index]
            .stack
            .last()
            .is_none_or(|open| open.end_unix_ns.saturating_add(SLOP_NS) >= end)
    }

    /// Closes what ended by `start`, and what ends within the slop after it (ending it at
    /// `start`), unless that is the new span's parent.
    fn settle(&mut self, index: usize, start: u64, parent_span_id: u64) {
        self.close_until(index, start);
        while let Some(open) = self.lanes[index].stack.last().copied() {
            if open.span_id == parent_span_id || open.end_unix_ns > start.saturating_add(SLOP_NS) {
                break;
            }
            self.lanes[index].stack.pop();
            self.push_event(index, start, open.method_id, EventKind::Exit);
        }
    }

    fn new_lane(&mut self, thread: Option<i64>, name: String, start: u64) -> usize {
        let index = self.lanes.len();
        let wire_id = index as u64 + 1;
        self.lanes.push(Lane {
            wire_id,
            thread,
            trace_id: 0,
            stack: Vec::new(),
            writer: None,
        });
        self.started_lanes.push(AgentMessage::ThreadStart {
            thread_id: wire_id,
            name,
            timestamp: self.wire_time(start),
        });
        index
    }

    /// Exits of the lane's open spans that end by `time`, innermost first.
    fn close_until(&mut self, index: usize, time: u64) {
        while let Some(open) = self.lanes[index].stack.last().copied() {
            if open.end_unix_ns > time {
                break;
            }
            self.lanes[index].stack.pop();
            self.push_event(index, open.end_unix_ns, open.method_id, EventKind::Exit);
        }
    }

    fn push_event(&mut self, index: usize, unix_ns: u64, method_id: u32, kind: EventKind) {
        let timestamp = self.wire_time(unix_ns);
        let lane = &mut self.lanes[index];
        let writer = lane
            .writer
            .get_or_insert_with(|| PackedEventWriter::new(lane.wire_id, timestamp));
        writer.push(timestamp, method_id, kind);
        if writer.len() >= MAX_BATCH_EVENTS {
            self.flush_lane(index);
        }
    }

    fn flush_lane(&mut self, index: usize) {
        if let Some(writer) = self.lanes[index].writer.take() {
            self.batches.push(AgentMessage::Events(writer.finish()));
        }
    }
}

#[cfg(test)]
mod tests {
    use highrise_protocol::{decode_events, Event};

    use super::*;

    const MS: u64 = 1_000_000;
    const ZERO: u64 = 1_700_000_000_000 * MS;

    fn span(trace: u128, id: u64, parent: u64, name: &str, start_ms: u64, end_ms: u64) -> SpanIn {
        SpanIn {
            trace_id: trace,
            span_id: id,
            parent_span_id: parent,
            start_unix_ns: ZERO + start_ms * MS,
            end_unix_ns: ZERO + end_ms * MS,
            name: Arc::new(MethodName {
                package: "app".into(),
                class: "Handler".into(),
                method: name.into(),
            }),
            thread: None,
            remote_parent: false,
        }
    }

    /// Each lane's events as (ms, method, enter?) after all the messages.
    fn lanes(messages: &[AgentMessage]) -> HashMap<u64, Vec<(u64, u32, bool)>> {
        let mut lanes: HashMap<u64, Vec<(u64, u32, bool)>> = HashMap::new();
        for message in messages {
            if let AgentMessage::Events(batch) = message {
                let mut events: Vec<Event> = Vec::new();
                decode_events(batch, 1, &mut events).expect("decodes");
                lanes.entry(batch.thread_id).or_default().extend(
                    events
                        .iter()
                        .map(|e| (e.timestamp_ns / MS, e.method_id, e.kind == EventKind::Enter)),
                );
            }
        }
        lanes
    }

    #[test]
    fn children_nest_under_parents_whatever_the_arrival_order() {
        let mut timeline = Timeline::new(ZERO);
        // Children end first and are exported first; the root comes last.
        timeline.add(span(1, 3, 2, "query", 20, 30));
        timeline.add(span(1, 2, 1, "load", 10, 40));
        timeline.add(span(1, 1, 0, "handle", 5, 100));
        let mut messages = timeline.advance(ZERO + 50 * MS);
        messages.extend(timeline.advance(ZERO + 200 * MS));
        let lanes = lanes(&messages);
        assert_eq!(lanes.len(), 1, "{lanes:?}");
        // Method ids in order of arrival: query 0, load 1, handle 2.
        assert_eq!(
            lanes[&1],
            vec![
                (5, 2, true),
                (10, 1, true),
                (20, 0, true),
                (30, 0, false),
                (40, 1, false),
                (100, 2, false)
            ]
        );
        assert_eq!(timeline.counts().placed, 3);
        assert!(timeline.is_idle());
    }

    #[test]
    fn concurrent_traces_get_lanes_and_free_lanes_are_reused() {
        let mut timeline = Timeline::new(ZERO);
        timeline.add(span(1, 1, 0, "a", 0, 10));
        timeline.add(span(2, 2, 0, "b", 5, 15));
        // Fan-out inside trace 3: two children at once.
        timeline.add(span(3, 3, 0, "c", 20, 60));
        timeline.add(span(3, 4, 3, "d", 25, 40));
        timeline.add(span(3, 5, 3, "d", 30, 50));
        let lanes = lanes(&timeline.advance(ZERO + 100 * MS));
        assert_eq!(timeline.lane_count(), 2, "{lanes:?}");
        let (a, b, c, d) = (0, 1, 2, 3);
        assert_eq!(
            lanes[&1],
            vec![
                (0, a, true),
                (10, a, false),
                (20, c, true),
                (25, d, true),
                (40, d, false),
                (60, c, false)
            ]
        );
        // The second child overlaps the first without nesting in it: beside, on lane 2.
        assert_eq!(
            lanes[&2],
            vec![(5, b, true), (15, b, false), (30, d, true), (50, d, false)]
        );
    }

    #[test]
    fn late_spans_are_counted_and_reported_as_dropped_not_placed() {
        let mut timeline = Timeline::new(ZERO);
        timeline.add(span(1, 1, 0, "early", 10, 20));
        let first = timeline.advance(ZERO + 100 * MS);
        assert_eq!(lanes(&first)[&1].len(), 2);
        // Starts before what was already shown.
        timeline.add(span(2, 2, 0, "late", 90, 150));
        // Before the session's zero.
        timeline.add(SpanIn {
            start_unix_ns: ZERO - 5 * MS,
            ..span(3, 3, 0, "before", 0, 1)
        });
        // Ten minutes and more ahead.
        timeline.add(span(4, 4, 0, "future", 11 * 60_000, 11 * 60_000 + 1));
        let messages = timeline.advance(ZERO + 200 * MS);
        assert!(lanes(&messages).is_empty());
        assert!(messages.contains(&AgentMessage::Dropped {
            events_dropped: 6,
            batches_dropped: 0
        }));
        let counts = timeline.counts();
        assert_eq!((counts.received, counts.placed), (4, 1));
        assert_eq!((counts.late, counts.refused), (2, 1));
    }

    #[test]
    fn threads_keep_their_names_and_async_overlap_goes_beside() {
        let mut timeline = Timeline::new(ZERO);
        let on_thread = |mut span: SpanIn| {
            span.thread = Some((7, Some("worker-1".into())));
            span
        };
        timeline.add(on_thread(span(1, 1, 0, "a", 0, 50)));
        timeline.add(on_thread(span(2, 2, 0, "b", 10, 20)));
        // Overlaps `a`'s end without nesting.
        timeline.add(on_thread(span(3, 3, 0, "c", 40, 70)));
        let messages = timeline.advance(ZERO + 100 * MS);
        let names: Vec<&str> = messages
            .iter()
            .filter_map(|message| match message {
                AgentMessage::ThreadStart { name, .. } => Some(name.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(names, ["worker-1", "worker-1 (2)"]);
        let lanes = lanes(&messages);
        assert_eq!(
            lanes[&1],
            vec![(0, 0, true), (10, 1, true), (20, 1, false), (50, 0, false)]
        );
        assert_eq!(lanes[&2], vec![(40, 2, true), (70, 2, false)]);
    }

    #[test]
    fn open_spans_close_across_advances_and_finish_closes_everything() {
        let mut timeline = Timeline::new(ZERO);
        timeline.add(span(1, 1, 0, "long", 10, 5_000));
        let first = lanes(&timeline.advance(ZERO + 100 * MS));
        assert_eq!(first[&1], vec![(10, 0, true)]);
        assert!(!timeline.is_idle());
        let (messages, end) = timeline.finish();
        assert_eq!(lanes(&messages)[&1], vec![(5_000, 0, false)]);
        assert_eq!(end, 5_000 * MS);
        assert!(timeline.is_idle());
    }

    #[test]
    fn a_parent_link_cycle_or_self_parent_changes_nothing() {
        let mut timeline = Timeline::new(ZERO);
        timeline.add(span(1, 1, 2, "x", 0, 30));
        timeline.add(span(1, 2, 1, "y", 10, 20));
        timeline.add(span(1, 3, 3, "z", 40, 50));
        let lanes = lanes(&timeline.advance(ZERO + 100 * MS));
        assert_eq!(
            lanes[&1],
            vec![
                (0, 0, true),
                (10, 1, true),
                (20, 1, false),
                (30, 0, false),
                (40, 2, true),
                (50, 2, false)
            ]
        );
    }

    #[test]
    fn clocks_a_millisecond_off_still_nest() {
        let mut timeline = Timeline::new(ZERO);
        let us = |ms: u64, micros: u64| ms * 1000 + micros;
        let at = |micros: u64| ZERO + micros * 1000;
        let exact = |trace, id, parent, name: &str, start: u64, end: u64| SpanIn {
            start_unix_ns: at(start),
            end_unix_ns: at(end),
            ..span(trace, id, parent, name, 0, 0)
        };
        // The child ends 0.8 ms after its parent; its sibling starts 0.5 ms before it ended.
        timeline.add(exact(1, 1, 0, "handle", us(0, 0), us(50, 0)));
        timeline.add(exact(1, 2, 1, "get", us(1, 0), us(4, 500)));
        timeline.add(exact(1, 3, 1, "query", us(4, 0), us(50, 800)));
        let lanes = lanes(&timeline.advance(ZERO + 100 * MS));
        assert_eq!(timeline.lane_count(), 1, "{lanes:?}");
        assert_eq!(
            lanes[&1],
            vec![
                (0, 0, true),
                (1, 1, true),
                (4, 1, false),
                (4, 2, true),
                (50, 2, false),
                (50, 0, false)
            ]
        );
    }

    #[test]
    fn spans_with_the_same_times_nest_parents_first_whatever_their_order() {
        let mut timeline = Timeline::new(ZERO);
        // A 10 ms clock tick: handle, its child query and query's child borrow all read
        // 10..20 ms; the SDK exports children first.
        timeline.add(span(1, 3, 2, "borrow", 10, 20));
        timeline.add(span(1, 2, 1, "query", 10, 20));
        timeline.add(span(1, 1, 0, "handle", 10, 20));
        let lanes = lanes(&timeline.advance(ZERO + 100 * MS));
        assert_eq!(timeline.lane_count(), 1, "{lanes:?}");
        // Method ids follow arrival: borrow 0, query 1, handle 2.
        assert_eq!(
            lanes[&1],
            vec![
                (10, 2, true),
                (10, 1, true),
                (10, 0, true),
                (20, 0, false),
                (20, 1, false),
                (20, 2, false)
            ]
        );
    }
}
