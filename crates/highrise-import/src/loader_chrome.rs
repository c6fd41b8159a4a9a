//! Chrome trace events (JSON: an array of events or `{"traceEvents": [...]}`; [`ChromeTrace`]),
//! read event by event as the file streams by.

use std::collections::HashMap;

use highrise_record::RecordError;

use crate::format::{invalid, text_start, Input};
use crate::importer::{Imported, Importer};
use crate::naming::split_located;
use crate::trace::Trace;

/// A `pid` or `tid`: a number (no allocation) or, rarely, a string.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub(crate) enum ChromeId {
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
pub(crate) enum Phase {
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
pub(crate) struct ChromeArgs {
    #[serde(default)]
    name: Option<String>,
}

/// One trace event: only the fields highrise reads (the rest, `args` of calls included, are
/// skipped as they are parsed). `name` is interned as it is read: a name seen before costs no
/// allocation.
#[derive(Default)]
pub(crate) struct ChromeEvent {
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
pub(crate) struct ChromeNames {
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
pub(crate) struct EventSeed<'a> {
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
pub(crate) struct ChromeState {
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
pub(crate) const CHROME_BATCH_BYTES: usize = 1 << 20;
/// Batches scanned and not yet taken in: the scan waits beyond this (bounds memory).
pub(crate) const CHROME_BATCHES_OUT: u64 = 8;

/// Events found by the scan, for a parser: their bytes back to back, and where each ends.
#[derive(Default)]
pub(crate) struct ScannedEvents {
    bytes: Vec<u8>,
    ends: Vec<usize>,
}

/// One batch parsed: by `parser`, its events (names as that parser's own ids) or why they could
/// not be read, and the names it met first in this batch, in id order; the batch's buffers come
/// back to be filled again.
pub(crate) struct ParsedEvents {
    parser: usize,
    events: Result<Vec<ChromeEvent>, String>,
    new_names: Vec<String>,
    buffers: ScannedEvents,
}

/// A parser thread: parses each batch it takes into events, with names interned in its own
/// table (each parser's new names go out with the batch that met them). A panic while parsing
/// (a bug) goes back as that batch's error, so the reading thread never waits for it.
pub(crate) fn parse_batches(
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
        let parsed = highrise_guard::catch(|| -> Result<Vec<ChromeEvent>, String> {
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
        })
        .unwrap_or_else(|panic| {
            Err(format!(
                "trace: the parse failed (a bug in highrise): {panic}"
            ))
        });
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
pub(crate) struct InOrder {
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
pub(crate) fn read_chrome_trace(input: impl std::io::Read) -> Result<Trace, RecordError> {
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

/// Chrome traces ([`ProfileFormat::ChromeTrace`]).
pub(crate) struct ChromeTrace;

impl Importer for ChromeTrace {
    fn detects(&self, start: &[u8]) -> bool {
        let text = text_start(start);
        text.starts_with('{') && text.contains("\"traceEvents\"")
            || text.starts_with('[') && text.contains("\"ph\"")
    }

    fn read(&self, input: Input<'_>) -> Result<Imported, RecordError> {
        // Read in blocks of its own: no buffer in between.
        let trace = match input {
            Input::File(path) => read_chrome_trace(std::fs::File::open(path)?)?,
            Input::Bytes(bytes) => read_chrome_trace(bytes)?,
        };
        Ok(Imported::Calls(trace))
    }
}
