//! OTLP profiles (OpenTelemetry's `profiles` signal, `v1development`, pprof's data model): an
//! export request's samples resolved against its dictionary, by resource ([`check_profiles`]);
//! [`crate::sample_timeline::SampleTimeline`] turns one resource's samples into a sampled
//! session.
//!
//! What a sample means: the thread was on that stack for one period. Samples with timestamps
//! (the OpenTelemetry eBPF profiler's shape) stand at their times; aggregated ones (a count or a
//! time per stack) are spread evenly over the profile's time range, as folded stacks are when
//! opened. A thread not sampled for [`GAP_PERIODS`] periods (off CPU, for a CPU sampler) was on
//! nothing the sampler saw: its last sample ends after one period.

use std::collections::HashMap;
use std::sync::Arc;

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
/// without symbols; see `highrise_import::naming::frame_building`).
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
}
