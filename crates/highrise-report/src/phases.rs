//! Objects created and freed per class in each *phase* of a recorded run (Murphy & Saenko 1998,
//! section 3.2): `highrise classes`, and the data sets of [`crate::predict`].
//!
//! A phase is a call of a method the user names (`--phase Parser.parse`): each outermost call of
//! it on a thread is one phase run, from its enter to its exit, and every memory record of that
//! thread while it is open counts in it (its callees' included). Without a phase the whole run is
//! one. A name is one method: where it matches several that ran (`parse`: a Python program's
//! mark `phase("parse")`, `highrise.phase.parse`, around its own function `app.main.parse`), the
//! one that is its full name is it, else the one phase mark among them (with a note saying what
//! else matched, see [`PhaseChoice`]), else it is an error asking for the full name
//! ([`ReportError::AmbiguousPhase`]): never two methods' runs for one name, which would count
//! each run twice. Per class the paper's numbers: objects created (the "maximum potentially
//! active", frees ignored), freed, and live at the phase's exit (created − freed, where the agent
//! reports frees), with the mean and largest object size. Where the agent sent a live-object snapshot as a
//! phase ended (`LiveObjects`: the JVM's class histogram, CPython's collector), the live
//! counts and bytes at exit are the runtime's own, measured over the whole heap.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::Path;

use highrise_ingest::SessionSink;
use highrise_protocol::{ClassDef, Event, EventKind, LiveClass, MemoryAmount, MethodDef};
use serde::Serialize;

use crate::diagram::{class_diagram, ClassDiagram};
use crate::summary::{name_or_id, replay_into, ReportError};

/// The name of the one phase of a run read without `--phase`.
pub const WHOLE_RUN: &str = "(whole run)";

/// How far after a phase mark's exit its live snapshot's timestamp may fall. An agent reads
/// the snapshot's time before the exit's, but the CPython agent's events read the TSC and are
/// mapped onto the monotonic clock afterwards, which the snapshot reads directly: the two may
/// disagree by the mapping's error.
const LIVE_SLACK_NS: u64 = 10_000_000;

/// Deepest stack tracked per thread; deeper frames are counted, not kept.
const MAX_DEPTH: usize = 4096;

/// One class in one phase run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PhaseClass {
    /// The class as people read it (`package.Name`).
    pub class: String,
    /// Objects created during the phase: the paper's "maximum potentially active".
    pub created: u64,
    pub created_bytes: u64,
    /// Objects freed during the phase (whichever phase created them).
    pub freed: u64,
    pub freed_bytes: u64,
    /// Objects active at the phase's exit: the runtime's count where a live-object snapshot
    /// measured the class (`live_measured`), else created − freed (at least 0) where the agent
    /// reports frees; `None` when neither.
    pub live_at_exit: Option<u64>,
    /// Their bytes, where a snapshot measured them.
    pub live_bytes_at_exit: Option<u64>,
    /// Whether `live_at_exit` is a snapshot's (whole heap) rather than this phase's
    /// created − freed.
    pub live_measured: bool,
    /// Mean shallow size of the objects created, in bytes.
    pub mean_size_bytes: f64,
    /// Largest mean size of one memory record (a frame's objects of the class), in bytes.
    pub max_size_bytes: f64,
}

/// One phase run: one outermost call of a phase method on one thread (or the whole run).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PhaseRun {
    /// The phase method's name as given by the agent (`package.Class.method`), or
    /// [`WHOLE_RUN`].
    pub phase: String,
    /// 0 for the phase's first run in the recording, 1 for the next, …
    pub index: u32,
    pub thread_id: u64,
    pub start_ns: u64,
    pub end_ns: u64,
    /// True when the run was still open when the recording ended.
    pub unfinished: bool,
    /// The heap's live bytes at the phase's exit, as the runtime measured them (a snapshot
    /// with a heap total: the JVM's).
    pub heap_live_bytes: Option<u64>,
    /// Whether a live-object snapshot was taken as this run ended.
    pub live_snapshot: bool,
    /// By objects created, most first.
    pub classes: Vec<PhaseClass>,
    /// Objects of each class the whole run (every thread, every phase) had created by this
    /// phase's exit: what was potentially active when it ended, frees ignored. Each thread's
    /// records count in their order; other threads' as far as their batches had arrived. The basis count
    /// of a prediction comes from here, so a phase can be scaled by objects an earlier phase
    /// made (the resolve phase by the calls the parse phase read).
    pub created_by_exit: BTreeMap<String, u64>,
}

impl PhaseRun {
    /// This run's objects of `class` (matched as [`class_matches`] does).
    pub fn class(&self, class: &str) -> Option<&PhaseClass> {
        self.classes
            .iter()
            .find(|entry| class_matches(&entry.class, class))
    }
}

/// How a phase name the user gave was settled in one recording: the method it stands for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PhaseChoice {
    /// The name as given (`parse`).
    pub asked: String,
    /// The full name of the method whose runs are the phase's (`highrise.phase.parse`).
    pub method: String,
    /// Whether that method is a phase mark (`highrise.phase.NAME`).
    pub mark: bool,
    /// Other methods that ran and that the name matches too, left out (full names, sorted):
    /// not empty only where the name was settled by preferring the one phase mark.
    pub also_matching: Vec<String>,
}

impl PhaseChoice {
    /// Says which method was used and what else matched, where something else did:
    /// `phase "parse": using the mark highrise.phase.parse; app.m.parse also matches — name it
    /// in full to use it`.
    pub fn note(&self) -> Option<String> {
        if self.also_matching.is_empty() {
            return None;
        }
        let (others, verb, pronoun) = match self.also_matching.as_slice() {
            [one] => (one.clone(), "matches", "it"),
            many => (many.join(", "), "match", "one"),
        };
        Some(format!(
            "phase {:?}: using {}{}; {others} also {verb} — name {pronoun} in full to use it",
            self.asked,
            if self.mark { "the mark " } else { "" },
            self.method
        ))
    }
}

/// Which method the phase name `asked` stands for, of those it matches that ran in the
/// recording (`ran`: full name and whether it is a phase mark): the one whose full name it
/// is; else the only one; else the only phase mark among them. `Ok(None)` when none ran;
/// `Err` with every candidate's full name, sorted, when it is ambiguous.
pub fn choose_phase(
    asked: &str,
    ran: &[(String, bool)],
) -> Result<Option<PhaseChoice>, Vec<String>> {
    let mut ran: Vec<(String, bool)> = ran.to_vec();
    ran.sort();
    ran.dedup_by(|a, b| a.0 == b.0);
    let choice = |(method, mark): &(String, bool), also_matching: Vec<String>| PhaseChoice {
        asked: asked.to_string(),
        method: method.clone(),
        mark: *mark,
        also_matching,
    };
    if let Some(exact) = ran.iter().find(|(method, _)| method == asked) {
        return Ok(Some(choice(exact, Vec::new())));
    }
    match ran.as_slice() {
        [] => Ok(None),
        [one] => Ok(Some(choice(one, Vec::new()))),
        many => {
            let marks: Vec<&(String, bool)> = many.iter().filter(|(_, mark)| *mark).collect();
            match marks.as_slice() {
                [mark] => {
                    let others = many
                        .iter()
                        .filter(|(method, _)| *method != mark.0)
                        .map(|(method, _)| method.clone())
                        .collect();
                    Ok(Some(choice(mark, others)))
                }
                _ => Err(many.iter().map(|(method, _)| method.clone()).collect()),
            }
        }
    }
}

/// The phases of one recording.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ClassTable {
    pub recording: String,
    /// Whether the agent reported any frees (so `live_at_exit` is known).
    pub frees_known: bool,
    /// Phase methods asked for that the recording never defined.
    pub unknown_phases: Vec<String>,
    /// The method each phase name asked for stands for here (see [`choose_phase`]), in the
    /// order asked; names no method that ran matched are left out.
    pub phase_choices: Vec<PhaseChoice>,
    /// In order of the phases' starts.
    pub phases: Vec<PhaseRun>,
    /// The recording was cut short; read up to its last whole frame.
    pub interrupted: Option<String>,
    /// What the agent could not send (its buffers were full): events, and objects created.
    /// Nonzero means the counts here are lower bounds (the agent's `lossless` option avoids it).
    pub events_dropped: u64,
    pub allocations_dropped: u64,
    /// The class diagram the agent reported (empty when it sent no relations), with each
    /// association's objects made per owner over the whole run.
    pub diagram: ClassDiagram,
}

/// Whether a class's display name is what the user typed: the whole name, or its last
/// dot-separated part(s) (`Node`, `ast.Node`).
pub fn class_matches(display_name: &str, asked: &str) -> bool {
    display_name == asked
        || display_name
            .strip_suffix(asked)
            .is_some_and(|head| head.ends_with('.'))
}

/// Whether a method is the phase method the user named: its qualified name
/// (`package.Class.method`), or a dot-separated tail of it (`Class.method`, `method`).
pub fn method_matches(definition: &MethodDef, asked: &str) -> bool {
    class_matches(&definition.qualified_name(), asked)
}

/// Reads the recording at `path` and tables its classes per phase run: per run of a method in
/// `phase_methods`, or the whole run when that is empty.
pub fn class_table(path: &Path, phase_methods: &[String]) -> Result<ClassTable, ReportError> {
    let asked = phase_methods.to_vec();
    let (mut processor, interrupted) =
        replay_into(path, move |_hello| PhaseSink::new(asked.clone()))?;
    let report = processor.report();
    if report.info.is_none() {
        return Err(ReportError::NoSession {
            path: path.to_path_buf(),
        });
    }
    let classes: HashMap<u32, String> = report
        .classes()
        .map(|class: &ClassDef| (class.id, class.display_name()))
        .collect();
    let relations: Vec<_> = report.relations().cloned().collect();
    let sink = processor.sink_mut().ok_or_else(|| ReportError::NoSession {
        path: path.to_path_buf(),
    })?;
    sink.close_all();
    let diagram = if relations.is_empty() {
        ClassDiagram::default()
    } else {
        class_diagram(path, &classes, &relations)?
    };
    let frees_known = sink.frees_known;
    let unknown_phases = phase_methods
        .iter()
        .filter(|asked| !sink.matched.contains_key(*asked))
        .cloned()
        .collect();
    // Each name asked for is one method: runs of every method a name matched were read, and
    // only the chosen ones' are kept (a mark's and its same-named function's runs are the
    // same stretch of the program: both would count it twice).
    let ran: HashSet<u32> = sink.done.iter().map(|run| run.method_id).collect();
    let mut phase_choices: Vec<PhaseChoice> = Vec::new();
    for asked in phase_methods {
        let Some(matches) = sink.matched.get(asked) else {
            continue;
        };
        let candidates: Vec<(String, bool)> = matches
            .iter()
            .copied()
            .filter(|id| ran.contains(id))
            .filter_map(|id| {
                let name = sink.phase_methods.get(&id)?;
                Some((name.clone(), sink.marks.contains(&id)))
            })
            .collect();
        match choose_phase(asked, &candidates) {
            Ok(Some(choice)) => {
                if !phase_choices.contains(&choice) {
                    phase_choices.push(choice);
                }
            }
            Ok(None) => {}
            Err(candidates) => {
                return Err(ReportError::AmbiguousPhase {
                    path: path.to_path_buf(),
                    phase: asked.clone(),
                    candidates,
                });
            }
        }
    }
    let chosen: HashSet<&str> = phase_choices
        .iter()
        .map(|choice| choice.method.as_str())
        .collect();
    let mut done = std::mem::take(&mut sink.done);
    if !phase_methods.is_empty() {
        done.retain(|run| chosen.contains(sink.phase_name(run.method_id)));
    }
    let mut counters: HashMap<&str, u32> = HashMap::new();
    done.sort_by_key(|run| (run.start_ns, run.thread_id));
    let phases = done
        .into_iter()
        .map(|run| {
            let name = sink.phase_name(run.method_id);
            let counter = counters.entry(name).or_default();
            let index = *counter;
            *counter += 1;
            let snapshot = sink.snapshot_for(&run);
            run.finish(name, index, frees_known, snapshot, &classes)
        })
        .collect();
    Ok(ClassTable {
        recording: path.display().to_string(),
        frees_known,
        unknown_phases,
        phase_choices,
        phases,
        interrupted,
        events_dropped: sink.events_dropped,
        allocations_dropped: sink.allocations_dropped,
        diagram,
    })
}

/// A class's sums in one phase run.
#[derive(Debug, Clone, Copy, Default)]
struct ClassSums {
    created: u64,
    created_bytes: u64,
    freed: u64,
    freed_bytes: u64,
    max_size_bytes: f64,
}

/// A phase run being read.
#[derive(Debug, Clone)]
struct OpenRun {
    /// The phase method (`u32::MAX` for the whole run).
    method_id: u32,
    thread_id: u64,
    /// Stack depth of its frame (the run ends when the stack drops below it).
    depth: usize,
    start_ns: u64,
    end_ns: u64,
    unfinished: bool,
    classes: HashMap<u32, ClassSums>,
    /// The run's objects created per class by this run's exit (filled when it closes).
    created_by_exit: HashMap<u32, u64>,
}

impl OpenRun {
    fn new(method_id: u32, thread_id: u64, depth: usize, start_ns: u64) -> Self {
        Self {
            method_id,
            thread_id,
            depth,
            start_ns,
            end_ns: start_ns,
            unfinished: false,
            classes: HashMap::new(),
            created_by_exit: HashMap::new(),
        }
    }

    fn add(&mut self, class_id: u32, amount: MemoryAmount) {
        let sums = self.classes.entry(class_id).or_default();
        if amount.free {
            sums.freed = sums.freed.saturating_add(amount.count);
            sums.freed_bytes = sums.freed_bytes.saturating_add(amount.bytes);
        } else {
            sums.created = sums.created.saturating_add(amount.count);
            sums.created_bytes = sums.created_bytes.saturating_add(amount.bytes);
            if amount.count > 0 {
                let size = amount.bytes as f64 / amount.count as f64;
                sums.max_size_bytes = sums.max_size_bytes.max(size);
            }
        }
    }

    fn finish(
        mut self,
        phase: &str,
        index: u32,
        frees_known: bool,
        snapshot: Option<&LiveSnapshot>,
        class_names: &HashMap<u32, String>,
    ) -> PhaseRun {
        let measured: HashMap<u32, LiveClass> = snapshot
            .map(|snapshot| {
                snapshot
                    .classes
                    .iter()
                    .map(|class| (class.class_id, *class))
                    .collect()
            })
            .unwrap_or_default();
        // Objects an earlier phase made that are still live belong in the table too.
        for class in measured.values().filter(|class| class.count > 0) {
            self.classes.entry(class.class_id).or_default();
        }
        let name_of = |class_id: u32| name_or_id(class_names, class_id);
        let mut classes: Vec<PhaseClass> = self
            .classes
            .into_iter()
            .map(|(class_id, sums)| PhaseClass {
                class: name_of(class_id),
                created: sums.created,
                created_bytes: sums.created_bytes,
                freed: sums.freed,
                freed_bytes: sums.freed_bytes,
                live_at_exit: match measured.get(&class_id) {
                    Some(live) => Some(live.count),
                    None => frees_known.then(|| sums.created.saturating_sub(sums.freed)),
                },
                live_bytes_at_exit: measured.get(&class_id).map(|live| live.bytes),
                live_measured: measured.contains_key(&class_id),
                mean_size_bytes: if sums.created == 0 {
                    0.0
                } else {
                    sums.created_bytes as f64 / sums.created as f64
                },
                max_size_bytes: sums.max_size_bytes,
            })
            .collect();
        classes.sort_by(|a, b| b.created.cmp(&a.created).then(a.class.cmp(&b.class)));
        let created_by_exit = self
            .created_by_exit
            .iter()
            .map(|(&class_id, &count)| (name_of(class_id), count))
            .collect();
        PhaseRun {
            created_by_exit,
            phase: phase.to_string(),
            index,
            thread_id: self.thread_id,
            start_ns: self.start_ns,
            end_ns: self.end_ns,
            unfinished: self.unfinished,
            heap_live_bytes: snapshot.and_then(|snapshot| snapshot.heap_live_bytes),
            live_snapshot: snapshot.is_some(),
            classes,
        }
    }
}

/// One thread's stack and its open phase runs.
#[derive(Debug, Default)]
struct ThreadPhases {
    stack: Vec<u32>,
    /// Frames beyond [`MAX_DEPTH`].
    phantom: usize,
    open: Vec<OpenRun>,
}

/// A `LiveObjects` snapshot as received.
#[derive(Debug, Clone)]
struct LiveSnapshot {
    thread_id: u64,
    timestamp_ns: u64,
    heap_live_bytes: Option<u64>,
    classes: Vec<LiveClass>,
}

/// The session sink that cuts a replay into phase runs.
struct PhaseSink {
    asked: Vec<String>,
    /// Phase method ids and their names.
    phase_methods: HashMap<u32, String>,
    /// Phase marks' methods (`highrise.phase.NAME`): only their ends carry live snapshots.
    marks: Vec<u32>,
    /// Asked names some definition matched, with the ids of the methods each matched.
    matched: HashMap<String, BTreeSet<u32>>,
    threads: HashMap<u64, ThreadPhases>,
    /// The whole run, when no phase was asked for.
    whole: Option<OpenRun>,
    done: Vec<OpenRun>,
    /// Objects created per class so far, all threads.
    created: HashMap<u32, u64>,
    frees_known: bool,
    /// Live-object snapshots, in arrival order.
    snapshots: Vec<LiveSnapshot>,
    last_ns: u64,
    events_dropped: u64,
    allocations_dropped: u64,
}

impl PhaseSink {
    fn new(asked: Vec<String>) -> Self {
        let whole = asked.is_empty().then(|| OpenRun::new(u32::MAX, 0, 0, 0));
        Self {
            asked,
            phase_methods: HashMap::new(),
            marks: Vec::new(),
            matched: HashMap::new(),
            threads: HashMap::new(),
            whole,
            done: Vec::new(),
            created: HashMap::new(),
            frees_known: false,
            snapshots: Vec::new(),
            last_ns: 0,
            events_dropped: 0,
            allocations_dropped: 0,
        }
    }

    fn phase_name(&self, method_id: u32) -> &str {
        self.phase_methods
            .get(&method_id)
            .map_or(WHOLE_RUN, String::as_str)
    }

    /// The snapshot taken as `run` ended, if it is a phase mark's run (agents take one as a
    /// mark ends, just before its exit): of its thread's snapshots from the run's start to
    /// [`LIVE_SLACK_NS`] after its end, the one nearest its end (an enclosing mark's own comes
    /// after an inner one's, by at least its collection's time).
    fn snapshot_for(&self, run: &OpenRun) -> Option<&LiveSnapshot> {
        if !self.marks.contains(&run.method_id) {
            return None;
        }
        self.snapshots
            .iter()
            .filter(|snapshot| {
                snapshot.thread_id == run.thread_id
                    && (run.start_ns..=run.end_ns.saturating_add(LIVE_SLACK_NS))
                        .contains(&snapshot.timestamp_ns)
            })
            .min_by_key(|snapshot| snapshot.timestamp_ns.abs_diff(run.end_ns))
    }

    /// Closes the runs of `thread` whose frames are gone (the stack is now `depth` deep).
    fn close_above(&mut self, thread_id: u64, depth: usize, timestamp_ns: u64) {
        let Some(thread) = self.threads.get_mut(&thread_id) else {
            return;
        };
        while thread.open.last().is_some_and(|run| run.depth >= depth) {
            if let Some(mut run) = thread.open.pop() {
                run.end_ns = timestamp_ns;
                run.created_by_exit = self.created.clone();
                self.done.push(run);
            }
        }
    }

    fn enter(&mut self, thread_id: u64, method_id: u32, timestamp_ns: u64) {
        let thread = self.threads.entry(thread_id).or_default();
        if thread.phantom > 0 || thread.stack.len() >= MAX_DEPTH {
            thread.phantom += 1;
            return;
        }
        let depth = thread.stack.len();
        thread.stack.push(method_id);
        // Outermost of its phase: overloads share a name (Rhino's `Parser.parse(String, ..)`
        // calls `Parser.parse()`), and a call of either inside the other is the same run.
        let Some(name) = self.phase_methods.get(&method_id) else {
            return;
        };
        let outermost = !thread
            .open
            .iter()
            .any(|run| self.phase_methods.get(&run.method_id) == Some(name));
        if outermost {
            thread
                .open
                .push(OpenRun::new(method_id, thread_id, depth, timestamp_ns));
        }
    }

    fn exit(&mut self, thread_id: u64, method_id: u32, timestamp_ns: u64) {
        let thread = self.threads.entry(thread_id).or_default();
        if thread.phantom > 0 {
            thread.phantom -= 1;
            return;
        }
        // As the aggregator: an exit closes its frame and any above it; no match, ignored.
        if let Some(position) = thread.stack.iter().rposition(|&open| open == method_id) {
            thread.stack.truncate(position);
            self.close_above(thread_id, position, timestamp_ns);
        }
    }

    fn memory(&mut self, thread_id: u64, class_id: u32, amount: MemoryAmount) {
        self.frees_known |= amount.free;
        if !amount.free {
            *self.created.entry(class_id).or_default() += amount.count;
        }
        if let Some(whole) = self.whole.as_mut() {
            whole.add(class_id, amount);
        }
        if let Some(thread) = self.threads.get_mut(&thread_id) {
            for run in &mut thread.open {
                run.add(class_id, amount);
            }
        }
    }

    /// The end of the recording: every open run ends at the last time seen.
    fn close_all(&mut self) {
        let last_ns = self.last_ns;
        for thread in self.threads.values_mut() {
            for mut run in thread.open.drain(..) {
                run.end_ns = last_ns;
                run.unfinished = true;
                run.created_by_exit = self.created.clone();
                self.done.push(run);
            }
        }
        if let Some(mut whole) = self.whole.take() {
            whole.end_ns = last_ns;
            whole.created_by_exit = self.created.clone();
            self.done.push(whole);
        }
    }

    fn saw(&mut self, timestamp_ns: u64) {
        self.last_ns = self.last_ns.max(timestamp_ns);
    }
}

impl SessionSink for PhaseSink {
    type Snapshot = ();
    type Command = ();

    fn define_methods(&mut self, definitions: &[MethodDef]) {
        for definition in definitions {
            if definition.is_phase_mark() {
                self.marks.push(definition.id);
            }
            for asked in &self.asked {
                if method_matches(definition, asked) {
                    self.phase_methods
                        .insert(definition.id, definition.qualified_name());
                    self.matched
                        .entry(asked.clone())
                        .or_default()
                        .insert(definition.id);
                }
            }
        }
    }
    fn thread_started(&mut self, _thread_id: u64, _name: &str, timestamp_ns: u64) {
        self.saw(timestamp_ns);
    }
    fn thread_ended(&mut self, thread_id: u64, timestamp_ns: u64) {
        self.saw(timestamp_ns);
        self.close_above(thread_id, 0, timestamp_ns);
        self.threads.remove(&thread_id);
    }
    fn events(&mut self, thread_id: u64, events: &[Event]) {
        self.records(thread_id, events, &[]);
    }
    fn records(&mut self, thread_id: u64, events: &[Event], amounts: &[MemoryAmount]) {
        let mut amounts = amounts.iter();
        for event in events {
            self.saw(event.timestamp_ns);
            match event.kind {
                EventKind::Enter => self.enter(thread_id, event.method_id, event.timestamp_ns),
                EventKind::Exit => self.exit(thread_id, event.method_id, event.timestamp_ns),
                EventKind::Memory => {
                    if let Some(&amount) = amounts.next() {
                        self.memory(thread_id, event.method_id, amount);
                    }
                }
            }
        }
    }
    fn resync(&mut self, thread_id: u64, timestamp_ns: u64, stack: &[u32]) {
        self.saw(timestamp_ns);
        // Frames in common stay (and their runs); the rest close, then the new ones open.
        let thread = self.threads.entry(thread_id).or_default();
        thread.phantom = 0;
        let common = thread
            .stack
            .iter()
            .zip(stack)
            .take_while(|(a, b)| a == b)
            .count();
        thread.stack.truncate(common);
        self.close_above(thread_id, common, timestamp_ns);
        for &method_id in &stack[common..] {
            self.enter(thread_id, method_id, timestamp_ns);
        }
    }
    fn heartbeat(&mut self, timestamp_ns: u64) {
        self.saw(timestamp_ns);
    }
    fn agent_dropped(&mut self, events_dropped: u64, _batches_dropped: u64) {
        self.events_dropped = self.events_dropped.max(events_dropped);
    }
    fn memory_dropped(&mut self, allocations: u64, _bytes: u64, _frees: u64) {
        self.allocations_dropped = self.allocations_dropped.max(allocations);
    }
    fn live_objects(
        &mut self,
        thread_id: u64,
        timestamp_ns: u64,
        heap_live_bytes: Option<u64>,
        classes: &[LiveClass],
    ) {
        self.saw(timestamp_ns);
        self.snapshots.push(LiveSnapshot {
            thread_id,
            timestamp_ns,
            heap_live_bytes,
            classes: classes.to_vec(),
        });
    }
    fn command(&mut self, _command: ()) {}
    fn snapshot(&mut self) {}
}
