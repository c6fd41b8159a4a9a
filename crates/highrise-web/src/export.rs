//! A recording as one HTML file: the page, and the recording's city over time (its plan and
//! the towers every sample interval of program time, as the live stream's messages), so it
//! opens from disk, offline, with a scrubber.

use std::path::Path;
use std::sync::{Arc, Mutex};

use base64::Engine;
use highrise_aggregate::{AlertConfig, Snapshot};
use highrise_layout::look::relative_full_scale;
use highrise_layout::{CityLayout, LayoutConfig, MethodSpec};
use highrise_report::{summarize_observing, ReportError, SampleObserver};

use crate::wire::{self, Tower};

/// Most frames an export holds (the scrubber's steps); between this and twice as many.
pub const MAX_FRAMES: usize = 600;

/// The export could not be made.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    #[error(transparent)]
    Report(#[from] ReportError),
    #[error("{path}: the recording defines no method, so it has no city")]
    Empty { path: String },
    #[error("cannot write {path}: {source}")]
    Write {
        path: String,
        source: std::io::Error,
    },
}

/// Writes the recording at `path` as one self-contained HTML page at `out` (the recording's
/// [`Export`] inside [`crate::page::recording_html`]). What was written is said by the returned
/// export; on an error nothing is left at `out`.
pub fn write_html(path: &Path, out: &Path) -> Result<Export, ExportError> {
    let export = export_recording(path)?;
    std::fs::write(out, crate::page::recording_html(&export.data_json)).map_err(|source| {
        let _ = std::fs::remove_file(out);
        ExportError::Write {
            path: out.display().to_string(),
            source,
        }
    })?;
    Ok(export)
}

/// The run over time as the summary's samples see it, thinned to at most twice
/// [`MAX_FRAMES`] evenly spaced frames: each frame's program time (s since the first sample),
/// the relative scale's full value, the towers by method id.
#[derive(Default)]
struct Frames {
    frames: Vec<(u64, f32, Vec<Tower>)>,
    /// Keep one sample in this many (doubles as frames are thinned).
    every: u64,
    seen: u64,
    current_full: f32,
}

impl Frames {
    fn observe(&mut self, snapshot: &Snapshot) {
        self.current_full = relative_full_scale(self.current_full, wire::hottest(snapshot));
        self.seen += 1;
        if (self.seen - 1) % self.every.max(1) != 0 {
            return;
        }
        let towers = snapshot.methods.iter().map(Tower::of).collect();
        self.frames
            .push((snapshot.now_ns, self.current_full, towers));
        if self.frames.len() >= 2 * MAX_FRAMES {
            let mut index = 0;
            self.frames.retain(|_| {
                index += 1;
                index % 2 == 1
            });
            self.every = self.every.max(1) * 2;
        }
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

/// Reads the recording at `path` (or another tool's profile) into an export's data: one
/// replay, for the summary and the frames.
pub fn export_recording(path: &Path) -> Result<Export, ExportError> {
    let collected = Arc::new(Mutex::new(Frames {
        current_full: 1.0,
        ..Frames::default()
    }));
    let observer: SampleObserver = {
        let collected = Arc::clone(&collected);
        Box::new(move |snapshot, _weight| {
            collected
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .observe(snapshot)
        })
    };
    let summary = summarize_observing(path, AlertConfig::default(), Some(observer))?;
    let frames = std::mem::take(&mut collected.lock().unwrap_or_else(|e| e.into_inner()).frames);
    if summary.methods.is_empty() {
        return Err(ExportError::Empty {
            path: path.display().to_string(),
        });
    }
    let specs: Vec<MethodSpec> = summary
        .methods
        .iter()
        .map(|m| MethodSpec {
            id: m.id,
            package: m.package.clone(),
            class: m.class.clone(),
            method: m.method.clone(),
            signature: m.signature.clone(),
        })
        .collect();
    let layout = CityLayout::full(&specs).unwrap_or_else(|_| {
        let mut layout = CityLayout::empty(&LayoutConfig::default());
        for spec in &specs {
            let _ = layout.insert(spec);
        }
        layout
    });
    let display: std::collections::HashMap<u32, &str> = summary
        .methods
        .iter()
        .map(|m| (m.id, m.display_name.as_str()))
        .collect();
    let names: Vec<String> = layout
        .buildings()
        .iter()
        .map(|b| display.get(&b.method_id).copied().unwrap_or("").to_string())
        .collect();
    let engine = base64::engine::general_purpose::STANDARD;
    let plan = engine.encode(wire::plan(1, 1, &layout, &names));
    let first_ns = frames.first().map_or(0, |frame| frame.0);
    let mut shown = vec![Tower::IDLE; layout.buildings().len()];
    let mut encoded = Vec::with_capacity(frames.len());
    for (index, (now_ns, relative_full, towers)) in frames.iter().enumerate() {
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
        let time_s = now_ns.saturating_sub(first_ns) as f64 * 1e-9;
        let message = wire::heights(1, index == 0, *relative_full, time_s, changed.into_iter());
        encoded.push(engine.encode(message));
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
        "hello": crate::model::hello_json(),
        "recording": {
            "file": path.file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_default(),
            "title": title,
            "agent": summary.agent,
            "duration_s": summary.duration_ns as f64 * 1e-9,
            "top": top,
        },
        "plan": plan,
        "frames": encoded,
    });
    Ok(Export {
        data_json: data.to_string(),
        frames: frames.len(),
        buildings: layout.buildings().len(),
    })
}
