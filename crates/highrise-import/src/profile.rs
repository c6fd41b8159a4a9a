//! A profile as samples ([`Profile`]): what the sampling formats read into, and how it is
//! written as a sampled session's frames ([`write_recording`]).

use std::collections::HashMap;
use std::io::Write;

use highrise_protocol::{
    AgentMessage, ClassDef, ClassKind, Measure, MeasureMode, MemoryAmount, PackedRecordWriter,
};
use highrise_record::RecordError;

use crate::format::invalid;
use crate::frames::{send, write_frames, Frames};
use crate::naming::methods_of;

/// One sample per this much time where a profile's samples carry none (folded stacks,
/// speedscope without a time unit): py-spy's and most samplers' default 100 Hz.
pub const FOLDED_PERIOD_NS: u64 = 10_000_000;

/// Folded stacks keep at most this many samples a thread (10 minutes at 100 Hz), their counts
/// scaled down beyond it: shares change by at most a sample's worth per stack.
pub const FOLDED_MAX_SAMPLES: u64 = 60_000;

/// A profile as samples: frame names, threads, and each sample's thread, time and stack.
#[derive(Debug, Default)]
pub(crate) struct Profile {
    /// Distinct frames: (name, file).
    pub(crate) frames: Vec<(String, Option<String>)>,
    pub(crate) frame_ids: HashMap<(String, Option<String>), u32>,
    /// Thread names, by index.
    pub(crate) threads: Vec<String>,
    pub(crate) thread_ids: HashMap<String, u32>,
    /// (thread index, time ns, stack as frame indices, outermost first).
    pub(crate) samples: Vec<(u32, u64, Stack)>,
    /// Each distinct stack once ([`Profile::stack`]): a sample holds a reference to its stack.
    pub(crate) stacks: std::collections::HashSet<Stack>,
    /// The typical period between a thread's samples.
    pub(crate) period_ns: u64,
    pub(crate) producer: String,
    /// Allocation samples, in time order.
    pub(crate) allocations: Vec<Allocation>,
    /// The classes allocations name: (package, name, kind), by index.
    pub(crate) classes: Vec<(String, String, ClassKind)>,
    pub(crate) class_ids: HashMap<(String, String), u32>,
}

/// Objects of one class created at one stack of a thread (a JFR `jdk.ObjectAllocationSample`,
/// a pprof allocation sample).
/// A stack of frame indices, outermost first, shared by the samples that hold it.
pub(crate) type Stack = std::sync::Arc<[u32]>;

#[derive(Debug)]
pub(crate) struct Allocation {
    pub(crate) thread: u32,
    pub(crate) at_ns: u64,
    /// Frame indices, outermost first: the innermost frame created the objects.
    pub(crate) stack: Stack,
    pub(crate) class: u32,
    pub(crate) count: u64,
    pub(crate) bytes: u64,
}

impl Profile {
    /// `frames` as a shared stack: each distinct stack is held once.
    pub(crate) fn stack(&mut self, frames: &[u32]) -> Stack {
        if let Some(stack) = self.stacks.get(frames) {
            return stack.clone();
        }
        let stack = Stack::from(frames);
        self.stacks.insert(stack.clone());
        stack
    }

    pub(crate) fn frame(&mut self, name: &str, file: Option<&str>) -> u32 {
        let key = (name.to_owned(), file.map(str::to_owned));
        if let Some(&id) = self.frame_ids.get(&key) {
            return id;
        }
        let id = self.frames.len() as u32;
        self.frames.push(key.clone());
        self.frame_ids.insert(key, id);
        id
    }

    pub(crate) fn class(&mut self, package: String, name: String, kind: ClassKind) -> u32 {
        let key = (package, name);
        if let Some(&id) = self.class_ids.get(&key) {
            return id;
        }
        let id = self.classes.len() as u32;
        self.classes.push((key.0.clone(), key.1.clone(), kind));
        self.class_ids.insert(key, id);
        id
    }

    pub(crate) fn thread(&mut self, name: &str) -> u32 {
        if let Some(&index) = self.thread_ids.get(name) {
            return index;
        }
        let index = self.threads.len() as u32;
        self.threads.push(name.to_owned());
        self.thread_ids.insert(name.to_owned(), index);
        index
    }
}

/// Turns counts of samples per (thread, stack) into samples spread evenly over each thread's
/// time, one per `profile.period_ns`: stack i's k-th sample at (k + ½) / count_i of the thread's
/// span, so every window holds each stack at its share.
pub(crate) fn spread(
    profile: &mut Profile,
    counts: HashMap<(u32, Vec<u32>), u64>,
) -> Result<(), RecordError> {
    let mut stacks: Vec<(u32, Vec<u32>, u64)> = counts
        .into_iter()
        .map(|((thread, stack), count)| (thread, stack, count))
        .collect();
    // In file order of first appearance would need more memory; by thread and stack is as
    // stable.
    stacks.sort_unstable();
    if stacks.is_empty() {
        return Err(invalid("no samples"));
    }
    // At most FOLDED_MAX_SAMPLES a thread: counts scaled down (each stack keeps at least one
    // sample), so a profile of billions of samples converts in bounded time and space.
    let mut per_thread: HashMap<u32, u64> = HashMap::new();
    for (thread, _, count) in &stacks {
        let total = per_thread.entry(*thread).or_default();
        *total = total.saturating_add(*count);
    }
    for (thread, _, count) in &mut stacks {
        let total = per_thread[thread];
        if total > FOLDED_MAX_SAMPLES {
            let scaled = (*count as f64 * FOLDED_MAX_SAMPLES as f64 / total as f64).round();
            *count = (scaled as u64).max(1);
        }
    }
    // Each thread's samples spread evenly over the profile: stack i's k-th sample at (k + ½) /
    // count_i of the thread's span, so every window holds each stack at its share.
    let mut per_thread: HashMap<u32, u64> = HashMap::new();
    for (thread, _, count) in &stacks {
        let total = per_thread.entry(*thread).or_default();
        *total = total.saturating_add(*count);
    }
    let longest = per_thread.values().copied().max().unwrap_or(1);
    let span_ns = longest.saturating_mul(profile.period_ns.max(1));
    let shared: Vec<Stack> = stacks
        .iter()
        .map(|(_, stack, _)| profile.stack(stack))
        .collect();
    let mut samples: Vec<(u32, u64, usize)> = Vec::new();
    for (index, (thread, _, count)) in stacks.iter().enumerate() {
        for k in 0..*count {
            let at = (span_ns as f64 * (k as f64 + 0.5) / *count as f64) as u64;
            samples.push((*thread, at, index));
        }
    }
    samples.sort_unstable_by_key(|&(thread, at, index)| (at, thread, index));
    // Within a thread, one sample per slot of the thread's own period.
    let mut next_slot: HashMap<u32, u64> = HashMap::new();
    for (thread, _, index) in samples {
        let total = per_thread[&thread];
        let slot = next_slot.entry(thread).or_default();
        let at = (u128::from(*slot) * u128::from(span_ns) / u128::from(total.max(1))) as u64;
        *slot += 1;
        profile.samples.push((thread, at, shared[index].clone()));
    }
    profile.samples.sort_by_key(|&(thread, at, _)| (at, thread));
    Ok(())
}

/// A time unit's length in ns (`nanoseconds`, `ms`, …), or `None` for other units.
pub(crate) fn time_unit_ns(unit: &str) -> Option<f64> {
    match unit {
        "nanoseconds" | "nanosecond" | "ns" => Some(1.0),
        "microseconds" | "microsecond" | "us" => Some(1e3),
        "milliseconds" | "millisecond" | "ms" => Some(1e6),
        "seconds" | "second" | "s" => Some(1e9),
        _ => None,
    }
}

/// Writes `profile` as a recording into `out`.
pub(crate) fn write_recording(
    profile: &Profile,
    program: &str,
    out: impl Write + Send,
) -> Result<(), RecordError> {
    write_frames(out, &profile.producer, program, |writer| {
        write_profile(profile, writer)
    })
}

/// [`write_recording`]'s frames.
pub(crate) fn write_profile(profile: &Profile, writer: &mut Frames) -> Result<(), RecordError> {
    let mut at_ns = 0u64;
    send(
        writer,
        0,
        &AgentMessage::Measure(Measure {
            mode: MeasureMode::Sampled,
            sample_period_us: (profile.period_ns / 1000).clamp(1, u64::from(u32::MAX)) as u32,
            sampled_methods: 0,
        }),
    )?;
    let (method_of_frame, definitions) = methods_of(&profile.frames);
    for chunk in definitions.chunks(4096) {
        send(writer, 0, &AgentMessage::DefineMethods(chunk.to_vec()))?;
    }
    for (index, name) in profile.threads.iter().enumerate() {
        send(
            writer,
            0,
            &AgentMessage::ThreadStart {
                thread_id: index as u64 + 1,
                name: name.clone(),
                timestamp: 0,
            },
        )?;
    }
    if !profile.classes.is_empty() {
        let classes = profile
            .classes
            .iter()
            .enumerate()
            .map(|(id, (package, name, kind))| ClassDef {
                id: id as u32,
                package: package.clone(),
                name: name.clone(),
                kind: *kind,
            })
            .collect();
        send(writer, 0, &AgentMessage::DefineClasses(classes))?;
    }
    let methods_of_stack = |stack: &[u32]| -> Vec<u32> {
        stack
            .iter()
            .map(|&frame| method_of_frame[frame as usize])
            .collect()
    };
    // Samples and allocations merged in time order (samples first at the same time). An
    // allocation is its thread's stack at that instant, the memory record, then the thread's
    // sampled stack again: it takes no time, so elevations are the samples' alone.
    let mut sampled: HashMap<u32, Vec<u32>> = HashMap::new();
    let mut allocations = profile.allocations.iter().peekable();
    let mut samples = profile.samples.iter().peekable();
    loop {
        let take_sample = match (samples.peek(), allocations.peek()) {
            (Some((_, at, _)), Some(allocation)) => *at <= allocation.at_ns,
            (Some(_), None) => true,
            (None, Some(_)) => false,
            (None, None) => break,
        };
        if take_sample {
            let Some((thread, at, stack)) = samples.next() else {
                break;
            };
            at_ns = at_ns.max(*at);
            let stack = methods_of_stack(stack);
            sampled.insert(*thread, stack.clone());
            send(
                writer,
                at_ns,
                &AgentMessage::Resync {
                    thread_id: u64::from(*thread) + 1,
                    timestamp: at_ns,
                    stack,
                },
            )?;
            continue;
        }
        let Some(allocation) = allocations.next() else {
            break;
        };
        at_ns = at_ns.max(allocation.at_ns);
        let thread_id = u64::from(allocation.thread) + 1;
        let resync = |stack| AgentMessage::Resync {
            thread_id,
            timestamp: at_ns,
            stack,
        };
        send(writer, at_ns, &resync(methods_of_stack(&allocation.stack)))?;
        let mut record = PackedRecordWriter::new(thread_id, at_ns);
        record.push_memory(
            at_ns,
            allocation.class,
            MemoryAmount {
                count: allocation.count,
                bytes: allocation.bytes,
                free: false,
            },
        );
        send(writer, at_ns, &AgentMessage::Records(record.finish()))?;
        let sampled_stack = sampled.get(&allocation.thread).cloned().unwrap_or_default();
        send(writer, at_ns, &resync(sampled_stack))?;
    }
    let end_ns = at_ns.saturating_add(profile.period_ns);
    send(
        writer,
        end_ns,
        &AgentMessage::Heartbeat { timestamp: end_ns },
    )?;
    send(writer, end_ns, &AgentMessage::Goodbye { timestamp: end_ns })
}
