//! OTLP profiles (OpenTelemetry's `profiles` signal, `v1development`, pprof's data model): an
//! export request's samples resolved against its dictionary, by resource ([`check_profiles`]),
//! and [`SampleTimeline`], which turns one resource's samples into a sampled session: each
//! sample a `Resync` of its thread at its time, in time order, once the session's horizon has
//! passed it.
//!
//! What a sample means: the thread was on that stack for one period. Samples with timestamps
//! (the OpenTelemetry eBPF profiler's shape) stand at their times; aggregated ones (a count or a
//! time per stack) are spread evenly over the profile's time range, as folded stacks are when
//! opened. A thread not sampled for [`GAP_PERIODS`] periods (off CPU, for a CPU sampler) was on
//! nothing the sampler saw: its last sample ends after one period.

use std::collections::HashMap;
use std::sync::Arc;

use highrise_protocol::{AgentMessage, Measure, MeasureMode, MethodDef};
use opentelemetry_proto::tonic::collector::profiles::v1development::ExportProfilesServiceRequest;
use opentelemetry_proto::tonic::common::v1::{any_value, AnyValue, KeyValue};
use opentelemetry_proto::tonic::profiles::v1development::{Profile, ProfilesDictionary};

use crate::spans::{resource_info_with, ResourceInfo};

/// A thread not sampled for more than this many periods was on nothing the sampler saw.
pub const GAP_PERIODS: u64 = 10;

/// The period assumed when a profile does not say one in a unit of time.
pub const DEFAULT_PERIOD_NS: u64 = 10_000_000;

/// Samples one aggregated profile may expand to at most (counts scaled down beyond, each stack
/// keeping one), so a huge count cannot make the receiver allocate without bound.
pub const MAX_SPREAD_SAMPLES: u64 = 100_000;

/// A frame as the profile names it: function name and source file (`lib:PATH`: a native binary
/// without symbols; see `highrise_record::import::frame_building`).
pub type FrameName = (String, Option<String>);

/// A stack's frames, outermost first, shared by every sample on it.
pub type Frames = Arc<[Arc<FrameName>]>;

/// The thread a sample was taken on.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ThreadKey {
    /// `thread.id`, or 0.
    pub id: i64,
    /// `thread.name`, or empty.
    pub name: String,
}

impl ThreadKey {
    /// How the city names it.
    pub fn display(&self) -> String {
        match (self.id, self.name.is_empty()) {
            (0, true) => "samples".to_owned(),
            (0, false) => self.name.clone(),
            (id, true) => format!("thread {id}"),
            (id, false) => format!("{} ({id})", self.name),
        }
    }
}

/// One sample: a thread on a stack (outermost frame first) at a time.
#[derive(Debug, Clone)]
pub struct SampleIn {
    pub thread: Arc<ThreadKey>,
    pub time_unix_ns: u64,
    pub stack: Frames,
}

/// One resource's samples from a request.
#[derive(Debug, Clone)]
pub struct ProfileBatch {
    pub info: ResourceInfo,
    /// The period of the batch's profiles (the last one's, if they differ).
    pub period_ns: u64,
    pub samples: Vec<SampleIn>,
}

/// A request, decoded: samples by resource, and what could not be read.
#[derive(Debug, Default)]
pub struct DecodedProfiles {
    pub resources: Vec<ProfileBatch>,
    /// Profiles not read, whole or in part (told to the exporter as partial success).
    pub rejected_profiles: u64,
    /// Samples not read (bad references, no value).
    pub rejected_samples: u64,
    pub first_error: Option<String>,
}

impl DecodedProfiles {
    pub fn sample_count(&self) -> usize {
        self.resources.iter().map(|batch| batch.samples.len()).sum()
    }

    fn reject(&mut self, error: String) {
        self.first_error.get_or_insert(error);
    }
}

/// How a profile's values read.
#[derive(Debug, Clone, Copy)]
enum Values {
    /// Each value a time in this many ns per unit.
    Time(f64),
    /// Each value a count of samples.
    Count,
}

fn time_unit_ns(unit: &str) -> Option<f64> {
    Some(match unit {
        "nanoseconds" | "nanosecond" | "ns" => 1.0,
        "microseconds" | "microsecond" | "us" => 1e3,
        "milliseconds" | "millisecond" | "ms" => 1e6,
        "seconds" | "second" | "s" => 1e9,
        _ => return None,
    })
}

/// The dictionary's tables, resolved once per request.
struct Dictionary<'a> {
    tables: &'a ProfilesDictionary,
    /// Each location's frames, caller last (as pprof lists inlined functions).
    locations: Vec<Option<Frames>>,
    /// Each stack's frames, outermost first.
    stacks: Vec<Option<Frames>>,
    threads: HashMap<ThreadKey, Arc<ThreadKey>>,
}

impl<'a> Dictionary<'a> {
    fn new(tables: &'a ProfilesDictionary) -> Self {
        Self {
            tables,
            locations: vec![None; tables.location_table.len()],
            stacks: vec![None; tables.stack_table.len()],
            threads: HashMap::new(),
        }
    }

    fn text(&self, index: i32) -> Result<&'a str, String> {
        usize::try_from(index)
            .ok()
            .and_then(|i| self.tables.string_table.get(i))
            .map(String::as_str)
            .ok_or_else(|| format!("string index {index} is outside the dictionary"))
    }

    fn location(&mut self, index: i32) -> Result<Frames, String> {
        let slot = usize::try_from(index)
            .ok()
            .filter(|&i| i < self.locations.len())
            .ok_or_else(|| format!("location index {index} is outside the dictionary"))?;
        if let Some(frames) = &self.locations[slot] {
            return Ok(Arc::clone(frames));
        }
        let tables = self.tables;
        let location = &tables.location_table[slot];
        let mapping_file = usize::try_from(location.mapping_index)
            .ok()
            .filter(|&i| i > 0)
            .and_then(|i| tables.mapping_table.get(i))
            .map(|mapping| self.text(mapping.filename_strindex))
            .transpose()?
            .filter(|file| !file.is_empty());
        let kind = self.attribute_text(&location.attribute_indices, "profile.frame.type")?;
        let mut frames = Vec::with_capacity(location.lines.len().max(1));
        for line in &location.lines {
            let function = usize::try_from(line.function_index)
                .ok()
                .and_then(|i| tables.function_table.get(i))
                .ok_or_else(|| {
                    format!(
                        "function index {} is outside the dictionary",
                        line.function_index
                    )
                })?;
            let name = match self.text(function.name_strindex)? {
                "" => self.text(function.system_name_strindex)?,
                name => name,
            };
            let file = match self.text(function.filename_strindex)? {
                "" => native_file(kind.as_deref(), mapping_file),
                file => Some(file.to_owned()),
            };
            let name = if name.is_empty() { "?" } else { name };
            frames.push(Arc::new((name.to_owned(), file)));
        }
        if frames.is_empty() {
            // An address without symbols: under its binary's name.
            frames.push(Arc::new((
                format!("0x{:x}", location.address),
                native_file(kind.as_deref(), mapping_file),
            )));
        }
        let frames: Frames = frames.into();
        self.locations[slot] = Some(Arc::clone(&frames));
        Ok(frames)
    }

    fn stack(&mut self, index: i32) -> Result<Frames, String> {
        let slot = usize::try_from(index)
            .ok()
            .filter(|&i| i < self.stacks.len())
            .ok_or_else(|| format!("stack index {index} is outside the dictionary"))?;
        if let Some(frames) = &self.stacks[slot] {
            return Ok(Arc::clone(frames));
        }
        let tables = self.tables;
        let mut frames = Vec::new();
        // Leaf first in the table; each location's lines caller last: reversed twice.
        for &location in tables.stack_table[slot].location_indices.iter().rev() {
            frames.extend(self.location(location)?.iter().rev().cloned());
        }
        let frames: Frames = frames.into();
        self.stacks[slot] = Some(Arc::clone(&frames));
        Ok(frames)
    }

    /// The attribute `key` among `indices`, as text.
    fn attribute_text(&self, indices: &[i32], key: &str) -> Result<Option<String>, String> {
        for &index in indices {
            let attribute = usize::try_from(index)
                .ok()
                .and_then(|i| self.tables.attribute_table.get(i))
                .ok_or_else(|| format!("attribute index {index} is outside the dictionary"))?;
            if self.text(attribute.key_strindex)? == key {
                let strings = &self.tables.string_table[..];
                return Ok(attribute
                    .value
                    .as_ref()
                    .map(|value| any_text(value, strings)));
            }
        }
        Ok(None)
    }

    fn thread(
        &mut self,
        profile: &Profile,
        sample_attributes: &[i32],
    ) -> Result<Arc<ThreadKey>, String> {
        let find = |key: &str| -> Result<Option<String>, String> {
            Ok(match self.attribute_text(sample_attributes, key)? {
                Some(value) => Some(value),
                None => self.attribute_text(&profile.attribute_indices, key)?,
            })
        };
        let key = ThreadKey {
            id: find("thread.id")?
                .and_then(|id| id.parse().ok())
                .unwrap_or(0),
            name: find("thread.name")?.unwrap_or_default(),
        };
        Ok(Arc::clone(
            self.threads
                .entry(key.clone())
                .or_insert_with(|| Arc::new(key)),
        ))
    }
}

/// Where a frame without a source file stands: under its binary (`lib:PATH`), or under the
/// kernel for the eBPF profiler's kernel frames.
fn native_file(kind: Option<&str>, mapping_file: Option<&str>) -> Option<String> {
    if kind == Some("kernel") {
        return Some("lib:kernel".to_owned());
    }
    mapping_file.map(|file| format!("lib:{file}"))
}

/// A value as text; a string may be given by its index in the dictionary's `strings`.
fn any_text(value: &AnyValue, strings: &[String]) -> String {
    match &value.value {
        Some(any_value::Value::StringValue(text)) => text.clone(),
        Some(any_value::Value::StringValueStrindex(index)) => usize::try_from(*index)
            .ok()
            .and_then(|i| strings.get(i))
            .cloned()
            .unwrap_or_default(),
        Some(any_value::Value::IntValue(number)) => number.to_string(),
        Some(any_value::Value::BoolValue(flag)) => flag.to_string(),
        Some(any_value::Value::DoubleValue(number)) => number.to_string(),
        _ => String::new(),
    }
}

/// Reads a profiles export request: every sample of every time or sample-count profile, by
/// resource. A profile of another kind (allocations) and a sample that refers outside the
/// dictionary are rejected, the rest read.
pub fn check_profiles(request: &ExportProfilesServiceRequest) -> DecodedProfiles {
    let mut decoded = DecodedProfiles::default();
    let empty = ProfilesDictionary::default();
    let mut dictionary = Dictionary::new(request.dictionary.as_ref().unwrap_or(&empty));
    for resource in &request.resource_profiles {
        let attributes = resource
            .resource
            .as_ref()
            .map_or(&[][..], |r| &r.attributes[..]);
        let strings = &dictionary.tables.string_table[..];
        // A key is given as text or by its index in the dictionary.
        let key_of = |kv: &KeyValue| -> String {
            if kv.key.is_empty() {
                usize::try_from(kv.key_strindex)
                    .ok()
                    .and_then(|i| strings.get(i))
                    .cloned()
                    .unwrap_or_default()
            } else {
                kv.key.clone()
            }
        };
        let info = resource_info_with(|key| {
            attributes
                .iter()
                .find(|kv| key_of(kv) == key)
                .and_then(|kv| kv.value.as_ref())
                .map(|value| any_text(value, strings))
                .unwrap_or_default()
        });
        let mut batch = ProfileBatch {
            info,
            period_ns: DEFAULT_PERIOD_NS,
            samples: Vec::new(),
        };
        for scope in &resource.scope_profiles {
            for profile in &scope.profiles {
                let before = decoded.rejected_samples;
                if let Err(error) = read_profile(profile, &mut dictionary, &mut batch, &mut decoded)
                {
                    decoded.rejected_samples += profile.samples.len() as u64;
                    decoded.reject(error);
                }
                if decoded.rejected_samples > before {
                    decoded.rejected_profiles += 1;
                }
            }
        }
        if !batch.samples.is_empty() {
            decoded.resources.push(batch);
        }
    }
    decoded
}

fn read_profile(
    profile: &Profile,
    dictionary: &mut Dictionary<'_>,
    batch: &mut ProfileBatch,
    decoded: &mut DecodedProfiles,
) -> Result<(), String> {
    let (kind, unit) = match &profile.sample_type {
        Some(t) => (
            dictionary.text(t.type_strindex)?,
            dictionary.text(t.unit_strindex)?,
        ),
        None => ("", ""),
    };
    let values = if let Some(ns) = time_unit_ns(unit) {
        Values::Time(ns)
    } else if unit.is_empty() || unit == "count" && !is_allocation(kind) {
        Values::Count
    } else {
        return Err(format!(
            "profile of {kind}/{unit}: highrise reads time and sample-count profiles live \
             (allocation profiles are not read)"
        ));
    };
    let period_ns = profile
        .period_type
        .as_ref()
        .map(|t| dictionary.text(t.unit_strindex))
        .transpose()?
        .and_then(time_unit_ns)
        .map(|unit| profile.period as f64 * unit)
        .filter(|ns| (1.0..1e12).contains(ns))
        .map_or(DEFAULT_PERIOD_NS, |ns| ns as u64);
    batch.period_ns = period_ns;
    // Aggregated samples, per thread: spread over the profile's time range afterwards.
    let mut aggregated: Vec<(Arc<ThreadKey>, Frames, u64)> = Vec::new();
    for sample in &profile.samples {
        let read = (|| -> Result<(), String> {
            let stack = dictionary.stack(sample.stack_index)?;
            let thread = dictionary.thread(profile, &sample.attribute_indices)?;
            if !sample.timestamps_unix_nano.is_empty() {
                if !sample.values.is_empty()
                    && sample.values.len() != sample.timestamps_unix_nano.len()
                {
                    return Err(format!(
                        "a sample has {} values and {} timestamps (they must pair)",
                        sample.values.len(),
                        sample.timestamps_unix_nano.len()
                    ));
                }
                for &time_unix_ns in &sample.timestamps_unix_nano {
                    batch.samples.push(SampleIn {
                        thread: Arc::clone(&thread),
                        time_unix_ns,
                        stack: Arc::clone(&stack),
                    });
                }
                return Ok(());
            }
            let value: i64 = sample.values.iter().copied().map(|v| v.max(0)).sum();
            if sample.values.is_empty() {
                return Err("a sample has neither values nor timestamps".to_owned());
            }
            let count = match values {
                Values::Time(ns) => (value as f64 * ns / period_ns as f64).round() as u64,
                Values::Count => value as u64,
            };
            if count > 0 {
                aggregated.push((thread, stack, count));
            }
            Ok(())
        })();
        if let Err(error) = read {
            decoded.rejected_samples += 1;
            decoded.reject(error);
        }
    }
    spread(profile, period_ns, aggregated, &mut batch.samples);
    Ok(())
}

fn is_allocation(kind: &str) -> bool {
    ["alloc", "inuse", "heap", "bytes"]
        .iter()
        .any(|word| kind.contains(word))
}

/// Aggregated samples at evenly spread times over the profile's range (its duration, or as
/// many periods as the busiest thread has samples): each thread's samples one per slot of the
/// range, its stacks interleaved (stack i's k-th sample ordered at (k + ½) / count_i), so any
/// part of the range holds each stack at its share.
fn spread(
    profile: &Profile,
    period_ns: u64,
    mut aggregated: Vec<(Arc<ThreadKey>, Frames, u64)>,
    out: &mut Vec<SampleIn>,
) {
    if aggregated.is_empty() {
        return;
    }
    let total: u64 = aggregated.iter().map(|(_, _, count)| *count).sum();
    if total > MAX_SPREAD_SAMPLES {
        for (_, _, count) in &mut aggregated {
            *count = ((*count as f64 * MAX_SPREAD_SAMPLES as f64 / total as f64) as u64).max(1);
        }
    }
    // Each thread's samples: (order, stack).
    let mut threads: HashMap<Arc<ThreadKey>, Vec<(f64, Frames)>> = HashMap::new();
    for (thread, stack, count) in aggregated {
        let slots = threads.entry(thread).or_default();
        for k in 0..count {
            slots.push(((k as f64 + 0.5) / count as f64, Arc::clone(&stack)));
        }
    }
    let busiest = threads.values().map(Vec::len).max().unwrap_or(1) as u64;
    let range_ns = if profile.duration_nano > 0 {
        profile.duration_nano
    } else {
        busiest.saturating_mul(period_ns)
    };
    for (thread, mut slots) in threads {
        slots.sort_by(|a, b| a.0.total_cmp(&b.0));
        let slot_ns = range_ns as f64 / slots.len() as f64;
        for (j, (_, stack)) in slots.into_iter().enumerate() {
            out.push(SampleIn {
                thread: Arc::clone(&thread),
                time_unix_ns: profile
                    .time_unix_nano
                    .saturating_add((slot_ns * j as f64) as u64),
                stack,
            });
        }
    }
}

/// What a [`SampleTimeline`] did so far.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SampleCounts {
    /// Samples handed to [`SampleTimeline::add`].
    pub received: u64,
    /// Samples placed in the session.
    pub placed: u64,
    /// Samples that arrived after the session had passed their time.
    pub late: u64,
}

#[derive(Debug)]
struct ThreadState {
    /// The session's thread id.
    id: u64,
    name: String,
    started: bool,
    /// The time of its last placed sample, while that sample still holds.
    holding_since_unix_ns: Option<u64>,
}

#[derive(Debug)]
struct Pending {
    time_unix_ns: u64,
    thread: usize,
    stack: Arc<[u32]>,
}

/// One resource's samples on their way into a sampled session: held until the horizon (now −
/// the receivers' delay, so samples exported late still find their place), then placed in time
/// order as `Resync`s of their threads.
#[derive(Debug)]
pub struct SampleTimeline {
    zero_unix_ns: u64,
    /// Everything before this is placed; a sample before it is late.
    emitted_unix_ns: u64,
    period_ns: u64,
    measure_sent_period_ns: u64,
    frames: HashMap<Arc<FrameName>, u32>,
    buildings: HashMap<(String, String, String, Option<String>), u32>,
    new_methods: Vec<MethodDef>,
    threads: Vec<ThreadState>,
    thread_index: HashMap<Arc<ThreadKey>, usize>,
    pending: Vec<Pending>,
    counts: SampleCounts,
    latest_unix_ns: u64,
}

impl SampleTimeline {
    /// A timeline whose wire time 0 is `zero_unix_ns`.
    pub fn new(zero_unix_ns: u64) -> Self {
        Self {
            zero_unix_ns,
            emitted_unix_ns: zero_unix_ns,
            period_ns: DEFAULT_PERIOD_NS,
            measure_sent_period_ns: 0,
            frames: HashMap::new(),
            buildings: HashMap::new(),
            new_methods: Vec::new(),
            threads: Vec::new(),
            thread_index: HashMap::new(),
            pending: Vec::new(),
            counts: SampleCounts::default(),
            latest_unix_ns: zero_unix_ns,
        }
    }

    pub fn counts(&self) -> SampleCounts {
        self.counts
    }

    /// Everything up to here has been placed.
    pub fn emitted_unix_ns(&self) -> u64 {
        self.emitted_unix_ns
    }

    /// Nothing waits and no thread's sample still holds.
    pub fn is_idle(&self) -> bool {
        self.pending.is_empty()
            && self
                .threads
                .iter()
                .all(|thread| thread.holding_since_unix_ns.is_none())
    }

    /// The session's wire time of `unix_ns`.
    pub fn wire_time(&self, unix_ns: u64) -> u64 {
        unix_ns.saturating_sub(self.zero_unix_ns)
    }

    /// Takes a batch's samples (their times already corrected for the host's clock).
    pub fn add(&mut self, period_ns: u64, samples: Vec<SampleIn>) {
        self.period_ns = period_ns.max(1);
        // A stack shared by many samples is translated once.
        let mut stacks: HashMap<*const [Arc<FrameName>], Arc<[u32]>> = HashMap::new();
        for sample in samples {
            self.counts.received += 1;
            if sample.time_unix_ns < self.emitted_unix_ns {
                self.counts.late += 1;
                continue;
            }
            let stack = match stacks.get(&Arc::as_ptr(&sample.stack)) {
                Some(stack) => Arc::clone(stack),
                None => {
                    let ids: Arc<[u32]> = sample
                        .stack
                        .iter()
                        .map(|frame| self.method(frame))
                        .collect();
                    stacks.insert(Arc::as_ptr(&sample.stack), Arc::clone(&ids));
                    ids
                }
            };
            let thread = self.thread(&sample.thread);
            self.latest_unix_ns = self.latest_unix_ns.max(sample.time_unix_ns);
            self.pending.push(Pending {
                time_unix_ns: sample.time_unix_ns,
                thread,
                stack,
            });
        }
    }

    fn method(&mut self, frame: &Arc<FrameName>) -> u32 {
        if let Some(&id) = self.frames.get(frame) {
            return id;
        }
        let key = highrise_record::import::frame_building(&frame.0, frame.1.as_deref());
        let next = self.buildings.len() as u32;
        let id = *self.buildings.entry(key).or_insert_with_key(|key| {
            self.new_methods
                .push(highrise_record::import::building_definition(next, key));
            next
        });
        self.frames.insert(Arc::clone(frame), id);
        id
    }

    fn thread(&mut self, key: &Arc<ThreadKey>) -> usize {
        if let Some(&index) = self.thread_index.get(key) {
            return index;
        }
        let index = self.threads.len();
        self.threads.push(ThreadState {
            id: index as u64 + 1,
            name: key.display(),
            started: false,
            holding_since_unix_ns: None,
        });
        self.thread_index.insert(Arc::clone(key), index);
        index
    }

    /// Places what the horizon allows: every sample, and every end of a thread's last sample,
    /// up to `horizon_unix_ns` − (GAP_PERIODS − 1) periods (before that point, whether a
    /// thread's sample ends is known: the samples that would continue it are all in).
    pub fn advance(&mut self, horizon_unix_ns: u64) -> Vec<AgentMessage> {
        let gap_ns = GAP_PERIODS.saturating_mul(self.period_ns);
        let settled = horizon_unix_ns
            .saturating_sub(gap_ns.saturating_sub(self.period_ns))
            .max(self.emitted_unix_ns);
        // A session that starts at its first sample may have its horizon behind it at first.
        let horizon_unix_ns = horizon_unix_ns.max(settled);
        let mut messages = Vec::new();
        if self.measure_sent_period_ns != self.period_ns {
            self.measure_sent_period_ns = self.period_ns;
            messages.push(AgentMessage::Measure(Measure {
                mode: MeasureMode::Sampled,
                sample_period_us: (self.period_ns / 1000).clamp(1, u64::from(u32::MAX)) as u32,
                sampled_methods: 0,
            }));
        }
        for chunk in std::mem::take(&mut self.new_methods).chunks(4096) {
            messages.push(AgentMessage::DefineMethods(chunk.to_vec()));
        }
        self.pending
            .sort_by_key(|sample| (sample.time_unix_ns, sample.thread));
        let due = self
            .pending
            .partition_point(|sample| sample.time_unix_ns <= settled);
        let known = self
            .pending
            .partition_point(|sample| sample.time_unix_ns <= horizon_unix_ns);
        // Ends of held samples: a thread's next known sample more than a gap after its last
        // (or none known while the horizon is a gap past it) ends the last after one period.
        // (time, thread, None = an end | Some(pending index) = a sample)
        let mut placed: Vec<(u64, usize, Option<usize>)> = Vec::with_capacity(due + 8);
        let mut last: Vec<Option<u64>> = self
            .threads
            .iter()
            .map(|thread| thread.holding_since_unix_ns)
            .collect();
        for (index, sample) in self.pending[..known].iter().enumerate() {
            if let Some(previous) = last[sample.thread] {
                if sample.time_unix_ns.saturating_sub(previous) > gap_ns {
                    placed.push((previous + self.period_ns, sample.thread, None));
                }
            }
            last[sample.thread] = Some(sample.time_unix_ns);
            if index < due {
                placed.push((sample.time_unix_ns, sample.thread, Some(index)));
            }
        }
        for (thread, previous) in last.iter().enumerate() {
            if let Some(previous) = *previous {
                if previous.saturating_add(gap_ns) <= horizon_unix_ns {
                    placed.push((previous + self.period_ns, thread, None));
                }
            }
        }
        placed.retain(|&(time, _, _)| time <= settled);
        placed.sort_by_key(|&(time, thread, sample)| (time, thread, sample.is_some()));
        for (time_unix_ns, thread, sample) in placed {
            let timestamp = self.wire_time(time_unix_ns);
            let state = &mut self.threads[thread];
            if !state.started {
                state.started = true;
                messages.push(AgentMessage::ThreadStart {
                    thread_id: state.id,
                    name: state.name.clone(),
                    timestamp,
                });
            }
            let stack = match sample {
                Some(index) => {
                    state.holding_since_unix_ns = Some(time_unix_ns);
                    self.counts.placed += 1;
                    self.pending[index].stack.to_vec()
                }
                None => {
                    state.holding_since_unix_ns = None;
                    Vec::new()
                }
            };
            messages.push(AgentMessage::Resync {
                thread_id: state.id,
                timestamp,
                stack,
            });
        }
        self.pending.drain(..due);
        self.emitted_unix_ns = settled;
        messages.push(AgentMessage::Heartbeat {
            timestamp: self.wire_time(settled),
        });
        messages
    }

    /// Places everything left and ends every held sample; returns the messages and the
    /// session's end (wire time).
    pub fn finish(&mut self) -> (Vec<AgentMessage>, u64) {
        let horizon = self
            .latest_unix_ns
            .max(self.emitted_unix_ns)
            .saturating_add(GAP_PERIODS.saturating_mul(self.period_ns));
        let messages = self.advance(horizon);
        (messages, self.wire_time(self.emitted_unix_ns))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use opentelemetry_proto::tonic::profiles::v1development::{
        Function, KeyValueAndUnit, Line, Location, Mapping, ResourceProfiles, Sample,
        ScopeProfiles, Stack, ValueType,
    };
    use opentelemetry_proto::tonic::resource::v1::Resource;

    /// A dictionary of `main` → `work` (with `helper` inlined into `work`), and a native
    /// address in libc under `work`; strings, functions and locations from index 1.
    fn dictionary() -> ProfilesDictionary {
        let strings = [
            "",
            "main",
            "app.py",
            "work",
            "helper",
            "/usr/lib/libc.so.6",
            "thread.id",
            "thread.name",
            "samples",
            "count",
            "cpu",
            "nanoseconds",
            "worker",
        ];
        let function = |name: i32, file: i32| Function {
            name_strindex: name,
            filename_strindex: file,
            ..Function::default()
        };
        let line = |function_index: i32| Line {
            function_index,
            ..Line::default()
        };
        let attribute = |key: i32, value: any_value::Value| KeyValueAndUnit {
            key_strindex: key,
            value: Some(AnyValue { value: Some(value) }),
            unit_strindex: 0,
        };
        ProfilesDictionary {
            string_table: strings.iter().map(|s| (*s).to_owned()).collect(),
            function_table: vec![
                Function::default(),
                function(1, 2),
                function(3, 2),
                function(4, 2),
            ],
            mapping_table: vec![
                Mapping::default(),
                Mapping {
                    filename_strindex: 5,
                    ..Mapping::default()
                },
            ],
            location_table: vec![
                Location::default(),
                Location {
                    lines: vec![line(1)],
                    ..Location::default()
                },
                // helper inlined into work: the caller last.
                Location {
                    lines: vec![line(3), line(2)],
                    ..Location::default()
                },
                Location {
                    mapping_index: 1,
                    address: 0x1234,
                    ..Location::default()
                },
            ],
            // Leaf first.
            stack_table: vec![
                Stack::default(),
                Stack {
                    location_indices: vec![2, 1],
                },
                Stack {
                    location_indices: vec![3, 2, 1],
                },
            ],
            attribute_table: vec![
                KeyValueAndUnit::default(),
                attribute(6, any_value::Value::IntValue(7)),
                attribute(7, any_value::Value::StringValue("worker".into())),
            ],
            ..ProfilesDictionary::default()
        }
    }

    fn request(profiles: Vec<Profile>) -> ExportProfilesServiceRequest {
        ExportProfilesServiceRequest {
            resource_profiles: vec![ResourceProfiles {
                resource: Some(Resource {
                    attributes: vec![KeyValue {
                        key: "service.name".into(),
                        value: Some(AnyValue {
                            value: Some(any_value::Value::StringValue("shop".into())),
                        }),
                        ..KeyValue::default()
                    }],
                    ..Resource::default()
                }),
                scope_profiles: vec![ScopeProfiles {
                    profiles,
                    ..ScopeProfiles::default()
                }],
                ..ResourceProfiles::default()
            }],
            dictionary: Some(dictionary()),
        }
    }

    fn cpu_profile(samples: Vec<Sample>) -> Profile {
        Profile {
            sample_type: Some(ValueType {
                type_strindex: 8,
                unit_strindex: 9,
            }),
            period_type: Some(ValueType {
                type_strindex: 10,
                unit_strindex: 11,
            }),
            period: 10_000_000,
            time_unix_nano: 1_000_000_000,
            duration_nano: 1_000_000_000,
            samples,
            ..Profile::default()
        }
    }

    fn names(sample: &SampleIn) -> Vec<String> {
        sample.stack.iter().map(|frame| frame.0.clone()).collect()
    }

    #[test]
    fn timestamped_samples_resolve_stacks_inlined_frames_threads_and_native_addresses() {
        let decoded = check_profiles(&request(vec![cpu_profile(vec![
            Sample {
                stack_index: 1,
                attribute_indices: vec![1, 2],
                timestamps_unix_nano: vec![1_000_000_000, 1_010_000_000],
                ..Sample::default()
            },
            Sample {
                stack_index: 2,
                timestamps_unix_nano: vec![1_020_000_000],
                ..Sample::default()
            },
        ])]));
        assert_eq!(decoded.rejected_profiles, 0, "{:?}", decoded.first_error);
        let batch = &decoded.resources[0];
        assert_eq!(batch.info.id.service, "shop");
        assert_eq!(batch.period_ns, 10_000_000);
        assert_eq!(batch.samples.len(), 3);
        assert_eq!(names(&batch.samples[0]), ["main", "work", "helper"]);
        assert_eq!(batch.samples[0].thread.display(), "worker (7)");
        assert_eq!(batch.samples[1].time_unix_ns, 1_010_000_000);
        assert_eq!(
            names(&batch.samples[2]),
            ["main", "work", "helper", "0x1234"]
        );
        assert_eq!(
            batch.samples[2].stack[3].1.as_deref(),
            Some("lib:/usr/lib/libc.so.6")
        );
        assert_eq!(batch.samples[2].thread.display(), "samples");
    }

    #[test]
    fn aggregated_counts_spread_over_the_profile_at_their_share() {
        let decoded = check_profiles(&request(vec![cpu_profile(vec![
            Sample {
                stack_index: 1,
                values: vec![30],
                ..Sample::default()
            },
            Sample {
                stack_index: 2,
                values: vec![10],
                ..Sample::default()
            },
        ])]));
        let samples = &decoded.resources[0].samples;
        assert_eq!(samples.len(), 40);
        let first_half = samples
            .iter()
            .filter(|s| s.time_unix_ns < 1_500_000_000 && s.stack.len() == 4)
            .count();
        assert_eq!(first_half, 5, "each half of the range holds its share");
        assert!(samples
            .iter()
            .all(|s| (1_000_000_000..2_000_000_000).contains(&s.time_unix_ns)));
    }

    #[test]
    fn bad_references_and_allocation_profiles_are_rejected_and_the_rest_read() {
        let mut allocations = cpu_profile(vec![Sample {
            stack_index: 1,
            values: vec![100],
            ..Sample::default()
        }]);
        // A unit neither a time nor a count.
        allocations.sample_type = Some(ValueType {
            type_strindex: 0,
            unit_strindex: 5,
        });
        let decoded = check_profiles(&request(vec![
            cpu_profile(vec![
                Sample {
                    stack_index: 99,
                    timestamps_unix_nano: vec![1_000_000_000],
                    ..Sample::default()
                },
                Sample {
                    stack_index: 1,
                    timestamps_unix_nano: vec![1_000_000_000],
                    ..Sample::default()
                },
            ]),
            allocations,
        ]));
        assert_eq!(decoded.rejected_profiles, 2);
        assert_eq!(decoded.rejected_samples, 2);
        assert_eq!(decoded.sample_count(), 1);
        assert!(decoded
            .first_error
            .as_deref()
            .unwrap()
            .contains("stack index 99"));
    }

    fn sample(thread: &Arc<ThreadKey>, ms: u64, frames: &[&str]) -> SampleIn {
        SampleIn {
            thread: Arc::clone(thread),
            time_unix_ns: ms * 1_000_000,
            stack: frames
                .iter()
                .map(|name| Arc::new(((*name).to_owned(), Some("app.py".to_owned()))))
                .collect(),
        }
    }

    fn resyncs(messages: &[AgentMessage]) -> Vec<(u64, u64, usize)> {
        messages
            .iter()
            .filter_map(|message| match message {
                AgentMessage::Resync {
                    thread_id,
                    timestamp,
                    stack,
                } => Some((*thread_id, *timestamp / 1_000_000, stack.len())),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn samples_are_placed_in_time_order_and_a_silent_thread_ends_after_one_period() {
        let a = Arc::new(ThreadKey {
            id: 1,
            name: "a".into(),
        });
        let b = Arc::new(ThreadKey {
            id: 2,
            name: "b".into(),
        });
        let mut timeline = SampleTimeline::new(0);
        // a at 0, 10, 20 then silent; b at 5 and 500 (a gap: ended at 15).
        timeline.add(
            10_000_000,
            vec![
                sample(&a, 20, &["main"]),
                sample(&b, 500, &["main", "wait"]),
                sample(&a, 0, &["main", "work"]),
                sample(&b, 5, &["main"]),
                sample(&a, 10, &["main", "work"]),
            ],
        );
        // Settled up to 590 − 90 = 500 ms.
        let messages = timeline.advance(590_000_000);
        assert!(matches!(
            messages[0],
            AgentMessage::Measure(Measure {
                mode: MeasureMode::Sampled,
                sample_period_us: 10_000,
                ..
            })
        ));
        assert!(matches!(&messages[1], AgentMessage::DefineMethods(defs) if defs.len() == 3));
        assert_eq!(
            resyncs(&messages),
            [
                (1, 0, 2),
                (2, 5, 1),
                (1, 10, 2),
                (2, 15, 0),
                (1, 20, 1),
                (1, 30, 0),
                (2, 500, 2),
            ]
        );
        assert_eq!(timeline.counts().placed, 5);
        // b's last sample holds: a later sample of b is within a gap of it.
        assert!(!timeline.is_idle());
        // Before the placed point: late.
        timeline.add(10_000_000, vec![sample(&a, 100, &["main"])]);
        assert_eq!(timeline.counts().late, 1);
        let (messages, end) = timeline.finish();
        assert_eq!(resyncs(&messages), [(2, 510, 0)]);
        assert!(end >= 510_000_000);
        assert!(timeline.is_idle());
    }

    #[test]
    fn every_sample_is_placed_when_the_session_starts_ahead_of_its_horizon() {
        let a = Arc::new(ThreadKey {
            id: 1,
            name: "a".into(),
        });
        // The session starts at its first sample, 2 s ahead of the horizon (now − delay).
        let zero = 10_000_000_000u64;
        let mut timeline = SampleTimeline::new(zero);
        let mut horizon = zero - 2_000_000_000;
        for batch in 0..5u64 {
            let at = |i: u64| (zero - 1_000_000_000) / 1_000_000 + 1000 + batch * 1000 + i * 10;
            timeline.add(
                10_000_000,
                (0..100).map(|i| sample(&a, at(i), &["f"])).collect(),
            );
            for _ in 0..50 {
                horizon += 20_000_000;
                timeline.advance(horizon);
            }
        }
        timeline.finish();
        assert_eq!(timeline.counts().placed, 500, "{:?}", timeline.counts());
    }

    #[test]
    fn a_sample_near_the_horizon_waits_until_its_thread_is_known_to_go_on_or_end() {
        let a = Arc::new(ThreadKey {
            id: 1,
            name: "a".into(),
        });
        let mut timeline = SampleTimeline::new(0);
        timeline.add(
            10_000_000,
            vec![sample(&a, 0, &["main"]), sample(&a, 50, &["main"])],
        );
        // Settled up to 100 − 90 = 10 ms: the sample at 50 waits.
        assert_eq!(resyncs(&timeline.advance(100_000_000)), [(1, 0, 1)]);
        timeline.add(10_000_000, vec![sample(&a, 60, &["main", "work"])]);
        assert_eq!(
            resyncs(&timeline.advance(200_000_000)),
            [(1, 50, 1), (1, 60, 2), (1, 70, 0)]
        );
        assert_eq!(timeline.counts().late, 0);
    }
}
