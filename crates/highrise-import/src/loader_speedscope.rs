//! speedscope's JSON file format ([`Speedscope`]): sampled profiles as samples, evented ones
//! as calls.

use std::collections::HashMap;

use highrise_record::RecordError;

use crate::format::{invalid, text_start, Input};
use crate::importer::{Imported, Importer};
use crate::profile::{time_unit_ns, Profile, Stack, FOLDED_PERIOD_NS};
use crate::trace::{Call, Trace};

/// A speedscope file as read: only the fields used, each profile's samples as the distinct
/// stacks and, per sample, which one (a file of hundreds of MB holds few distinct stacks).
pub(crate) struct SpeedscopeFile {
    pub(crate) shared: SpeedscopeShared,
    pub(crate) profiles: Vec<SpeedscopeProfile>,
    pub(crate) exporter: Option<String>,
}

#[derive(serde::Deserialize)]
pub(crate) struct SpeedscopeShared {
    frames: Vec<SpeedscopeFrame>,
}

#[derive(serde::Deserialize)]
pub(crate) struct SpeedscopeFrame {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    file: Option<String>,
}

#[derive(Default)]
pub(crate) struct SpeedscopeProfile {
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
pub(crate) struct SpeedscopeSamples {
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
pub(crate) struct SpeedscopeEvent {
    #[serde(rename = "type")]
    kind: SpeedscopeEventKind,
    frame: u64,
    at: f64,
}

#[derive(serde::Deserialize, PartialEq, Eq)]
pub(crate) enum SpeedscopeEventKind {
    O,
    C,
    #[serde(other)]
    Other,
}

impl SpeedscopeFile {
    /// Reads a speedscope file as it streams by ([`crate::json_array::Cursor`]): each sample's
    /// frame indices and each weight read by hand (serde_json reading from a stream took half
    /// of a 1 GB file's conversion), every other value by serde_json from its own bytes.
    pub(crate) fn read(input: impl std::io::Read) -> Result<SpeedscopeFile, RecordError> {
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
    pub(crate) fn is_evented(&self) -> bool {
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
pub(crate) fn speedscope_value<T: serde::de::DeserializeOwned>(
    bytes: &[u8],
    what: &str,
) -> Result<T, crate::json_array::CursorError> {
    serde_json::from_slice(bytes)
        .map_err(|error| crate::json_array::CursorError::Shape(format!("{what}: {error}")))
}

/// A sample's frame indices (`[3,14,15]`) into `out`; by hand for the common compact form,
/// by serde_json for any other (spaces, or not indices at all: its error).
pub(crate) fn speedscope_stack(
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
pub(crate) fn speedscope_number(bytes: &[u8]) -> Result<f64, crate::json_array::CursorError> {
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
pub(crate) fn read_speedscope_profile<R: std::io::Read>(
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
pub(crate) fn parse_speedscope(file: &SpeedscopeFile) -> Result<Profile, RecordError> {
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

/// speedscope's evented profiles, one thread each: every `O` (open) and `C` (close) of a frame at
/// its time becomes a call, as in a Chrome trace. Frames left open close at the profile's end.
/// pyinstrument's are its samples merged into one timeline (calls not counted): the session says
/// it is sampled, at pyinstrument's default 1 ms.
pub(crate) fn parse_speedscope_evented(file: &SpeedscopeFile) -> Result<Trace, RecordError> {
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

/// speedscope files ([`ProfileFormat::Speedscope`]).
pub(crate) struct Speedscope;

impl Importer for Speedscope {
    fn detects(&self, start: &[u8]) -> bool {
        let text = text_start(start);
        text.starts_with('{') && (text.contains("speedscope") || text.contains("\"profiles\""))
    }

    fn read(&self, input: Input<'_>) -> Result<Imported, RecordError> {
        let file = SpeedscopeFile::read(input.stream()?)?;
        if file.is_evented() {
            return Ok(Imported::Calls(parse_speedscope_evented(&file)?));
        }
        Ok(Imported::Samples(Box::new(parse_speedscope(&file)?)))
    }
}
