//! A trace ([`Trace`]): each thread's calls as intervals, what the exact formats (Chrome
//! traces, speedscope's evented profiles) read into, written as enter and exit events
//! ([`write_trace`]).

use std::collections::HashMap;
use std::io::Write;

use highrise_protocol::{AgentMessage, Measure, MeasureMode};
use highrise_record::RecordError;

use crate::frames::{send, write_frames, Frames};
use crate::naming::methods_of;

/// A trace: its functions (name, file) and each thread's calls as intervals.
#[derive(Debug, Default)]
pub(crate) struct Trace {
    pub(crate) producer: String,
    /// Where the calls are a sampler's merged timeline, not every call (pyinstrument): its
    /// period, so the session says "sampled" and shows no calls.
    pub(crate) sampled_period_us: Option<u32>,
    pub(crate) functions: Vec<(String, Option<String>)>,
    pub(crate) function_ids: HashMap<(String, Option<String>), u32>,
    /// Thread names, by index, and each thread's calls.
    pub(crate) threads: Vec<(String, Vec<Call>)>,
}

/// A call in a trace: start ns, end ns, function.
pub(crate) type Call = (u64, u64, u32);

impl Trace {
    /// The function `name` in `file`, added when new.
    pub(crate) fn function(&mut self, name: &str, file: Option<&str>) -> u32 {
        let key = (name.to_owned(), file.map(str::to_owned));
        let next = self.functions.len() as u32;
        *self.function_ids.entry(key).or_insert_with_key(|key| {
            self.functions.push(key.clone());
            next
        })
    }
}

/// Writes `trace` as a recording of exact events into `out`: each thread's calls, outer ones
/// first where they start together, entered and exited in time order.
pub(crate) fn write_trace(
    trace: Trace,
    program: &str,
    out: impl Write + Send,
) -> Result<(), RecordError> {
    let producer = trace.producer.clone();
    write_frames(out, &producer, program, |writer| {
        write_trace_frames(trace, writer)
    })
}

/// [`write_trace`]'s frames.
pub(crate) fn write_trace_frames(trace: Trace, writer: &mut Frames) -> Result<(), RecordError> {
    use highrise_protocol::{EventKind, PackedEventWriter};
    if let Some(period_us) = trace.sampled_period_us {
        send(
            writer,
            0,
            &AgentMessage::Measure(Measure {
                mode: MeasureMode::Sampled,
                sample_period_us: period_us.max(1),
                sampled_methods: 0,
            }),
        )?;
    }
    let (method_of, definitions) = methods_of(&trace.functions);
    for chunk in definitions.chunks(4096) {
        send(writer, 0, &AgentMessage::DefineMethods(chunk.to_vec()))?;
    }
    // Each thread's enters and exits come in time order from its calls ([`ThreadEvents`]);
    // the threads are merged by time (ties in thread order), so no event is held in memory.
    let mut threads: Vec<ThreadEvents> = Vec::with_capacity(trace.threads.len());
    for (thread, (name, mut calls)) in trace.threads.into_iter().enumerate() {
        send(
            writer,
            0,
            &AgentMessage::ThreadStart {
                thread_id: thread as u64 + 1,
                name,
                timestamp: 0,
            },
        )?;
        for call in &mut calls {
            call.2 = method_of[call.2 as usize];
        }
        // Starting together, the longer call is the outer one; as long, the one listed first
        // (a stable sort: evented profiles list calls as they open).
        calls.sort_by_key(|&(start, end, _)| (start, std::cmp::Reverse(end)));
        threads.push(ThreadEvents::new(calls));
    }
    let mut heads: std::collections::BinaryHeap<std::cmp::Reverse<(u64, u32, u8, u32)>> = threads
        .iter_mut()
        .enumerate()
        .filter_map(|(thread, events)| {
            let (at, kind, method) = events.next()?;
            Some(std::cmp::Reverse((at, thread as u32, kind as u8, method)))
        })
        .collect();
    let events = std::iter::from_fn(|| {
        let std::cmp::Reverse((at, thread, kind, method)) = heads.pop()?;
        if let Some((next_at, next_kind, next_method)) = threads[thread as usize].next() {
            heads.push(std::cmp::Reverse((
                next_at,
                thread,
                next_kind as u8,
                next_method,
            )));
        }
        let kind = if kind == EventKind::Enter as u8 {
            EventKind::Enter
        } else {
            EventKind::Exit
        };
        Some((at, thread, kind, method))
    });
    let mut writers: HashMap<u32, PackedEventWriter> = HashMap::new();
    let mut flush_at = BATCH_NS;
    let mut last = 0u64;
    let flush = |writer: &mut Frames,
                 writers: &mut HashMap<u32, PackedEventWriter>,
                 at: u64|
     -> Result<(), RecordError> {
        let mut threads: Vec<u32> = writers.keys().copied().collect();
        threads.sort_unstable();
        for thread in threads {
            if let Some(batch) = writers.remove(&thread) {
                send(writer, at, &AgentMessage::Events(batch.finish()))?;
            }
        }
        Ok(())
    };
    for (at, thread, kind, method) in events {
        if at >= flush_at {
            flush(writer, &mut writers, last)?;
            flush_at = (at / BATCH_NS + 1).saturating_mul(BATCH_NS);
        }
        let batch = writers
            .entry(thread)
            .or_insert_with(|| PackedEventWriter::new(u64::from(thread) + 1, at));
        batch.push(at, method, kind);
        last = at;
        if batch.len() >= 1 << 16 {
            if let Some(full) = writers.remove(&thread) {
                send(writer, at, &AgentMessage::Events(full.finish()))?;
            }
        }
    }
    flush(writer, &mut writers, last)?;
    send(writer, last, &AgentMessage::Goodbye { timestamp: last })
}

/// One thread's enters and exits in time order, from its calls (start, end, method) sorted by
/// start, outer first: a call that outlives its caller ends with it (a trace cut mid-call).
pub(crate) struct ThreadEvents {
    calls: std::vec::IntoIter<(u64, u64, u32)>,
    next_call: Option<(u64, u64, u32)>,
    /// (end, method) of the calls open now, innermost last.
    open: Vec<(u64, u32)>,
}

impl ThreadEvents {
    pub(crate) fn new(calls: Vec<(u64, u64, u32)>) -> Self {
        let mut calls = calls.into_iter();
        Self {
            next_call: calls.next(),
            calls,
            open: Vec::new(),
        }
    }
}

impl Iterator for ThreadEvents {
    type Item = (u64, highrise_protocol::EventKind, u32);

    fn next(&mut self) -> Option<Self::Item> {
        use highrise_protocol::EventKind;
        let Some((start, end, method)) = self.next_call else {
            return self
                .open
                .pop()
                .map(|(end, method)| (end, EventKind::Exit, method));
        };
        if let Some(&(top_end, top_method)) = self.open.last().filter(|(e, _)| *e <= start) {
            self.open.pop();
            return Some((top_end, EventKind::Exit, top_method));
        }
        self.next_call = self.calls.next();
        let end = self
            .open
            .last()
            .map_or(end, |&(outer_end, _)| end.min(outer_end));
        self.open.push((end.max(start), method));
        Some((start, EventKind::Enter, method))
    }
}

/// A trace's events go out in batches at most this far apart, ns.
pub(crate) const BATCH_NS: u64 = 50_000_000;
