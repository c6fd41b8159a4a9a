//! pprof profiles (`profile.proto`, gzipped or not; [`Pprof`]).

use std::collections::HashMap;

use highrise_protocol::ClassKind;
use highrise_record::RecordError;

use crate::format::{invalid, Input};
use crate::importer::{Imported, Importer};
use crate::profile::{spread, time_unit_ns, Allocation, Profile, FOLDED_PERIOD_NS};

/// pprof: each sample's stack with its time (`cpu`, `wall`, … in a time unit) as samples of the
/// profile's period, or its count of samples where no value is a time. A `thread`, `thread_name`
/// or `thread_id` label names the thread; without one every sample is the thread `samples`.
pub(crate) fn parse_pprof(bytes: &[u8]) -> Result<Profile, RecordError> {
    let p = highrise_record::pprof::decode(bytes)?;
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
    let functions: HashMap<u64, &highrise_record::pprof::Function> =
        p.function.iter().map(|f| (f.id, f)).collect();
    let mappings: HashMap<u64, &highrise_record::pprof::Mapping> =
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

/// pprof profiles ([`ProfileFormat::Pprof`]).
pub(crate) struct Pprof;

impl Importer for Pprof {
    fn detects(&self, start: &[u8]) -> bool {
        use highrise_record::pprof::{looks_like_profile, peek_decoded};
        looks_like_profile(&peek_decoded(start))
    }

    fn read(&self, input: Input<'_>) -> Result<Imported, RecordError> {
        Ok(Imported::Samples(Box::new(parse_pprof(&input.bytes()?)?)))
    }
}
