//! Profiles written by other tools, opened as recordings: [`RecordingReader::open`] converts a
//! file that is not a recording but one of these, detected by content, into a sampled session's
//! frames (a `Measure` saying "sampled", the methods, then each sample as the thread's whole
//! stack at its time, as the agents' sampled modes send them), so `report`, `replay` and the
//! window open it like any recording.
//!
//! - **Folded (collapsed) stacks**: `frame;frame;frame COUNT` lines, outermost frame first, as
//!   `py-spy record --format raw`, async-profiler's `collapsed` output, the `stackcollapse-*`
//!   scripts and `perf script | stackcollapse-perf.pl` write them. A first frame `thread (…)`
//!   or `process …` names the thread. Counts carry no time: each thread's samples are spread
//!   evenly over the profile (every stack at its share in every window), one per
//!   [`FOLDED_PERIOD_NS`].
//! - **speedscope JSON** (`$schema` …/file-format-schema.json), one thread a profile. Sampled
//!   profiles (py-spy's `--format speedscope`, rbspy): samples in order, each lasting its
//!   weight when the unit is a time, else one [`FOLDED_PERIOD_NS`] per unit of weight. Evented
//!   profiles: each frame opened and closed at its time, as calls; pyinstrument's are its
//!   samples merged into a timeline, so its sessions say "sampled" and count no calls.
//! - **pprof** (`profile.proto`, gzipped or not; [`crate::pprof`]): each sample's stack with its
//!   time (`cpu`, `wall`) in samples of the profile's period, or its sample count, spread evenly
//!   as folded stacks are; a `thread` label names the thread. Allocation values (Go's heap
//!   profile: `alloc_objects`/`alloc_space`, else `inuse_*`) become memory records of an untyped
//!   class, made by each stack's innermost frame, spread like the samples.
//! - **JFR** (Java Flight Recorder, read with the `jfrs` crate): each `jdk.ExecutionSample` and
//!   `jdk.NativeMethodSample` is its thread's stack at its time; each
//!   `jdk.ObjectAllocationSample` a memory record at its time: one object of its class, its
//!   weight in bytes (the allocation the sample stands for).
//!
//! An allocation is written as its thread's stack at that instant, the memory record, then the
//! thread's sampled stack again: it takes no time, so elevations are the samples' alone.
//!
//! - **V8 CPU profiles** (`.cpuprofile` JSON: Node's `--cpu-prof`, Chrome DevTools): the call
//!   tree's nodes and each sample's node with its time delta; `(idle)` is a thread on nothing,
//!   `(program)` and `(garbage collector)` stand in the package `v8`.
//! - **Chrome trace events** (JSON: an array of events or `{"traceEvents": [...]}`, as Perfetto,
//!   `chrome://tracing`, viztracer and many tools write): complete (`X`) and begin/end (`B`/`E`)
//!   events per `pid`/`tid` become exact enter and exit events, so calls are counted; thread
//!   names come from the `thread_name` metadata.
//!
//! Frame names become package, class and method as the agents name them: a Python frame with a
//! file (`Shape.area` in `…/site-packages/pkg/mod.py`) is `pkg.mod` · `Shape` · `area`; a Go
//! function (a `.go` file) splits at its import path, `main.(*Shape).Area` is `main` · `Shape` ·
//! `Area`; a dotted or `::` name (`java/util/HashMap.get_[j]`, `core::fmt::write`) splits at its
//! last two separators; a bare name (`malloc`) stands in the package `native`, and an unnamed
//! address under its library's (`native.libc`).
//!
//! [`RecordingReader::open`]: crate::RecordingReader::open

use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use highrise_protocol::{
    encode_frame, AgentMessage, ClassDef, ClassKind, Hello, Measure, MeasureMode, MemoryAmount,
    MethodDef, PackedRecordWriter, MAGIC, PROTOCOL_VERSION,
};

use crate::{RecordError, RecordingHeader, RecordingWriter};

/// One sample per this much time where a profile's samples carry none (folded stacks,
/// speedscope without a time unit): py-spy's and most samplers' default 100 Hz.
pub const FOLDED_PERIOD_NS: u64 = 10_000_000;

/// Folded stacks keep at most this many samples a thread (10 minutes at 100 Hz), their counts
/// scaled down beyond it: shares change by at most a sample's worth per stack.
pub const FOLDED_MAX_SAMPLES: u64 = 60_000;

/// A format this module opens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProfileFormat {
    /// `frame;frame COUNT` lines.
    Folded,
    /// speedscope's JSON file format.
    Speedscope,
    /// Chrome's trace event format (JSON).
    ChromeTrace,
    /// V8's CPU profile (JSON: `nodes`, `samples`, `timeDeltas`).
    CpuProfile,
    /// pprof's `profile.proto`, gzipped or not.
    Pprof,
    /// A JFR recording (Java Flight Recorder).
    Jfr,
}

impl ProfileFormat {
    /// What the file is, from its first bytes, or `None` if it is none of these.
    pub fn detect(start: &[u8]) -> Option<ProfileFormat> {
        if start.starts_with(JFR_MAGIC) {
            return Some(ProfileFormat::Jfr);
        }
        if crate::pprof::looks_like_profile(&crate::pprof::peek_decoded(start)) {
            return Some(ProfileFormat::Pprof);
        }
        let text = String::from_utf8_lossy(start);
        let trimmed = text.trim_start();
        if trimmed.starts_with('{')
            && trimmed.contains("\"nodes\"")
            && trimmed.contains("\"callFrame\"")
        {
            return Some(ProfileFormat::CpuProfile);
        }
        if trimmed.starts_with('{') && trimmed.contains("\"traceEvents\"")
            || trimmed.starts_with('[') && trimmed.contains("\"ph\"")
        {
            return Some(ProfileFormat::ChromeTrace);
        }
        if trimmed.starts_with('{') {
            return (trimmed.contains("speedscope") || trimmed.contains("\"profiles\""))
                .then_some(ProfileFormat::Speedscope);
        }
        // The first non-empty line looks like `a;b 12` (py-spy writes ` 1` for a sample with
        // no Python frame); `start` may end mid-line.
        let complete = start.len() < 4096 || text.contains('\n');
        let line = text.lines().find(|line| !line.trim().is_empty())?;
        let (stack, count) = line.trim_end().rsplit_once(' ')?;
        let folded = complete
            && count.parse::<f64>().is_ok_and(|c| c >= 0.0)
            && (stack.is_empty()
                || stack.contains(';')
                || !stack.contains(' ')
                || stack.ends_with(')'))
            && !line.contains('\0');
        folded.then_some(ProfileFormat::Folded)
    }

    /// What the file at `path` is, from its first bytes: `None` for a recording (or a file
    /// none of these formats) — what [`crate::RecordingReader::open`] would convert.
    pub fn of_file(path: &Path) -> std::io::Result<Option<ProfileFormat>> {
        let mut start = Vec::with_capacity(4096);
        std::io::Read::read_to_end(
            &mut std::io::Read::take(std::fs::File::open(path)?, 4096),
            &mut start,
        )?;
        if start.starts_with(&crate::MAGIC[..start.len().min(crate::MAGIC.len())]) {
            return Ok(None);
        }
        Ok(ProfileFormat::detect(&start))
    }

    /// The format's name as users know it ("speedscope", "jfr", …).
    pub fn name(self) -> &'static str {
        match self {
            ProfileFormat::Folded => "folded stacks",
            ProfileFormat::Speedscope => "speedscope",
            ProfileFormat::ChromeTrace => "chrome trace",
            ProfileFormat::CpuProfile => "v8 cpu profile",
            ProfileFormat::Pprof => "pprof",
            ProfileFormat::Jfr => "jfr",
        }
    }
}

/// A profile as samples: frame names, threads, and each sample's thread, time and stack.
#[derive(Debug, Default)]
struct Profile {
    /// Distinct frames: (name, file).
    frames: Vec<(String, Option<String>)>,
    frame_ids: HashMap<(String, Option<String>), u32>,
    /// Thread names, by index.
    threads: Vec<String>,
    thread_ids: HashMap<String, u32>,
    /// (thread index, time ns, stack as frame indices, outermost first).
    samples: Vec<(u32, u64, Stack)>,
    /// Each distinct stack once ([`Profile::stack`]): a sample holds a reference to its stack.
    stacks: std::collections::HashSet<Stack>,
    /// The typical period between a thread's samples.
    period_ns: u64,
    producer: String,
    /// Allocation samples, in time order.
    allocations: Vec<Allocation>,
    /// The classes allocations name: (package, name, kind), by index.
    classes: Vec<(String, String, ClassKind)>,
    class_ids: HashMap<(String, String), u32>,
}

/// Objects of one class created at one stack of a thread (a JFR `jdk.ObjectAllocationSample`,
/// a pprof allocation sample).
/// A stack of frame indices, outermost first, shared by the samples that hold it.
type Stack = std::sync::Arc<[u32]>;

#[derive(Debug)]
struct Allocation {
    thread: u32,
    at_ns: u64,
    /// Frame indices, outermost first: the innermost frame created the objects.
    stack: Stack,
    class: u32,
    count: u64,
    bytes: u64,
}

impl Profile {
    /// `frames` as a shared stack: each distinct stack is held once.
    fn stack(&mut self, frames: &[u32]) -> Stack {
        if let Some(stack) = self.stacks.get(frames) {
            return stack.clone();
        }
        let stack = Stack::from(frames);
        self.stacks.insert(stack.clone());
        stack
    }

    fn frame(&mut self, name: &str, file: Option<&str>) -> u32 {
        let key = (name.to_owned(), file.map(str::to_owned));
        if let Some(&id) = self.frame_ids.get(&key) {
            return id;
        }
        let id = self.frames.len() as u32;
        self.frames.push(key.clone());
        self.frame_ids.insert(key, id);
        id
    }

    fn class(&mut self, package: String, name: String, kind: ClassKind) -> u32 {
        let key = (package, name);
        if let Some(&id) = self.class_ids.get(&key) {
            return id;
        }
        let id = self.classes.len() as u32;
        self.classes.push((key.0.clone(), key.1.clone(), kind));
        self.class_ids.insert(key, id);
        id
    }

    fn thread(&mut self, name: &str) -> u32 {
        if let Some(&index) = self.thread_ids.get(name) {
            return index;
        }
        let index = self.threads.len() as u32;
        self.threads.push(name.to_owned());
        self.thread_ids.insert(name.to_owned(), index);
        index
    }
}

fn invalid(reason: impl Into<String>) -> RecordError {
    RecordError::InvalidProfile {
        reason: reason.into(),
    }
}

/// A py-spy frame `name (file:line)`: the name and the file.
fn split_located(frame: &str) -> (&str, Option<&str>) {
    if let Some(open) = frame.rfind(" (") {
        if let Some(inner) = frame[open + 2..].strip_suffix(')') {
            let file = inner.rsplit_once(':').map_or(inner, |(file, _line)| file);
            if !file.is_empty() {
                return (&frame[..open], Some(file));
            }
        }
    }
    (frame, None)
}

fn parse_folded(mut input: impl std::io::BufRead) -> Result<Profile, RecordError> {
    type Fast = foldhash::fast::RandomState;
    let mut profile = Profile {
        producer: "folded stacks".into(),
        period_ns: FOLDED_PERIOD_NS,
        ..Profile::default()
    };
    // Read line by line, the same stack's lines summed: memory grows with the distinct
    // stacks, not with the file. Keys are [thread, frames…], looked up by slice, and each
    // frame's text is looked up as written: a line already seen allocates nothing.
    let mut counts: HashMap<Vec<u32>, u64, Fast> = HashMap::default();
    let mut frame_ids: HashMap<String, u32, Fast> = HashMap::default();
    let mut line = String::new();
    let mut key: Vec<u32> = Vec::new();
    let mut number = 0usize;
    loop {
        line.clear();
        if input.read_line(&mut line)? == 0 {
            break;
        }
        number += 1;
        let text = line.trim_end();
        if text.is_empty() || text.starts_with('#') {
            continue;
        }
        let (stack, count) = text
            .rsplit_once(' ')
            .ok_or_else(|| invalid(format!("line {number}: no sample count")))?;
        let count: f64 = count
            .parse()
            .map_err(|_| invalid(format!("line {number}: {count:?} is not a count")))?;
        let count = count.max(0.0).round() as u64;
        if count == 0 {
            continue;
        }
        let mut frames = stack.split(';').filter(|f| !f.is_empty()).peekable();
        let thread = match frames.peek() {
            Some(first) if first.starts_with("thread (") || first.starts_with("process ") => {
                let name = frames.next().unwrap_or_default();
                profile.thread(name)
            }
            _ => profile.thread("main"),
        };
        key.clear();
        key.push(thread);
        for frame in frames {
            let id = match frame_ids.get(frame) {
                Some(&id) => id,
                None => {
                    let (name, file) = split_located(frame);
                    let id = profile.frame(name, file);
                    frame_ids.insert(frame.to_owned(), id);
                    id
                }
            };
            key.push(id);
        }
        match counts.get_mut(key.as_slice()) {
            Some(total) => *total = total.saturating_add(count),
            None => {
                counts.insert(key.clone(), count);
            }
        }
    }
    let counts = counts
        .into_iter()
        .map(|(key, count)| ((key[0], key[1..].to_vec()), count))
        .collect();
    spread(&mut profile, counts)?;
    Ok(profile)
}

/// Turns counts of samples per (thread, stack) into samples spread evenly over each thread's
/// time, one per `profile.period_ns`: stack i's k-th sample at (k + ½) / count_i of the thread's
/// span, so every window holds each stack at its share.
fn spread(profile: &mut Profile, counts: HashMap<(u32, Vec<u32>), u64>) -> Result<(), RecordError> {
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

/// JFR's file magic.
const JFR_MAGIC: &[u8; 4] = b"FLR\0";

/// A thread JFR did not sample for more than this many periods was on nothing it saw.
const JFR_GAP_PERIODS: u64 = 10;

/// JFR recordings (the JDK's Flight Recorder): each `jdk.ExecutionSample` (a thread running
/// Java code) and `jdk.NativeMethodSample` (a thread in native code) is a sample of its thread at
/// its time. Read with the `jfrs` crate, chunk by chunk (the JVM writes chunks of about 12 MB,
/// each with its own constants): up to three chunks are parsed at once, on threads of their
/// own, and taken in file order; each distinct stack is held once. The chunks' sizes are checked
/// against the file first (so a damaged file cannot make it allocate beyond the file), and a
/// panic inside the parser is an error, not a crash.
fn parse_jfr<R: std::io::Read + std::io::Seek + Send>(
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
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| merged.take(parsed)))
            .map_err(|_| invalid("jfr: the recording could not be read (damaged?)"))?;
    }
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(move || finish_jfr(merged)))
        .unwrap_or_else(|_| Err(invalid("jfr: the recording could not be read (damaged?)")))
}

/// The events the import reads: samples of running threads and allocation samples.
const JFR_EVENTS: [&str; 3] = [
    "jdk.ExecutionSample",
    "jdk.NativeMethodSample",
    "jdk.ObjectAllocationSample",
];

/// A JFR chunk's header: magic, version, size, offsets, times, ticks and features.
const JFR_HEADER_BYTES: usize = 68;

/// An event's size and type at the start of `bytes`: JFR integers, LEB128-like when
/// `compressed` (7 bits a byte, the ninth byte whole), else big-endian.
fn jfr_event_header(bytes: &[u8], compressed: bool) -> Option<(i64, i64)> {
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
const JFR_WAVE_BYTES: usize = 64 << 20;

/// What one JFR chunk holds for the import, named in a table of its own.
struct JfrChunk {
    /// The frames, threads, classes and stacks the chunk's samples name (its own ids).
    names: Profile,
    /// (thread, time since the epoch in ns, stack).
    samples: Vec<(u32, i64, Stack)>,
    /// (thread, time, stack, class, bytes).
    allocations: Vec<(u32, i64, Stack, u32, u64)>,
}

/// Parses `chunks` (offset, size) of `input` on up to `parsers` threads; each chunk's result in
/// file order, or the first chunk's (in file order) error.
fn parse_jfr_chunks<R: std::io::Read + std::io::Seek + Send>(
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
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| read_jfr_chunk(bytes)))
            .unwrap_or_else(|_| Err(invalid("jfr: the recording could not be read (damaged?)")))
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
fn read_jfr_chunk(bytes: Vec<u8>) -> Result<JfrChunk, RecordError> {
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
struct JfrMerged {
    profile: Profile,
    /// (thread, time since the epoch in ns, stack).
    raw: Vec<(u32, i64, Stack)>,
    /// At their times since the epoch, coalesced chunk by chunk ([`JFR_COALESCE_NS`]).
    allocated: Vec<Allocation>,
}

/// A chunk's allocation samples are coalesced over slots of this long (JFR's shortest
/// execution sample period): the whole profile's, over its own period at the end.
const JFR_COALESCE_NS: u64 = 10_000_000;

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
fn finish_jfr(merged: JfrMerged) -> Result<Profile, RecordError> {
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
fn coalesce_allocations(allocations: Vec<Allocation>, period_ns: u64) -> Vec<Allocation> {
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
struct JfrChunkNames {
    stacks: HashMap<i64, Stack>,
    threads: HashMap<i64, u32>,
    classes: HashMap<i64, u32>,
}

/// The constant-pool index a field refers to, when it does.
fn jfr_constant(field: Option<&jfrs::reader::event::Accessor<'_>>) -> Option<i64> {
    match field.map(|f| f.value) {
        Some(jfrs::reader::value_descriptor::ValueDescriptor::ConstantPool {
            constant_index,
            ..
        }) => Some(*constant_index),
        _ => None,
    }
}

/// A JFR string or symbol (`jdk.types.Symbol`, its text in `string`).
fn jfr_text(accessor: Option<jfrs::reader::event::Accessor<'_>>) -> Option<String> {
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

/// A JVM class name as the Java agent names its classes: `java/lang/String` is `java.lang` ·
/// `String`; arrays by their element, `[B` is `byte[]`, `[[Ljava/lang/String;` `java.lang` ·
/// `String[][]`.
fn jvm_class(name: &str) -> (String, String, ClassKind) {
    let dims = name.bytes().take_while(|&b| b == b'[').count();
    let element = &name[dims..];
    let primitive = match element {
        "B" => Some("byte"),
        "C" => Some("char"),
        "D" => Some("double"),
        "F" => Some("float"),
        "I" => Some("int"),
        "J" => Some("long"),
        "S" => Some("short"),
        "Z" => Some("boolean"),
        _ => None,
    };
    let (package, simple) = match primitive.filter(|_| dims > 0) {
        Some(primitive) => (String::new(), primitive.to_owned()),
        None => {
            let internal = if dims > 0 {
                element.trim_start_matches('L').trim_end_matches(';')
            } else {
                element
            };
            let internal = internal.replace('.', "/");
            match internal.rsplit_once('/') {
                Some((package, simple)) => (package.replace('/', "."), simple.to_owned()),
                None => (String::new(), internal),
            }
        }
    };
    let kind = if dims > 0 {
        ClassKind::Array
    } else {
        ClassKind::Class
    };
    (package, format!("{simple}{}", "[]".repeat(dims)), kind)
}

/// A time unit's length in ns (`nanoseconds`, `ms`, …), or `None` for other units.
fn time_unit_ns(unit: &str) -> Option<f64> {
    match unit {
        "nanoseconds" | "nanosecond" | "ns" => Some(1.0),
        "microseconds" | "microsecond" | "us" => Some(1e3),
        "milliseconds" | "millisecond" | "ms" => Some(1e6),
        "seconds" | "second" | "s" => Some(1e9),
        _ => None,
    }
}

/// pprof: each sample's stack with its time (`cpu`, `wall`, … in a time unit) as samples of the
/// profile's period, or its count of samples where no value is a time. A `thread`, `thread_name`
/// or `thread_id` label names the thread; without one every sample is the thread `samples`.
fn parse_pprof(bytes: &[u8]) -> Result<Profile, RecordError> {
    let p = crate::pprof::decode(bytes)?;
    let text = |index: i64| {
        usize::try_from(index)
            .ok()
            .and_then(|i| p.string_table.get(i))
            .map_or("", String::as_str)
    };
    let kinds: Vec<(&str, &str)> = p
        .sample_type
        .iter()
        .map(|t| (text(t.r#type), text(t.unit)))
        .collect();
    let described = || {
        kinds
            .iter()
            .map(|(kind, unit)| format!("{kind}/{unit}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let time = kinds
        .iter()
        .position(|(_, unit)| time_unit_ns(unit).is_some());
    let counted = kinds
        .iter()
        .position(|(kind, unit)| *unit == "count" && matches!(*kind, "samples" | "sample"));
    let period_ns = p
        .period_type
        .as_ref()
        .and_then(|t| time_unit_ns(text(t.unit)))
        .map(|unit| p.period as f64 * unit)
        .filter(|&ns| ns >= 1.0)
        .unwrap_or(FOLDED_PERIOD_NS as f64);
    // Allocations: the bytes and objects allocated (or, without those, in use) per stack.
    let allocation_value = |unit: &str, word: &str| {
        let of = |prefix: &str| {
            kinds
                .iter()
                .position(|(kind, u)| *u == unit && kind.starts_with(prefix) && kind.contains(word))
        };
        of("alloc").or_else(|| of("inuse")).or_else(|| of(""))
    };
    let allocated_bytes = allocation_value("bytes", "");
    let allocated_objects = allocation_value("count", "objects");
    // (value index, ns per unit of it: None = the value counts samples).
    let sampled = match (time, counted) {
        (Some(time), _) => Some((time, time_unit_ns(kinds[time].1))),
        (None, Some(counted)) => Some((counted, None)),
        (None, None) if allocated_bytes.is_some() || allocated_objects.is_some() => None,
        (None, None) => {
            return Err(invalid(format!(
                "pprof: no time, sample count or allocation among the sample types ({})",
                described()
            )))
        }
    };
    let (kind, unit) = kinds[sampled
        .map(|(index, _)| index)
        .or(allocated_bytes)
        .or(allocated_objects)
        .unwrap_or(0)];
    let mut profile = Profile {
        producer: format!("pprof {kind}/{unit}"),
        period_ns: if sampled.is_some() {
            period_ns as u64
        } else {
            FOLDED_PERIOD_NS
        },
        ..Profile::default()
    };
    let functions: HashMap<u64, &crate::pprof::Function> =
        p.function.iter().map(|f| (f.id, f)).collect();
    let mappings: HashMap<u64, &crate::pprof::Mapping> =
        p.mapping.iter().map(|m| (m.id, m)).collect();
    // Each location's frames, caller last (as pprof lists inlined functions).
    let mut location_frames: HashMap<u64, Vec<u32>> = HashMap::with_capacity(p.location.len());
    for location in &p.location {
        let mut frames = Vec::with_capacity(location.line.len().max(1));
        for line in &location.line {
            let Some(function) = functions.get(&line.function_id) else {
                continue;
            };
            let name = match text(function.name) {
                "" => text(function.system_name),
                name => name,
            };
            let file = Some(text(function.filename)).filter(|f| !f.is_empty());
            frames.push(profile.frame(if name.is_empty() { "?" } else { name }, file));
        }
        if frames.is_empty() {
            // A native address without symbols: under its binary's name.
            let library = mappings
                .get(&location.mapping_id)
                .map(|m| text(m.filename))
                .filter(|f| !f.is_empty())
                .map(|f| format!("lib:{f}"));
            frames.push(profile.frame(&format!("0x{:x}", location.address), library.as_deref()));
        }
        location_frames.insert(location.id, frames);
    }
    let thread_keys: Vec<i64> = ["thread", "thread_name", "thread_id"]
        .iter()
        .filter_map(|key| p.string_table.iter().position(|s| s == key))
        .map(|i| i as i64)
        .collect();
    let mut counts: HashMap<(u32, Vec<u32>), u64> = HashMap::new();
    // (thread, stack) → (objects, bytes)
    let mut allocated: HashMap<(u32, Vec<u32>), (u64, u64)> = HashMap::new();
    for sample in &p.sample {
        let value_at = |index: Option<usize>| {
            index
                .and_then(|i| sample.value.get(i).copied())
                .unwrap_or(0)
                .max(0) as u64
        };
        let (objects, bytes) = (value_at(allocated_objects), value_at(allocated_bytes));
        let samples = match sampled {
            Some((index, Some(unit))) => match sample.value.get(index).copied().unwrap_or(0) {
                value if value > 0 => ((value as f64 * unit / period_ns).round() as u64).max(1),
                _ => 0,
            },
            Some((index, None)) => value_at(Some(index)),
            None => 0,
        };
        if samples == 0 && objects == 0 && bytes == 0 {
            continue;
        }
        let thread_name = sample
            .label
            .iter()
            .find(|l| thread_keys.contains(&l.key))
            .map(|l| match text(l.str) {
                "" => l.num.to_string(),
                name => name.to_owned(),
            });
        let thread = profile.thread(thread_name.as_deref().unwrap_or("samples"));
        let mut stack = Vec::new();
        for location in sample.location_id.iter().rev() {
            if let Some(frames) = location_frames.get(location) {
                stack.extend(frames.iter().rev());
            }
        }
        if objects > 0 || bytes > 0 {
            let total = allocated.entry((thread, stack.clone())).or_default();
            total.0 = total.0.saturating_add(objects);
            total.1 = total.1.saturating_add(bytes);
        }
        if samples > 0 {
            let total = counts.entry((thread, stack)).or_default();
            *total = total.saturating_add(samples);
        }
    }
    if !counts.is_empty() || allocated.is_empty() {
        spread(&mut profile, counts)?;
    }
    // Allocations carry no time: one record per stack, spread evenly over the profile.
    let mut allocated: Vec<_> = allocated.into_iter().collect();
    allocated.sort_unstable();
    let span_ns = profile
        .samples
        .iter()
        .map(|(_, at, _)| *at)
        .max()
        .map_or(allocated.len() as u64 * profile.period_ns, |last| {
            last + profile.period_ns
        });
    let untyped = profile.class(String::new(), "(untyped)".into(), ClassKind::Untyped);
    let n = allocated.len() as u64;
    for (i, ((thread, stack), (count, bytes))) in allocated.into_iter().enumerate() {
        profile.allocations.push(Allocation {
            thread,
            at_ns: (span_ns as f64 * (i as f64 + 0.5) / n as f64) as u64,
            stack: stack.into(),
            class: untyped,
            count,
            bytes,
        });
    }
    profile.allocations.sort_by_key(|a| (a.at_ns, a.thread));
    if profile.allocations.is_empty() {
        profile.classes.clear();
        profile.class_ids.clear();
    }
    Ok(profile)
}

/// A speedscope file as read: only the fields used, each profile's samples as the distinct
/// stacks and, per sample, which one (a file of hundreds of MB holds few distinct stacks).
struct SpeedscopeFile {
    shared: SpeedscopeShared,
    profiles: Vec<SpeedscopeProfile>,
    exporter: Option<String>,
}

#[derive(serde::Deserialize)]
struct SpeedscopeShared {
    frames: Vec<SpeedscopeFrame>,
}

#[derive(serde::Deserialize)]
struct SpeedscopeFrame {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    file: Option<String>,
}

#[derive(Default)]
struct SpeedscopeProfile {
    /// `type`.
    kind: String,
    name: Option<String>,
    unit: Option<String>,
    /// `startValue`, `endValue`.
    start_value: Option<f64>,
    end_value: Option<f64>,
    /// Sampled profiles.
    samples: SpeedscopeSamples,
    weights: Option<Vec<f64>>,
    /// Evented profiles.
    events: Vec<SpeedscopeEvent>,
}

/// A sampled profile's samples: each distinct stack (frame indices, outermost first) once, and
/// each sample's stack by its index there.
#[derive(Default)]
struct SpeedscopeSamples {
    stacks: Vec<Vec<u32>>,
    of_sample: Vec<u32>,
}

impl SpeedscopeSamples {
    /// One more sample, of `stack`; `index` finds the stacks seen before.
    fn push(
        &mut self,
        stack: &[u32],
        index: &mut HashMap<Vec<u32>, u32, foldhash::fast::RandomState>,
    ) {
        let next = self.stacks.len() as u32;
        let id = match index.get(stack) {
            Some(&id) => id,
            None => {
                index.insert(stack.to_vec(), next);
                self.stacks.push(stack.to_vec());
                next
            }
        };
        self.of_sample.push(id);
    }
}

/// An evented profile's frame opening (`O`) or closing (`C`) at a time.
#[derive(serde::Deserialize)]
struct SpeedscopeEvent {
    #[serde(rename = "type")]
    kind: SpeedscopeEventKind,
    frame: u64,
    at: f64,
}

#[derive(serde::Deserialize, PartialEq, Eq)]
enum SpeedscopeEventKind {
    O,
    C,
    #[serde(other)]
    Other,
}

impl SpeedscopeFile {
    /// Reads a speedscope file as it streams by ([`crate::json_array::Cursor`]): each sample's
    /// frame indices and each weight read by hand (serde_json reading from a stream took half
    /// of a 1 GB file's conversion), every other value by serde_json from its own bytes.
    fn read(input: impl std::io::Read) -> Result<SpeedscopeFile, RecordError> {
        use crate::json_array::{Cursor, CursorError};
        let mut json = Cursor::new(input);
        let mut read = || -> Result<SpeedscopeFile, CursorError> {
            let mut shared = None;
            let mut profiles = Vec::new();
            let mut exporter = None;
            json.begin_object()?;
            while let Some(key) = json.next_key()? {
                match key.as_str() {
                    "shared" => shared = Some(speedscope_value(json.value()?, "shared")?),
                    "exporter" => exporter = speedscope_value(json.value()?, "exporter")?,
                    "profiles" => {
                        json.begin_array()?;
                        while json.next_element()? {
                            profiles.push(read_speedscope_profile(&mut json)?);
                        }
                    }
                    _ => {
                        json.value()?;
                    }
                }
            }
            json.end()?;
            Ok(SpeedscopeFile {
                shared: shared
                    .ok_or_else(|| CursorError::Shape("missing field `shared`".into()))?,
                profiles,
                exporter,
            })
        };
        read().map_err(|error| match error {
            CursorError::Io(error) => RecordError::from(error),
            CursorError::Shape(what) => invalid(format!("speedscope JSON: {what}")),
        })
    }

    /// Whether it holds evented profiles (every call opened and closed at its time).
    fn is_evented(&self) -> bool {
        self.profiles.iter().any(|p| p.kind == "evented")
    }

    /// Each frame's name and file.
    fn frames(&self) -> impl Iterator<Item = (&str, Option<&str>)> {
        self.shared
            .frames
            .iter()
            .map(|f| (f.name.as_deref().unwrap_or("?"), f.file.as_deref()))
    }

    /// Who wrote it: `speedscope from EXPORTER`, or `speedscope`.
    fn producer(&self) -> String {
        self.exporter
            .as_deref()
            .map_or_else(|| "speedscope".into(), |e| format!("speedscope from {e}"))
    }
}

/// A small value of a speedscope file, by serde_json from its bytes (`what` names it in errors).
fn speedscope_value<T: serde::de::DeserializeOwned>(
    bytes: &[u8],
    what: &str,
) -> Result<T, crate::json_array::CursorError> {
    serde_json::from_slice(bytes)
        .map_err(|error| crate::json_array::CursorError::Shape(format!("{what}: {error}")))
}

/// A sample's frame indices (`[3,14,15]`) into `out`; by hand for the common compact form,
/// by serde_json for any other (spaces, or not indices at all: its error).
fn speedscope_stack(
    bytes: &[u8],
    out: &mut Vec<u32>,
) -> Result<(), crate::json_array::CursorError> {
    out.clear();
    let compact = (|| {
        let inner = bytes.strip_prefix(b"[")?.strip_suffix(b"]")?;
        // One pass: digits make an index (at most 9: no overflow), a comma ends one.
        let (mut index, mut digits) = (0u32, 0u32);
        for &byte in inner {
            if byte.is_ascii_digit() && digits < 9 {
                index = index * 10 + u32::from(byte - b'0');
                digits += 1;
            } else if byte == b',' && digits > 0 {
                out.push(index);
                (index, digits) = (0, 0);
            } else {
                return None;
            }
        }
        match digits {
            0 if !inner.is_empty() => None,
            0 => Some(()),
            _ => {
                out.push(index);
                Some(())
            }
        }
    })();
    if compact.is_none() {
        *out = speedscope_value(bytes, "a sample")?;
    }
    Ok(())
}

/// A weight: a JSON number, parsed by the standard library where it is plainly one.
fn speedscope_number(bytes: &[u8]) -> Result<f64, crate::json_array::CursorError> {
    let plain = bytes
        .first()
        .is_some_and(|b| b.is_ascii_digit() || *b == b'-')
        && bytes
            .iter()
            .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'-' | b'+' | b'e' | b'E'));
    match std::str::from_utf8(bytes)
        .ok()
        .filter(|_| plain)
        .and_then(|text| text.parse().ok())
    {
        Some(number) => Ok(number),
        None => speedscope_value(bytes, "a weight"),
    }
}

/// One profile of a speedscope file's `profiles`, its samples and weights read as they stream.
fn read_speedscope_profile<R: std::io::Read>(
    json: &mut crate::json_array::Cursor<R>,
) -> Result<SpeedscopeProfile, crate::json_array::CursorError> {
    use crate::json_array::CursorError;
    let mut profile = SpeedscopeProfile::default();
    let mut kind = None;
    let mut index = HashMap::default();
    let mut stack = Vec::new();
    json.begin_object()?;
    while let Some(key) = json.next_key()? {
        match key.as_str() {
            "type" => kind = Some(speedscope_value(json.value()?, "type")?),
            "name" => profile.name = speedscope_value(json.value()?, "name")?,
            "unit" => profile.unit = speedscope_value(json.value()?, "unit")?,
            "startValue" => profile.start_value = speedscope_value(json.value()?, "startValue")?,
            "endValue" => profile.end_value = speedscope_value(json.value()?, "endValue")?,
            "samples" | "weights" | "events" if json.null()? => {}
            "samples" => {
                json.begin_array()?;
                while json.next_element()? {
                    speedscope_stack(json.value()?, &mut stack)?;
                    profile.samples.push(&stack, &mut index);
                }
            }
            "weights" => {
                let mut weights = Vec::new();
                json.begin_array()?;
                while json.next_element()? {
                    weights.push(speedscope_number(json.value()?)?);
                }
                profile.weights = Some(weights);
            }
            "events" => {
                json.begin_array()?;
                while json.next_element()? {
                    profile
                        .events
                        .push(speedscope_value(json.value()?, "an event")?);
                }
            }
            _ => {
                json.value()?;
            }
        }
    }
    profile.kind =
        kind.ok_or_else(|| CursorError::Shape("a profile: missing field `type`".into()))?;
    Ok(profile)
}

/// A speedscope file's sampled profiles, one thread each: each sample lasts its weight.
fn parse_speedscope(file: &SpeedscopeFile) -> Result<Profile, RecordError> {
    let mut profile = Profile {
        producer: file.producer(),
        period_ns: FOLDED_PERIOD_NS,
        ..Profile::default()
    };
    let frame_ids: Vec<u32> = file
        .frames()
        .map(|(name, path)| profile.frame(name, path))
        .collect();
    let mut periods = Vec::new();
    for (number, p) in file.profiles.iter().enumerate() {
        if p.kind != "sampled" {
            return Err(invalid(format!(
                "speedscope: profile {} is {:?}; only sampled profiles are read",
                number + 1,
                p.kind
            )));
        }
        let name = p
            .name
            .clone()
            .unwrap_or_else(|| format!("thread {}", number + 1));
        let thread = profile.thread(&name);
        let unit_ns = p.unit.as_deref().and_then(time_unit_ns);
        let stacks = p
            .samples
            .stacks
            .iter()
            .map(|stack| {
                let frames = stack
                    .iter()
                    .map(|&f| {
                        frame_ids
                            .get(f as usize)
                            .copied()
                            .ok_or_else(|| invalid("speedscope: a sample names no frame"))
                    })
                    .collect::<Result<Vec<u32>, _>>()?;
                Ok(profile.stack(&frames))
            })
            .collect::<Result<Vec<Stack>, RecordError>>()?;
        let mut at_ns = unit_ns.map_or(0.0, |unit| p.start_value.unwrap_or(0.0) * unit);
        for (index, &stack) in p.samples.of_sample.iter().enumerate() {
            let weight = p
                .weights
                .as_ref()
                .and_then(|w| w.get(index))
                .copied()
                .unwrap_or(1.0)
                .max(0.0);
            let duration_ns = match unit_ns {
                Some(unit) => weight * unit,
                None => weight * FOLDED_PERIOD_NS as f64,
            };
            profile
                .samples
                .push((thread, at_ns as u64, stacks[stack as usize].clone()));
            periods.push(duration_ns);
            at_ns += duration_ns;
        }
    }
    if profile.samples.is_empty() {
        return Err(invalid("speedscope: no samples"));
    }
    periods.sort_by(f64::total_cmp);
    profile.period_ns = (periods[periods.len() / 2] as u64).max(1);
    profile.samples.sort_by_key(|&(thread, at, _)| (at, thread));
    Ok(profile)
}

fn parse_cpuprofile(text: &str) -> Result<Profile, RecordError> {
    let json: serde_json::Value =
        serde_json::from_str(text).map_err(|e| invalid(format!("cpuprofile JSON: {e}")))?;
    let nodes = json
        .get("nodes")
        .and_then(|n| n.as_array())
        .ok_or_else(|| invalid("cpuprofile: no nodes"))?;
    let mut profile = Profile {
        producer: "v8 cpu profile".into(),
        ..Profile::default()
    };
    // Each node's frame (None: the root and idle time) and parent, by node id.
    let mut frame_of: HashMap<u64, Option<u32>> = HashMap::new();
    let mut parent_of: HashMap<u64, u64> = HashMap::new();
    for node in nodes {
        let Some(id) = node.get("id").and_then(|i| i.as_u64()) else {
            continue;
        };
        let call = node.get("callFrame");
        let field = |name: &str| call.and_then(|c| c.get(name)).and_then(|v| v.as_str());
        let function = field("functionName").unwrap_or("");
        let url = field("url").unwrap_or("");
        let frame = match function {
            "(root)" | "(idle)" => None,
            "(program)" | "(garbage collector)" => Some(profile.frame(function, Some("js:v8"))),
            "" => Some(profile.frame("(anonymous)", Some(&format!("js:{url}")))),
            _ => Some(profile.frame(function, Some(&format!("js:{url}")))),
        };
        frame_of.insert(id, frame);
        for child in node
            .get("children")
            .and_then(|c| c.as_array())
            .into_iter()
            .flatten()
        {
            if let Some(child) = child.as_u64() {
                parent_of.insert(child, id);
            }
        }
    }
    let empty = Vec::new();
    let samples = json
        .get("samples")
        .and_then(|s| s.as_array())
        .unwrap_or(&empty);
    let deltas = json.get("timeDeltas").and_then(|d| d.as_array());
    let thread = profile.thread("main");
    let mut at_us = 0i64;
    let mut gaps = Vec::new();
    let mut stacks: HashMap<u64, Stack> = HashMap::new();
    for (index, sample) in samples.iter().enumerate() {
        let delta = deltas
            .and_then(|d| d.get(index))
            .and_then(|d| d.as_i64())
            .unwrap_or(0)
            .max(0);
        if index > 0 {
            gaps.push(delta as u64);
        }
        at_us = at_us.saturating_add(delta);
        let Some(node) = sample.as_u64() else {
            continue;
        };
        let stack = stacks
            .entry(node)
            .or_insert_with(|| {
                // Outermost first: walk up to the root (at most as many steps as nodes).
                let mut stack = Vec::new();
                let mut at = Some(node);
                for _ in 0..=nodes.len() {
                    let Some(id) = at else { break };
                    if let Some(Some(frame)) = frame_of.get(&id) {
                        stack.push(*frame);
                    }
                    at = parent_of.get(&id).copied();
                }
                stack.reverse();
                Stack::from(stack)
            })
            .clone();
        profile.samples.push((
            thread,
            u64::try_from(at_us).unwrap_or(0).saturating_mul(1000),
            stack,
        ));
    }
    if profile.samples.is_empty() {
        return Err(invalid("cpuprofile: no samples"));
    }
    gaps.sort_unstable();
    profile.period_ns = gaps
        .get(gaps.len() / 2)
        .map_or(FOLDED_PERIOD_NS, |&gap| gap.saturating_mul(1000).max(1));
    Ok(profile)
}

/// A JavaScript script's module: `file:///app/node_modules/lodash/map.js` → `lodash.map`,
/// `node:internal/main/run_main_module` → `node.internal.main.run_main_module`, a script's own
/// file → its stem, `v8` for the engine's own entries.
fn js_module(url: &str) -> String {
    let path = url
        .strip_prefix("file://")
        .unwrap_or(url)
        .replace([':', '\\'], "/");
    if path.is_empty() {
        return "js".into();
    }
    let relative = match path.rsplit_once("node_modules/") {
        Some((_, rest)) => rest.to_owned(),
        None if path.starts_with('/') => path.rsplit('/').next().unwrap_or(&path).to_owned(),
        None => path,
    };
    ["js", "mjs", "cjs", "ts"]
        .iter()
        .find_map(|ext| relative.strip_suffix(&format!(".{ext}")))
        .unwrap_or(&relative)
        .replace('.', "_")
        .replace('/', ".")
}

/// Package, class and method of a frame, as the agents would name its function.
pub fn frame_method(name: &str, file: Option<&str>) -> (String, String, String) {
    let is_python = |f: &&str| {
        f.ends_with(".py") || f.ends_with(".pyw") || (f.starts_with('<') && f.ends_with('>'))
    };
    if let Some(url) = file.and_then(|f| f.strip_prefix("js:")) {
        let (class, method) = match name.rsplit_once('.') {
            Some((class, method)) if !class.is_empty() && !method.is_empty() => {
                (class.to_owned(), method.to_owned())
            }
            _ => ("<module>".to_owned(), name.to_owned()),
        };
        return (js_module(url), class, method);
    }
    if let Some(file) = file.filter(is_python) {
        let (class, method) = split_python_qualname(name);
        return (python_module(file), class, method);
    }
    if file.is_some_and(|f| f.ends_with(".go") || f.ends_with(".s")) && !name.contains("::") {
        return go_method(name);
    }
    if let Some(library) = file.and_then(|f| f.strip_prefix("lib:")) {
        // A native frame without symbols, under its binary: `/lib/x86_64-linux-gnu/libc.so.6`
        // → `libc`.
        let base = library.rsplit('/').next().unwrap_or(library);
        let stem = base.split(".so").next().unwrap_or(base);
        let stem = stem.rsplit_once('.').map_or(stem, |(stem, _)| stem);
        return (
            format!("native.{}", stem.replace('.', "_")),
            "<module>".into(),
            name.into(),
        );
    }
    // Java frames from async-profiler carry a kind suffix: `_[j]` (JIT), `_[i]`, `_[k]`, …
    let mut bare = name.trim();
    if let Some(open) = bare.rfind("_[") {
        if bare.ends_with(']') && bare.len() - open <= 6 {
            bare = &bare[..open];
        }
    }
    if bare.contains("::") {
        let parts: Vec<&str> = bare.split("::").collect();
        return match parts.as_slice() {
            [method] => ("native".into(), "<module>".into(), (*method).into()),
            [class, method] => ("native".into(), (*class).into(), (*method).into()),
            [package @ .., class, method] => (package.join("."), (*class).into(), (*method).into()),
            [] => ("native".into(), "<module>".into(), bare.into()),
        };
    }
    let dotted = bare.replace('/', ".");
    let looks_dotted = !dotted.contains(' ') && !dotted.starts_with('[') && dotted.contains('.');
    if looks_dotted {
        let parts: Vec<&str> = dotted.split('.').collect();
        if let [package @ .., class, method] = parts.as_slice() {
            if !class.is_empty() && !method.is_empty() {
                let package = if package.is_empty() {
                    "native".to_owned()
                } else {
                    package.join(".")
                };
                return (package, (*class).into(), (*method).into());
            }
        }
    }
    ("native".into(), "<module>".into(), bare.into())
}

/// A Go function's package, type and method: `github.com/u/p/store.(*DB).Get` →
/// `github.com.u.p.store` · `DB` · `Get`; `main.work` → `main` · `<module>` · `work`;
/// `main.work.func1` (a closure) → `main` · `work` · `func1`.
fn go_method(name: &str) -> (String, String, String) {
    let (dir, last) = match name.rfind('/') {
        Some(slash) => (&name[..=slash], &name[slash + 1..]),
        None => ("", name),
    };
    let (package, rest) = last.split_once('.').unwrap_or((last, ""));
    let package = format!("{dir}{package}").replace('/', ".");
    let (class, method) =
        if let Some((receiver, method)) = rest.strip_prefix('(').and_then(|r| r.split_once(").")) {
            (
                receiver.trim_start_matches('*').to_owned(),
                method.to_owned(),
            )
        } else if let Some((class, method)) = rest.split_once('.') {
            (class.to_owned(), method.to_owned())
        } else if rest.is_empty() {
            ("<module>".to_owned(), last.to_owned())
        } else {
            ("<module>".to_owned(), rest.to_owned())
        };
    (package, class, method)
}

/// A Python function's class and method from its qualified name, as the Python agent names
/// them: `Board.rotate` → `Board` · `rotate`; `run` → `<module>` · `run`; a nested function
/// keeps its enclosing function's name, `C.m.<locals>.helper` → `C` · `m.helper`.
fn split_python_qualname(qualname: &str) -> (String, String) {
    let parts: Vec<&str> = qualname.split('.').collect();
    let function = match parts.iter().position(|p| *p == "<locals>") {
        Some(locals) if locals > 0 => locals - 1,
        _ => parts.len() - 1,
    };
    let class = if function == 0 {
        "<module>".to_owned()
    } else {
        parts[..function].join(".")
    };
    let method = parts[function..]
        .iter()
        .filter(|p| **p != "<locals>")
        .copied()
        .collect::<Vec<_>>()
        .join(".");
    (class, method)
}

/// A Python file's module: after `site-packages/` or the standard library's directory, or the
/// whole of a relative path (py-spy shortens paths to their `sys.path` entry:
/// `sympy/core/cache.py` is `sympy.core.cache`); a script's own file is its stem;
/// `<frozen importlib._bootstrap>` is `importlib._bootstrap`.
fn python_module(file: &str) -> String {
    if let Some(inner) = file.strip_prefix('<').and_then(|f| f.strip_suffix('>')) {
        return inner.strip_prefix("frozen ").unwrap_or(inner).to_owned();
    }
    let path = file.replace('\\', "/");
    let after = |marker: &str| path.rsplit_once(marker).map(|(_, rest)| rest.to_owned());
    let absolute = path.starts_with('/') || path.get(1..3) == Some(":/");
    let relative = after("site-packages/")
        .or_else(|| after("dist-packages/"))
        .or_else(|| {
            // The standard library: …/lib/python3.12/json/decoder.py.
            let at = path.find("/lib/python")?;
            let rest = &path[at + "/lib/python".len()..];
            rest.split_once('/').map(|(_, rest)| rest.to_owned())
        })
        .unwrap_or_else(|| {
            if absolute {
                path.rsplit('/').next().unwrap_or(&path).to_owned()
            } else {
                path.trim_start_matches("./").to_owned()
            }
        });
    relative
        .trim_end_matches(".pyw")
        .trim_end_matches(".py")
        .trim_end_matches("/__init__")
        .replace('/', ".")
}

/// Appends `message` to the recording, arrived and stamped at `at` (ns).
fn send(frames: &mut Frames, at: u64, message: &AgentMessage) -> Result<(), RecordError> {
    let frame = encode_frame(message).map_err(|e| invalid(format!("encoding: {e}")))?;
    frames.push(at, &frame)
}

/// Frames encoded back to back, each with its time and where it ends.
#[derive(Default)]
struct FrameBatch {
    bytes: Vec<u8>,
    ends: Vec<(u64, usize)>,
}

/// A converted recording's frames: encoded on the converting thread, handed in batches to a
/// writer thread that compresses and writes them on the other core (zstd took a third of a
/// 1 GB file's conversion on one thread).
struct Frames {
    batch: FrameBatch,
    full: std::sync::mpsc::SyncSender<FrameBatch>,
    empty: std::sync::mpsc::Receiver<FrameBatch>,
    /// The writer thread stopped (its error is the conversion's).
    writer_gone: bool,
}

/// A batch goes to the writer once this many bytes are encoded.
const FRAME_BATCH_BYTES: usize = 1 << 20;

impl Frames {
    fn push(&mut self, at: u64, frame: &[u8]) -> Result<(), RecordError> {
        self.batch.bytes.extend_from_slice(frame);
        self.batch.ends.push((at, self.batch.bytes.len()));
        if self.batch.bytes.len() >= FRAME_BATCH_BYTES {
            self.hand_over()?;
        }
        Ok(())
    }

    fn hand_over(&mut self) -> Result<(), RecordError> {
        let next = self.empty.try_recv().unwrap_or_default();
        let batch = std::mem::replace(&mut self.batch, next);
        if self.full.send(batch).is_err() {
            self.writer_gone = true;
            return Err(invalid("the recording's writer stopped"));
        }
        Ok(())
    }
}

/// Writes a recording into `out` that opens with the Hello of a session of `program` imported
/// from `producer`'s file, then `produce`'s frames, through a writer thread ([`Frames`]).
fn write_frames<W: Write + Send>(
    out: W,
    producer: &str,
    program: &str,
    produce: impl FnOnce(&mut Frames) -> Result<(), RecordError>,
) -> Result<(), RecordError> {
    use std::sync::mpsc::{channel, sync_channel};
    let (full, batches) = sync_channel::<FrameBatch>(2);
    let (give_back, empty) = channel::<FrameBatch>();
    std::thread::scope(|scope| {
        let writer = std::thread::Builder::new()
            .name("highrise-import-write".into())
            .spawn_scoped(scope, move || -> Result<(), RecordError> {
                let mut writer = begin(out, producer, program)?;
                for mut batch in batches {
                    let mut start = 0;
                    for &(at, end) in &batch.ends {
                        writer.write_frame(at, &batch.bytes[start..end], at)?;
                        start = end;
                    }
                    batch.bytes.clear();
                    batch.ends.clear();
                    let _ = give_back.send(batch);
                }
                writer.finish()?;
                Ok(())
            })?;
        let mut frames = Frames {
            batch: FrameBatch::default(),
            full,
            empty,
            writer_gone: false,
        };
        let produced = produce(&mut frames).and_then(|()| frames.hand_over());
        let writer_gone = frames.writer_gone;
        drop(frames); // the writer's last batch: it finishes the recording
        let written = writer
            .join()
            .unwrap_or_else(|_| Err(invalid("the recording's writer failed (a bug in highrise)")));
        match produced {
            // The writer's own error says why.
            Err(_) if writer_gone => written,
            Err(error) => Err(error),
            Ok(()) => written,
        }
    })
}

/// A recording into `out` that opens with the Hello of a session of `program` imported from
/// `producer`'s file.
fn begin<W: Write>(
    out: W,
    producer: &str,
    program: &str,
) -> Result<RecordingWriter<W>, RecordError> {
    // zstd's fastest level: a converted file is mostly opened once (`highrise report FILE`
    // converts into a temporary recording), and level 3 took a third of a 1 GB file's time.
    let mut writer = RecordingWriter::with_compression(
        out,
        &RecordingHeader::new(0),
        crate::Compression::Zstd { level: 1 },
    )?;
    let hello = encode_frame(&AgentMessage::Hello(Hello {
        magic: MAGIC,
        protocol_version: PROTOCOL_VERSION,
        agent: format!("highrise import ({producer})"),
        program: program.to_owned(),
        version_label: String::new(),
        pid: 0,
        clock_unit_ns: 1,
        clock_zero_unix_ns: 0,
    }))
    .map_err(|e| invalid(format!("encoding: {e}")))?;
    writer.write_frame(0, &hello, 0)?;
    Ok(writer)
}

/// Writes `profile` as a recording into `out`.
fn write_recording(
    profile: &Profile,
    program: &str,
    out: impl Write + Send,
) -> Result<(), RecordError> {
    write_frames(out, &profile.producer, program, |writer| {
        write_profile(profile, writer)
    })
}

/// [`write_recording`]'s frames.
fn write_profile(profile: &Profile, writer: &mut Frames) -> Result<(), RecordError> {
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
        send(
            writer,
            at_ns,
            &AgentMessage::Resync {
                thread_id,
                timestamp: at_ns,
                stack: methods_of_stack(&allocation.stack),
            },
        )?;
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
        send(
            writer,
            at_ns,
            &AgentMessage::Resync {
                thread_id,
                timestamp: at_ns,
                stack: sampled.get(&allocation.thread).cloned().unwrap_or_default(),
            },
        )?;
    }
    let end_ns = at_ns.saturating_add(profile.period_ns);
    send(
        writer,
        end_ns,
        &AgentMessage::Heartbeat { timestamp: end_ns },
    )?;
    send(writer, end_ns, &AgentMessage::Goodbye { timestamp: end_ns })
}

/// A trace: its functions (name, file) and each thread's calls as intervals.
#[derive(Debug, Default)]
struct Trace {
    producer: String,
    /// Where the calls are a sampler's merged timeline, not every call (pyinstrument): its
    /// period, so the session says "sampled" and shows no calls.
    sampled_period_us: Option<u32>,
    functions: Vec<(String, Option<String>)>,
    function_ids: HashMap<(String, Option<String>), u32>,
    /// Thread names, by index, and each thread's calls.
    threads: Vec<(String, Vec<Call>)>,
}

/// A call in a trace: start ns, end ns, function.
type Call = (u64, u64, u32);

impl Trace {
    /// The function `name` in `file`, added when new.
    fn function(&mut self, name: &str, file: Option<&str>) -> u32 {
        let key = (name.to_owned(), file.map(str::to_owned));
        let next = self.functions.len() as u32;
        *self.function_ids.entry(key).or_insert_with_key(|key| {
            self.functions.push(key.clone());
            next
        })
    }
}

/// speedscope's evented profiles, one thread each: every `O` (open) and `C` (close) of a frame at
/// its time becomes a call, as in a Chrome trace. Frames left open close at the profile's end.
/// pyinstrument's are its samples merged into one timeline (calls not counted): the session says
/// it is sampled, at pyinstrument's default 1 ms.
fn parse_speedscope_evented(file: &SpeedscopeFile) -> Result<Trace, RecordError> {
    let mut trace = Trace {
        producer: file.producer(),
        ..Trace::default()
    };
    if trace.producer.contains("pyinstrument") {
        trace.sampled_period_us = Some(1000);
    }
    // Frames naming the same function share it.
    let function_of: Vec<u32> = file
        .frames()
        .map(|(name, path)| trace.function(name, path))
        .collect();
    for (number, p) in file.profiles.iter().enumerate() {
        if p.kind != "evented" {
            return Err(invalid(format!(
                "speedscope: profile {} is {:?}, beside evented ones; one kind per file is read",
                number + 1,
                p.kind
            )));
        }
        let unit_ns = p.unit.as_deref().and_then(time_unit_ns).unwrap_or(1e6);
        let start = p.start_value.unwrap_or(0.0);
        let end = p.end_value.unwrap_or(start);
        let ns = |at: f64| ((at - start).max(0.0) * unit_ns) as u64;
        let name = p
            .name
            .clone()
            .unwrap_or_else(|| format!("thread {}", number + 1));
        // Calls in the order they open (outer first where they open together); each open one's
        // index in `calls`, its end still unknown.
        let mut calls: Vec<Call> = Vec::new();
        let mut open: Vec<(usize, u32)> = Vec::new();
        for event in &p.events {
            let function = *function_of
                .get(event.frame as usize)
                .ok_or_else(|| invalid("speedscope: an event names no frame"))?;
            match event.kind {
                SpeedscopeEventKind::O => {
                    calls.push((ns(event.at), u64::MAX, function));
                    open.push((calls.len() - 1, function));
                }
                SpeedscopeEventKind::C => {
                    // Closes the innermost open frame of that function (and any left above it).
                    if let Some(depth) = open.iter().rposition(|&(_, f)| f == function) {
                        for (index, _) in open.drain(depth..) {
                            calls[index].1 = ns(event.at).max(calls[index].0);
                        }
                    }
                }
                SpeedscopeEventKind::Other => {}
            }
        }
        let end_ns = ns(end).max(
            calls
                .iter()
                .map(|c| c.1)
                .filter(|&e| e != u64::MAX)
                .max()
                .unwrap_or(0),
        );
        for (index, _) in open.drain(..) {
            calls[index].1 = end_ns.max(calls[index].0);
        }
        trace.threads.push((name, calls));
    }
    if trace.threads.iter().all(|(_, calls)| calls.is_empty()) {
        return Err(invalid("speedscope: no events"));
    }
    Ok(trace)
}

fn parse_chrome_trace(bytes: &[u8]) -> Result<Trace, RecordError> {
    read_chrome_trace(bytes)
}

/// A `pid` or `tid`: a number (no allocation) or, rarely, a string.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
enum ChromeId {
    #[default]
    None,
    Int(i64),
    /// Any other value, as its JSON text.
    Text(String),
}

impl ChromeId {
    fn shown(&self) -> String {
        match self {
            Self::None => String::new(),
            Self::Int(id) => id.to_string(),
            Self::Text(text) => text.trim_matches('"').to_owned(),
        }
    }
}

impl<'de> serde::Deserialize<'de> for ChromeId {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Id;
        impl serde::de::Visitor<'_> for Id {
            type Value = ChromeId;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a pid or tid")
            }
            fn visit_i64<E>(self, v: i64) -> Result<ChromeId, E> {
                Ok(ChromeId::Int(v))
            }
            fn visit_u64<E>(self, v: u64) -> Result<ChromeId, E> {
                Ok(i64::try_from(v).map_or_else(|_| ChromeId::Text(v.to_string()), ChromeId::Int))
            }
            fn visit_f64<E>(self, v: f64) -> Result<ChromeId, E> {
                Ok(ChromeId::Text(v.to_string()))
            }
            fn visit_str<E>(self, v: &str) -> Result<ChromeId, E> {
                Ok(ChromeId::Text(v.to_owned()))
            }
            fn visit_unit<E>(self) -> Result<ChromeId, E> {
                Ok(ChromeId::None)
            }
        }
        d.deserialize_any(Id)
    }
}

/// An event's phase, read without allocating.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum Phase {
    #[default]
    Other,
    Complete,
    Begin,
    End,
    Metadata,
}

impl<'de> serde::Deserialize<'de> for Phase {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Ph;
        impl serde::de::Visitor<'_> for Ph {
            type Value = Phase;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a phase")
            }
            fn visit_str<E>(self, v: &str) -> Result<Phase, E> {
                Ok(match v {
                    "X" => Phase::Complete,
                    "B" => Phase::Begin,
                    "E" => Phase::End,
                    "M" => Phase::Metadata,
                    _ => Phase::Other,
                })
            }
        }
        d.deserialize_str(Ph)
    }
}

#[derive(serde::Deserialize)]
struct ChromeArgs {
    #[serde(default)]
    name: Option<String>,
}

/// One trace event: only the fields highrise reads (the rest, `args` of calls included, are
/// skipped as they are parsed). `name` is interned as it is read: a name seen before costs no
/// allocation.
#[derive(Default)]
struct ChromeEvent {
    ph: Phase,
    /// The interned name (an index into [`ChromeState::names`]).
    name: Option<u32>,
    ts: Option<f64>,
    dur: Option<f64>,
    pid: ChromeId,
    tid: ChromeId,
    thread_title: Option<String>,
}

/// Event names, each stored once: its id is its index.
#[derive(Default)]
struct ChromeNames {
    ids: HashMap<String, u32, foldhash::fast::RandomState>,
    texts: Vec<String>,
}

impl ChromeNames {
    fn intern(&mut self, name: &str) -> u32 {
        if let Some(&id) = self.ids.get(name) {
            return id;
        }
        let id = self.texts.len() as u32;
        self.ids.insert(name.to_owned(), id);
        self.texts.push(name.to_owned());
        id
    }
}

/// Reads one event's fields, interning its name into `names`.
struct EventSeed<'a> {
    names: &'a mut ChromeNames,
}

impl<'de> serde::de::DeserializeSeed<'de> for EventSeed<'_> {
    type Value = ChromeEvent;
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<ChromeEvent, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> serde::de::Visitor<'de> for EventSeed<'_> {
    type Value = ChromeEvent;
    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a trace event")
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<ChromeEvent, A::Error> {
        use serde::de::IgnoredAny;
        /// A name, interned without allocating when seen before.
        struct Intern<'a>(&'a mut ChromeNames);
        impl<'de> serde::de::DeserializeSeed<'de> for Intern<'_> {
            type Value = u32;
            fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<u32, D::Error> {
                d.deserialize_str(self)
            }
        }
        impl serde::de::Visitor<'_> for Intern<'_> {
            type Value = u32;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a name")
            }
            fn visit_str<E>(self, v: &str) -> Result<u32, E> {
                Ok(self.0.intern(v))
            }
        }
        /// A field name, read without allocating.
        struct Key(u8);
        impl<'de> serde::Deserialize<'de> for Key {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Key, D::Error> {
                struct K;
                impl serde::de::Visitor<'_> for K {
                    type Value = Key;
                    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                        f.write_str("a field name")
                    }
                    fn visit_str<E>(self, v: &str) -> Result<Key, E> {
                        Ok(Key(match v {
                            "ph" => 1,
                            "name" => 2,
                            "ts" => 3,
                            "dur" => 4,
                            "pid" => 5,
                            "tid" => 6,
                            "args" => 7,
                            _ => 0,
                        }))
                    }
                }
                d.deserialize_identifier(K)
            }
        }
        let mut event = ChromeEvent::default();
        let mut args = None;
        let mut ph_seen = false;
        while let Some(Key(key)) = map.next_key::<Key>()? {
            match key {
                1 => {
                    event.ph = map.next_value()?;
                    ph_seen = true;
                }
                2 => event.name = Some(map.next_value_seed(Intern(&mut *self.names))?),
                3 => event.ts = map.next_value()?,
                4 => event.dur = map.next_value()?,
                5 => event.pid = map.next_value()?,
                6 => event.tid = map.next_value()?,
                // Only metadata's args are read (a thread's name); they may come before `ph`.
                7 if ph_seen && event.ph != Phase::Metadata => {
                    map.next_value::<IgnoredAny>()?;
                }
                7 => args = Some(map.next_value::<serde_json::Value>()?),
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        if event.ph == Phase::Metadata {
            event.thread_title = args
                .and_then(|a| serde_json::from_value::<ChromeArgs>(a).ok())
                .and_then(|a| a.name);
        }
        Ok(event)
    }
}

/// What the events build up as they stream by.
#[derive(Default)]
struct ChromeState {
    trace: Trace,
    names: ChromeNames,
    /// Each interned name's function, once it named a call.
    functions: Vec<Option<u32>>,
    thread_index: HashMap<(ChromeId, ChromeId), usize, foldhash::fast::RandomState>,
    /// Begin events waiting for their end, per thread: (start ns, function).
    open: HashMap<usize, Vec<(u64, u32)>>,
    first_ns: u64,
}

impl ChromeState {
    fn thread(&mut self, event: &ChromeEvent) -> usize {
        let key = (event.pid.clone(), event.tid.clone());
        let threads = &mut self.trace.threads;
        *self.thread_index.entry(key).or_insert_with_key(|(_, tid)| {
            threads.push((format!("thread {}", tid.shown()), Vec::new()));
            threads.len() - 1
        })
    }

    /// The function a name stands for (`name (file:line)` splits into both).
    fn function(&mut self, name: Option<u32>) -> u32 {
        let Some(name) = name else {
            return self.trace.function("?", None);
        };
        let slot = name as usize;
        if self.functions.len() <= slot {
            self.functions.resize(slot + 1, None);
        }
        if let Some(function) = self.functions[slot] {
            return function;
        }
        let (function, file) = split_located(&self.names.texts[slot]);
        let function = self.trace.function(function, file);
        self.functions[slot] = Some(function);
        function
    }

    fn take(&mut self, event: ChromeEvent) {
        match event.ph {
            Phase::Metadata => {
                if let Some(title) = &event.thread_title {
                    let is_thread_name = event
                        .name
                        .is_some_and(|name| self.names.texts[name as usize] == "thread_name");
                    if is_thread_name {
                        let thread = self.thread(&event);
                        self.trace.threads[thread].0 = title.clone();
                    }
                }
            }
            phase @ (Phase::Complete | Phase::Begin | Phase::End) => {
                let Some(ts) = event.ts.filter(|ts| ts.is_finite()) else {
                    return;
                };
                // Absolute ns for now; made relative to the first event at the end.
                let at_ns = (ts.max(0.0) * 1000.0) as u64;
                self.first_ns = self.first_ns.min(at_ns);
                let thread = self.thread(&event);
                if phase == Phase::End {
                    if let Some((start, function)) = self.open.get_mut(&thread).and_then(Vec::pop) {
                        self.trace.threads[thread].1.push((start, at_ns, function));
                    }
                    return;
                }
                let function = self.function(event.name);
                if phase == Phase::Begin {
                    self.open.entry(thread).or_default().push((at_ns, function));
                } else {
                    let end_ns = ((ts + event.dur.unwrap_or(0.0).max(0.0)) * 1000.0) as u64;
                    self.trace.threads[thread].1.push((at_ns, end_ns, function));
                }
            }
            Phase::Other => {}
        }
    }
}

/// Events handed from the scan to a parser at a time (their bytes, about).
const CHROME_BATCH_BYTES: usize = 1 << 20;
/// Batches scanned and not yet taken in: the scan waits beyond this (bounds memory).
const CHROME_BATCHES_OUT: u64 = 8;

/// Events found by the scan, for a parser: their bytes back to back, and where each ends.
#[derive(Default)]
struct ScannedEvents {
    bytes: Vec<u8>,
    ends: Vec<usize>,
}

/// One batch parsed: by `parser`, its events (names as that parser's own ids) or why they could
/// not be read, and the names it met first in this batch, in id order; the batch's buffers come
/// back to be filled again.
struct ParsedEvents {
    parser: usize,
    events: Result<Vec<ChromeEvent>, String>,
    new_names: Vec<String>,
    buffers: ScannedEvents,
}

/// A parser thread: parses each batch it takes into events, with names interned in its own
/// table (each parser's new names go out with the batch that met them). A panic while parsing
/// (a bug) goes back as that batch's error, so the reading thread never waits for it.
fn parse_batches(
    parser: usize,
    work: &std::sync::Mutex<std::sync::mpsc::Receiver<(u64, ScannedEvents)>>,
    done: &std::sync::mpsc::Sender<(u64, ParsedEvents)>,
) {
    use serde::de::DeserializeSeed;
    let mut names = ChromeNames::default();
    loop {
        let next = work.lock().map(|work| work.recv());
        let Ok(Ok((seq, mut buffers))) = next else {
            return;
        };
        let known = names.texts.len();
        let parsed = std::panic::catch_unwind(std::panic::AssertUnwindSafe(
            || -> Result<Vec<ChromeEvent>, String> {
                let mut events = Vec::with_capacity(buffers.ends.len());
                let mut start = 0;
                for &end in &buffers.ends {
                    let mut json = serde_json::Deserializer::from_slice(&buffers.bytes[start..end]);
                    let event = EventSeed { names: &mut names }
                        .deserialize(&mut json)
                        .and_then(|event| json.end().map(|()| event))
                        .map_err(|error| format!("trace JSON: an event: {error}"))?;
                    events.push(event);
                    start = end;
                }
                Ok(events)
            },
        ))
        .unwrap_or_else(|_| Err("trace: the parse failed (a bug in highrise)".into()));
        buffers.bytes.clear();
        buffers.ends.clear();
        let batch = ParsedEvents {
            parser,
            events: parsed,
            new_names: names.texts.get(known..).unwrap_or_default().to_vec(),
            buffers,
        };
        if done.send((seq, batch)).is_err() {
            return;
        }
    }
}

/// The parsed batches, taken into the trace in file order.
struct InOrder {
    /// Batches handed to the parsers, and taken in.
    sent: u64,
    taken: u64,
    /// Parsed ahead of their turn.
    ahead: std::collections::BTreeMap<u64, ParsedEvents>,
    /// Each parser's name ids, as ids of the trace's names.
    global_names: Vec<Vec<u32>>,
    /// Emptied buffers, to be filled again.
    spare: Vec<ScannedEvents>,
    /// The first batch (in file order) that could not be read: why.
    failed: Option<String>,
}

impl InOrder {
    /// Takes in the batches whose turn it is; with `wait`, first waits until one is taken.
    /// False when the scan should stop: a batch failed, or the parsers are gone.
    fn take_ready(
        &mut self,
        parsed: &std::sync::mpsc::Receiver<(u64, ParsedEvents)>,
        state: &mut ChromeState,
        wait: bool,
    ) -> bool {
        use std::sync::mpsc::TryRecvError;
        let mut waiting = wait;
        loop {
            while let Some(batch) = self.ahead.remove(&self.taken) {
                self.take_in(batch, state);
                self.taken += 1;
                waiting = false;
            }
            if self.failed.is_some() {
                return false;
            }
            let next = if waiting && self.taken < self.sent {
                parsed.recv().map_err(|_| TryRecvError::Disconnected)
            } else {
                parsed.try_recv()
            };
            match next {
                Ok((seq, batch)) => {
                    self.ahead.insert(seq, batch);
                }
                Err(TryRecvError::Empty) => return true,
                // The parsers are gone: a loss if batches are still out.
                Err(TryRecvError::Disconnected) => return self.taken >= self.sent,
            }
        }
    }

    fn take_in(&mut self, batch: ParsedEvents, state: &mut ChromeState) {
        let ids = &mut self.global_names[batch.parser];
        ids.extend(batch.new_names.iter().map(|name| state.names.intern(name)));
        match batch.events {
            Ok(events) => {
                for mut event in events {
                    event.name = event.name.map(|local| ids[local as usize]);
                    state.take(event);
                }
            }
            Err(error) => {
                self.failed.get_or_insert(error);
            }
        }
        self.spare.push(batch.buffers);
    }
}

/// Reads a Chrome trace event by event (an array of events, or an object with `traceEvents`),
/// each event parsed on its own as the file is read in blocks ([`crate::json_array`]), so a
/// file of any size costs only what its calls take. This thread reads and finds where each
/// event ends; parser threads (one per core, up to 3) parse batches of events; this thread
/// takes the parsed batches in file order and pairs the calls. A 1 GB trace: 7.1 s on two
/// cores, 7.4–7.7 s with the whole parse on this thread.
fn read_chrome_trace(input: impl std::io::Read) -> Result<Trace, RecordError> {
    use crate::json_array::{for_each_element, ArrayError};
    use std::sync::mpsc::{channel, sync_channel};
    let parsers = std::thread::available_parallelism().map_or(1, |n| n.get().min(3));
    let (work, incoming) = sync_channel::<(u64, ScannedEvents)>(parsers);
    let incoming = std::sync::Mutex::new(incoming);
    let (done, parsed) = channel::<(u64, ParsedEvents)>();
    let mut state = ChromeState {
        trace: Trace {
            producer: "chrome trace".into(),
            ..Trace::default()
        },
        first_ns: u64::MAX,
        ..ChromeState::default()
    };
    let mut order = InOrder {
        sent: 0,
        taken: 0,
        ahead: std::collections::BTreeMap::new(),
        global_names: vec![Vec::new(); parsers],
        spare: Vec::new(),
        failed: None,
    };
    let found = std::thread::scope(|scope| {
        for parser in 0..parsers {
            let (incoming, done) = (&incoming, done.clone());
            let spawned = std::thread::Builder::new()
                .name("highrise-import-parse".into())
                .spawn_scoped(scope, move || parse_batches(parser, incoming, &done));
            if let Err(error) = spawned {
                return Err(ArrayError::Io(error));
            }
        }
        drop(done);
        let mut batch = ScannedEvents::default();
        let found = for_each_element(input, "traceEvents", |element| {
            batch.bytes.extend_from_slice(element);
            batch.ends.push(batch.bytes.len());
            if batch.bytes.len() >= CHROME_BATCH_BYTES {
                let next = order.spare.pop().unwrap_or_default();
                work.send((order.sent, std::mem::replace(&mut batch, next)))
                    .map_err(|_| ())?;
                order.sent += 1;
                let mut go_on = order.take_ready(&parsed, &mut state, false);
                while go_on && order.sent - order.taken > CHROME_BATCHES_OUT {
                    go_on = order.take_ready(&parsed, &mut state, true);
                }
                if !go_on {
                    return Err(());
                }
            }
            Ok::<(), ()>(())
        });
        // What was scanned before an error or the end is parsed too: an event's own error
        // comes first in the file.
        if !batch.ends.is_empty() && work.send((order.sent, batch)).is_ok() {
            order.sent += 1;
        }
        drop(work);
        while order.taken < order.sent && order.take_ready(&parsed, &mut state, true) {}
        found
    });
    if let Some(error) = order.failed {
        return Err(invalid(error));
    }
    if order.taken < order.sent {
        // The parsers went with batches still out.
        return Err(invalid("trace: the parse failed (a bug in highrise)"));
    }
    let found = found.map_err(|error| match error {
        ArrayError::Io(error) => RecordError::from(error),
        ArrayError::Shape(what) => invalid(format!("trace JSON: {what}")),
        ArrayError::Element(()) => invalid("trace: the parse stopped"),
    })?;
    if !found {
        return Err(invalid("trace: no traceEvents"));
    }
    let mut trace = state.trace;
    if trace.threads.iter().all(|(_, calls)| calls.is_empty()) {
        return Err(invalid("trace: no complete (X) or begin/end (B/E) events"));
    }
    let first_ns = state.first_ns;
    for (_, calls) in &mut trace.threads {
        for (start, end, _) in calls {
            *start -= first_ns;
            *end = end.saturating_sub(first_ns);
        }
    }
    Ok(trace)
}

/// Writes `trace` as a recording of exact events into `out`: each thread's calls, outer ones
/// first where they start together, entered and exited in time order.
fn write_trace(trace: Trace, program: &str, out: impl Write + Send) -> Result<(), RecordError> {
    let producer = trace.producer.clone();
    write_frames(out, &producer, program, |writer| {
        write_trace_frames(trace, writer)
    })
}

/// [`write_trace`]'s frames.
fn write_trace_frames(trace: Trace, writer: &mut Frames) -> Result<(), RecordError> {
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
struct ThreadEvents {
    calls: std::vec::IntoIter<(u64, u64, u32)>,
    next_call: Option<(u64, u64, u32)>,
    /// (end, method) of the calls open now, innermost last.
    open: Vec<(u64, u32)>,
}

impl ThreadEvents {
    fn new(calls: Vec<(u64, u64, u32)>) -> Self {
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
const BATCH_NS: u64 = 50_000_000;

/// Frames → methods: frames naming the same function (py-spy names each line) share one.
/// Returns each frame's method id and the methods' definitions.
/// The building a frame stands for: package, class, method and source file, as the agents
/// would name its function ([`frame_method`]). A frame's `file` may say where the name came from:
/// `js:URL` (a JavaScript script), `lib:PATH` (a native binary without symbols).
pub fn frame_building(name: &str, file: Option<&str>) -> (String, String, String, Option<String>) {
    let (package, class, method) = frame_method(name, file);
    // A JavaScript frame's file is its script's URL; an unnamed native one's, its binary.
    let file = file
        .map(|f| {
            f.strip_prefix("js:")
                .or_else(|| f.strip_prefix("lib:"))
                .unwrap_or(f)
        })
        .filter(|f| !f.is_empty() && *f != "v8")
        .map(str::to_owned);
    (package, class, method, file)
}

/// Method `id`'s definition: the building `key` ([`frame_building`]) stands for.
pub fn building_definition(id: u32, key: &(String, String, String, Option<String>)) -> MethodDef {
    MethodDef {
        id,
        package: key.0.clone(),
        class: key.1.clone(),
        method: key.2.clone(),
        signature: None,
        file: key.3.clone(),
        line: None,
    }
}

fn methods_of(frames: &[(String, Option<String>)]) -> (Vec<u32>, Vec<MethodDef>) {
    let mut method_of_frame = Vec::with_capacity(frames.len());
    let mut methods: HashMap<(String, String, String, Option<String>), u32> = HashMap::new();
    let mut definitions = Vec::new();
    for (name, file) in frames {
        let key = frame_building(name, file.as_deref());
        let next = methods.len() as u32;
        let id = *methods.entry(key).or_insert_with_key(|key| {
            definitions.push(building_definition(next, key));
            next
        });
        method_of_frame.push(id);
    }
    (method_of_frame, definitions)
}

/// Converts a profile held in memory (of `format`) into a recording written to `out`, as the
/// program `program`.
pub fn convert_bytes(
    bytes: &[u8],
    format: ProfileFormat,
    program: &str,
    out: impl Write + Send,
) -> Result<(), RecordError> {
    let text = || std::str::from_utf8(bytes).map_err(|e| invalid(format!("not UTF-8: {e}")));
    let profile = match format {
        ProfileFormat::Folded => parse_folded(bytes)?,
        ProfileFormat::Speedscope => {
            let file = SpeedscopeFile::read(bytes)?;
            if file.is_evented() {
                return write_trace(parse_speedscope_evented(&file)?, program, out);
            }
            parse_speedscope(&file)?
        }
        ProfileFormat::CpuProfile => parse_cpuprofile(text()?)?,
        ProfileFormat::Pprof => parse_pprof(bytes)?,
        ProfileFormat::Jfr => parse_jfr(std::io::Cursor::new(bytes))?,
        ProfileFormat::ChromeTrace => return write_trace(parse_chrome_trace(bytes)?, program, out),
    };
    write_recording(&profile, program, out)
}

/// Converts the profile at `path` (of `format`) into a recording written to `out`; the
/// session's program is the file's name.
pub fn convert(
    path: &Path,
    format: ProfileFormat,
    out: impl Write + Send,
) -> Result<(), RecordError> {
    let program = path
        .file_stem()
        .map_or_else(|| "profile".into(), |s| s.to_string_lossy().into_owned());
    // Read as streams: these files need not fit in memory.
    let input = || -> Result<_, RecordError> {
        Ok(std::io::BufReader::with_capacity(
            1 << 20,
            std::fs::File::open(path)?,
        ))
    };
    match format {
        ProfileFormat::Folded => return write_recording(&parse_folded(input()?)?, &program, out),
        ProfileFormat::ChromeTrace => {
            let trace = read_chrome_trace(std::fs::File::open(path)?)?;
            return write_trace(trace, &program, out);
        }
        ProfileFormat::Jfr => {
            return write_recording(&parse_jfr(std::fs::File::open(path)?)?, &program, out)
        }
        ProfileFormat::Speedscope => {
            let file = SpeedscopeFile::read(input()?)?;
            if file.is_evented() {
                return write_trace(parse_speedscope_evented(&file)?, &program, out);
            }
            return write_recording(&parse_speedscope(&file)?, &program, out);
        }
        _ => {}
    }
    convert_bytes(&std::fs::read(path)?, format, &program, out)
}

/// Where [`RecordingReader::open`](crate::RecordingReader::open) puts a converted profile (it
/// opens it and removes the name at once).
pub(crate) fn converted_path(path: &Path, format: ProfileFormat) -> PathBuf {
    let stem = path
        .file_name()
        .map_or_else(|| "profile".into(), |s| s.to_string_lossy().into_owned());
    std::env::temp_dir().join(format!(
        "highrise-import-{}-{}-{stem}.hrec",
        std::process::id(),
        format.name().replace(' ', "-"),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_become_package_class_and_method() {
        let py = |name, file| frame_method(name, Some(file));
        assert_eq!(
            py("Shape.area", "/tmp/work/work.py"),
            ("work".into(), "Shape".into(), "area".into())
        );
        assert_eq!(
            py(
                "__cacheit.<locals>.func_wrapper.<locals>.wrapper",
                "sympy/core/cache.py"
            ),
            (
                "sympy.core.cache".into(),
                "<module>".into(),
                "__cacheit.func_wrapper.wrapper".into()
            )
        );
        assert_eq!(
            py("C.m.<locals>.helper", "pkg/mod.py"),
            ("pkg.mod".into(), "C".into(), "m.helper".into())
        );
        assert_eq!(
            py("monomial_mul", "<string>"),
            ("string".into(), "<module>".into(), "monomial_mul".into())
        );
        assert_eq!(
            py("_find_and_load", "<frozen importlib._bootstrap>"),
            (
                "importlib._bootstrap".into(),
                "<module>".into(),
                "_find_and_load".into()
            )
        );
        assert_eq!(
            py("loads", "/usr/lib/python3.12/json/__init__.py"),
            ("json".into(), "<module>".into(), "loads".into())
        );
        assert_eq!(
            py(
                "RegexLexer.get_tokens_unprocessed",
                "/v/lib/python3.12/site-packages/pygments/lexer.py"
            ),
            (
                "pygments.lexer".into(),
                "RegexLexer".into(),
                "get_tokens_unprocessed".into()
            )
        );
        let bare = |name| frame_method(name, None);
        assert_eq!(
            bare("java/util/HashMap.get_[j]"),
            ("java.util".into(), "HashMap".into(), "get".into())
        );
        assert_eq!(
            bare("org.example.Main.main"),
            ("org.example".into(), "Main".into(), "main".into())
        );
        assert_eq!(
            bare("core::fmt::write"),
            ("core".into(), "fmt".into(), "write".into())
        );
        assert_eq!(
            bare("malloc"),
            ("native".into(), "<module>".into(), "malloc".into())
        );
        assert_eq!(
            bare("[libc.so.6]"),
            ("native".into(), "<module>".into(), "[libc.so.6]".into())
        );
    }

    #[test]
    fn detects_by_content() {
        assert_eq!(
            ProfileFormat::detect(b"main;run;leaf 12\nmain;run 3\n"),
            Some(ProfileFormat::Folded)
        );
        assert_eq!(
            ProfileFormat::detect(
                br#"{"$schema":"https://www.speedscope.app/file-format-schema.json","profiles":[]}"#
            ),
            Some(ProfileFormat::Speedscope)
        );
        assert_eq!(ProfileFormat::detect(b"HRECv1\0\0binary"), None);
        assert_eq!(ProfileFormat::detect(b"just some words\n"), None);
        assert_eq!(
            ProfileFormat::detect(b" 1\n<module> (w.py:3);f (w.py:9) 12\n"),
            Some(ProfileFormat::Folded)
        );
        assert_eq!(ProfileFormat::detect(b"{\"other\": 1}"), None);
    }

    #[test]
    fn folded_samples_spread_each_stack_evenly_per_thread() {
        let profile = parse_folded(
            &b"thread (0x1);main (a.py:3);f (a.py:9) 3\nthread (0x1);main (a.py:3) 1\nthread (0x2);g (b.py:1) 2\n"[..],
        )
        .expect("parses");
        assert_eq!(profile.threads, ["thread (0x1)", "thread (0x2)"]);
        assert_eq!(profile.samples.len(), 6);
        let times = |thread: u32| -> Vec<u64> {
            profile
                .samples
                .iter()
                .filter(|s| s.0 == thread)
                .map(|s| s.1)
                .collect()
        };
        // Thread 0: four samples, one every period; thread 1: two over the same span.
        assert_eq!(
            times(0),
            [0, 1, 2, 3].map(|k| k * FOLDED_PERIOD_NS).to_vec()
        );
        assert_eq!(times(1), [0, 2].map(|k| k * FOLDED_PERIOD_NS).to_vec());
        // The single `main`-only sample is not all at one end.
        let main_only: Vec<usize> = profile
            .samples
            .iter()
            .filter(|s| s.0 == 0)
            .enumerate()
            .filter(|(_, s)| s.2.len() == 1)
            .map(|(k, _)| k)
            .collect();
        assert_eq!(main_only.len(), 1);
        assert!(parse_folded(&b"no count here\n"[..]).is_err());
        assert!(parse_folded(&b"\n# only a comment\n"[..]).is_err());
        // Beyond FOLDED_MAX_SAMPLES, counts scale down and every stack keeps a sample.
        let big = format!("main;hot {}\nmain;cold 1\n", FOLDED_MAX_SAMPLES * 10);
        let profile = parse_folded(big.as_bytes()).expect("parses");
        assert_eq!(profile.samples.len() as u64, FOLDED_MAX_SAMPLES + 1);
    }

    #[test]
    fn chrome_trace_calls_become_enters_and_exits_in_order() {
        let trace = parse_chrome_trace(
            r#"{"traceEvents":[
                {"ph":"M","pid":1,"tid":7,"name":"thread_name","args":{"name":"worker"}},
                {"ph":"X","pid":1,"tid":7,"ts":1010,"dur":5,"name":"inner (a.py:3)"},
                {"ph":"X","pid":1,"tid":7,"ts":1000,"dur":20,"name":"outer (a.py:1)"},
                {"ph":"B","pid":1,"tid":8,"ts":1002,"name":"Game.run"},
                {"ph":"E","pid":1,"tid":8,"ts":1012},
                {"ph":"i","pid":1,"tid":8,"ts":1005,"name":"ignored"}]}"#
                .as_bytes(),
        )
        .expect("parses");
        assert_eq!(trace.threads.len(), 2);
        assert_eq!(trace.threads[0].0, "worker");
        // ns from the first event: outer 0..20 µs, inner 10..15 µs; Game.run 2..12 µs.
        let mut worker = trace.threads[0].1.clone();
        worker.sort_unstable();
        assert_eq!(worker, [(0, 20_000, 1), (10_000, 15_000, 0)]);
        assert_eq!(trace.threads[1].1, [(2_000, 12_000, 2)]);
        let mut out = Vec::new();
        write_trace(trace, "t", &mut out).expect("writes");
        let mut reader =
            crate::RecordingReader::new(std::io::Cursor::new(out)).expect("a recording");
        assert!(reader.frame_count() > 3);
        assert!(parse_chrome_trace(br#"{"traceEvents":[{"ph":"i","ts":1}]}"#).is_err());
        let _ = reader.frames();
    }

    /// A trace of many batches: every parser meets names first in its own batches, and what
    /// comes out is each call under its own name, in file order per thread; a bad event in a
    /// late batch is the error, told as such.
    #[test]
    fn chrome_traces_of_many_batches_keep_every_call_and_name() {
        let mut json = String::from(r#"{"traceEvents":["#);
        let calls = 60_000u64;
        for i in 0..calls {
            let name = format!("m{}", (i * 7919) % 5000);
            json.push_str(&format!(
                r#"{{"ph":"X","pid":1,"tid":{},"ts":{},"dur":1,"name":"{name}","args":{{"n":[1,2]}}}},"#,
                i % 3,
                i * 10
            ));
        }
        json.push_str(
            r#"{"ph":"M","pid":1,"tid":0,"name":"thread_name","args":{"name":"main"}}]}"#,
        );
        assert!(json.len() > 4 * CHROME_BATCH_BYTES);
        let trace = parse_chrome_trace(json.as_bytes()).expect("parses");
        assert_eq!(trace.threads.len(), 3);
        assert_eq!(trace.threads[0].0, "main");
        for (tid, (_, thread_calls)) in trace.threads.iter().enumerate() {
            let expected: Vec<(u64, String)> = (0..calls)
                .filter(|i| i % 3 == tid as u64)
                .map(|i| (i * 10_000, format!("m{}", (i * 7919) % 5000)))
                .collect();
            let got: Vec<(u64, String)> = thread_calls
                .iter()
                .map(|&(start, _, function)| (start, trace.functions[function as usize].0.clone()))
                .collect();
            assert_eq!(got, expected, "thread {tid}");
        }
        let bad = json.replacen(r#""ts":590000,"#, r#""ts":"late","#, 1);
        let Err(error) = parse_chrome_trace(bad.as_bytes()) else {
            panic!("a bad event must fail");
        };
        assert!(error.to_string().contains("an event"), "{error}");
        // The bad event near the end, then the file cut: the event comes first in the file.
        let Err(error) = parse_chrome_trace(&bad.as_bytes()[..bad.len() - 2000]) else {
            panic!("a bad event in a cut trace must fail");
        };
        assert!(error.to_string().contains("an event"), "{error}");
        let cut = &json.as_bytes()[..json.len() / 2];
        let Err(error) = parse_chrome_trace(cut) else {
            panic!("a cut trace must fail");
        };
        assert!(error.to_string().contains("ends inside"), "{error}");
    }

    #[test]
    fn cpuprofile_samples_walk_their_node_to_the_root() {
        let profile = parse_cpuprofile(
            r#"{"nodes":[
                {"id":1,"callFrame":{"functionName":"(root)","url":""},"children":[2,3,5]},
                {"id":2,"callFrame":{"functionName":"(idle)","url":""}},
                {"id":3,"callFrame":{"functionName":"main","url":"file:///app/work.js"},"children":[4]},
                {"id":4,"callFrame":{"functionName":"map","url":"file:///app/node_modules/lodash/map.js"}},
                {"id":5,"callFrame":{"functionName":"(garbage collector)","url":""}}],
              "startTime":0,"endTime":40,"samples":[4,3,2,5],"timeDeltas":[100,1000,1000,1000]}"#,
        )
        .expect("parses");
        let names: Vec<(String, String, String)> = profile
            .frames
            .iter()
            .map(|(name, file)| frame_method(name, file.as_deref()))
            .collect();
        let stack = |i: usize| -> Vec<&(String, String, String)> {
            profile.samples[i]
                .2
                .iter()
                .map(|&f| &names[f as usize])
                .collect()
        };
        assert_eq!(
            stack(0),
            [
                &("work".into(), "<module>".into(), "main".into()),
                &("lodash.map".into(), "<module>".into(), "map".into())
            ]
        );
        assert!(stack(2).is_empty(), "idle: on nothing");
        assert_eq!(
            stack(3),
            [&("v8".into(), "<module>".into(), "(garbage collector)".into())]
        );
        assert_eq!(profile.samples[1].1, 1_100_000);
        assert_eq!(profile.period_ns, 1_000_000);
    }

    #[test]
    fn pprof_samples_become_samples_of_its_period() {
        use crate::pprof::{Function, Line, Location, Profile as Pprof, Sample, ValueType};
        let strings = [
            "",
            "samples",
            "count",
            "cpu",
            "nanoseconds",
            "main.main",
            "main.(*Shape).Area",
            "main.mix",
            "/src/main.go",
        ];
        let function = |id: u64, name: i64| Function {
            id,
            name,
            system_name: name,
            filename: 8,
            start_line: 1,
        };
        let location = |id: u64, function_id: u64| Location {
            id,
            line: vec![Line {
                function_id,
                line: 3,
                column: 0,
            }],
            ..Location::default()
        };
        let pprof = Pprof {
            sample_type: vec![
                ValueType { r#type: 1, unit: 2 },
                ValueType { r#type: 3, unit: 4 },
            ],
            sample: vec![
                Sample {
                    location_id: vec![2, 1],
                    value: vec![3, 30_000_000],
                    label: vec![],
                },
                Sample {
                    location_id: vec![3, 1],
                    value: vec![1, 10_000_000],
                    label: vec![],
                },
            ],
            location: vec![location(1, 1), location(2, 2), location(3, 3)],
            function: vec![function(1, 5), function(2, 6), function(3, 7)],
            string_table: strings.iter().map(|s| s.to_string()).collect(),
            period_type: Some(ValueType { r#type: 3, unit: 4 }),
            period: 10_000_000,
            ..Pprof::default()
        };
        let bytes = crate::pprof::encode_gzipped(&pprof);
        assert_eq!(ProfileFormat::detect(&bytes), Some(ProfileFormat::Pprof));
        let raw = prost::Message::encode_to_vec(&pprof);
        assert_eq!(ProfileFormat::detect(&raw), Some(ProfileFormat::Pprof));
        let profile = parse_pprof(&bytes).expect("parses");
        assert_eq!(profile.period_ns, 10_000_000);
        assert_eq!(profile.samples.len(), 4);
        let area = profile
            .frames
            .iter()
            .position(|(name, _)| name == "main.(*Shape).Area")
            .expect("Area") as u32;
        let on_area = profile
            .samples
            .iter()
            .filter(|(_, _, stack)| stack.last() == Some(&area))
            .count();
        assert_eq!(on_area, 3);
        assert_eq!(
            frame_method("main.(*Shape).Area", Some("/src/main.go")),
            ("main".into(), "Shape".into(), "Area".into())
        );
        assert_eq!(
            frame_method("github.com/u/p/store.(*DB).Get", Some("/src/db.go")),
            ("github.com.u.p.store".into(), "DB".into(), "Get".into())
        );
        assert_eq!(
            frame_method("main.main.func1", Some("/src/main.go")),
            ("main".into(), "main".into(), "func1".into())
        );
        assert_eq!(
            frame_method("0x7f00", Some("lib:/lib/x86_64-linux-gnu/libc.so.6")),
            ("native.libc".into(), "<module>".into(), "0x7f00".into())
        );
        // An allocation profile (Go's heap profile): each stack's objects and bytes, made by its
        // innermost frame, of an untyped class; no time samples.
        let mut heap_strings: Vec<String> = strings.iter().map(|s| s.to_string()).collect();
        heap_strings.extend(["alloc_objects", "alloc_space", "bytes"].map(String::from));
        let heap = Pprof {
            sample_type: vec![
                ValueType { r#type: 9, unit: 2 },
                ValueType {
                    r#type: 10,
                    unit: 11,
                },
            ],
            sample: vec![
                Sample {
                    location_id: vec![2, 1],
                    value: vec![4, 4096],
                    label: vec![],
                },
                Sample {
                    location_id: vec![3, 1],
                    value: vec![1, 100],
                    label: vec![],
                },
            ],
            string_table: heap_strings,
            period_type: None,
            period: 0,
            ..pprof.clone()
        };
        let profile = parse_pprof(&prost::Message::encode_to_vec(&heap)).expect("reads");
        assert!(profile.samples.is_empty());
        assert_eq!(profile.allocations.len(), 2);
        let area = profile
            .frames
            .iter()
            .position(|(name, _)| name == "main.(*Shape).Area")
            .expect("Area") as u32;
        let by_area = profile
            .allocations
            .iter()
            .find(|a| a.stack.last() == Some(&area))
            .expect("Area allocates");
        assert_eq!((by_area.count, by_area.bytes), (4, 4096));
        assert_eq!(profile.classes[by_area.class as usize].1, "(untyped)");
        // Neither time nor allocations: refused, saying what it holds.
        let other = Pprof {
            sample_type: vec![ValueType { r#type: 5, unit: 8 }],
            ..pprof
        };
        let error = parse_pprof(&prost::Message::encode_to_vec(&other)).expect_err("not read");
        assert!(
            error.to_string().contains("main.main//src/main.go"),
            "{error}"
        );
        // Text that starts like a profile is still text.
        assert_ne!(
            ProfileFormat::detect(b"\n5\na;b 1\n"),
            Some(ProfileFormat::Pprof)
        );
    }

    #[test]
    fn speedscope_samples_last_their_weight() {
        let json = |text: &str| SpeedscopeFile::read(text.as_bytes()).expect("json");
        let profile = parse_speedscope(&json(
            r#"{"$schema":"https://www.speedscope.app/file-format-schema.json",
                "shared":{"frames":[{"name":"leaf","file":"w.py","line":5},{"name":"main","file":"w.py","line":13}]},
                "profiles":[{"type":"sampled","name":"T1","unit":"milliseconds","startValue":0,"endValue":30,
                             "samples":[[1,0],[1],[1,0]],"weights":[10,10,10]}]}"#,
        ))
        .expect("parses");
        let times: Vec<u64> = profile.samples.iter().map(|s| s.1).collect();
        assert_eq!(times, [0, 10_000_000, 20_000_000]);
        assert_eq!(profile.period_ns, 10_000_000);
        assert_eq!(*profile.samples[0].2, [1, 0]);
        assert!(parse_speedscope(&json(
            r#"{"shared":{"frames":[]},"profiles":[{"type":"evented","events":[]}]}"#
        ))
        .is_err());
    }

    #[test]
    fn speedscope_evented_profiles_become_calls() {
        let json = SpeedscopeFile::read(
            r#"{"shared":{"frames":[{"name":"main","file":"w.py"},{"name":"leaf","file":"w.py"}]},
                "exporter":"pyinstrument 5",
                "profiles":[{"type":"evented","name":"MainThread","unit":"seconds","startValue":1,"endValue":2,
                             "events":[{"type":"O","frame":0,"at":1},{"type":"O","frame":1,"at":1.25},
                                       {"type":"C","frame":1,"at":1.5},{"type":"O","frame":1,"at":1.75}]}]}"#
                .as_bytes(),
        )
        .expect("json");
        assert!(json.is_evented());
        let trace = parse_speedscope_evented(&json).expect("parses");
        assert_eq!(trace.producer, "speedscope from pyinstrument 5");
        let (name, mut calls) = trace.threads[0].clone();
        calls.sort_unstable();
        assert_eq!(name, "MainThread");
        // leaf 0.25–0.5 s, then open to the end with main.
        assert_eq!(
            calls,
            [
                (0, 1_000_000_000, 0),
                (250_000_000, 500_000_000, 1),
                (750_000_000, 1_000_000_000, 1)
            ]
        );
    }
}
