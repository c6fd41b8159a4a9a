//! Recordings written out for other tools: [`export`] reads a recording (or any profile
//! [`RecordingReader::open`](crate::RecordingReader::open) reads) and writes it as
//!
//! - **pprof** (gzipped `profile.proto`): one sample per thread and stack. An exact session's
//!   values are `wall`/`nanoseconds` (time with that stack on top) and `calls`/`count` (how many
//!   times the stack's innermost method was entered with that stack); a sampled one's
//!   `samples`/`count` and `wall`/`nanoseconds` (samples × the time each lasted). The thread is
//!   the label `thread`. Memory records add `alloc_objects`/`alloc_space` (and
//!   `free_objects`/`free_space` where frees were counted), as Go's heap profiles name them: one
//!   sample per thread, stack and class, the class as the label `class`. `wall` is the default
//!   type.
//! - **speedscope** JSON: a profile per thread; exact sessions as `evented` (every enter and exit
//!   at its time), sampled ones as `sampled` (each sample weighted by the time it lasted). Memory
//!   records add a `sampled` profile per thread, "NAME: allocated bytes" (objects where bytes were
//!   not measured): each stack with the class made as its innermost frame.
//! - **collapsed** stacks (`a;b;c N`): an exact session's N is microseconds on top, a sampled
//!   one's the count of samples; with several threads each stack starts with `thread (NAME)`, as
//!   py-spy writes it. Time only: the format holds one value per stack.
//! - **Chrome trace events** JSON: begin/end (`B`/`E`) events per thread, from every enter and
//!   exit (exact) or from the change between successive samples (sampled: a flame chart of the
//!   samples), with the threads' names as metadata. Time only.
//!
//! A method is named `package.Class.method` (`package.function` outside classes). Where to start: [`export`], then [`Timeline`] (a
//! recording as each thread's stack changes), which every writer replays.

use std::collections::HashMap;
use std::io::Write;
use std::path::Path;

use highrise_protocol::{
    decode_agent_message, decode_events, AgentMessage, ClassDef, MeasureMode, MemoryAmount,
    MethodDef,
};

use crate::{RecordError, RecordingReader};

/// A thread's stack: (thread index, methods outermost first).
type ThreadStack = (usize, Vec<u32>);

/// What a thread's stack held: (ns on top, calls entered with it, samples of it).
type StackTotal = (u64, u64, u64);

/// Objects of one class made (or freed) with a thread's stack on top: (thread, stack, class).
type AllocationSite = (usize, Vec<u32>, u32);

/// What an [`AllocationSite`] made and freed: objects and bytes each.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord)]
struct AllocationTotal {
    objects: u64,
    bytes: u64,
    freed_objects: u64,
    freed_bytes: u64,
}

/// A format [`export`] writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExportFormat {
    Pprof,
    Speedscope,
    Collapsed,
    Chrome,
}

impl ExportFormat {
    /// The file extension an export of this format gets (`pb.gz`, `speedscope.json`, …).
    pub fn extension(self) -> &'static str {
        match self {
            ExportFormat::Pprof => "pb.gz",
            ExportFormat::Speedscope => "speedscope.json",
            ExportFormat::Collapsed => "collapsed.txt",
            ExportFormat::Chrome => "trace.json",
        }
    }
}

impl std::str::FromStr for ExportFormat {
    type Err = String;

    fn from_str(name: &str) -> Result<Self, String> {
        match name {
            "pprof" => Ok(ExportFormat::Pprof),
            "speedscope" => Ok(ExportFormat::Speedscope),
            "collapsed" | "folded" => Ok(ExportFormat::Collapsed),
            "chrome" | "perfetto" => Ok(ExportFormat::Chrome),
            other => Err(format!(
                "{other:?} is not an export format: pprof, speedscope, collapsed or chrome"
            )),
        }
    }
}

/// What changed a thread's stack, at a time.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Change {
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
    changes: Vec<(u64, Change)>,
    end_ns: Option<u64>,
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
    /// Reads the recording (or profile) at `path`.
    pub fn read(path: &Path) -> Result<Timeline, RecordError> {
        let mut reader = RecordingReader::open(path)?;
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
    fn replay(&self, index: usize, visit: impl FnMut(u64, &[u32], bool)) {
        self.replay_with_memory(index, visit, |_, _, _| {});
    }

    /// As [`Timeline::replay`], and `memory(stack, class, amount)` at each memory record, with
    /// the stack then.
    fn replay_with_memory(
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
    fn stack_totals(&self) -> HashMap<ThreadStack, StackTotal> {
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
    fn allocation_totals(&self) -> HashMap<AllocationSite, AllocationTotal> {
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

/// Writes the recording (or profile) at `path` as `format` into `out`.
pub fn export(path: &Path, format: ExportFormat, out: impl Write) -> Result<(), RecordError> {
    let timeline = Timeline::read(path)?;
    match format {
        ExportFormat::Pprof => write_pprof(&timeline, out),
        ExportFormat::Speedscope => write_speedscope(&timeline, out),
        ExportFormat::Collapsed => write_collapsed(&timeline, out),
        ExportFormat::Chrome => write_chrome(&timeline, out),
    }
}

fn write_collapsed(timeline: &Timeline, mut out: impl Write) -> Result<(), RecordError> {
    let names: HashMap<u32, String> = timeline
        .methods
        .keys()
        .map(|&id| (id, timeline.method_name(id).replace([';', '\n'], ":")))
        .collect();
    let name = |id: &u32| {
        names
            .get(id)
            .cloned()
            .unwrap_or_else(|| timeline.method_name(*id))
    };
    let mut lines: Vec<(String, u64)> = timeline
        .stack_totals()
        .into_iter()
        .filter_map(|((thread, stack), (ns, _calls, samples))| {
            let weight = if timeline.exact {
                (ns + 500) / 1000
            } else {
                samples
            };
            let mut frames: Vec<String> = stack.iter().map(name).collect();
            if timeline.threads.len() > 1 {
                let thread_name = timeline.threads[thread].name.replace([';', '\n'], ":");
                frames.insert(0, format!("thread ({thread_name})"));
            }
            (weight > 0).then(|| (frames.join(";"), weight))
        })
        .collect();
    lines.sort();
    for (stack, weight) in lines {
        writeln!(out, "{stack} {weight}")?;
    }
    out.flush()?;
    Ok(())
}

fn write_pprof(timeline: &Timeline, mut out: impl Write) -> Result<(), RecordError> {
    use crate::pprof::{Function, Label, Line, Location, Profile, Sample, ValueType};
    let mut strings: Vec<String> = vec![String::new()];
    let mut string_ids: HashMap<String, i64> = HashMap::new();
    let mut text = |s: &str| -> i64 {
        if s.is_empty() {
            return 0;
        }
        if let Some(&id) = string_ids.get(s) {
            return id;
        }
        strings.push(s.to_owned());
        string_ids.insert(s.to_owned(), strings.len() as i64 - 1);
        strings.len() as i64 - 1
    };
    let wall = ValueType {
        r#type: text("wall"),
        unit: text("nanoseconds"),
    };
    let mut sample_type = if timeline.exact {
        vec![
            wall.clone(),
            ValueType {
                r#type: text("calls"),
                unit: text("count"),
            },
        ]
    } else {
        vec![
            ValueType {
                r#type: text("samples"),
                unit: text("count"),
            },
            wall.clone(),
        ]
    };
    // Allocations as Go's heap profiles name them, each class a label; frees where counted.
    let allocations = timeline.allocation_totals();
    let freed = allocations.values().any(|t| t.freed_objects > 0);
    if !allocations.is_empty() {
        let mut types = vec![("alloc_objects", "count"), ("alloc_space", "bytes")];
        if freed {
            types.extend([("free_objects", "count"), ("free_space", "bytes")]);
        }
        for (kind, unit) in types {
            sample_type.push(ValueType {
                r#type: text(kind),
                unit: text(unit),
            });
        }
    }
    let values_per_sample = sample_type.len();
    // One function and one location per method; location id = function id = method id + 1.
    let mut ids: Vec<u32> = timeline.methods.keys().copied().collect();
    let totals = timeline.stack_totals();
    for (_, stack) in totals.keys() {
        ids.extend(stack.iter().filter(|id| !timeline.methods.contains_key(id)));
    }
    for (_, stack, _) in allocations.keys() {
        ids.extend(stack.iter().filter(|id| !timeline.methods.contains_key(id)));
    }
    ids.sort_unstable();
    ids.dedup();
    let mut function = Vec::with_capacity(ids.len());
    let mut location = Vec::with_capacity(ids.len());
    for &id in &ids {
        let name = text(&timeline.method_name(id));
        let def = timeline.methods.get(&id);
        let filename = text(def.and_then(|m| m.file.as_deref()).unwrap_or(""));
        let line = def.and_then(|m| m.line).map_or(0, i64::from);
        function.push(Function {
            id: u64::from(id) + 1,
            name,
            system_name: name,
            filename,
            start_line: line,
        });
        location.push(Location {
            id: u64::from(id) + 1,
            line: vec![Line {
                function_id: u64::from(id) + 1,
                line,
                column: 0,
            }],
            ..Location::default()
        });
    }
    let thread_key = text("thread");
    let class_key = text("class");
    let thread_names: Vec<i64> = timeline.threads.iter().map(|t| text(&t.name)).collect();
    let thread_label = |thread: usize| Label {
        key: thread_key,
        str: thread_names[thread],
        ..Label::default()
    };
    let locations = |stack: &[u32]| stack.iter().rev().map(|&id| u64::from(id) + 1).collect();
    let mut totals: Vec<(ThreadStack, StackTotal)> = totals.into_iter().collect();
    totals.sort();
    let mut sample: Vec<Sample> = totals
        .into_iter()
        .filter(|((_, stack), (ns, calls, samples))| {
            !stack.is_empty() && (*ns > 0 || *calls > 0 || *samples > 0)
        })
        .map(|((thread, stack), (ns, calls, samples))| {
            let mut value = if timeline.exact {
                vec![ns as i64, calls as i64]
            } else {
                vec![samples as i64, ns as i64]
            };
            value.resize(values_per_sample, 0);
            Sample {
                location_id: locations(&stack),
                value,
                label: vec![thread_label(thread)],
            }
        })
        .collect();
    let mut allocations: Vec<(AllocationSite, AllocationTotal)> = allocations.into_iter().collect();
    allocations.sort();
    for ((thread, stack, class), total) in allocations {
        let mut value = vec![0; 2];
        value.extend([total.objects as i64, total.bytes as i64]);
        if freed {
            value.extend([total.freed_objects as i64, total.freed_bytes as i64]);
        }
        let class_label = Label {
            key: class_key,
            str: text(&timeline.class_name(class)),
            ..Label::default()
        };
        sample.push(Sample {
            location_id: locations(&stack),
            value,
            label: vec![thread_label(thread), class_label],
        });
    }
    let profile = Profile {
        sample_type,
        sample,
        location,
        function,
        time_nanos: 0,
        duration_nanos: timeline.end_ns.saturating_sub(timeline.start_ns) as i64,
        period_type: Some(wall),
        period: if timeline.exact {
            1
        } else {
            timeline.period_ns as i64
        },
        // The time first in `go tool pprof` and its peers (they default to the last type).
        default_sample_type: text("wall"),
        string_table: strings,
        ..Profile::default()
    };
    out.write_all(&crate::pprof::encode_gzipped(&profile))?;
    out.flush()?;
    Ok(())
}

/// From `previous` to `stack` (outermost first): the frames that closed (outermost first) and
/// those that opened, below the part they share.
fn stack_change<'a>(previous: &'a [u32], stack: &'a [u32]) -> (&'a [u32], &'a [u32]) {
    let common = previous
        .iter()
        .zip(stack)
        .take_while(|(a, b)| a == b)
        .count();
    (&previous[common..], &stack[common..])
}

/// The methods in a timeline's stacks, as dense frame indices (for speedscope and Chrome).
fn frame_indices(timeline: &Timeline) -> (Vec<u32>, HashMap<u32, usize>) {
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

fn write_speedscope(timeline: &Timeline, mut out: impl Write) -> Result<(), RecordError> {
    use serde_json::json;
    let (ids, index) = frame_indices(timeline);
    let mut frames: Vec<serde_json::Value> = ids
        .iter()
        .map(|&id| {
            let mut frame = json!({ "name": timeline.method_name(id) });
            if let Some(def) = timeline.methods.get(&id) {
                if let Some(file) = &def.file {
                    frame["file"] = json!(file);
                }
                if let Some(line) = def.line {
                    frame["line"] = json!(line);
                }
            }
            frame
        })
        .collect();
    let mut profiles = Vec::with_capacity(timeline.threads.len());
    for (thread, line) in timeline.threads.iter().enumerate() {
        let mut previous: Vec<u32> = Vec::new();
        let mut start = None;
        let mut end = timeline.start_ns;
        if timeline.exact {
            let mut events = Vec::new();
            timeline.replay(thread, |at, stack, _| {
                start.get_or_insert(at);
                end = at;
                let (closed, opened) = stack_change(&previous, stack);
                for &id in closed.iter().rev() {
                    events.push(json!({ "type": "C", "frame": index[&id], "at": at }));
                }
                for &id in opened {
                    events.push(json!({ "type": "O", "frame": index[&id], "at": at }));
                }
                previous = stack.to_vec();
            });
            profiles.push(json!({
                "type": "evented", "name": line.name, "unit": "nanoseconds",
                "startValue": start.unwrap_or(end), "endValue": end, "events": events,
            }));
        } else {
            let (mut samples, mut weights) = (Vec::new(), Vec::new());
            let mut since = None;
            timeline.replay(thread, |at, stack, _| {
                start.get_or_insert(at);
                end = at;
                match since {
                    // A stack held for no time (an imported allocation's instant) is no sample.
                    Some(since) if at > since => {
                        samples.push(previous.iter().map(|id| index[id]).collect::<Vec<_>>());
                        weights.push(at - since);
                    }
                    _ => {}
                }
                since = Some(at);
                previous = stack.to_vec();
            });
            profiles.push(json!({
                "type": "sampled", "name": line.name, "unit": "nanoseconds",
                "startValue": start.unwrap_or(end), "endValue": end,
                "samples": samples, "weights": weights,
            }));
        }
    }
    // Allocations: a sampled profile per thread that made any, each stack with the class made
    // as its innermost frame (as async-profiler's allocation flame graphs show them), weighed
    // in bytes where they were measured, else in objects.
    let mut allocations: Vec<(AllocationSite, AllocationTotal)> =
        timeline.allocation_totals().into_iter().collect();
    allocations.sort();
    let in_bytes = allocations.iter().any(|(_, total)| total.bytes > 0);
    let mut class_frames: HashMap<u32, usize> = HashMap::new();
    // Sorted by thread first: one run of sites per thread.
    for sites in allocations.chunk_by(|((a, _, _), _), ((b, _, _), _)| a == b) {
        let thread = sites[0].0 .0;
        let (mut samples, mut weights) = (Vec::new(), Vec::new());
        for ((_, stack, class), total) in sites {
            let weight = if in_bytes { total.bytes } else { total.objects };
            if weight == 0 {
                continue;
            }
            let class_frame = *class_frames.entry(*class).or_insert_with(|| {
                frames.push(json!({ "name": timeline.class_name(*class) }));
                frames.len() - 1
            });
            let mut sample: Vec<usize> = stack.iter().map(|id| index[id]).collect();
            sample.push(class_frame);
            samples.push(sample);
            weights.push(weight);
        }
        if samples.is_empty() {
            continue;
        }
        let total: u64 = weights.iter().sum();
        let (what, unit) = if in_bytes {
            ("allocated bytes", "bytes")
        } else {
            ("allocated objects", "none")
        };
        profiles.push(json!({
            "type": "sampled", "name": format!("{}: {what}", timeline.threads[thread].name), "unit": unit,
            "startValue": 0, "endValue": total, "samples": samples, "weights": weights,
        }));
    }
    let file = json!({
        "$schema": "https://www.speedscope.app/file-format-schema.json",
        "shared": { "frames": frames },
        "profiles": profiles,
        "name": timeline.program,
        "activeProfileIndex": 0,
        "exporter": format!("highrise {}", env!("CARGO_PKG_VERSION")),
    });
    serde_json::to_writer(&mut out, &file).map_err(std::io::Error::from)?;
    out.flush()?;
    Ok(())
}

fn write_chrome(timeline: &Timeline, mut out: impl Write) -> Result<(), RecordError> {
    use serde_json::json;
    let (ids, _) = frame_indices(timeline);
    let names: HashMap<u32, (String, String)> = ids
        .iter()
        .map(|&id| {
            let package = timeline
                .methods
                .get(&id)
                .map_or_else(String::new, |m| m.package.clone());
            (id, (timeline.method_name(id), package))
        })
        .collect();
    let us = |ns: u64| (ns - timeline.start_ns) as f64 / 1000.0;
    write!(out, "{{\"displayTimeUnit\":\"ns\",\"traceEvents\":[")?;
    let mut first = true;
    let mut event = |out: &mut dyn Write, value: serde_json::Value| -> std::io::Result<()> {
        if !std::mem::take(&mut first) {
            out.write_all(b",\n")?;
        }
        serde_json::to_writer(&mut *out, &value).map_err(std::io::Error::from)
    };
    event(
        &mut out,
        json!({"ph": "M", "name": "process_name", "pid": 1, "tid": 0,
               "args": {"name": timeline.program}}),
    )?;
    for (thread, line) in timeline.threads.iter().enumerate() {
        let tid = thread + 1;
        event(
            &mut out,
            json!({"ph": "M", "name": "thread_name", "pid": 1, "tid": tid,
                   "args": {"name": line.name}}),
        )?;
        let mut previous: Vec<u32> = Vec::new();
        let mut failed = None;
        timeline.replay(thread, |at, stack, _| {
            if failed.is_some() {
                return;
            }
            let (closed, opened) = stack_change(&previous, stack);
            let ts = us(at);
            let ends = closed.iter().rev().map(|id| ("E", id));
            for (phase, id) in ends.chain(opened.iter().map(|id| ("B", id))) {
                let (name, package) = &names[id];
                if let Err(e) = event(
                    &mut out,
                    json!({"ph": phase, "name": name, "cat": package, "ts": ts, "pid": 1, "tid": tid}),
                ) {
                    failed = Some(e);
                    return;
                }
            }
            previous = stack.to_vec();
        });
        if let Some(e) = failed {
            return Err(e.into());
        }
    }
    writeln!(out, "]}}")?;
    out.flush()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::import::{convert_bytes, ProfileFormat};

    /// A recording in a temp file, made from a Chrome trace (exact) or folded stacks (sampled).
    fn recording(name: &str, format: ProfileFormat, profile: &str) -> std::path::PathBuf {
        let path = std::env::temp_dir().join(format!(
            "highrise-export-{}-{name}.hrec",
            std::process::id()
        ));
        let mut out = Vec::new();
        convert_bytes(profile.as_bytes(), format, name, &mut out).expect("converts");
        std::fs::write(&path, out).expect("writes");
        path
    }

    /// Two threads: on `main`, `app.Game.run` 0..20 µs calls `app.Board.step` twice (2..5 and
    /// 10..14 µs); on `worker`, `app.Io.read` 0..8 µs.
    const TRACE: &str = r#"{"traceEvents":[
        {"ph":"M","pid":1,"tid":1,"name":"thread_name","args":{"name":"main"}},
        {"ph":"M","pid":1,"tid":2,"name":"thread_name","args":{"name":"worker"}},
        {"ph":"X","pid":1,"tid":1,"ts":100,"dur":20,"name":"app.Game.run"},
        {"ph":"X","pid":1,"tid":1,"ts":102,"dur":3,"name":"app.Board.step"},
        {"ph":"X","pid":1,"tid":1,"ts":110,"dur":4,"name":"app.Board.step"},
        {"ph":"X","pid":1,"tid":2,"ts":100,"dur":8,"name":"app.Io.read"}]}"#;

    fn exported(path: &Path, format: ExportFormat) -> Vec<u8> {
        let mut out = Vec::new();
        export(path, format, &mut out).expect("exports");
        out
    }

    #[test]
    fn an_exact_session_exports_its_time_and_calls_to_pprof() {
        let path = recording("exact-pprof", ProfileFormat::ChromeTrace, TRACE);
        let profile = crate::pprof::decode(&exported(&path, ExportFormat::Pprof)).expect("pprof");
        let text = |i: i64| profile.string_table[i as usize].as_str();
        let types: Vec<(&str, &str)> = profile
            .sample_type
            .iter()
            .map(|t| (text(t.r#type), text(t.unit)))
            .collect();
        assert_eq!(types, [("wall", "nanoseconds"), ("calls", "count")]);
        let name_of_location = |id: u64| {
            let location = profile
                .location
                .iter()
                .find(|l| l.id == id)
                .expect("location");
            let function = profile
                .function
                .iter()
                .find(|f| f.id == location.line[0].function_id)
                .expect("function");
            text(function.name).to_owned()
        };
        let mut samples: Vec<(String, Vec<i64>, String)> = profile
            .sample
            .iter()
            .map(|s| {
                let stack: Vec<String> =
                    s.location_id.iter().map(|&l| name_of_location(l)).collect();
                (
                    stack.join("<"),
                    s.value.clone(),
                    text(s.label[0].str).to_owned(),
                )
            })
            .collect();
        samples.sort();
        assert_eq!(
            samples,
            [
                (
                    "app.Board.step<app.Game.run".to_owned(),
                    vec![7_000, 2],
                    "main".to_owned()
                ),
                (
                    "app.Game.run".to_owned(),
                    vec![13_000, 1],
                    "main".to_owned()
                ),
                (
                    "app.Io.read".to_owned(),
                    vec![8_000, 1],
                    "worker".to_owned()
                ),
            ]
        );
        let _ = std::fs::remove_file(path);
    }

    #[test]
    fn collapsed_speedscope_and_chrome_exports_hold_the_same_calls() {
        let path = recording("exact-text", ProfileFormat::ChromeTrace, TRACE);
        let collapsed = String::from_utf8(exported(&path, ExportFormat::Collapsed)).expect("utf-8");
        assert_eq!(
            collapsed.lines().collect::<Vec<_>>(),
            [
                "thread (main);app.Game.run 13",
                "thread (main);app.Game.run;app.Board.step 7",
                "thread (worker);app.Io.read 8",
            ]
        );
        let speedscope: serde_json::Value =
            serde_json::from_slice(&exported(&path, ExportFormat::Speedscope)).expect("json");
        let main = &speedscope["profiles"][0];
        assert_eq!(main["type"], "evented");
        assert_eq!(main["name"], "main");
        let opens = main["events"]
            .as_array()
            .expect("events")
            .iter()
            .filter(|e| e["type"] == "O")
            .count();
        assert_eq!(opens, 3, "run and two steps");
        // The Chrome export read back by the importer: the same calls, as exact events.
        let chrome = exported(&path, ExportFormat::Chrome);
        let again =
            std::env::temp_dir().join(format!("highrise-export-{}-again.json", std::process::id()));
        std::fs::write(&again, &chrome).expect("writes");
        let back = exported(&again, ExportFormat::Collapsed);
        assert_eq!(String::from_utf8(back).expect("utf-8"), collapsed);
        let _ = std::fs::remove_file(path);
        let _ = std::fs::remove_file(again);
    }

    #[test]
    fn a_sampled_session_exports_its_samples() {
        let path = recording("sampled", ProfileFormat::Folded, "a.B.c;a.B.d 3\na.B.c 1\n");
        let collapsed = String::from_utf8(exported(&path, ExportFormat::Collapsed)).expect("utf-8");
        assert_eq!(collapsed, "a.B.c 1\na.B.c;a.B.d 3\n");
        let speedscope: serde_json::Value =
            serde_json::from_slice(&exported(&path, ExportFormat::Speedscope)).expect("json");
        let profile = &speedscope["profiles"][0];
        assert_eq!(profile["type"], "sampled");
        assert_eq!(profile["samples"].as_array().map(Vec::len), Some(4));
        let profile = crate::pprof::decode(&exported(&path, ExportFormat::Pprof)).expect("pprof");
        let mut counts: Vec<i64> = profile.sample.iter().map(|s| s.value[0]).collect();
        counts.sort_unstable();
        assert_eq!(counts, [1, 3]);
        assert_eq!(profile.period, crate::import::FOLDED_PERIOD_NS as i64);
        let _ = std::fs::remove_file(path);
    }

    /// An exact session whose `app.Game.run` makes 3 `app.Piece` (48 B) and calls
    /// `app.Board.step`, which makes one `int[]` of 1000 B and frees 2 `app.Piece` (32 B).
    fn recording_with_memory(name: &str) -> std::path::PathBuf {
        use highrise_protocol::{
            encode_frame, ClassKind, EventKind, Hello, PackedRecordWriter, MAGIC, PROTOCOL_VERSION,
        };
        let path = std::env::temp_dir().join(format!(
            "highrise-export-{}-{name}.hrec",
            std::process::id()
        ));
        let file = std::fs::File::create(&path).expect("creates");
        let mut writer =
            crate::RecordingWriter::new(file, &crate::RecordingHeader::new(0)).expect("writer");
        let method = |id: u32, class: &str, method: &str| MethodDef {
            id,
            package: "app".into(),
            class: class.into(),
            method: method.into(),
            signature: None,
            file: None,
            line: None,
        };
        let class = |id: u32, package: &str, name: &str, kind: ClassKind| ClassDef {
            id,
            package: package.into(),
            name: name.into(),
            kind,
        };
        let amount = |count: u64, bytes: u64, free: bool| MemoryAmount { count, bytes, free };
        let mut records = PackedRecordWriter::new(1, 1_000);
        records.push(1_000, 0, EventKind::Enter);
        records.push_memory(1_500, 0, amount(3, 48, false));
        records.push(2_000, 1, EventKind::Enter);
        records.push_memory(2_500, 1, amount(1, 1_000, false));
        records.push_memory(2_600, 0, amount(2, 32, true));
        records.push(3_000, 1, EventKind::Exit);
        records.push(5_000, 0, EventKind::Exit);
        let messages = [
            AgentMessage::Hello(Hello {
                magic: MAGIC,
                protocol_version: PROTOCOL_VERSION,
                agent: "test".into(),
                program: "game".into(),
                version_label: String::new(),
                pid: 1,
                clock_unit_ns: 1,
                clock_zero_unix_ns: 0,
            }),
            AgentMessage::DefineMethods(vec![method(0, "Game", "run"), method(1, "Board", "step")]),
            AgentMessage::DefineClasses(vec![
                class(0, "app", "Piece", ClassKind::Class),
                class(1, "", "int[]", ClassKind::Array),
            ]),
            AgentMessage::ThreadStart {
                thread_id: 1,
                name: "main".into(),
                timestamp: 1_000,
            },
            AgentMessage::Records(records.finish()),
            AgentMessage::Goodbye { timestamp: 5_000 },
        ];
        for message in &messages {
            let frame = encode_frame(message).expect("encodes");
            writer.write_frame(0, &frame, 0).expect("writes");
        }
        writer.finish().expect("finishes");
        path
    }

    #[test]
    fn pprof_and_speedscope_exports_carry_what_each_stack_allocated_and_freed() {
        let path = recording_with_memory("memory");
        let profile = crate::pprof::decode(&exported(&path, ExportFormat::Pprof)).expect("pprof");
        let text = |i: i64| profile.string_table[i as usize].as_str();
        let types: Vec<&str> = profile.sample_type.iter().map(|t| text(t.r#type)).collect();
        assert_eq!(
            types,
            [
                "wall",
                "calls",
                "alloc_objects",
                "alloc_space",
                "free_objects",
                "free_space"
            ]
        );
        assert_eq!(text(profile.default_sample_type), "wall");
        let function_of = |location: u64| {
            let id = profile
                .location
                .iter()
                .find(|l| l.id == location)
                .expect("location")
                .line[0]
                .function_id;
            text(
                profile
                    .function
                    .iter()
                    .find(|f| f.id == id)
                    .expect("function")
                    .name,
            )
        };
        let mut samples: Vec<(String, String, Vec<i64>)> = profile
            .sample
            .iter()
            .map(|s| {
                let stack: Vec<&str> = s.location_id.iter().map(|&l| function_of(l)).collect();
                let class = s
                    .label
                    .iter()
                    .find(|l| text(l.key) == "class")
                    .map_or("", |l| text(l.str));
                (stack.join("<"), class.to_owned(), s.value.clone())
            })
            .collect();
        samples.sort();
        assert_eq!(
            samples,
            [
                (
                    "app.Board.step<app.Game.run".into(),
                    String::new(),
                    vec![1_000, 1, 0, 0, 0, 0]
                ),
                (
                    "app.Board.step<app.Game.run".into(),
                    "app.Piece".into(),
                    vec![0, 0, 0, 0, 2, 32]
                ),
                (
                    "app.Board.step<app.Game.run".into(),
                    "int[]".into(),
                    vec![0, 0, 1, 1_000, 0, 0]
                ),
                (
                    "app.Game.run".into(),
                    String::new(),
                    vec![3_000, 1, 0, 0, 0, 0]
                ),
                (
                    "app.Game.run".into(),
                    "app.Piece".into(),
                    vec![0, 0, 3, 48, 0, 0]
                ),
            ]
        );
        // speedscope: the time as before, and the bytes made by stack and class.
        let speedscope: serde_json::Value =
            serde_json::from_slice(&exported(&path, ExportFormat::Speedscope)).expect("json");
        let frames = speedscope["shared"]["frames"].as_array().expect("frames");
        let allocated = &speedscope["profiles"][1];
        assert_eq!(allocated["name"], "main: allocated bytes");
        assert_eq!(allocated["unit"], "bytes");
        let mut stacks: Vec<(String, u64)> = allocated["samples"]
            .as_array()
            .expect("samples")
            .iter()
            .zip(allocated["weights"].as_array().expect("weights"))
            .map(|(sample, weight)| {
                let names: Vec<&str> = sample
                    .as_array()
                    .expect("a stack")
                    .iter()
                    .map(|i| {
                        frames[i.as_u64().expect("index") as usize]["name"]
                            .as_str()
                            .expect("name")
                    })
                    .collect();
                (names.join(";"), weight.as_u64().expect("weight"))
            })
            .collect();
        stacks.sort();
        assert_eq!(
            stacks,
            [
                ("app.Game.run;app.Board.step;int[]".into(), 1_000),
                ("app.Game.run;app.Piece".into(), 48),
            ]
        );
        let _ = std::fs::remove_file(path);
    }

    #[test]
    fn export_formats_parse_by_name() {
        assert_eq!("pprof".parse(), Ok(ExportFormat::Pprof));
        assert_eq!("folded".parse(), Ok(ExportFormat::Collapsed));
        assert!("svg".parse::<ExportFormat>().is_err());
    }
}
