//! Shared test support: a reference implementation that computes the definitions exactly
//! from the full event list, and event builders.
#![allow(dead_code)]

use std::collections::{BTreeMap, HashSet};

use highrise_protocol::{Event, EventKind};

pub fn enter(timestamp_ns: u64, method_id: u32) -> Event {
    Event {
        timestamp_ns,
        method_id,
        kind: EventKind::Enter,
    }
}

pub fn exit(timestamp_ns: u64, method_id: u32) -> Event {
    Event {
        timestamp_ns,
        method_id,
        kind: EventKind::Exit,
    }
}

pub const MS: u64 = 1_000_000;
pub const S: u64 = 1_000_000_000;

/// Exact per-(method, thread) values over some interval.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct PairValues {
    pub exclusive_ns: u64,
    pub inclusive_ns: u64,
    pub calls: u64,
    pub present: bool,
}

/// Exact per-method values over an interval: the definitions.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct ExactStats {
    pub max_exclusive_ns: u64,
    pub sum_exclusive_ns: u64,
    pub max_inclusive_ns: u64,
    pub thread_count: u32,
    pub calls: u64,
}

#[derive(Debug, Clone, Default)]
struct RefThread {
    /// (method, enter_ns, counts_as_call)
    stack: Vec<(u32, u64)>,
    last_ns: u64,
    /// Committed exclusive segments: (method charged, from, to).
    segments: Vec<(u32, u64, u64)>,
    /// Closed frames: (method, enter, exit).
    closed: Vec<(u32, u64, u64)>,
    /// Counted enters: (method, timestamp).
    enters: Vec<(u32, u64)>,
}

/// The reference: keeps every interval, no buckets, no laziness. Stack semantics as
/// documented: a mismatched exit unwinds to the nearest matching frame (closing the ones above
/// at its timestamp), an exit with no matching frame is ignored, backwards timestamps are
/// raised to the thread's previous one, exclusion picks the nearest non-excluded frame using
/// the exclusion set current when the segment's end event is applied.
#[derive(Debug, Clone, Default)]
pub struct Reference {
    threads: BTreeMap<u64, RefThread>,
    pub now_ns: u64,
    excluded: HashSet<u32>,
}

impl Reference {
    pub fn set_excluded(&mut self, method_ids: &[u32]) {
        self.excluded = method_ids.iter().copied().collect();
    }

    fn charge_of(&self, stack: &[(u32, u64)]) -> Option<u32> {
        stack
            .iter()
            .rev()
            .map(|(method, _)| *method)
            .find(|method| !self.excluded.contains(method))
    }

    /// Moves a thread's clock to `t` (clamped), committing its exclusive segment.
    fn advance(&mut self, thread_id: u64, t: u64) -> u64 {
        let charge = {
            let thread = self.threads.entry(thread_id).or_default();
            let stack = thread.stack.clone();
            (stack, thread.last_ns)
        };
        let t = t.max(charge.1);
        let method = self.charge_of(&charge.0);
        let thread = self.threads.entry(thread_id).or_default();
        if let Some(method) = method {
            if t > thread.last_ns {
                thread.segments.push((method, thread.last_ns, t));
            }
        }
        thread.last_ns = t;
        self.now_ns = self.now_ns.max(t);
        t
    }

    fn pop(thread: &mut RefThread, t: u64) {
        if let Some((method, enter_ns)) = thread.stack.pop() {
            thread.closed.push((method, enter_ns, t));
        }
    }

    pub fn apply_events(&mut self, thread_id: u64, events: &[Event]) {
        for event in events {
            let t = self.advance(thread_id, event.timestamp_ns);
            let thread = self.threads.entry(thread_id).or_default();
            match event.kind {
                EventKind::Enter => {
                    thread.stack.push((event.method_id, t));
                    thread.enters.push((event.method_id, t));
                }
                EventKind::Exit => {
                    if let Some(position) = thread
                        .stack
                        .iter()
                        .rposition(|(method, _)| *method == event.method_id)
                    {
                        while thread.stack.len() > position {
                            Self::pop(thread, t);
                        }
                    }
                }
                // Time and calls only: memory records change neither.
                EventKind::Memory => {}
            }
        }
    }

    pub fn resync(&mut self, thread_id: u64, timestamp_ns: u64, stack: &[u32]) {
        let t = self.advance(thread_id, timestamp_ns);
        let thread = self.threads.entry(thread_id).or_default();
        let common = thread
            .stack
            .iter()
            .zip(stack)
            .take_while(|((method, _), wanted)| method == *wanted)
            .count();
        while thread.stack.len() > common {
            Self::pop(thread, t);
        }
        for &method in &stack[common..] {
            thread.stack.push((method, t));
        }
    }

    pub fn thread_ended(&mut self, thread_id: u64, timestamp_ns: u64) {
        if !self.threads.contains_key(&thread_id) {
            self.now_ns = self.now_ns.max(timestamp_ns);
            return;
        }
        let t = self.advance(thread_id, timestamp_ns);
        let thread = self.threads.entry(thread_id).or_default();
        while !thread.stack.is_empty() {
            Self::pop(thread, t);
        }
    }

    pub fn advance_to(&mut self, now_ns: u64) {
        self.now_ns = self.now_ns.max(now_ns);
    }

    /// Exact values of `method` on every thread over `[from_ns, now]`.
    pub fn pair_values(&self, method: u32, from_ns: u64) -> Vec<PairValues> {
        let now = self.now_ns;
        let overlap = |a: u64, b: u64| -> u64 {
            let (a, b) = (a.max(from_ns), b.min(now));
            b.saturating_sub(a)
        };
        let mut out = Vec::new();
        for thread in self.threads.values() {
            let mut values = PairValues::default();
            for &(charged, a, b) in &thread.segments {
                if charged == method {
                    values.exclusive_ns += overlap(a, b);
                }
            }
            if self.charge_of(&thread.stack) == Some(method) {
                values.exclusive_ns += overlap(thread.last_ns, now);
            }
            // Inclusive: measure of the union of this method's frame intervals.
            let mut intervals: Vec<(u64, u64)> = thread
                .closed
                .iter()
                .filter(|(m, _, _)| *m == method)
                .map(|(_, a, b)| (*a, *b))
                .chain(
                    thread
                        .stack
                        .iter()
                        .filter(|(m, _)| *m == method)
                        .map(|(_, a)| (*a, now)),
                )
                .map(|(a, b)| (a.max(from_ns), b.min(now)))
                .filter(|(a, b)| b > a)
                .collect();
            intervals.sort_unstable();
            let mut covered_to = 0u64;
            for (a, b) in intervals {
                let a = a.max(covered_to);
                if b > a {
                    values.inclusive_ns += b - a;
                    covered_to = b;
                }
            }
            values.calls = thread
                .enters
                .iter()
                .filter(|(m, t)| *m == method && *t >= from_ns && *t <= now)
                .count() as u64;
            let open = thread.stack.iter().any(|(m, _)| *m == method);
            values.present = open || values.calls > 0 || values.inclusive_ns > 0;
            out.push(values);
        }
        out
    }

    /// The definitions for `method` over `[from_ns, now]`.
    pub fn exact(&self, method: u32, from_ns: u64) -> ExactStats {
        let mut stats = ExactStats::default();
        for values in self.pair_values(method, from_ns) {
            stats.max_exclusive_ns = stats.max_exclusive_ns.max(values.exclusive_ns);
            stats.sum_exclusive_ns += values.exclusive_ns;
            stats.max_inclusive_ns = stats.max_inclusive_ns.max(values.inclusive_ns);
            stats.thread_count += u32::from(values.present);
            stats.calls += values.calls;
        }
        stats
    }
}
