//! A recording as each thread's stack changes ([`Timeline`]), which every writer replays,
//! and what the writers share.

use std::collections::HashMap;
use std::io::{Read, Seek};

use highrise_protocol::{
    decode_agent_message, decode_events, AgentMessage, ClassDef, MeasureMode, MemoryAmount,
    MethodDef,
};

use crate::{RecordError, RecordingReader};

/// A thread's stack: (thread index, methods outermost first).
pub(super) type ThreadStack = (usize, Vec<u32>);

/// What a thread's stack held: (ns on top, calls entered with it, samples of it).
pub(super) type StackTotal = (u64, u64, u64);

/// Objects of one class made (or freed) with a thread's stack on top: (thread, stack, class).
pub(super) type AllocationSite = (usize, Vec<u32>, u32);

/// What an [`AllocationSite`] made and freed: objects and bytes each.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct AllocationTotal {
    pub(super) objects: u64,
    pub(super) bytes: u64,
    pub(super) freed_objects: u64,
    pub(super) freed_bytes: u64,
}

/// What changed a thread's stack, at a time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Change {
    /// A call: the method is the new innermost frame.
    Enter(u32),
    /// A return from the method (the innermost frame of that method and those above it go).
    Exit(u32),
    /// The whole stack, outermost first: a sample, or an exact session's resync.
    Stack(Vec<u32>),
    /// Objects of a class made or freed by the innermost frame (a memory record).
    Memory(u32, MemoryAmount),
}

/// One thread: its name, its changes in time order, and when it ended.
#[derive(Debug, Clone, Default)]
pub struct ThreadLine {
    pub name: String,
    pub(super) changes: Vec<(u64, Change)>,
    pub(super) end_ns: Option<u64>,
}

/// A recording as each thread's stack changes, read whole.
#[derive(Debug, Clone, Default)]
pub struct Timeline {
    pub program: String,
    /// Every call seen (exact); else the stacks are samples.
    pub exact: bool,
    /// The sampling period (sampled sessions), ns.
    pub period_ns: u64,
    pub methods: HashMap<u32, MethodDef>,
    /// The classes memory records name.
    pub classes: HashMap<u32, ClassDef>,
    /// Threads in order of appearance.
    pub threads: Vec<ThreadLine>,
    /// The session's first and last times, ns.
    pub start_ns: u64,
    pub end_ns: u64,
}

impl Timeline {
    /// Reads the recording `reader` reads.
    pub fn read<R: Read + Seek>(mut reader: RecordingReader<R>) -> Result<Timeline, RecordError> {
        let mut timeline = Timeline {
            exact: true,
            start_ns: u64::MAX,
            ..Timeline::default()
        };
        let mut clock_unit_ns = 1u32;
        let mut thread_index: HashMap<u64, usize> = HashMap::new();
        let mut events = Vec::new();
        let mut amounts: Vec<MemoryAmount> = Vec::new();
        let mut line = |timeline: &mut Timeline, id: u64| -> usize {
            *thread_index.entry(id).or_insert_with(|| {
                timeline.threads.push(ThreadLine {
                    name: format!("thread {id}"),
                    ..ThreadLine::default()
                });
                timeline.threads.len() - 1
            })
        };
        for frame in reader.frames() {
            let frame = frame?;
            // A frame this build cannot decode (a newer agent's) is left out, as the report does.
            let Ok(message) = decode_agent_message(frame.payload()) else {
                continue;
            };
            let records = matches!(message, AgentMessage::Records(_));
            let seen = |timeline: &mut Timeline, at: u64| {
                timeline.start_ns = timeline.start_ns.min(at);
                timeline.end_ns = timeline.end_ns.max(at);
            };
            match message {
                AgentMessage::Hello(hello) => {
                    timeline.program = hello.program;
                    clock_unit_ns = hello.clock_unit_ns.max(1);
                }
                AgentMessage::Measure(measure) => {
                    timeline.exact = measure.mode == MeasureMode::Exact;
                    timeline.period_ns = u64::from(measure.sample_period_us) * 1000;
                }
                AgentMessage::DefineMethods(methods) => {
                    for method in methods {
                        timeline.methods.insert(method.id, method);
                    }
                }
                AgentMessage::DefineClasses(classes) => {
                    for class in classes {
                        timeline.classes.insert(class.id, class);
                    }
                }
                AgentMessage::ThreadStart {
                    thread_id,
                    name,
                    timestamp,
                } => {
                    let index = line(&mut timeline, thread_id);
                    timeline.threads[index].name = name;
                    seen(
                        &mut timeline,
                        timestamp.saturating_mul(clock_unit_ns.into()),
                    );
                }
                AgentMessage::ThreadEnd {
                    thread_id,
                    timestamp,
                } => {
                    let at = timestamp.saturating_mul(clock_unit_ns.into());
                    let index = line(&mut timeline, thread_id);
                    timeline.threads[index].end_ns = Some(at);
                    seen(&mut timeline, at);
                }
                AgentMessage::Events(batch) | AgentMessage::Records(batch) => {
                    events.clear();
                    amounts.clear();
                    let decoded = if records {
                        highrise_protocol::decode_records(
                            &batch,
                            clock_unit_ns,
                            &mut events,
                            &mut amounts,
                        )
                    } else {
                        decode_events(&batch, clock_unit_ns, &mut events)
                    };
                    if decoded.is_err() {
                        continue;
                    }
                    let index = line(&mut timeline, batch.thread_id);
                    // The k-th memory record's amounts are the k-th in `amounts`.
                    let mut amounts = amounts.iter();
                    for event in &events {
                        let change = match event.kind {
                            highrise_protocol::EventKind::Enter => Change::Enter(event.method_id),
                            highrise_protocol::EventKind::Exit => Change::Exit(event.method_id),
                            highrise_protocol::EventKind::Memory => match amounts.next() {
                                Some(amount) => Change::Memory(event.method_id, *amount),
                                None => continue,
                            },
                        };
                        timeline.threads[index]
                            .changes
                            .push((event.timestamp_ns, change));
                        seen(&mut timeline, event.timestamp_ns);
                    }
                }
                AgentMessage::Resync {
                    thread_id,
                    timestamp,
                    stack,
                } => {
                    let at = timestamp.saturating_mul(clock_unit_ns.into());
                    let index = line(&mut timeline, thread_id);
                    timeline.threads[index]
                        .changes
                        .push((at, Change::Stack(stack)));
                    seen(&mut timeline, at);
                }
                AgentMessage::Heartbeat { timestamp } | AgentMessage::Goodbye { timestamp } => {
                    seen(
                        &mut timeline,
                        timestamp.saturating_mul(clock_unit_ns.into()),
                    );
                }
                _ => {}
            }
        }
        if timeline.start_ns > timeline.end_ns {
            return Err(RecordError::InvalidProfile {
                reason: "the recording holds no timed message".into(),
            });
        }
        for thread in &mut timeline.threads {
            // Agents send a thread's batches in order; a resync may arrive late.
            thread.changes.sort_by_key(|(at, _)| *at);
        }
        Ok(timeline)
    }

    /// `package.Class.method` of a method id (`package.function` outside classes, `method#ID`
    /// if it was never defined).
    pub fn method_name(&self, id: u32) -> String {
        match self.methods.get(&id) {
            Some(m) if m.class == "<module>" && !m.package.is_empty() => {
                format!("{}.{}", m.package, m.method)
            }
            Some(m) if m.package.is_empty() => format!("{}.{}", m.class, m.method),
            Some(m) => format!("{}.{}.{}", m.package, m.class, m.method),
            None => format!("method#{id}"),
        }
    }

    /// Replays thread `index`: `visit(at_ns, stack, entered)` after each change, with the stack
    /// then (outermost first) and whether it was a call; a last visit at the thread's end with
    /// an empty stack.
    pub(super) fn replay(&self, index: usize, visit: impl FnMut(u64, &[u32], bool)) {
        self.replay_with_memory(index, visit, |_, _, _| {});
    }

    /// As [`Timeline::replay`], and `memory(stack, class, amount)` at each memory record, with
    /// the stack then.
    pub(super) fn replay_with_memory(
        &self,
        index: usize,
        mut visit: impl FnMut(u64, &[u32], bool),
        mut memory: impl FnMut(&[u32], u32, MemoryAmount),
    ) {
        let thread = &self.threads[index];
        let mut stack: Vec<u32> = Vec::new();
        let mut last_ns = self.start_ns;
        for (at, change) in &thread.changes {
            let at = (*at).max(last_ns);
            last_ns = at;
            let entered = match change {
                Change::Enter(method) => {
                    stack.push(*method);
                    true
                }
                Change::Exit(method) => {
                    // The innermost frame of that method goes, and any left open above it (a
                    // lost exit); an exit of a method not on the stack (its enter lost) is left out.
                    match stack.iter().rposition(|m| m == method) {
                        Some(depth) => stack.truncate(depth),
                        None => continue,
                    }
                    false
                }
                Change::Stack(new) => {
                    stack.clone_from(new);
                    false
                }
                Change::Memory(class, amount) => {
                    memory(&stack, *class, *amount);
                    continue;
                }
            };
            visit(at, &stack, entered);
        }
        let end = thread.end_ns.unwrap_or(self.end_ns).max(last_ns);
        visit(end, &[], false);
    }

    /// Each thread's time on top of each stack: (thread index, stack) → (ns, calls, samples).
    pub(super) fn stack_totals(&self) -> HashMap<ThreadStack, StackTotal> {
        let mut totals: HashMap<ThreadStack, StackTotal> = HashMap::new();
        for index in 0..self.threads.len() {
            let mut previous: Option<(u64, Vec<u32>)> = None;
            self.replay(index, |at, stack, entered| {
                if let Some((since, held)) = previous.take() {
                    // A stack held for no time is no sample: imported allocations stand at
                    // their stack for an instant, between two samples.
                    if !held.is_empty() && (at > since || self.exact) {
                        let total = totals.entry((index, held)).or_default();
                        total.0 = total.0.saturating_add(at - since);
                        total.2 += 1;
                    }
                }
                if entered {
                    totals.entry((index, stack.to_vec())).or_default().1 += 1;
                }
                previous = Some((at, stack.to_vec()));
            });
        }
        totals
    }

    /// What each thread's stacks made and freed, class by class (memory records on an empty
    /// stack, made before any frame opened, are left out as time there is).
    pub(super) fn allocation_totals(&self) -> HashMap<AllocationSite, AllocationTotal> {
        let mut totals: HashMap<AllocationSite, AllocationTotal> = HashMap::new();
        for index in 0..self.threads.len() {
            self.replay_with_memory(
                index,
                |_, _, _| {},
                |stack, class, amount| {
                    if stack.is_empty() {
                        return;
                    }
                    let total = totals.entry((index, stack.to_vec(), class)).or_default();
                    let (objects, bytes) = if amount.free {
                        (&mut total.freed_objects, &mut total.freed_bytes)
                    } else {
                        (&mut total.objects, &mut total.bytes)
                    };
                    *objects = objects.saturating_add(amount.count);
                    *bytes = bytes.saturating_add(amount.bytes);
                },
            );
        }
        totals
    }

    /// How people read class `id` (`class#ID` if it was never defined).
    pub fn class_name(&self, id: u32) -> String {
        self.classes
            .get(&id)
            .map_or_else(|| format!("class#{id}"), ClassDef::display_name)
    }
}

/// From `previous` to `stack` (outermost first): the frames that closed (outermost first) and
/// those that opened, below the part they share.
pub(super) fn stack_change<'a>(previous: &'a [u32], stack: &'a [u32]) -> (&'a [u32], &'a [u32]) {
    let common = previous
        .iter()
        .zip(stack)
        .take_while(|(a, b)| a == b)
        .count();
    (&previous[common..], &stack[common..])
}

/// The methods in a timeline's stacks, as dense frame indices (for speedscope and Chrome).
pub(super) fn frame_indices(timeline: &Timeline) -> (Vec<u32>, HashMap<u32, usize>) {
    let mut ids: Vec<u32> = timeline.methods.keys().copied().collect();
    for thread in &timeline.threads {
        for (_, change) in &thread.changes {
            match change {
                Change::Enter(id) | Change::Exit(id) => ids.push(*id),
                Change::Stack(stack) => ids.extend(stack),
                Change::Memory(..) => {}
            }
        }
    }
    ids.sort_unstable();
    ids.dedup();
    let index = ids.iter().enumerate().map(|(i, &id)| (id, i)).collect();
    (ids, index)
}
