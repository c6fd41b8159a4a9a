//! One recording → per-method statistics over the whole run.

use std::path::{Path, PathBuf};

use highrise_aggregate::{
    AggregatorConfig, Alert, AlertConfig, AlertDetector, AlertKind, Amount, ContextTree,
    DEFAULT_WINDOW_NS, DEFAULT_WINDOW_S, OTHER_CONTEXTS, OUTSIDE_METHODS,
};
use highrise_aggregate_sink::{AggregateCommand, AggregateSink};
use highrise_ingest::{SessionEnd, SessionProcessor, SessionSink, SessionStatus};
use highrise_protocol::{ClassDef, ClassKind, Event, EventKind, Hello, MemoryAmount, MethodDef};
use highrise_record::{Completeness, RecordError, RecordingReader};
use serde::Serialize;

/// The aggregator is sampled every this much program time (100 ms) in a run of up to
/// [`MAX_SAMPLES`] × 100 ms (an hour); see [`sample_interval_ns`] for longer runs.
pub const SAMPLE_INTERVAL_NS: u64 = 100_000_000;
/// Samples per window of the aggregator (its default, [`DEFAULT_WINDOW_NS`]) at 100 ms.
const SAMPLES_PER_WINDOW: u64 = DEFAULT_WINDOW_NS / SAMPLE_INTERVAL_NS;
/// About how many aggregator samples a long run's report takes: each costs a snapshot of every
/// method, so a nine-hour profile sampled every 100 ms spent most of its report on them.
pub const MAX_SAMPLES: u64 = 36_000;

/// The sampling interval for a run spanning about `span_ns` of program time: 100 ms, or for a
/// run of over an hour the shortest whole fraction of the window (1/15, 1/10, … 1/1) that keeps
/// the samples to about [`MAX_SAMPLES`]. Whole fractions keep every window made of the same
/// number of samples; a sample every second still sees every instant in three windows.
pub fn sample_interval_ns(span_ns: u64) -> u64 {
    let wanted = (MAX_SAMPLES.saturating_mul(DEFAULT_WINDOW_NS) / span_ns.max(1)).max(1);
    let per_window = (1..=SAMPLES_PER_WINDOW)
        .rev()
        .find(|&k| SAMPLES_PER_WINDOW % k == 0 && k <= wanted)
        .unwrap_or(1);
    DEFAULT_WINDOW_NS / per_window
}

/// A report could not be made.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    #[error("{}: {source}", path.display())]
    Recording { path: PathBuf, source: RecordError },
    #[error("{}: the recording holds no session (no accepted Hello)", path.display())]
    NoSession { path: PathBuf },
    /// highrise itself failed replaying the recording (a caught panic: a bug in highrise;
    /// the recording is fine and stays readable by a fixed version).
    #[error("{}: highrise failed replaying this recording (a bug; report this): {message}", path.display())]
    Crashed { path: PathBuf, message: String },
    /// The phase name the user gave matches several methods that ran (none of them the one
    /// phase mark among them, which would be preferred): which one is meant is not known.
    #[error(
        "{}: the phase {phase:?} matches several methods: {}; name the one you mean in full \
         (e.g. --phase {})",
        path.display(),
        candidates.join(", "),
        candidates.first().map_or("", String::as_str)
    )]
    AmbiguousPhase {
        path: PathBuf,
        phase: String,
        /// The full names (`package.Class.method`) of the methods it matches, sorted.
        candidates: Vec<String>,
    },
}

/// One method over a run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MethodSummary {
    pub id: u32,
    pub package: String,
    pub class: String,
    pub method: String,
    pub signature: Option<String>,
    /// `package.Class.method` (`Class.method` in the root package).
    pub name: String,
    /// The name as people read it, with the parameters and per language:
    /// `main.game.Board.createOrientation(String, InputStream)`,
    /// `pygments.lexer.RegexLexer.get_tokens_unprocessed(self, text, stack)` (see
    /// [`highrise_protocol::display_name`]); `signature` keeps what the agent sent.
    pub display_name: String,
    /// Mean elevation over the run's samples, in percent of the window (0–100).
    pub mean_elevation_pct: f64,
    /// The method's share of the whole run: its time on top of a thread's stack over the
    /// run's duration, in percent, from the elevations of back-to-back windows ending at the
    /// run's end (the busiest thread's in each). For one thread it is what a flat profile
    /// (JFR, py-spy, cProfile's own time) gives; the mean above weighs the first and last
    /// windows less.
    pub run_share_pct: f64,
    /// Highest elevation of any sample, in percent.
    pub max_elevation_pct: f64,
    /// Most threads the method was on at once (within one window).
    pub max_thread_count: u32,
    /// Most threads parked in it at once (on top of each for 95 % of a window, or the stuck
    /// alert's threshold: see [`highrise_aggregate::MethodStats::parked_threads`]).
    pub max_parked_threads: u32,
    /// Enters over the whole run, all threads (0 when the run was sampled: see
    /// [`MeasureSummary::calls_counted`]).
    pub calls: u64,
    /// Sampled runs: the 95 % error of `max_elevation_pct` at the window, in points.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_elevation_error_pct: Option<f64>,
    /// Some sample's numbers were estimates: the agent lost events of a thread the method ran
    /// on (see [`highrise_aggregate::MethodStats::approximate`]). Marked `≈` in the tables.
    pub approximate: bool,
    /// Objects the method's own frames created (and freed), per class, most created first:
    /// from the agent's allocation counting (protocol version 2); absent without it.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub allocations: Vec<ClassAmount>,
    /// The sum of `allocations`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub allocations_total: Option<AmountSummary>,
}

/// Objects created and freed, with their bytes (0 where the agent does not measure them).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct AmountSummary {
    pub count: u64,
    pub bytes: u64,
    pub frees: u64,
    pub freed_bytes: u64,
}

impl From<Amount> for AmountSummary {
    fn from(amount: Amount) -> Self {
        Self {
            count: amount.count,
            bytes: amount.bytes,
            frees: amount.frees,
            freed_bytes: amount.freed_bytes,
        }
    }
}

/// One class's objects, created by one method or by the whole run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ClassAmount {
    /// How people read the class: `java.util.ArrayList`, `shapes.Circle`, `(untyped)`.
    pub class: String,
    /// `class`, `array` or `untyped`.
    pub kind: &'static str,
    pub count: u64,
    pub bytes: u64,
    pub frees: u64,
    pub freed_bytes: u64,
}

/// One calling context of the allocation-site tree (the paper's Figure 1): a call path that
/// creates objects, itself or through its callees.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AllocNode {
    /// The method as people read it (`(other contexts)` for paths beyond the tree's cap).
    pub method: String,
    /// Calls made through this path.
    pub calls: u64,
    /// Time in this path's frames, callees included.
    pub time_ns: u64,
    /// Objects created here and in callees.
    pub count: u64,
    pub bytes: u64,
    /// Per class, most created first: here and in callees (`count`, `bytes`), of which here
    /// (`direct_count`; `direct` when nonzero — the paper's black border).
    pub classes: Vec<AllocClass>,
    /// Callees that create objects, in order of first call.
    pub children: Vec<AllocNode>,
}

/// One class in an [`AllocNode`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AllocClass {
    pub class: String,
    pub count: u64,
    pub bytes: u64,
    pub direct: bool,
    pub direct_count: u64,
}

/// The run's allocation counting, when the agent counted (protocol version 2).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MemorySummary {
    /// Every class, most created first.
    pub classes: Vec<ClassAmount>,
    /// What was created outside any profiled method.
    pub outside: AmountSummary,
    /// Counts the agent could not send (its buffer was full): every number is a lower bound
    /// when these are not zero.
    pub allocations_dropped: u64,
    pub bytes_dropped: u64,
    pub frees_dropped: u64,
    /// The allocation-site tree: the calling contexts that create objects, roots first.
    pub allocation_tree: Vec<AllocNode>,
    /// Nodes of the whole calling-context tree, and calls beyond its cap (counted in
    /// "(other contexts)" nodes).
    pub context_nodes: u64,
    pub capped_calls: u64,
}

/// A recording, summarized.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunSummary {
    pub path: PathBuf,
    pub program: String,
    pub version_label: String,
    pub agent: String,
    /// Program time covered: first to last agent timestamp, ns.
    pub duration_ns: u64,
    /// Aggregator samples taken (one per `sample_interval_ns` of program time).
    pub samples: u64,
    /// Program time between samples, ns: [`SAMPLE_INTERVAL_NS`], or longer for a run of over
    /// an hour ([`sample_interval_ns`]).
    pub sample_interval_ns: u64,
    pub frames: u64,
    pub events: u64,
    /// Events the agent dropped (its buffer was full; from its `Dropped` totals).
    pub events_dropped: u64,
    /// `events_dropped` as a share of all the events the program produced (received plus
    /// dropped), in percent.
    pub dropped_pct: f64,
    /// Most live threads at any sample.
    pub max_threads: u64,
    /// How the agent measured (exact, sampled, adaptive).
    pub measure: MeasureSummary,
    /// The agent's notices (SPEC.md "Notice"): what it could not instrument, what counts as a
    /// thread; the latest per key. Left out of the JSON when there are none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notices: Vec<NoticeSummary>,
    /// How the session ended in the recording ("goodbye", "disconnected", …).
    pub end: String,
    /// Errors the session logic reported while replaying (bad frames in the recording).
    pub errors: Vec<String>,
    /// Set when the recording was interrupted: what was read and why it stops.
    pub interrupted: Option<String>,
    /// Every defined method, highest mean elevation first (ties: by name).
    pub methods: Vec<MethodSummary>,
    /// Allocations per class over the run; absent when the agent did not count them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub memory: Option<MemorySummary>,
    /// Alerts raised while replaying (see [`AlertSummary`]); absent when none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub alerts: Vec<AlertSummary>,
    /// Who called whom over the run, most calls first (ties: by caller, then callee).
    pub call_edges: Vec<CallEdgeSummary>,
}

/// One of the agent's notices (SPEC.md "Notice").
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct NoticeSummary {
    pub key: String,
    pub text: String,
}

/// How a run was measured: the agent's `Measure` (SPEC.md "Measure"; exact without one).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MeasureSummary {
    /// "exact", "sampled" or "adaptive".
    pub mode: &'static str,
    /// The samples' period, milliseconds (0 when exact).
    pub sample_period_ms: f64,
    /// Adaptive: methods measured by samples.
    pub sampled_methods: u32,
    /// False when calls were not counted (sampled): `calls` are then 0.
    pub calls_counted: bool,
    /// The measure in words, with its largest error at the window.
    pub text: String,
}

impl MeasureSummary {
    pub fn new(measure: &highrise_protocol::Measure, window_s: f32) -> Self {
        Self {
            mode: measure.mode_name(),
            sample_period_ms: f64::from(measure.sample_period_us) / 1000.0,
            sampled_methods: measure.sampled_methods,
            calls_counted: measure.counts_calls(),
            text: measure.describe(window_s),
        }
    }
}

/// One caller → callee pair of the run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CallEdgeSummary {
    /// Both as people read them (`#id` for an undefined method).
    pub caller: String,
    pub callee: String,
    pub calls: u64,
}

/// One alert of the run (`highrise_aggregate::AlertDetector` on the samples).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AlertSummary {
    /// "stuck", "jump" or "dropping".
    pub kind: &'static str,
    /// The method (`package.Class.method`), for stuck and jump.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub method: Option<String>,
    /// Program time it was raised at, seconds since the run's first event.
    pub raised_s: f64,
    /// Stuck: threads parked in it when it became stuck and the most since.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parked_then: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parked_now: Option<u32>,
    /// Stuck: seconds it had been stuck when raised.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stuck_s: Option<f64>,
    /// Jump: from its recent average to this elevation, percent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from_pct: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub to_pct: Option<f64>,
    /// Dropping: share of the window's events dropped, percent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dropped_pct: Option<f64>,
    /// Raised on estimates: stacks resynced after dropped events, or samples (see `AlertDetector`).
    pub estimated: bool,
    /// The alert in words.
    pub text: String,
}

impl AlertSummary {
    fn new(alert: &Alert, name: Option<String>, first_ns: u64) -> Self {
        let raised_s = round(alert.raised_ns.saturating_sub(first_ns) as f64 / 1e9);
        let mut summary = Self {
            kind: "",
            method: name.clone(),
            raised_s,
            parked_then: None,
            parked_now: None,
            stuck_s: None,
            from_pct: None,
            to_pct: None,
            dropped_pct: None,
            estimated: alert.estimated,
            text: alert.describe(name.as_deref().unwrap_or_default()),
        };
        let at = format!(" (at {raised_s:.1} s)");
        match alert.kind {
            AlertKind::Stuck {
                since_ns,
                parked_then,
                parked_now,
            } => {
                summary.kind = "stuck";
                summary.parked_then = Some(parked_then);
                summary.parked_now = Some(parked_now);
                summary.stuck_s =
                    Some(round(alert.raised_ns.saturating_sub(since_ns) as f64 / 1e9));
                let since_s = round(since_ns.saturating_sub(first_ns) as f64 / 1e9);
                summary.text +=
                    &format!(" (stuck since {since_s:.1} s, raised at {raised_s:.1} s)");
            }
            AlertKind::Jump { from, to } => {
                summary.kind = "jump";
                summary.from_pct = Some(round(f64::from(from) * 100.0));
                summary.to_pct = Some(round(f64::from(to) * 100.0));
                summary.text += &at;
            }
            AlertKind::Dropping { share } => {
                summary.kind = "dropping";
                summary.dropped_pct = Some(round(f64::from(share) * 100.0));
                summary.text += &at;
            }
        }
        summary
    }
}

impl RunSummary {
    /// A method by `package.Class.method` name.
    pub fn method(&self, name: &str) -> Option<&MethodSummary> {
        self.methods.iter().find(|method| method.name == name)
    }
}

/// Per-method running sums while the run is replayed.
#[derive(Debug, Clone, Copy, Default)]
struct Accumulated {
    elevation_sum: f64,
    /// Elevations summed per sample index modulo the samples in a window: the sums of
    /// back-to-back windows, one series per phase; the series ending at the last sample
    /// covers the whole run (in windows: ×L is time on top).
    windows_sum: [f64; SAMPLES_PER_WINDOW as usize],
    elevation_max: f32,
    threads_max: u32,
    parked_max: u32,
    calls: u64,
    approximate: bool,
}

/// The product's aggregating sink plus the samples the report needs.
struct SamplingSink {
    inner: AggregateSink,
    methods: Vec<Accumulated>,
    samples: u64,
    /// Program time between samples: a whole fraction of the window ([`Self::per_window`]).
    interval_ns: u64,
    first_ns: Option<u64>,
    next_sample_ns: u64,
    max_threads: u64,
    alerts: AlertDetector,
    /// Called with each sample's snapshot ([`summarize_observing`]).
    observer: Option<SampleObserver>,
}

/// What [`summarize_observing`] calls with each sample: the snapshot (its `now_ns` is the
/// program time) and the samples it stands for.
pub type SampleObserver = Box<dyn FnMut(&highrise_aggregate::Snapshot, u64) + Send>;

impl SamplingSink {
    fn new(alerts: AlertConfig, interval_ns: u64) -> Self {
        let mut inner = AggregateSink::new(AggregatorConfig {
            contexts: true,
            ..AggregatorConfig::default()
        });
        // Parked threads as the stuck alert counts them: at its threshold.
        inner
            .aggregator_mut()
            .set_parked_share(alerts.stuck_elevation);
        Self {
            inner,
            methods: Vec::new(),
            samples: 0,
            interval_ns,
            first_ns: None,
            next_sample_ns: 0,
            max_threads: 0,
            alerts: AlertDetector::new(alerts),
            observer: None,
        }
    }

    /// Samples per window: a divisor of [`SAMPLES_PER_WINDOW`] (only that many of
    /// `windows_sum`'s phases are used).
    fn per_window(&self) -> u64 {
        DEFAULT_WINDOW_NS / self.interval_ns
    }

    fn saw(&mut self, timestamp_ns: u64) {
        if self.first_ns.is_none() {
            self.first_ns = Some(timestamp_ns);
            self.next_sample_ns = timestamp_ns.saturating_add(self.interval_ns);
        }
        let now_ns = self.inner.aggregator().now_ns();
        if now_ns < self.next_sample_ns {
            return;
        }
        // One sample per interval crossed (a silent stretch repeats the latest state).
        let crossed = (now_ns - self.next_sample_ns) / self.interval_ns + 1;
        self.sample(crossed, 1.0);
        self.next_sample_ns = self
            .next_sample_ns
            .saturating_add(crossed.saturating_mul(self.interval_ns));
    }

    /// One snapshot standing for the next `weight` sampling intervals; `window_share`: the
    /// part of its window not counted by the previous window of its phase (1 but for the
    /// run's last, partial interval).
    fn sample(&mut self, weight: u64, window_share: f64) {
        // How many of the sample indices it stands for fall in each phase of a window.
        let mut phases = [0.0f64; SAMPLES_PER_WINDOW as usize];
        let first_index = self.samples + 1;
        let per_window = self.per_window();
        for offset in 0..weight.min(per_window) {
            let phase = (first_index + offset) % per_window;
            phases[phase as usize] = (weight - offset).div_ceil(per_window) as f64 * window_share;
        }
        let snapshot = self.inner.aggregator_mut().snapshot();
        if self.methods.len() < snapshot.methods.len() {
            self.methods
                .resize(snapshot.methods.len(), Accumulated::default());
        }
        for (accumulated, stats) in self.methods.iter_mut().zip(&snapshot.methods) {
            accumulated.elevation_sum += f64::from(stats.elevation) * weight as f64;
            if stats.elevation > 0.0 {
                for (sum, &count) in accumulated.windows_sum.iter_mut().zip(&phases) {
                    *sum += f64::from(stats.elevation) * count;
                }
            }
            accumulated.elevation_max = accumulated.elevation_max.max(stats.elevation);
            accumulated.threads_max = accumulated.threads_max.max(stats.thread_count);
            accumulated.parked_max = accumulated.parked_max.max(stats.parked_threads);
            accumulated.approximate |= stats.approximate;
        }
        let live_threads = snapshot
            .stats
            .active_threads
            .saturating_sub(snapshot.stats.ended_threads);
        self.max_threads = self.max_threads.max(live_threads);
        self.alerts.observe(&snapshot);
        if let Some(observer) = self.observer.as_mut() {
            observer(&snapshot, weight);
        }
        self.samples += weight;
    }
}

impl SamplingSink {
    fn count_calls(&mut self, events: &[Event]) {
        for event in events {
            if event.kind == EventKind::Enter {
                let index = event.method_id as usize;
                if self.methods.len() <= index {
                    self.methods.resize(index + 1, Accumulated::default());
                }
                self.methods[index].calls += 1;
            }
        }
    }
}

impl SessionSink for SamplingSink {
    type Snapshot = ();
    type Command = AggregateCommand;

    fn define_methods(&mut self, definitions: &[MethodDef]) {
        self.inner.define_methods(definitions);
    }
    fn thread_started(&mut self, thread_id: u64, name: &str, timestamp_ns: u64) {
        self.inner.thread_started(thread_id, name, timestamp_ns);
        self.saw(timestamp_ns);
    }
    fn thread_ended(&mut self, thread_id: u64, timestamp_ns: u64) {
        self.inner.thread_ended(thread_id, timestamp_ns);
        self.saw(timestamp_ns);
    }
    fn records(&mut self, thread_id: u64, events: &[Event], amounts: &[MemoryAmount]) {
        self.count_calls(events);
        self.inner.records(thread_id, events, amounts);
        if let Some(last) = events.last() {
            self.saw(last.timestamp_ns);
        }
    }
    fn memory_dropped(&mut self, allocations: u64, bytes: u64, frees: u64) {
        self.inner.memory_dropped(allocations, bytes, frees);
    }
    fn events(&mut self, thread_id: u64, events: &[Event]) {
        self.count_calls(events);
        self.inner.events(thread_id, events);
        if let Some(last) = events.last() {
            self.saw(last.timestamp_ns);
        }
    }
    fn resync(&mut self, thread_id: u64, timestamp_ns: u64, stack: &[u32]) {
        self.inner.resync(thread_id, timestamp_ns, stack);
        self.saw(timestamp_ns);
    }
    fn heartbeat(&mut self, timestamp_ns: u64) {
        self.inner.heartbeat(timestamp_ns);
        self.saw(timestamp_ns);
    }
    fn agent_dropped(&mut self, events_dropped: u64, batches_dropped: u64) {
        self.inner.agent_dropped(events_dropped, batches_dropped);
    }
    fn command(&mut self, command: AggregateCommand) {
        self.inner.command(command);
    }
    fn snapshot(&mut self) {}
    fn open_stacks(&self) -> Vec<(u64, Vec<u32>)> {
        self.inner.open_stacks()
    }
}

/// Replays the recording at `path` through the live session logic into the sink `make_sink`
/// makes (as fast as possible, no pacing), to its end or its last whole frame; with, for an
/// interrupted recording, what was read and why it stops.
pub(crate) fn replay_into<S: SessionSink>(
    path: &Path,
    make_sink: impl FnMut(&Hello) -> S + Send + 'static,
) -> Result<(SessionProcessor<S>, Option<String>), ReportError> {
    let (reader, interrupted) = open_recording(path)?;
    Ok((replay_reader(path, reader, make_sink)?, interrupted))
}

type Reader = RecordingReader<std::io::BufReader<std::fs::File>>;

/// Opens the recording (or converts the profile) at `path`; with, for an interrupted
/// recording, what was read and why it stops.
fn open_recording(path: &Path) -> Result<(Reader, Option<String>), ReportError> {
    let reader = highrise_import::open(path).map_err(|source| ReportError::Recording {
        path: path.to_path_buf(),
        source,
    })?;
    let interrupted = match reader.completeness() {
        Completeness::Complete => None,
        Completeness::Interrupted {
            readable_bytes,
            file_bytes,
            reason,
        } => Some(format!(
            "read {readable_bytes} of {file_bytes} bytes: {reason}"
        )),
    };
    Ok((reader, interrupted))
}

/// About how much program time the opened recording spans, from its index (a lower bound:
/// from the first seek point after the first frames to the end).
fn program_span_ns(reader: &Reader) -> u64 {
    let first_ns = reader
        .index()
        .iter()
        .map(|entry| entry.agent_time_ns)
        .find(|&agent_time_ns| agent_time_ns > 0)
        .unwrap_or(0);
    reader.last_agent_time_ns().saturating_sub(first_ns)
}

/// Replays an opened recording (see [`replay_into`]).
fn replay_reader<S: SessionSink>(
    path: &Path,
    mut reader: Reader,
    make_sink: impl FnMut(&Hello) -> S + Send + 'static,
) -> Result<SessionProcessor<S>, ReportError> {
    let mut processor = SessionProcessor::for_replay(1, path.to_path_buf(), make_sink);
    for frame in reader.frames() {
        let frame = frame.map_err(|source| ReportError::Recording {
            path: path.to_path_buf(),
            source,
        })?;
        if processor.feed_frame(&frame.frame) {
            break;
        }
    }
    processor.finish();
    if let Some(message) = processor.crash() {
        return Err(ReportError::Crashed {
            path: path.to_path_buf(),
            message: message.to_string(),
        });
    }
    Ok(processor)
}

/// Replays the recording at `path` through the live session logic and the aggregator (as
/// fast as possible, no pacing) and summarizes it. An interrupted recording is summarized up
/// to its last whole frame (and says so in [`RunSummary::interrupted`]); a damaged one is an
/// error.
pub fn summarize(path: &Path) -> Result<RunSummary, ReportError> {
    summarize_with(path, AlertConfig::default())
}

/// [`summarize`] with these alert thresholds.
pub fn summarize_with(path: &Path, alert_config: AlertConfig) -> Result<RunSummary, ReportError> {
    summarize_observing(path, alert_config, None)
}

/// [`summarize_with`], calling `observer` with each sample the summary takes (every
/// [`sample_interval_ns`] of program time, and the run's end): one replay for the summary and
/// whatever the caller keeps of the run over time (the HTML export's frames).
pub fn summarize_observing(
    path: &Path,
    alert_config: AlertConfig,
    observer: Option<SampleObserver>,
) -> Result<RunSummary, ReportError> {
    let (reader, interrupted) = open_recording(path)?;
    let interval_ns = sample_interval_ns(program_span_ns(&reader));
    let mut observer = Some(observer);
    let mut processor = replay_reader(path, reader, move |_hello| {
        let mut sink = SamplingSink::new(alert_config, interval_ns);
        sink.observer = observer.take().flatten();
        sink
    })?;
    let report = processor.report();
    let info = report.info.clone().ok_or_else(|| ReportError::NoSession {
        path: path.to_path_buf(),
    })?;
    let sink = processor.sink_mut().ok_or_else(|| ReportError::NoSession {
        path: path.to_path_buf(),
    })?;
    // The last partial interval counts as one more sample. Its window overlaps the previous
    // one of its phase by the part of an interval it lacks: only the rest counts for the run.
    let window_ns = sink.interval_ns * sink.per_window();
    if sink.first_ns.is_some()
        && sink.inner.aggregator().now_ns() + sink.interval_ns > sink.next_sample_ns
    {
        let lacking_ns = sink.next_sample_ns - sink.inner.aggregator().now_ns();
        sink.sample(1, 1.0 - lacking_ns as f64 / window_ns as f64);
    }
    let last_phase = (sink.samples % sink.per_window()) as usize;
    let run_windows = sink.first_ns.map_or(0.0, |first_ns| {
        let duration_ns = sink.inner.aggregator().now_ns().saturating_sub(first_ns);
        duration_ns as f64 / window_ns as f64
    });
    let samples = sink.samples.max(1);
    let memory = sink.inner.aggregator_mut().snapshot().memory;
    let classes: Vec<&ClassDef> = report.classes().collect();
    let class_of = |class_id: u32| classes.iter().find(|class| class.id == class_id);
    let class_amount = |class_id: u32, amount: Amount| {
        let (class, kind) = match class_of(class_id) {
            Some(class) => (class.display_name(), kind_name(class.kind)),
            None => (format!("#{class_id}"), "class"),
        };
        ClassAmount {
            class,
            kind,
            count: amount.count,
            bytes: amount.bytes,
            frees: amount.frees,
            freed_bytes: amount.freed_bytes,
        }
    };
    let window_s = DEFAULT_WINDOW_S;
    let mut methods: Vec<MethodSummary> = report
        .definitions()
        .map(|definition| {
            let accumulated = sink
                .methods
                .get(definition.id as usize)
                .copied()
                .unwrap_or_default();
            MethodSummary {
                id: definition.id,
                package: definition.package.clone(),
                class: definition.class.clone(),
                method: definition.method.clone(),
                signature: definition.signature.clone(),
                name: definition.qualified_name(),
                display_name: definition.display_name(),
                mean_elevation_pct: round(100.0 * accumulated.elevation_sum / samples as f64),
                run_share_pct: if run_windows > 0.0 {
                    round(100.0 * accumulated.windows_sum[last_phase] / run_windows)
                } else {
                    0.0
                },
                max_elevation_pct: round(100.0 * f64::from(accumulated.elevation_max)),
                max_thread_count: accumulated.threads_max,
                max_parked_threads: accumulated.parked_max,
                // A sampled session's enters (a sampler's merged timeline) are not its calls.
                calls: if info.measure.counts_calls() {
                    accumulated.calls
                } else {
                    0
                },
                max_elevation_error_pct: info
                    .measure
                    .error_points(accumulated.elevation_max, window_s)
                    .map(|points| round(f64::from(points))),
                approximate: accumulated.approximate,
                allocations: by_count(
                    memory
                        .classes_of(definition.id)
                        .iter()
                        .map(|entry| class_amount(entry.class_id, entry.amount))
                        .collect(),
                ),
                allocations_total: Some(memory.method(definition.id).total)
                    .filter(|total| !total.is_zero())
                    .map(AmountSummary::from),
            }
        })
        .collect();
    let names: std::collections::HashMap<u32, String> = report
        .definitions()
        .map(|definition| (definition.id, definition.display_name()))
        .collect();
    let tree = sink.inner.aggregator().contexts().unwrap_or_default();
    let class_name = |class_id: u32| match class_of(class_id) {
        Some(class) => class.display_name(),
        None => format!("#{class_id}"),
    };
    let memory_summary = (!memory.is_empty()).then(|| MemorySummary {
        allocation_tree: tree
            .children(0)
            .filter_map(|node| alloc_node(&tree, node, &names, &class_name))
            .collect(),
        context_nodes: tree.nodes.len().saturating_sub(1) as u64,
        capped_calls: tree.capped_calls,
        classes: by_count(
            memory
                .classes
                .iter()
                .enumerate()
                .filter(|(_, amount)| !amount.is_zero())
                .map(|(class_id, amount)| class_amount(class_id as u32, *amount))
                .collect(),
        ),
        outside: memory.method(OUTSIDE_METHODS).total.into(),
        allocations_dropped: memory.dropped.allocations,
        bytes_dropped: memory.dropped.bytes,
        frees_dropped: memory.dropped.frees,
    });
    // The run's hot spots first: its share of the run, as a flat profile ranks them.
    methods.sort_by(|a, b| {
        b.run_share_pct
            .total_cmp(&a.run_share_pct)
            .then_with(|| b.mean_elevation_pct.total_cmp(&a.mean_elevation_pct))
            .then_with(|| a.name.cmp(&b.name))
            .then_with(|| a.display_name.cmp(&b.display_name))
    });
    let end = match &report.status {
        SessionStatus::Ended(SessionEnd::Goodbye) => "goodbye".to_string(),
        SessionStatus::Ended(SessionEnd::Disconnected) => "disconnected".to_string(),
        SessionStatus::Ended(SessionEnd::Failed(error)) => format!("failed: {error}"),
        SessionStatus::Ended(SessionEnd::ServerShutdown) => "server shutdown".to_string(),
        SessionStatus::Ended(SessionEnd::Detached) => "detached".to_string(),
        other => format!("{other:?}"),
    };
    let duration_ns = sink.first_ns.map_or(0, |first| {
        report.stats.last_timestamp_ns.saturating_sub(first)
    });
    let qualified: std::collections::HashMap<u32, String> = report
        .definitions()
        .map(|definition| (definition.id, definition.qualified_name()))
        .collect();
    let alerts = sink
        .alerts
        .alerts()
        .iter()
        .map(|alert| {
            let name = alert.method_id.map(|id| name_or_id(&qualified, id));
            AlertSummary::new(alert, name, sink.first_ns.unwrap_or(0))
        })
        .collect();
    let mut call_edges: Vec<CallEdgeSummary> = sink
        .inner
        .aggregator_mut()
        .call_edges()
        .unwrap_or_default()
        .edges
        .iter()
        .map(|edge| CallEdgeSummary {
            caller: name_or_id(&names, edge.caller),
            callee: name_or_id(&names, edge.callee),
            calls: edge.calls,
        })
        .collect();
    call_edges
        .sort_by(|a, b| (b.calls, &a.caller, &a.callee).cmp(&(a.calls, &b.caller, &b.callee)));
    Ok(RunSummary {
        path: path.to_path_buf(),
        program: info.program,
        version_label: info.version_label,
        agent: info.agent,
        duration_ns,
        samples: sink.samples,
        sample_interval_ns: sink.interval_ns,
        frames: report.stats.frames,
        events: report.stats.events,
        events_dropped: report.stats.agent_events_dropped,
        dropped_pct: dropped_pct(report.stats.agent_events_dropped, report.stats.events),
        max_threads: sink.max_threads,
        measure: MeasureSummary::new(&info.measure, window_s),
        notices: info
            .notices
            .iter()
            .map(|notice| NoticeSummary {
                key: notice.key.clone(),
                text: notice.text.clone(),
            })
            .collect(),
        end,
        errors: report.errors.iter().map(ToString::to_string).collect(),
        interrupted,
        methods,
        memory: memory_summary,
        alerts,
        call_edges,
    })
}

/// The allocation-site subtree at `node`, or `None` when nothing is created in it.
fn alloc_node(
    tree: &ContextTree,
    node: usize,
    names: &std::collections::HashMap<u32, String>,
    class_name: &dyn Fn(u32) -> String,
) -> Option<AllocNode> {
    let inclusive = tree.inclusive(node);
    let count: u64 = inclusive.iter().map(|(_, amount)| amount.count).sum();
    if count == 0 {
        return None;
    }
    let direct = tree.direct(node);
    let mut classes: Vec<AllocClass> = inclusive
        .iter()
        .filter(|(_, amount)| amount.count > 0)
        .map(|(class_id, amount)| {
            let direct_count = direct
                .iter()
                .find(|(id, _)| id == class_id)
                .map_or(0, |(_, amount)| amount.count);
            AllocClass {
                class: class_name(*class_id),
                count: amount.count,
                bytes: amount.bytes,
                direct: direct_count > 0,
                direct_count,
            }
        })
        .collect();
    classes.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.class.cmp(&b.class)));
    let info = &tree.nodes[node];
    let method = if info.method_id == OTHER_CONTEXTS {
        "(other contexts)".to_string()
    } else {
        name_or_id(names, info.method_id)
    };
    Some(AllocNode {
        method,
        calls: info.calls,
        time_ns: info.time_ns,
        count,
        bytes: inclusive.iter().map(|(_, amount)| amount.bytes).sum(),
        classes,
        children: tree
            .children(node)
            .filter_map(|child| alloc_node(tree, child, names, class_name))
            .collect(),
    })
}

/// Most created first (ties: by class name).
fn by_count(mut amounts: Vec<ClassAmount>) -> Vec<ClassAmount> {
    amounts.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.class.cmp(&b.class)));
    amounts
}

fn kind_name(kind: ClassKind) -> &'static str {
    match kind {
        ClassKind::Class => "class",
        ClassKind::Array => "array",
        ClassKind::Untyped => "untyped",
    }
}

/// Dropped events as a percentage of all produced (received plus dropped).
fn dropped_pct(events_dropped: u64, events: u64) -> f64 {
    if events_dropped == 0 {
        return 0.0;
    }
    round(100.0 * events_dropped as f64 / (events_dropped as f64 + events as f64))
}

/// Four decimals: stable output (JSON, snapshots) without float noise.
/// The name `names` gives an id (a method's or a class's), or `#id` when it has none.
pub(crate) fn name_or_id(names: &std::collections::HashMap<u32, String>, id: u32) -> String {
    names.get(&id).cloned().unwrap_or_else(|| format!("#{id}"))
}

pub(crate) fn round(value: f64) -> f64 {
    (value * 10_000.0).round() / 10_000.0
}
