//! Recording and replay in the viewer: a record button per live session (the session's frames
//! go to a `.hrec` file through ingest), recordings opened as sessions (`--replay FILE` or the
//! panel's "open recording" box) with pause, speed and seek. Replays go through the same
//! ingest session logic and aggregator as live programs, so they look and compare the same.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use bevy::prelude::*;
use bevy_egui::egui;
use highrise_ingest::{
    recording_path, RecordingState, ReplayError, ReplayHandle, ReplayReader, SessionId,
    SessionSource, MAX_REPLAY_SPEED, MIN_REPLAY_SPEED,
};
use highrise_protocol::{Hello, MAGIC, PROTOCOL_VERSION};
use highrise_record::export::ExportFormat;

use super::sessions::{Ingest, SessionView};

/// Where recordings go, the replays this viewer runs, and the last message for the user.
#[derive(Resource, Debug)]
pub struct Recorder {
    /// Directory the record buttons write to (created on first use).
    pub dir: PathBuf,
    /// Replays started in this viewer, by their session.
    pub replays: BTreeMap<SessionId, ReplayHandle>,
    /// The "open recording" box.
    pub open_path: String,
    /// The outcome of the last action (an error, or where a file went).
    pub message: Option<String>,
    /// Exports writing in the background; each ends with its message.
    pub exports: Vec<std::thread::JoinHandle<String>>,
    /// Other tools' profiles being converted before they replay, each on a thread of its own:
    /// a big file does not hold the window.
    opening: Vec<Opening>,
    /// The `--replay` files' sessions, in order, once each has opened or failed.
    at_start: Vec<AtStart>,
}

/// A profile being converted into a recording to replay.
#[derive(Debug)]
struct Opening {
    path: PathBuf,
    speed: f64,
    /// Its place among the `--replay` files, if it is one.
    start_index: Option<usize>,
    thread: std::thread::JoinHandle<Result<ReplayReader, highrise_record::RecordError>>,
}

/// What became of one `--replay` file.
#[derive(Debug, Clone, Copy, PartialEq)]
enum AtStart {
    Opening,
    Opened(SessionId),
    Failed,
}

impl Default for Recorder {
    fn default() -> Self {
        Self::new(PathBuf::from("highrise-recordings"))
    }
}

impl Recorder {
    pub fn new(dir: PathBuf) -> Self {
        Self {
            dir,
            replays: BTreeMap::new(),
            open_path: String::new(),
            message: None,
            exports: Vec::new(),
            opening: Vec::new(),
            at_start: Vec::new(),
        }
    }

    /// Writes the recording at `path` as `format` beside it (`run.hrec` → `run.pb.gz`, …), on a
    /// thread of its own: a long recording does not hold the window.
    pub fn export(&mut self, path: &Path, format: ExportFormat) {
        self.spawn_export(
            path,
            path.with_extension(format.extension()),
            move |path, out| {
                let written = std::fs::File::create(out)
                    .map_err(highrise_record::RecordError::from)
                    .and_then(|file| {
                        let reader = highrise_import::open(path)?;
                        highrise_record::export::export(
                            reader,
                            format,
                            std::io::BufWriter::new(file),
                        )
                    });
                if written.is_err() {
                    let _ = std::fs::remove_file(out);
                }
                written
                    .map(|()| String::new())
                    .map_err(|error| error.to_string())
            },
        );
    }

    /// Writes the recording at `path` as one HTML page beside it (`run.hrec` → `run.html`): the
    /// city over time, which opens offline in a browser (`highrise_web::export`).
    pub fn export_html(&mut self, path: &Path) {
        self.spawn_export(path, path.with_extension("html"), |path, out| {
            highrise_web::export::write_html(path, out)
                .map(|_| ": open it in a browser".to_string())
                .map_err(|error| error.to_string())
        });
    }

    /// Runs `write(path, out)` on a thread of its own; its message (what `write` adds after
    /// "exported OUT", or why it failed) comes when it ends.
    fn spawn_export(
        &mut self,
        path: &Path,
        out: PathBuf,
        write: impl FnOnce(&Path, &Path) -> Result<String, String> + Send + 'static,
    ) {
        let path = path.to_owned();
        self.message = Some(format!("exporting to {}…", out.display()));
        self.exports
            .push(std::thread::spawn(move || match write(&path, &out) {
                Ok(more) => format!("exported {}{more}", out.display()),
                Err(error) => format!("cannot export {}: {error}", path.display()),
            }));
    }

    /// Takes the messages of the exports that have finished.
    fn poll_exports(&mut self) {
        let (done, running): (Vec<_>, Vec<_>) = self
            .exports
            .drain(..)
            .partition(|export| export.is_finished());
        self.exports = running;
        for export in done {
            self.message = Some(
                export
                    .join()
                    .unwrap_or_else(|_| "the export failed".to_owned()),
            );
        }
    }

    /// Opens `path` as a replayed session at `speed`; a bad file leaves a message, nothing else.
    /// A recording opens at once; another tool's profile is converted on a thread of its own
    /// first ([`Self::poll_opening`] starts its session).
    pub fn open(&mut self, ingest: &Ingest, path: &Path, speed: f64) {
        self.begin_open(ingest, path, speed, None);
    }

    /// Opens the `--replay` files; the first two that open are compared
    /// ([`Self::take_start_pair`]).
    pub fn open_at_start(&mut self, ingest: &Ingest, paths: &[PathBuf], speed: f64) {
        self.at_start = vec![AtStart::Opening; paths.len()];
        for (index, path) in paths.iter().enumerate() {
            self.begin_open(ingest, path, speed, Some(index));
        }
    }

    fn begin_open(&mut self, ingest: &Ingest, path: &Path, speed: f64, start_index: Option<usize>) {
        match highrise_import::ProfileFormat::of_file(path) {
            Ok(Some(format)) => {
                self.message = Some(format!(
                    "opening {}: converting a {} profile…",
                    path.display(),
                    format.name()
                ));
                let converted = path.to_owned();
                self.opening.push(Opening {
                    path: path.to_owned(),
                    speed,
                    start_index,
                    thread: std::thread::spawn(move || {
                        highrise_import::open_profile(&converted, format)
                    }),
                });
            }
            // A recording (or an unreadable file, whose error the replay's open gives).
            Ok(None) | Err(_) => {
                let opened = ingest.0.open_replay(path, speed);
                self.opened(path, start_index, opened);
            }
        }
    }

    /// Starts the sessions of the profiles whose conversion has finished.
    pub fn poll_opening(&mut self, ingest: &Ingest) {
        let (done, converting): (Vec<_>, Vec<_>) = self
            .opening
            .drain(..)
            .partition(|opening| opening.thread.is_finished());
        self.opening = converting;
        for opening in done {
            let opened = match opening.thread.join() {
                Ok(Ok(reader)) => ingest
                    .0
                    .open_replay_reader(&opening.path, reader, opening.speed),
                Ok(Err(source)) => Err(ReplayError::Open {
                    path: opening.path.clone(),
                    source,
                }),
                Err(_) => {
                    self.message = Some(format!(
                        "highrise failed converting {} (a bug; report this)",
                        opening.path.display()
                    ));
                    self.mark_start(opening.start_index, AtStart::Failed);
                    continue;
                }
            };
            self.opened(&opening.path, opening.start_index, opened);
        }
    }

    fn opened(
        &mut self,
        path: &Path,
        start_index: Option<usize>,
        opened: Result<ReplayHandle, ReplayError>,
    ) {
        match opened {
            Ok(handle) => {
                let session_id = handle.session_id();
                self.message = Some(format!(
                    "replaying {} as session {session_id}",
                    path.display(),
                ));
                self.replays.insert(session_id, handle);
                self.mark_start(start_index, AtStart::Opened(session_id));
            }
            Err(error) => {
                warn!("{error}");
                self.message = Some(error.to_string());
                self.mark_start(start_index, AtStart::Failed);
            }
        }
    }

    fn mark_start(&mut self, start_index: Option<usize>, state: AtStart) {
        if let Some(slot) = start_index.and_then(|index| self.at_start.get_mut(index)) {
            *slot = state;
        }
    }

    /// Once every `--replay` file has opened or failed: the first two sessions (to compare),
    /// once.
    pub fn take_start_pair(&mut self) -> Option<(SessionId, SessionId)> {
        if self.at_start.contains(&AtStart::Opening) {
            return None;
        }
        let mut opened = self.at_start.iter().filter_map(|state| match state {
            AtStart::Opened(session_id) => Some(*session_id),
            _ => None,
        });
        let pair = opened.next().zip(opened.next());
        self.at_start.clear();
        pair
    }

    /// Profiles still converting.
    pub fn converting(&self) -> usize {
        self.opening.len()
    }

    /// Starts recording a live session into [`Self::dir`].
    pub fn start(&mut self, ingest: &Ingest, session_id: SessionId, view: &SessionView) {
        let Some(info) = view.report.info.as_ref() else {
            return;
        };
        if let Err(error) = std::fs::create_dir_all(&self.dir) {
            self.message = Some(format!("cannot create {}: {error}", self.dir.display()));
            return;
        }
        let hello = Hello {
            magic: MAGIC,
            protocol_version: PROTOCOL_VERSION,
            agent: info.agent.clone(),
            program: info.program.clone(),
            version_label: info.version_label.clone(),
            pid: info.pid,
            clock_unit_ns: info.clock_unit_ns,
            clock_zero_unix_ns: info.clock_zero_unix_ns,
        };
        let path = recording_path(&self.dir, session_id, &hello);
        self.message = Some(match ingest.0.start_recording(session_id, &path) {
            Ok(()) => format!("recording to {}", path.display()),
            Err(error) => format!("cannot record session {session_id}: {error}"),
        });
    }

    /// Stops a session's recording (the file is finished with its index).
    pub fn stop(&mut self, ingest: &Ingest, session_id: SessionId) {
        self.message = Some(match ingest.0.stop_recording(session_id) {
            Ok(Some(status)) => format!(
                "saved {} ({} frames, {} bytes)",
                status.path.display(),
                status.frames,
                status.bytes
            ),
            Ok(None) => "that session was not being recorded".to_string(),
            Err(error) => format!("cannot stop recording: {error}"),
        });
    }
}

/// The recording line of a session in the panel: record/stop for live sessions, and the
/// transport (pause, speed, seek) for replays.
pub fn recording_section(
    ui: &mut egui::Ui,
    session_id: SessionId,
    view: &SessionView,
    ingest: Option<&Ingest>,
    recorder: &mut Recorder,
) {
    let Some(ingest) = ingest else {
        return;
    };
    let stats = &view.report.stats;
    if let SessionSource::Replay { path } = &stats.source {
        ui.label(format!("replay of {}", path.display()));
        if let Some(handle) = recorder.replays.get(&session_id) {
            let progress = handle.progress();
            let (now_s, end_s) = (
                progress.program_time_ns as f64 / 1e9,
                progress.end_program_time_ns as f64 / 1e9,
            );
            ui.horizontal(|ui| {
                if progress.paused {
                    if ui.button("Resume").clicked() {
                        handle.resume();
                    }
                } else if ui.button("Pause").clicked() {
                    handle.pause();
                }
                let mut speed = progress.speed.clamp(MIN_REPLAY_SPEED, MAX_REPLAY_SPEED);
                if ui
                    .add(
                        egui::Slider::new(
                            &mut speed,
                            MIN_REPLAY_SPEED..=MAX_REPLAY_SPEED.min(64.0),
                        )
                        .logarithmic(true)
                        .text("speed"),
                    )
                    .changed()
                {
                    handle.set_speed(speed);
                }
            });
            let mut at_s = now_s;
            let seek = ui.add(
                egui::Slider::new(&mut at_s, 0.0..=end_s.max(now_s).max(0.001))
                    .text("s")
                    .suffix(if progress.finished { " (end)" } else { "" }),
            );
            if seek.drag_stopped() || (seek.changed() && !seek.dragged()) {
                handle.seek_to((at_s * 1e9) as u64);
            }
        }
        export_row(ui, path, recorder);
        return;
    }
    if !view.is_live() {
        return;
    }
    let active = stats
        .recording
        .as_ref()
        .filter(|status| status.state == RecordingState::Active);
    ui.horizontal(|ui| match active {
        Some(status) => {
            if ui.button("Stop recording").clicked() {
                recorder.stop(ingest, session_id);
            }
            ui.label(format!("● {} frames", status.frames));
        }
        None => {
            if ui.button("Record").clicked() {
                recorder.start(ingest, session_id, view);
            }
            if let Some(status) = &stats.recording {
                if let RecordingState::Failed(error) = &status.state {
                    ui.label(format!("last recording failed: {error}"));
                }
            }
        }
    });
    if let Some(status) = stats
        .recording
        .as_ref()
        .filter(|status| status.state == RecordingState::Finished)
    {
        export_row(ui, &status.path, recorder);
    }
}

/// "export as pprof · speedscope · collapsed · chrome" for a recording file.
fn export_row(ui: &mut egui::Ui, path: &Path, recorder: &mut Recorder) {
    ui.horizontal(|ui| {
        ui.label("export as");
        for (label, format) in [
            ("pprof", ExportFormat::Pprof),
            ("speedscope", ExportFormat::Speedscope),
            ("collapsed", ExportFormat::Collapsed),
            ("chrome", ExportFormat::Chrome),
        ] {
            if ui
                .small_button(label)
                .on_hover_text(format!(
                    "writes {}",
                    path.with_extension(format.extension()).display()
                ))
                .clicked()
            {
                recorder.export(path, format);
            }
        }
        if ui
            .small_button("html")
            .on_hover_text(format!(
                "writes {}: the city over time, one page that opens offline in a browser",
                path.with_extension("html").display()
            ))
            .clicked()
        {
            recorder.export_html(path);
        }
    });
}

/// The "open a recording" box of the sessions panel.
pub fn open_section(ui: &mut egui::Ui, ingest: Option<&Ingest>, recorder: &mut Recorder) {
    recorder.poll_exports();
    let Some(ingest) = ingest else {
        return;
    };
    ui.horizontal(|ui| {
        ui.add(
            egui::TextEdit::singleline(&mut recorder.open_path)
                .hint_text("path/to/run.hrec")
                .desired_width(180.0),
        );
        if ui.button("Replay").clicked() && !recorder.open_path.trim().is_empty() {
            let path = PathBuf::from(recorder.open_path.trim());
            recorder.open(ingest, &path, 1.0);
        }
    });
    if let Some(message) = &recorder.message {
        ui.small(message);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The session menu's export writes beside the recording, in the background, and says so.
    #[test]
    fn export_writes_beside_the_recording_and_says_where() {
        let dir =
            std::env::temp_dir().join(format!("highrise-viewer-export-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let recording = dir.join("run.hrec");
        let mut bytes = Vec::new();
        highrise_import::convert_bytes(
            b"app.Game.run;app.Board.step 3\napp.Game.run 1\n",
            highrise_import::ProfileFormat::Folded,
            "run",
            &mut bytes,
        )
        .expect("converts");
        std::fs::write(&recording, bytes).expect("writes");
        let mut recorder = Recorder::new(dir.clone());
        recorder.export(&recording, ExportFormat::Collapsed);
        while !recorder.exports.is_empty() {
            std::thread::sleep(std::time::Duration::from_millis(5));
            recorder.poll_exports();
        }
        let out = dir.join("run.collapsed.txt");
        assert_eq!(
            recorder.message.as_deref(),
            Some(format!("exported {}", out.display()).as_str())
        );
        assert_eq!(
            std::fs::read_to_string(&out).expect("exported"),
            "app.Game.run 1\napp.Game.run;app.Board.step 3\n"
        );
        recorder.export(&dir.join("missing.hrec"), ExportFormat::Pprof);
        while !recorder.exports.is_empty() {
            std::thread::sleep(std::time::Duration::from_millis(5));
            recorder.poll_exports();
        }
        assert!(recorder
            .message
            .as_deref()
            .is_some_and(|m| m.starts_with("cannot export")));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
