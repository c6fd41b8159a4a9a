//! A recording as one HTML file: the page, and the recording's city over time (its plan and
//! the towers every sample interval of program time, as the live stream's messages), so it
//! opens from disk, offline, with a scrubber.

use std::path::Path;

use base64::Engine;
use highrise_aggregate::AggregatorConfig;
use highrise_ingest::{AggregateCommand, AggregateSink, SessionSink};
use highrise_layout::look::relative_full_scale;
use highrise_layout::{CityLayout, LayoutConfig, MethodSpec};
use highrise_protocol::{ClassDef, Event, Hello, MemoryAmount, MethodDef};
use highrise_report::{replay_into, summarize, ReportError};

use crate::wire::{self, Tower};

/// Most frames an export holds (the scrubber's steps).
pub const MAX_FRAMES: usize = 600;
/// Most towers (frames × methods) an export keeps while it replays.
const MAX_TOWERS: usize = 20_000_000;

/// The export could not be made.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    #[error(transparent)]
    Report(#[from] ReportError),
    #[error("{path}: the recording defines no method, so it has no city")]
    Empty { path: String },
}

/// Replays a recording into the aggregator and keeps each method's tower every interval.
struct FrameSink {
    inner: AggregateSink,
    interval_ns: u64,
    next_ns: Option<u64>,
    first_ns: Option<u64>,
    /// Per frame: program time (s since the first event) and the towers by method id.
    frames: Vec<(f64, Vec<Tower>)>,
    /// The relative scale's full value at each frame.
    relative_full: Vec<f32>,
    current_full: f32,
}

impl FrameSink {
    fn saw(&mut self, timestamp_ns: u64) {
        let first_ns = *self.first_ns.get_or_insert(timestamp_ns);
        let next_ns = *self.next_ns.get_or_insert(first_ns + self.interval_ns);
        if timestamp_ns < next_ns {
            return;
        }
        self.next_ns = Some(
            next_ns
                + (timestamp_ns - next_ns) / self.interval_ns * self.interval_ns
                + self.interval_ns,
        );
        self.frame(timestamp_ns);
    }

    fn frame(&mut self, timestamp_ns: u64) {
        let snapshot = self.inner.aggregator_mut().snapshot();
        let towers: Vec<Tower> = snapshot
            .methods
            .iter()
            .map(|stats| {
                let ran = stats.elevation > 0.0 || stats.calls > 0 || stats.thread_count > 0;
                Tower::new(stats.elevation, stats.thread_count, ran)
            })
            .collect();
        let hottest = snapshot
            .methods
            .iter()
            .map(|m| m.elevation)
            .fold(0.0, f32::max);
        self.current_full = relative_full_scale(self.current_full, hottest);
        self.relative_full.push(self.current_full);
        let time_s = timestamp_ns.saturating_sub(self.first_ns.unwrap_or(0)) as f64 * 1e-9;
        self.frames.push((time_s, towers));
    }
}

impl SessionSink for FrameSink {
    type Snapshot = ();
    type Command = AggregateCommand;

    fn define_methods(&mut self, definitions: &[MethodDef]) {
        self.inner.define_methods(definitions);
    }
    fn define_classes(&mut self, definitions: &[ClassDef]) {
        self.inner.define_classes(definitions);
    }
    fn thread_started(&mut self, thread_id: u64, name: &str, timestamp_ns: u64) {
        self.inner.thread_started(thread_id, name, timestamp_ns);
        self.saw(timestamp_ns);
    }
    fn thread_ended(&mut self, thread_id: u64, timestamp_ns: u64) {
        self.inner.thread_ended(thread_id, timestamp_ns);
        self.saw(timestamp_ns);
    }
    fn events(&mut self, thread_id: u64, events: &[Event]) {
        self.inner.events(thread_id, events);
        if let Some(last) = events.last() {
            self.saw(last.timestamp_ns);
        }
    }
    fn records(&mut self, thread_id: u64, events: &[Event], amounts: &[MemoryAmount]) {
        self.inner.records(thread_id, events, amounts);
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

/// What an export holds, before it is written into the page.
#[derive(Debug)]
pub struct Export {
    /// The page's data: JSON with the messages (binary ones in base64).
    pub data_json: String,
    pub frames: usize,
    pub buildings: usize,
}

/// Reads the recording at `path` (or another tool's profile) into an export's data.
pub fn export_recording(path: &Path) -> Result<Export, ExportError> {
    let summary = summarize(path)?;
    let methods = summary.methods.len().max(1);
    let frames_wanted = MAX_FRAMES.min(MAX_TOWERS / methods).max(2);
    let span_ns = summary.duration_ns.max(1);
    let interval_ns = (span_ns / frames_wanted as u64).max(50_000_000);
    let (mut processor, _interrupted) = replay_into(path, move |_hello: &Hello| {
        let mut inner = AggregateSink::new(AggregatorConfig::default());
        inner
            .aggregator_mut()
            .set_parked_share(highrise_aggregate::AlertConfig::default().stuck_elevation);
        FrameSink {
            inner,
            interval_ns,
            next_ns: None,
            first_ns: None,
            frames: Vec::new(),
            relative_full: Vec::new(),
            current_full: 1.0,
        }
    })?;
    let report = processor.report();
    let definitions: Vec<MethodDef> = report.definitions().cloned().collect();
    let Some(sink) = processor.sink_mut() else {
        return Err(ReportError::NoSession {
            path: path.to_path_buf(),
        }
        .into());
    };
    // The run's end is a frame too.
    let end_ns = sink.inner.aggregator().now_ns();
    sink.frame(end_ns);
    if definitions.is_empty() {
        return Err(ExportError::Empty {
            path: path.display().to_string(),
        });
    }
    let specs: Vec<MethodSpec> = definitions
        .iter()
        .map(|d| MethodSpec {
            id: d.id,
            package: d.package.clone(),
            class: d.class.clone(),
            method: d.method.clone(),
            signature: d.signature.clone(),
        })
        .collect();
    let layout = CityLayout::full(&specs).unwrap_or_else(|_| {
        let mut layout = CityLayout::empty(&LayoutConfig::default());
        for spec in &specs {
            let _ = layout.insert(spec);
        }
        layout
    });
    let mut display = vec![
        String::new();
        definitions
            .iter()
            .map(|d| d.id as usize + 1)
            .max()
            .unwrap_or(0)
    ];
    for definition in &definitions {
        display[definition.id as usize] = definition.display_name();
    }
    let names: Vec<String> = layout
        .buildings()
        .iter()
        .map(|b| {
            display
                .get(b.method_id as usize)
                .cloned()
                .unwrap_or_default()
        })
        .collect();
    let engine = base64::engine::general_purpose::STANDARD;
    let plan = engine.encode(wire::plan(1, 1, &layout, &names));
    let mut shown = vec![Tower::IDLE; layout.buildings().len()];
    let mut frames = Vec::with_capacity(sink.frames.len());
    for (index, (time_s, towers)) in sink.frames.iter().enumerate() {
        let mut changed = Vec::new();
        for (building, built) in layout.buildings().iter().enumerate() {
            let tower = towers
                .get(built.method_id as usize)
                .copied()
                .unwrap_or(Tower::IDLE);
            if index == 0 || tower != shown[building] {
                shown[building] = tower;
                changed.push((building as u32, tower));
            }
        }
        let message = wire::heights(
            1,
            index == 0,
            sink.relative_full[index],
            *time_s,
            changed.into_iter(),
        );
        frames.push(engine.encode(message));
    }
    let building_of = |name: &str| {
        names
            .iter()
            .position(|n| n == name)
            .map_or(-1, |i| i as i64)
    };
    // As `highrise report` ranks them: highest mean elevation first.
    let top: Vec<_> = summary
        .methods
        .iter()
        .filter(|m| m.mean_elevation_pct > 0.0)
        .take(10)
        .map(|m| {
            serde_json::json!({
                "name": m.display_name,
                "mean_elevation_pct": m.mean_elevation_pct,
                "run_share_pct": m.run_share_pct,
                "max_elevation_pct": m.max_elevation_pct,
                "calls": m.calls,
                "building": building_of(&m.display_name),
            })
        })
        .collect();
    let title = if summary.version_label.is_empty() {
        summary.program.clone()
    } else {
        format!("{} ({})", summary.program, summary.version_label)
    };
    let data = serde_json::json!({
        "hello": serde_json::from_str::<serde_json::Value>(&crate::model::hello_message()).unwrap_or_default(),
        "recording": {
            "file": path.file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_default(),
            "title": title,
            "agent": summary.agent,
            "duration_s": summary.duration_ns as f64 * 1e-9,
            "top": top,
        },
        "plan": plan,
        "frames": frames,
    });
    Ok(Export {
        data_json: data.to_string(),
        frames: sink.frames.len(),
        buildings: layout.buildings().len(),
    })
}
