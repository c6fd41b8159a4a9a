//! The message types. Field order is wire order: never reorder, only append new variants.

use bincode::{Decode, Encode};

/// The first message of every connection: who the agent is.
///
/// On the wire a Hello may carry one more field after these, the agent's token (for a viewer
/// listening beyond loopback, SPEC.md "Tokens"). It is not a field here on purpose: the token
/// authenticates the connection and is checked by the handshake ([`crate::decode_hello`]); it
/// is no part of the session's identity, so it never reaches reports or recordings. Agents
/// write it with [`crate::encode_hello`].
#[derive(Debug, Clone, PartialEq, Eq, Encode, Decode)]
pub struct Hello {
    /// Always [`crate::MAGIC`]. Encoded as 4 raw bytes.
    pub magic: [u8; 4],
    /// The agent's [`crate::PROTOCOL_VERSION`].
    pub protocol_version: u32,
    /// Which agent implementation, e.g. `highrise-agent-rust 0.1.0`.
    pub agent: String,
    /// The profiled program's name, e.g. `tetris`.
    pub program: String,
    /// A version label the user chose (a git commit, `before`, `v2.1`); compare mode shows it.
    pub version_label: String,
    /// The profiled process id.
    pub pid: u32,
    /// Nanoseconds per tick of every timestamp this agent sends (1 = nanoseconds).
    pub clock_unit_ns: u32,
    /// Wall-clock time of tick 0, in nanoseconds since the Unix epoch.
    pub clock_zero_unix_ns: u64,
}

/// One method the agent will report events for. Sent before the first event that uses `id`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Encode, Decode)]
pub struct MethodDef {
    /// Dense id, `< MAX_METHOD_ID`, unique within the connection.
    pub id: u32,
    /// Dot-separated package path, e.g. `main.game`; empty for the root package.
    pub package: String,
    /// Class (type) name, e.g. `Board` or `Outer$Inner`.
    pub class: String,
    /// Method name, e.g. `rotate`.
    pub method: String,
    /// Optional signature or descriptor, distinguishing overloads.
    pub signature: Option<String>,
    /// Optional source file.
    pub file: Option<String>,
    /// Optional 1-based source line.
    pub line: Option<u32>,
}

/// The package and class of a phase mark's method: a mark named `parse` is a frame of the
/// method `highrise.phase.parse` (SPEC.md "Phase marks").
pub const PHASE_MARK_PACKAGE: &str = "highrise";
pub const PHASE_MARK_CLASS: &str = "phase";

impl MethodDef {
    /// How people read the method: `package.Class.method` (`Class.method` in the root package).
    pub fn qualified_name(&self) -> String {
        qualified_name(&self.package, &self.class, &self.method)
    }

    /// Whether this is a phase mark's method (`highrise.phase.NAME`).
    pub fn is_phase_mark(&self) -> bool {
        self.package == PHASE_MARK_PACKAGE && self.class == PHASE_MARK_CLASS
    }
}

/// `package.Class.method`, or `Class.method` in the root package: the one spelling of a
/// method's full name shared by the viewer, the report and the tools.
pub fn qualified_name(package: &str, class: &str, method: &str) -> String {
    if package.is_empty() {
        format!("{class}.{method}")
    } else {
        format!("{package}.{class}.{method}")
    }
}

/// How a replayed recording's `Hello::agent` begins when `highrise replay --addr` sends it to a
/// running viewer: receivers list the session as a replay of that file, not as an attached
/// program. See [`replay_agent`] and [`replayed_file`].
pub const REPLAY_AGENT_PREFIX: &str = "highrise replay of ";

/// The `agent` text of a replay of `file` whose recorded agent was `agent`.
pub fn replay_agent(file: &str, agent: &str) -> String {
    format!("{REPLAY_AGENT_PREFIX}{file} · {agent}")
}

/// The file a session's agent text names when the session is a replay ([`replay_agent`]).
pub fn replayed_file(agent: &str) -> Option<&str> {
    let rest = agent.strip_prefix(REPLAY_AGENT_PREFIX)?;
    Some(rest.rsplit_once(" · ").map_or(rest, |(file, _)| file))
}

/// What kind of type a [`ClassDef`] names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Encode, Decode)]
pub enum ClassKind {
    /// Tag 0: a class (Java, Python) or a Rust type named by the program.
    Class,
    /// Tag 1: an array type (`int[]`, `Piece[][]`).
    Array,
    /// Tag 2: allocations whose type the runtime does not say (Rust's global allocator,
    /// CPython's object allocator before 3.13).
    Untyped,
}

/// One class (type) memory records name. Sent before the first record that uses `id`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Encode, Decode)]
pub struct ClassDef {
    /// Dense id, `< MAX_CLASS_ID`, unique within the connection; its own id space (not a
    /// method id).
    pub id: u32,
    /// Dot-separated package (module) path; empty for the root package and for arrays of
    /// primitives.
    pub package: String,
    /// The class's name in its package, e.g. `ArrayList`, `Piece[][]`, `(untyped)`.
    pub name: String,
    pub kind: ClassKind,
}

impl ClassDef {
    /// How people read the class: `package.Name` (`Name` in the root package), nested Java
    /// classes with dots (`java.util.HashMap.Node`, see [`crate::display_class`]).
    pub fn display_name(&self) -> String {
        let name = crate::display_class(&self.name);
        if self.package.is_empty() {
            name
        } else {
            format!("{}.{name}", self.package)
        }
    }
}

/// A run of events from one thread, in timestamp order.
#[derive(Debug, Clone, PartialEq, Eq, Encode, Decode)]
pub struct EventBatch {
    /// The agent's thread id.
    pub thread_id: u64,
    /// Timestamp (ticks) the first event's delta is relative to.
    pub base_timestamp: u64,
    /// Number of events packed in `packed_events`.
    pub event_count: u32,
    /// The packed events: see [`crate::PackedEventWriter`] and SPEC.md "Packed events".
    pub packed_events: Vec<u8>,
}

/// Everything an agent sends. The variant index is the wire tag: never reorder.
#[derive(Debug, Clone, PartialEq, Eq, Encode, Decode)]
pub enum AgentMessage {
    /// Tag 0: first message of the connection.
    Hello(Hello),
    /// Tag 1: new method definitions (incremental; may be sent any number of times).
    DefineMethods(Vec<MethodDef>),
    /// Tag 2: a thread began (or was first seen).
    ThreadStart {
        thread_id: u64,
        name: String,
        timestamp: u64,
    },
    /// Tag 3: a thread ended; it sends no more events.
    ThreadEnd { thread_id: u64, timestamp: u64 },
    /// Tag 4: events of one thread.
    Events(EventBatch),
    /// Tag 5: the agent's clock now; sent when idle so the viewer's window keeps moving.
    Heartbeat { timestamp: u64 },
    /// Tag 6: after lost events, the thread's complete stack (outermost first) at `timestamp`.
    /// The receiver replaces its idea of that thread's stack with this one.
    Resync {
        thread_id: u64,
        timestamp: u64,
        stack: Vec<u32>,
    },
    /// Tag 7: the agent's running totals of what it had to drop (buffer full, no viewer).
    Dropped {
        events_dropped: u64,
        batches_dropped: u64,
    },
    /// Tag 8: the agent is done; the connection closes after this.
    Goodbye { timestamp: u64 },
    /// Tag 9 (version 2): new class definitions for memory records (incremental).
    DefineClasses(Vec<ClassDef>),
    /// Tag 10 (version 2): records of one thread, in its order: enters, exits and memory
    /// records (SPEC.md "Packed records"; [`crate::PackedRecordWriter`],
    /// [`crate::decode_records`]).
    Records(EventBatch),
    /// Tag 11 (version 2): the agent's running totals of memory counts it could not send
    /// (each lost with a dropped memory record).
    MemoryDropped {
        allocations_dropped: u64,
        bytes_dropped: u64,
        frees_dropped: u64,
    },
    /// Tag 12 (a version-2 addition): the objects live on the whole heap, per class, counted
    /// by the runtime (after a collection) as a phase of `thread_id` ended at `timestamp`, and
    /// the heap's live bytes when the runtime says them. Sent only when the user asks for
    /// live-object snapshots (SPEC.md "Live objects").
    LiveObjects(LiveObjects),
    /// Tag 13 (a version-2 addition): relations between defined classes, read from the
    /// program's own structure (Java bytecode as classes load, Python bases and observed
    /// instance attributes): the class diagram (SPEC.md "Class relations"). Incremental; a
    /// relation sent again is the same relation.
    ClassRelations(Vec<ClassRelation>),
    /// Tag 14 (a version-2 addition): how the agent measures this session, sent once after the
    /// Hello by agents that do not measure exactly (SPEC.md "Measure"); a session without one
    /// is exact. Sent again when it changes (adaptive modes).
    Measure(Measure),
    /// Tag 15 (a version-2 addition): a fact about the session its user should see, that no
    /// number says (SPEC.md "Notice"): classes the agent could not instrument, what counts as a
    /// thread. A notice replaces the earlier one with the same `key` (at most
    /// [`MAX_NOTICE_KEY_BYTES`] bytes; `text` at most [`MAX_NOTICE_TEXT_BYTES`]).
    Notice { key: String, text: String },
}

/// The longest [`AgentMessage::Notice`] key, bytes.
pub const MAX_NOTICE_KEY_BYTES: usize = 64;
/// The longest [`AgentMessage::Notice`] text, bytes.
pub const MAX_NOTICE_TEXT_BYTES: usize = 4096;

/// How a session's elevations were measured (tag 14).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Encode, Decode)]
pub enum MeasureMode {
    /// Tag 0: every call of every profiled method, from its enter and exit (the default).
    Exact,
    /// Tag 1: the threads' stacks sampled every `sample_period_us` (each sample a `Resync`):
    /// elevations are estimates, calls are not counted.
    Sampled,
    /// Tag 2: exact events, except `sampled_methods` methods that lost their probes (their time
    /// comes from samples every `sample_period_us` from then on). The Java agent's default
    /// (`mode=auto`) sends it when it drops every probe at once: the program made events faster
    /// than it could send them.
    Adaptive,
}

/// The session's measure (tag 14).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Encode, Decode)]
pub struct Measure {
    pub mode: MeasureMode,
    /// The period of the samples, microseconds (0 when exact).
    pub sample_period_us: u32,
    /// Adaptive: the methods measured by samples (the Java agent: every method defined when it
    /// switched); 0 otherwise.
    pub sampled_methods: u32,
}

impl Measure {
    /// Exact measurement: what a session without a `Measure` message is.
    pub const EXACT: Measure = Measure {
        mode: MeasureMode::Exact,
        sample_period_us: 0,
        sampled_methods: 0,
    };

    /// True when elevations are estimates from samples (sampled or adaptive).
    pub fn is_estimated(&self) -> bool {
        self.mode != MeasureMode::Exact && self.sample_period_us > 0
    }

    /// The 95 % error, in elevation points (0..=100), of an `elevation` (a window fraction)
    /// estimated from samples over `window_s`: 1.96·√(p(1−p)/n), n the window's samples of one
    /// thread (`window_s` / period), taken as independent draws. `None` when exact.
    pub fn error_points(&self, elevation: f32, window_s: f32) -> Option<f32> {
        if !self.is_estimated() {
            return None;
        }
        let samples = (window_s * 1e6 / self.sample_period_us as f32).max(1.0);
        let p = elevation.clamp(0.0, 1.0);
        // At p = 0 or 1 the binomial error vanishes; a half sample keeps it honest there.
        let variance = (p * (1.0 - p)).max(0.5 / samples) / samples;
        Some(196.0 * variance.sqrt())
    }

    /// One line for people: "exact", "sampled every 10 ms (±5.7 points at most, 95 %)", …
    pub fn describe(&self, window_s: f32) -> String {
        let period_ms = self.sample_period_us as f32 / 1000.0;
        let worst = self.error_points(0.5, window_s).unwrap_or(0.0);
        match self.mode {
            MeasureMode::Exact => "exact (every call)".to_string(),
            MeasureMode::Sampled => format!(
                "sampled every {period_ms} ms: elevations are estimates (±{worst:.1} points at most over {window_s} s, 95 %), calls not counted"
            ),
            MeasureMode::Adaptive => format!(
                "adaptive: exact until the probes cost too much, then {} method(s) sampled every {period_ms} ms (their elevations ±{worst:.1} points at most, 95 %; their calls counted only before)",
                self.sampled_methods
            ),
        }
    }

    /// False when calls are not counted (sampled: samples see stacks, not calls).
    pub fn counts_calls(&self) -> bool {
        self.mode != MeasureMode::Sampled
    }

    /// The mode's short name ("exact", "sampled", "adaptive").
    pub fn mode_name(&self) -> &'static str {
        match self.mode {
            MeasureMode::Exact => "exact",
            MeasureMode::Sampled => "sampled",
            MeasureMode::Adaptive => "adaptive",
        }
    }
}

/// What a [`ClassRelation`] says about its classes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Encode, Decode)]
pub enum RelationKind {
    /// Tag 0: `from_class` is a subclass of `to_class` (Java `extends`, a Python base).
    Extends,
    /// Tag 1: `from_class` implements the interface `to_class` (Java).
    Implements,
    /// Tag 2: an association: `from_class`'s objects refer to `to_class`'s through the field
    /// (attribute) `field`, one object or, when `many`, a collection or array of them.
    Field,
}

/// One relation of the class diagram (tag 13): both classes defined by `DefineClasses`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Encode, Decode)]
pub struct ClassRelation {
    pub from_class: u32,
    pub to_class: u32,
    pub kind: RelationKind,
    /// The field's name for [`RelationKind::Field`]; empty otherwise.
    pub field: String,
    /// For a field: it holds a collection (array, list, map values, …) of `to_class`'s
    /// objects rather than one. False otherwise.
    pub many: bool,
}

/// A snapshot of live objects per class (tag 12).
#[derive(Debug, Clone, PartialEq, Eq, Encode, Decode)]
pub struct LiveObjects {
    /// The thread whose phase ended.
    pub thread_id: u64,
    /// Ticks, taken just before the phase's exit (so it falls inside the phase).
    pub timestamp: u64,
    /// Every live object's bytes as the runtime counts them (e.g. the JVM's class histogram
    /// total); `None` when it does not say.
    pub heap_live_bytes: Option<u64>,
    /// The classes measured, each once: a class listed with count 0 has no live object; a
    /// class not listed was not measured (e.g. CPython objects the collector does not track).
    pub classes: Vec<LiveClass>,
}

/// One class's live objects in a [`LiveObjects`] snapshot.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Encode, Decode)]
pub struct LiveClass {
    /// A class id defined by `DefineClasses`.
    pub class_id: u32,
    pub count: u64,
    /// Their shallow bytes.
    pub bytes: u64,
}

/// The viewer's answer to a [`Hello`]. Agents may ignore it.
#[derive(Debug, Clone, PartialEq, Eq, Encode, Decode)]
pub enum ViewerMessage {
    /// Tag 0: accepted; `session_id` is how the viewer names this connection.
    Welcome {
        protocol_version: u32,
        session_id: u64,
    },
    /// Tag 1: refused (bad magic, version mismatch, a missing or wrong token: its reason then
    /// starts with [`crate::REJECT_UNAUTHORIZED`]); the connection closes after this.
    Reject {
        protocol_version: u32,
        reason: String,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_replays_agent_text_names_its_file() {
        let agent = replay_agent("run · 2.hrec", "highrise-agent-java 0.1.0");
        assert_eq!(
            agent,
            "highrise replay of run · 2.hrec · highrise-agent-java 0.1.0"
        );
        assert_eq!(replayed_file(&agent), Some("run · 2.hrec"));
        assert_eq!(replayed_file("highrise-agent-java 0.1.0"), None);
    }
}
