//! JFR recordings, the JDK's Flight Recorder ([`Jfr`]), read with the `jfrs` crate.

use std::collections::HashMap;

use highrise_record::RecordError;

use crate::format::{invalid, Input};
use crate::importer::{Imported, Importer};
use crate::naming::jvm_class;
use crate::profile::{Allocation, Profile, Stack};

/// JFR's file magic.
pub(crate) const JFR_MAGIC: &[u8; 4] = b"FLR\0";

/// A thread JFR did not sample for more than this many periods was on nothing it saw.
pub(crate) const JFR_GAP_PERIODS: u64 = 10;

/// JFR recordings (the JDK's Flight Recorder): each `jdk.ExecutionSample` (a thread running
/// Java code) and `jdk.NativeMethodSample` (a thread in native code) is a sample of its thread at
/// its time. Read with the `jfrs` crate, chunk by chunk (the JVM writes chunks of about 12 MB,
/// each with its own constants): up to three chunks are parsed at once, on threads of their
/// own, and taken in file order; each distinct stack is held once. The chunks' sizes are checked
/// against the file first (so a damaged file cannot make it allocate beyond the file), and a
/// panic inside the parser is an error, not a crash.
pub(crate) fn parse_jfr<R: std::io::Read + std::io::Seek + Send>(
    mut input: R,
) -> Result<Profile, RecordError> {
    use std::io::SeekFrom;
    let length = input.seek(SeekFrom::End(0))?;
    // Each chunk: magic, version (2 × i16), size (i64), all big-endian.
    let mut chunks: Vec<(u64, usize)> = Vec::new();
    let mut at = 0u64;
    while at < length {
        let mut header = [0u8; 16];
        input.seek(SeekFrom::Start(at))?;
        if length - at < 16 || input.read_exact(&mut header).is_err() {
            return Err(invalid("jfr: a chunk is cut off"));
        }
        if &header[..4] != JFR_MAGIC {
            return Err(invalid(format!("jfr: no chunk at byte {at}")));
        }
        let size = i64::from_be_bytes(header[8..16].try_into().unwrap_or_default());
        let size = u64::try_from(size)
            .ok()
            .filter(|&size| size >= 68)
            .ok_or_else(|| {
                invalid(format!(
                    "jfr: the chunk at byte {at} is corrupt (its size reads {size})"
                ))
            })?;
        if size > length - at {
            // A recording still being written, or cut short: say so, and what of it was read.
            return Err(invalid(format!(
                "the JFR recording is incomplete: its chunk {} (at byte {at}) should hold {size} \
                 bytes and the file ends {} bytes into it{}; a recording being written is whole \
                 once it stops (jcmd PID JFR.stop, or JFR.dump for one still running)",
                chunks.len() + 1,
                length - at,
                if chunks.is_empty() {
                    String::new()
                } else {
                    format!(" (the {} chunks before it are whole)", chunks.len())
                }
            )));
        }
        chunks.push((at, size as usize));
        at += size;
    }
    // In waves of about JFR_WAVE_BYTES: parsed on threads, then taken in, so that only a
    // wave's chunks are held at a time.
    let parsers = std::thread::available_parallelism().map_or(1, |n| n.get().min(3));
    let input = std::sync::Mutex::new(input);
    let mut merged = JfrMerged::default();
    let mut rest = &chunks[..];
    while !rest.is_empty() {
        let mut wave_bytes = 0;
        let count = rest
            .iter()
            .take_while(|(_, size)| {
                let under = wave_bytes < JFR_WAVE_BYTES;
                wave_bytes += size;
                under
            })
            .count();
        let (wave, later) = rest.split_at(count.max(1));
        rest = later;
        let parsed = parse_jfr_chunks(&input, wave, parsers)?;
        // The reader's own code runs here too: a panic is an error as well.
        highrise_guard::catch(|| merged.take(parsed)).map_err(damaged)?;
    }
    highrise_guard::catch(move || finish_jfr(merged)).unwrap_or_else(|panic| Err(damaged(panic)))
}

/// A panic in the JFR reader (`jfrs`) on a file's bytes: the file is damaged, as far as a user
/// can tell; where it panicked goes with it.
fn damaged(panic: String) -> RecordError {
    invalid(format!(
        "jfr: the recording could not be read (damaged?): the reader failed: {panic}"
    ))
}

/// The events the import reads: samples of running threads and allocation samples.
pub(crate) const JFR_EVENTS: [&str; 3] = [
    "jdk.ExecutionSample",
    "jdk.NativeMethodSample",
    "jdk.ObjectAllocationSample",
];

/// A JFR chunk's header: magic, version, size, offsets, times, ticks and features.
pub(crate) const JFR_HEADER_BYTES: usize = 68;

/// An event's size and type at the start of `bytes`: JFR integers, LEB128-like when
/// `compressed` (7 bits a byte, the ninth byte whole), else big-endian.
pub(crate) fn jfr_event_header(bytes: &[u8], compressed: bool) -> Option<(i64, i64)> {
    if !compressed {
        let size = i32::from_be_bytes(bytes.get(0..4)?.try_into().ok()?);
        let event_type = i64::from_be_bytes(bytes.get(4..12)?.try_into().ok()?);
        return Some((i64::from(size), event_type));
    }
    let mut at = 0;
    let mut read = || -> Option<i64> {
        let mut value = 0i64;
        for i in 0..8 {
            let b = *bytes.get(at)?;
            at += 1;
            value |= i64::from(b & 0x7f) << (7 * i);
            if b < 0x80 {
                return Some(value);
            }
        }
        let b = *bytes.get(at)?;
        at += 1;
        Some(value | (i64::from(b) << 56))
    };
    let size = read()?;
    let event_type = read()?;
    Some((size, event_type))
}

/// How many bytes of chunks a wave of parsers takes at most (one chunk more if that is over).
pub(crate) const JFR_WAVE_BYTES: usize = 64 << 20;

/// What one JFR chunk holds for the import, named in a table of its own.
pub(crate) struct JfrChunk {
    /// The frames, threads, classes and stacks the chunk's samples name (its own ids).
    names: Profile,
    /// (thread, time since the epoch in ns, stack).
    samples: Vec<(u32, i64, Stack)>,
    /// (thread, time, stack, class, bytes).
    allocations: Vec<(u32, i64, Stack, u32, u64)>,
}

/// Parses `chunks` (offset, size) of `input` on up to `parsers` threads; each chunk's result in
/// file order, or the first chunk's (in file order) error.
pub(crate) fn parse_jfr_chunks<R: std::io::Read + std::io::Seek + Send>(
    input: &std::sync::Mutex<R>,
    chunks: &[(u64, usize)],
    parsers: usize,
) -> Result<Vec<JfrChunk>, RecordError> {
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    let next = AtomicUsize::new(0);
    let failed = AtomicBool::new(false);
    let read = |index: usize| -> Result<JfrChunk, RecordError> {
        let (offset, size) = chunks[index];
        let mut bytes = vec![0u8; size];
        {
            let mut input = input
                .lock()
                .map_err(|_| invalid("jfr: the file could not be read"))?;
            input.seek(std::io::SeekFrom::Start(offset))?;
            input.read_exact(&mut bytes)?;
        }
        highrise_guard::catch(|| read_jfr_chunk(bytes)).unwrap_or_else(|panic| Err(damaged(panic)))
    };
    let mut results: Vec<(usize, Result<JfrChunk, RecordError>)> = std::thread::scope(|scope| {
        let parse = || {
            let mut done = Vec::new();
            while !failed.load(Ordering::Relaxed) {
                let index = next.fetch_add(1, Ordering::Relaxed);
                if index >= chunks.len() {
                    break;
                }
                let result = read(index);
                if result.is_err() {
                    failed.store(true, Ordering::Relaxed);
                }
                done.push((index, result));
            }
            done
        };
        let handles: Vec<_> = (1..parsers.min(chunks.len()))
            .map(|_| scope.spawn(parse))
            .collect();
        let mut results = parse();
        for handle in handles {
            match handle.join() {
                Ok(done) => results.extend(done),
                Err(_) => results.push((0, Err(invalid("jfr: a parser thread failed")))),
            }
        }
        results
    });
    results.sort_by_key(|(index, _)| *index);
    results.into_iter().map(|(_, result)| result).collect()
}

/// Reads the one chunk in `bytes`: its samples and allocation samples.
pub(crate) fn read_jfr_chunk(bytes: Vec<u8>) -> Result<JfrChunk, RecordError> {
    use jfrs::reader::JfrReader;
    let mut out = JfrChunk {
        names: Profile::default(),
        samples: Vec::new(),
        allocations: Vec::new(),
    };
    let mut reader = JfrReader::new(std::io::Cursor::new(&bytes[..]));
    // Whether the chunk's integers are compressed (the header's `features`, bit 0).
    let compressed = bytes.get(64..68).is_some_and(|f| f[3] & 1 != 0);
    if let Some(chunk) = reader.chunks().next() {
        let (mut chunk_reader, chunk) = chunk.map_err(|e| invalid(format!("jfr: {e:?}")))?;
        let header = &chunk.header;
        let ticks_per_ns = header.ticks_per_second.max(1) as f64 / 1e9;
        let (start_ticks, start_ns) = (header.start_ticks, header.start_time_nanos);
        // The event types read; every other event is stepped over by its size, unparsed.
        let wanted: Vec<i64> = chunk
            .metadata
            .type_pool
            .get_types()
            .filter(|t| JFR_EVENTS.contains(&t.name()))
            .map(|t| t.class_id)
            .collect();
        // Stacks, threads and classes are constants of the chunk: each resolved once.
        let mut names = JfrChunkNames::default();
        let body = bytes
            .get(JFR_HEADER_BYTES..header.chunk_size.max(0) as usize)
            .unwrap_or_default();
        let mut offset = 0usize;
        while offset < body.len() {
            let Some((size, event_type)) = jfr_event_header(&body[offset..], compressed) else {
                return Err(invalid("jfr: an event is cut off"));
            };
            let Some(size) = usize::try_from(size).ok().filter(|&size| size > 0) else {
                break; // an event of no size: a damaged chunk
            };
            let at = offset;
            offset = offset.saturating_add(size);
            if !wanted.contains(&event_type) {
                continue;
            }
            let Some(event) = chunk_reader.events_from_offset(&chunk, at as u64).next() else {
                break;
            };
            let event = event.map_err(|e| invalid(format!("jfr: {e:?}")))?;
            if event.byte_offset != at as u64 {
                continue;
            }
            // One of JFR_EVENTS (`wanted`): a running thread's sample, or an allocation's.
            let allocation = event.class.name() == "jdk.ObjectAllocationSample";
            let value = event.value();
            let Some(ticks) = value
                .get_field("startTime")
                .and_then(|t| i64::try_from(t.value).ok())
            else {
                continue;
            };
            let at_ns =
                start_ns.saturating_add(((ticks - start_ticks) as f64 / ticks_per_ns) as i64);
            let thread_field = if allocation {
                "eventThread"
            } else {
                "sampledThread"
            };
            let profile = &mut out.names;
            let thread = names.thread(profile, value.get_field_raw(thread_field));
            let stack = names.stack(profile, value.get_field_raw("stackTrace"));
            if allocation {
                // The bytes of allocation this sample stands for (JFR's weight).
                let bytes = value
                    .get_field("weight")
                    .and_then(|w| i64::try_from(w.value).ok())
                    .unwrap_or(0)
                    .max(0) as u64;
                let class = names.class(profile, value.get_field_raw("objectClass"));
                out.allocations.push((thread, at_ns, stack, class, bytes));
            } else {
                out.samples.push((thread, at_ns, stack));
            }
        }
    }
    Ok(out)
}

/// The chunks' samples as one profile, their names and stacks taken in file order.
#[derive(Default)]
pub(crate) struct JfrMerged {
    profile: Profile,
    /// (thread, time since the epoch in ns, stack).
    raw: Vec<(u32, i64, Stack)>,
    /// At their times since the epoch, coalesced chunk by chunk ([`JFR_COALESCE_NS`]).
    allocated: Vec<Allocation>,
}

/// A chunk's allocation samples are coalesced over slots of this long (JFR's shortest
/// execution sample period): the whole profile's, over its own period at the end.
pub(crate) const JFR_COALESCE_NS: u64 = 10_000_000;

impl JfrMerged {
    /// Takes in `chunks`, the next ones in file order: their names, stacks, samples and
    /// allocations, as the profile's.
    fn take(&mut self, chunks: Vec<JfrChunk>) {
        for chunk in chunks {
            self.take_chunk(chunk);
        }
    }

    fn take_chunk(&mut self, chunk: JfrChunk) {
        let JfrMerged {
            profile,
            raw,
            allocated,
        } = self;
        let names = &chunk.names;
        let frames: Vec<u32> = names
            .frames
            .iter()
            .map(|(name, file)| profile.frame(name, file.as_deref()))
            .collect();
        let threads: Vec<u32> = names.threads.iter().map(|t| profile.thread(t)).collect();
        let classes: Vec<u32> = names
            .classes
            .iter()
            .map(|(package, name, kind)| profile.class(package.clone(), name.clone(), *kind))
            .collect();
        // The chunk's stacks are its own (one per distinct stack): each mapped once.
        let mut stacks: HashMap<*const [u32], Stack> = HashMap::new();
        let mut stack = |profile: &mut Profile, local: &Stack| -> Stack {
            stacks
                .entry(std::sync::Arc::as_ptr(local))
                .or_insert_with(|| {
                    let mapped: Vec<u32> = local.iter().map(|&f| frames[f as usize]).collect();
                    profile.stack(&mapped)
                })
                .clone()
        };
        for (thread, at, local) in &chunk.samples {
            let global = stack(profile, local);
            raw.push((threads[*thread as usize], *at, global));
        }
        let mut chunk_allocated: Vec<Allocation> = chunk
            .allocations
            .iter()
            .map(|(thread, at, local, class, bytes)| Allocation {
                thread: threads[*thread as usize],
                at_ns: u64::try_from(*at).unwrap_or(0),
                stack: stack(profile, local),
                class: classes[*class as usize],
                count: 1,
                bytes: *bytes,
            })
            .collect();
        chunk_allocated.sort_by_key(|a| (a.at_ns, a.thread));
        allocated.extend(coalesce_allocations(chunk_allocated, JFR_COALESCE_NS));
    }
}

/// The profile of the samples and allocations taken in ([`JfrMerged`]): times from the first,
/// the period.
pub(crate) fn finish_jfr(merged: JfrMerged) -> Result<Profile, RecordError> {
    let JfrMerged {
        mut profile,
        raw,
        mut allocated,
    } = merged;
    profile.producer = "jfr".into();
    let first_ns = raw
        .iter()
        .map(|s| s.1)
        .chain(
            allocated
                .iter()
                .map(|a| i64::try_from(a.at_ns).unwrap_or(i64::MAX)),
        )
        .min();
    let first_ns = first_ns.ok_or_else(|| invalid("jfr: no execution or allocation samples"))?;
    for allocation in &mut allocated {
        allocation.at_ns = allocation.at_ns.saturating_sub(first_ns.max(0) as u64);
    }
    allocated.sort_by_key(|a| (a.at_ns, a.thread));
    profile.allocations = allocated;
    profile.samples = raw
        .into_iter()
        .map(|(thread, at, stack)| (thread, (at - first_ns).max(0) as u64, stack))
        .collect();
    profile.samples.sort_by_key(|&(thread, at, _)| (at, thread));
    // The period: the median gap between a thread's successive samples.
    let mut last: HashMap<u32, u64> = HashMap::new();
    let mut gaps: Vec<u64> = Vec::new();
    for (thread, at, _) in &profile.samples {
        if let Some(previous) = last.insert(*thread, *at) {
            gaps.push(at - previous);
        }
    }
    gaps.sort_unstable();
    profile.period_ns = gaps
        .get(gaps.len() / 2)
        .copied()
        .filter(|&gap| gap > 0)
        .unwrap_or(20_000_000);
    // JFR samples a thread only while it runs Java (or native) code it can walk. A sample holds
    // until the thread's next one, over the few periods a busy sampler or an unwalkable frame
    // skips (as JFR's share of its samples assumes); a thread not sampled for longer than
    // JFR_GAP_PERIODS was on nothing JFR saw (blocked, waiting, compiling in the VM): its last
    // sample ends after one period.
    let period = profile.period_ns;
    let mut next_at: HashMap<u32, u64> = HashMap::new();
    let mut gaps_closed = Vec::new();
    let nothing = profile.stack(&[]);
    for (thread, at, _) in profile.samples.iter().rev() {
        let next = next_at.insert(*thread, *at);
        if next.is_none_or(|next| next - at > period.saturating_mul(JFR_GAP_PERIODS)) {
            gaps_closed.push((*thread, at.saturating_add(period), nothing.clone()));
        }
    }
    profile.samples.extend(gaps_closed);
    profile.samples.sort_by_key(|&(thread, at, _)| (at, thread));
    profile.allocations = coalesce_allocations(std::mem::take(&mut profile.allocations), period);
    Ok(profile)
}

/// Allocations of one thread, stack and class within one period become one, their objects and
/// bytes summed, at the first one's time: JFR takes several allocation samples a period where a
/// program allocates much, and each would become messages of its own. Totals are unchanged;
/// times move by less than a period. `allocations` are in time order, stacks interned.
pub(crate) fn coalesce_allocations(
    allocations: Vec<Allocation>,
    period_ns: u64,
) -> Vec<Allocation> {
    let mut out: Vec<Allocation> = Vec::with_capacity(allocations.len());
    let mut open: HashMap<(u32, *const [u32], u32), usize> = HashMap::new();
    let mut slot = None;
    for allocation in allocations {
        let at_slot = allocation.at_ns / period_ns.max(1);
        if slot != Some(at_slot) {
            open.clear();
            slot = Some(at_slot);
        }
        let key = (
            allocation.thread,
            std::sync::Arc::as_ptr(&allocation.stack),
            allocation.class,
        );
        match open.get(&key) {
            Some(&index) => {
                let into = &mut out[index];
                into.count = into.count.saturating_add(allocation.count);
                into.bytes = into.bytes.saturating_add(allocation.bytes);
            }
            None => {
                open.insert(key, out.len());
                out.push(allocation);
            }
        }
    }
    out
}

/// A JFR chunk's threads, stacks and classes (constant-pool entries), each resolved once.
#[derive(Default)]
pub(crate) struct JfrChunkNames {
    stacks: HashMap<i64, Stack>,
    threads: HashMap<i64, u32>,
    classes: HashMap<i64, u32>,
}

/// The constant-pool index a field refers to, when it does.
pub(crate) fn jfr_constant(field: Option<&jfrs::reader::event::Accessor<'_>>) -> Option<i64> {
    match field.map(|f| f.value) {
        Some(jfrs::reader::value_descriptor::ValueDescriptor::ConstantPool {
            constant_index,
            ..
        }) => Some(*constant_index),
        _ => None,
    }
}

/// A JFR string or symbol (`jdk.types.Symbol`, its text in `string`).
pub(crate) fn jfr_text(accessor: Option<jfrs::reader::event::Accessor<'_>>) -> Option<String> {
    let accessor = accessor?;
    let symbol = accessor.get_field("string");
    <&str>::try_from(symbol.as_ref().unwrap_or(&accessor).value)
        .ok()
        .map(str::to_owned)
}

impl JfrChunkNames {
    fn thread(
        &mut self,
        profile: &mut Profile,
        field: Option<jfrs::reader::event::Accessor<'_>>,
    ) -> u32 {
        let key = jfr_constant(field.as_ref());
        if let Some(&thread) = key.and_then(|key| self.threads.get(&key)) {
            return thread;
        }
        let resolved = field.and_then(|t| t.resolve());
        let name = |field: &str| {
            resolved
                .as_ref()
                .and_then(|t| t.get_field(field))
                .and_then(|n| <&str>::try_from(n.value).ok())
                .map(str::to_owned)
        };
        let name = name("javaName")
            .or_else(|| name("osName"))
            .unwrap_or_else(|| "thread".into());
        let thread = profile.thread(&name);
        if let Some(key) = key {
            self.threads.insert(key, thread);
        }
        thread
    }

    fn stack(
        &mut self,
        profile: &mut Profile,
        field: Option<jfrs::reader::event::Accessor<'_>>,
    ) -> Stack {
        let key = jfr_constant(field.as_ref());
        if let Some(stack) = key.and_then(|key| self.stacks.get(&key)) {
            return stack.clone();
        }
        let mut stack = Vec::new();
        let frames = field
            .and_then(|s| s.resolve())
            .and_then(|s| s.get_field("frames"))
            .and_then(|f| f.as_iter());
        for frame in frames.into_iter().flatten() {
            let method = frame.get_field("method");
            let class = jfr_text(
                method
                    .as_ref()
                    .and_then(|m| m.get_field("type"))
                    .and_then(|t| t.get_field("name")),
            )
            .unwrap_or_else(|| "?".into());
            let name = jfr_text(method.as_ref().and_then(|m| m.get_field("name")))
                .unwrap_or_else(|| "?".into());
            stack.push(profile.frame(&format!("{}.{name}", class.replace('/', ".")), None));
        }
        // JFR's innermost frame is first.
        stack.reverse();
        let stack = profile.stack(&stack);
        if let Some(key) = key {
            self.stacks.insert(key, stack.clone());
        }
        stack
    }

    fn class(
        &mut self,
        profile: &mut Profile,
        field: Option<jfrs::reader::event::Accessor<'_>>,
    ) -> u32 {
        let key = jfr_constant(field.as_ref());
        if let Some(&class) = key.and_then(|key| self.classes.get(&key)) {
            return class;
        }
        let name = jfr_text(
            field
                .and_then(|c| c.resolve())
                .and_then(|c| c.get_field("name")),
        )
        .unwrap_or_else(|| "?".into());
        let (package, name, kind) = jvm_class(&name);
        let class = profile.class(package, name, kind);
        if let Some(key) = key {
            self.classes.insert(key, class);
        }
        class
    }
}

/// JFR recordings ([`ProfileFormat::Jfr`]).
pub(crate) struct Jfr;

impl Importer for Jfr {
    fn detects(&self, start: &[u8]) -> bool {
        start.starts_with(JFR_MAGIC)
    }

    fn read(&self, input: Input<'_>) -> Result<Imported, RecordError> {
        let profile = match input {
            Input::File(path) => parse_jfr(std::fs::File::open(path)?)?,
            Input::Bytes(bytes) => parse_jfr(std::io::Cursor::new(bytes))?,
        };
        Ok(Imported::Samples(Box::new(profile)))
    }
}
