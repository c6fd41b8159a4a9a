//! The memory-prediction window (Murphy & Saenko 1998; `highrise predict` in the viewer):
//! sample recordings (those of `--predict`, and the record buttons' directory), a phase method,
//! a basis class and a count; the predicted average and maximum memory by the paper's ratio
//! method and by the linear fit, the per-class breakdown (the paper's Table 1) with a bar per
//! class, each data set's own prediction, and each method's error against a measured run.
//!
//! Recordings are read off the main thread (`highrise_report::phases::class_table`) whenever
//! the choice of recordings or the phase changes; the arithmetic itself
//! (`highrise_report::predict`) is cheap and runs every frame the window is open.

use std::path::{Path, PathBuf};

use bevy::prelude::*;
use bevy_egui::{egui, EguiContexts};
use highrise_report::diagram::ClassDiagram;
use highrise_report::phases::{class_table, ClassTable};
use highrise_report::predict::{
    merge_runs, predict, versus_measured, DataSet, Measured, Prediction,
};

use super::diagram::DiagramPlan;
use crate::viewer::recording::Recorder;

/// What a recording is to the prediction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Role {
    /// One of the sample runs the prediction is made from.
    #[default]
    Sample,
    /// The run at the size to predict, to check the prediction against.
    Measured,
    /// Not used.
    Unused,
}

/// Each recording's class table, or why it could not be read.
type Tables = Vec<(PathBuf, Result<ClassTable, String>)>;

/// The window's state (a resource).
#[derive(Resource, Debug, Default)]
pub struct PredictView {
    pub open: bool,
    /// Recordings offered, with their role.
    pub files: Vec<(PathBuf, Role)>,
    /// The phase method (`Class.method` or its full name); empty: each whole run.
    pub phase: String,
    /// The basis class (full name or tail) and how many of its objects to predict for.
    pub basis: String,
    pub count: u64,
    /// The class-diagram window is open.
    pub diagram_open: bool,
    /// How many classes the diagram shows (those whose objects took the most bytes, and the
    /// abstract types their fields count under); 0: not chosen yet (the default).
    pub(super) diagram_classes: usize,
    /// The diagram drawn, for which recording and class count (reset whenever the recordings
    /// are read again).
    pub(super) diagram_plan: Option<(PathBuf, usize, DiagramPlan)>,
    /// A path typed into "add".
    adding: String,
    /// The class tables of the last choice read, and that choice.
    tables: Tables,
    read_for: Option<(Vec<PathBuf>, String)>,
    /// A read in progress: its choice and its thread.
    pending: Option<(Vec<PathBuf>, String, std::thread::JoinHandle<Tables>)>,
}

impl PredictView {
    /// Opened at start with these samples, measured run, phase and basis (`CLASS=COUNT`).
    pub fn with(
        samples: &[PathBuf],
        measured: Option<&Path>,
        phase: Option<&str>,
        basis: Option<&str>,
    ) -> Self {
        let mut files: Vec<(PathBuf, Role)> = samples
            .iter()
            .map(|path| (path.clone(), Role::Sample))
            .collect();
        if let Some(path) = measured {
            files.push((path.to_path_buf(), Role::Measured));
        }
        let (basis, count) = basis
            .and_then(|basis| basis.rsplit_once('='))
            .map_or((String::new(), 0), |(class, count)| {
                (class.trim().to_string(), count.trim().parse().unwrap_or(0))
            });
        Self {
            open: !files.is_empty(),
            diagram_open: !files.is_empty(),
            files,
            phase: phase.unwrap_or_default().to_string(),
            basis,
            count,
            ..Self::default()
        }
    }

    /// Adds the record directory's recordings not offered yet (unused until chosen).
    fn scan(&mut self, dir: &Path) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        let mut found: Vec<PathBuf> = entries
            .filter_map(|entry| Some(entry.ok()?.path()))
            .filter(|path| path.extension().is_some_and(|ext| ext == "hrec"))
            .collect();
        found.sort();
        for path in found {
            if !self.files.iter().any(|(known, _)| *known == path) {
                self.files.push((path, Role::Unused));
            }
        }
    }

    /// The recordings in use and the phase: reads them again (off this thread) when they
    /// changed; takes the result when it is there.
    fn refresh(&mut self) {
        let chosen: Vec<PathBuf> = self
            .files
            .iter()
            .filter(|(_, role)| *role != Role::Unused)
            .map(|(path, _)| path.clone())
            .collect();
        let key = (chosen, self.phase.trim().to_string());
        if self
            .pending
            .as_ref()
            .is_some_and(|(_, _, reading)| reading.is_finished())
        {
            if let Some((files, phase, reading)) = self.pending.take() {
                self.tables = reading.join().unwrap_or_default();
                self.diagram_plan = None;
                self.read_for = Some((files, phase));
            }
        }
        let current = self.read_for.as_ref() == Some(&key)
            || self
                .pending
                .as_ref()
                .is_some_and(|(files, phase, _)| (files, phase) == (&key.0, &key.1));
        if current {
            return;
        }
        let (files, phase) = key;
        let (to_read, phases) = (files.clone(), phase_list(&phase));
        let reading = std::thread::spawn(move || {
            to_read
                .into_iter()
                .map(|path| {
                    let table = class_table(&path, &phases).map_err(|error| error.to_string());
                    (path, table)
                })
                .collect()
        });
        self.pending = Some((files, phase, reading));
    }

    fn data_sets(&self, role: Role) -> Vec<DataSet> {
        self.tables
            .iter()
            .filter(|(path, _)| self.role_of(path) == Some(role))
            .filter_map(|(_, table)| table.as_ref().ok())
            .flat_map(|table| {
                table
                    .phases
                    .iter()
                    .map(move |run| DataSet::from_run(table, run))
            })
            .collect()
    }

    /// The class diagram of the recording in use with the most relations.
    pub fn diagram(&self) -> Option<(&Path, &ClassDiagram)> {
        self.tables
            .iter()
            .filter(|(path, _)| self.role_of(path) != Some(Role::Unused))
            .filter_map(|(path, table)| Some((path.as_path(), &table.as_ref().ok()?.diagram)))
            .filter(|(_, diagram)| !diagram.relations.is_empty())
            .max_by_key(|(_, diagram)| diagram.relations.len())
    }

    fn role_of(&self, path: &Path) -> Option<Role> {
        self.files
            .iter()
            .find(|(known, _)| known == path)
            .map(|(_, role)| *role)
    }
}

fn phase_list(phase: &str) -> Vec<String> {
    if phase.is_empty() {
        Vec::new()
    } else {
        vec![phase.to_string()]
    }
}

/// The prediction for the window's choice, and its check against the measured runs (their
/// phase runs together): what `highrise predict --vs-measured` computes.
pub fn prediction_of(
    samples: &[DataSet],
    measured: &[DataSet],
    basis: &str,
    count: u64,
) -> Result<(Prediction, Option<Measured>), String> {
    let prediction = predict(samples, basis, count).map_err(|error| error.to_string())?;
    let Some(merged) = merge_runs(measured, "measured") else {
        return Ok((prediction, None));
    };
    let check = versus_measured(samples, basis, &merged).map_err(|error| error.to_string())?;
    Ok((prediction, Some(check)))
}

fn kb(bytes: f64) -> String {
    format!("{:.1} kB", bytes / 1000.0)
}

/// Draws the window; changes `state` per the user's edits.
pub fn predict_window(ctx: &egui::Context, state: &mut PredictView, record_dir: &Path) {
    let mut open = state.open;
    egui::Window::new("Memory prediction")
        .id(egui::Id::new("highrise-predict"))
        .open(&mut open)
        .default_size([760.0, 560.0])
        .default_pos([330.0, 70.0])
        .resizable(true)
        .show(ctx, |ui| {
            ui.label("From sample runs of a component, its memory for N objects of a basis class (Murphy & Saenko 1998).");
            egui::CollapsingHeader::new(format!("Recordings ({})", state.files.len()))
                .default_open(true)
                .show(ui, |ui| {
                    for (path, role) in &mut state.files {
                        ui.horizontal(|ui| {
                            ui.radio_value(role, Role::Sample, "sample");
                            ui.radio_value(role, Role::Measured, "measured");
                            ui.radio_value(role, Role::Unused, "—");
                            ui.label(path.display().to_string());
                        });
                    }
                    ui.horizontal(|ui| {
                        ui.add(egui::TextEdit::singleline(&mut state.adding).hint_text("path/to/run.hrec").desired_width(320.0));
                        if ui.button("add").clicked() && !state.adding.trim().is_empty() {
                            let path = PathBuf::from(state.adding.trim());
                            if !state.files.iter().any(|(known, _)| *known == path) {
                                state.files.push((path, Role::Sample));
                            }
                            state.adding.clear();
                        }
                        if ui
                            .button("scan record folder")
                            .on_hover_text(record_dir.display().to_string())
                            .clicked()
                        {
                            state.scan(record_dir);
                        }
                    });
                });
            ui.horizontal(|ui| {
                ui.toggle_value(&mut state.diagram_open, "class diagram")
                    .on_hover_text("The classes the agent read from the program, their relations and objects made per owner");
                ui.label("Phase method");
                ui.add(egui::TextEdit::singleline(&mut state.phase).hint_text("e.g. Parser.parse (empty: whole run)").desired_width(260.0));
            });
            state.refresh();
            let samples = state.data_sets(Role::Sample);
            let measured = state.data_sets(Role::Measured);
            // The basis choices: classes the samples had created, most first.
            let mut pool: Vec<(String, u64)> = Vec::new();
            for set in &samples {
                for (class, &count) in &set.created_by_exit {
                    match pool.iter_mut().find(|(known, _)| known == class) {
                        Some(entry) => entry.1 = entry.1.max(count),
                        None => pool.push((class.clone(), count)),
                    }
                }
            }
            pool.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
            ui.horizontal(|ui| {
                ui.label("Basis class");
                egui::ComboBox::from_id_salt("highrise-predict-basis")
                    .selected_text(if state.basis.is_empty() { "choose…" } else { state.basis.as_str() })
                    .width(280.0)
                    .show_ui(ui, |ui| {
                        for (class, count) in pool.iter().take(200) {
                            ui.selectable_value(&mut state.basis, class.clone(), format!("{class} (up to {count})"));
                        }
                    });
                ui.label("count");
                ui.add(egui::DragValue::new(&mut state.count).range(0..=u64::MAX / 2).speed(10.0));
            });
            for (path, table) in &state.tables {
                match table {
                    Err(error) => {
                        ui.colored_label(egui::Color32::LIGHT_RED, format!("{}: {error}", path.display()));
                    }
                    Ok(table) => {
                        for phase in &table.unknown_phases {
                            ui.colored_label(egui::Color32::YELLOW, format!("{}: no method matches {phase:?}", path.display()));
                        }
                        if table.events_dropped > 0 || table.allocations_dropped > 0 {
                            ui.colored_label(
                                egui::Color32::YELLOW,
                                format!(
                                    "{}: the agent dropped {} events, {} allocations: counts are lower bounds",
                                    path.display(),
                                    table.events_dropped,
                                    table.allocations_dropped
                                ),
                            );
                        }
                    }
                }
            }
            if state.pending.is_some() {
                ui.label("Reading the recordings…");
            }
            ui.separator();
            if samples.is_empty() {
                ui.label("Choose sample recordings (and a phase method) to predict from.");
                return;
            }
            if state.basis.is_empty() {
                ui.label("Choose the basis class: one whose count you can estimate for your input.");
                return;
            }
            match prediction_of(&samples, &measured, &state.basis, state.count) {
                Err(error) => {
                    ui.colored_label(egui::Color32::LIGHT_RED, error);
                }
                Ok((prediction, check)) => prediction_ui(ui, &prediction, check.as_ref()),
            }
        });
    state.open = open;
}

fn prediction_ui(ui: &mut egui::Ui, prediction: &Prediction, check: Option<&Measured>) {
    ui.label(
        egui::RichText::new(format!(
            "{} × {} · {} data sets",
            prediction.basis_count,
            prediction.basis,
            prediction.data_sets.len()
        ))
        .strong(),
    );
    ui.label(format!(
        "Ratio method: average {}, maximum {}{}",
        kb(prediction.average_bytes),
        kb(prediction.maximum_bytes),
        prediction
            .retained_bytes
            .map_or_else(String::new, |bytes| format!(
                ", retained at exit {}",
                kb(bytes)
            ))
    ));
    ui.label(match prediction.fit_bytes {
        Some(bytes) => format!("Linear fit: {} (fixed costs apart)", kb(bytes)),
        None => "Linear fit: needs samples with at least two different basis counts".to_string(),
    });
    if let Some(bytes) = prediction.retained_fit_bytes {
        ui.label(format!("Retained at exit, linear fit: {}", kb(bytes)));
    }
    if let Some(check) = check {
        let fit = match (check.prediction.fit_bytes, check.fit_error_pct) {
            (Some(bytes), Some(error)) => format!(", fit {} ({error:+.1} %)", kb(bytes)),
            _ => String::new(),
        };
        ui.colored_label(
            egui::Color32::LIGHT_GREEN,
            format!(
                "Measured run ({} × basis): created {} · predicted at that count: average {} ({:+.1} %), maximum {} ({:+.1} %){fit}",
                check.basis_count,
                kb(check.created_bytes as f64),
                kb(check.prediction.average_bytes),
                check.average_error_pct,
                kb(check.prediction.maximum_bytes),
                check.maximum_error_pct,
            ),
        );
        if let Some(live) = check.live_bytes {
            let error = |bytes: Option<f64>, pct: Option<f64>| match (bytes, pct) {
                (Some(bytes), Some(pct)) => format!("{} ({pct:+.1} %)", kb(bytes)),
                _ => "-".to_string(),
            };
            let heap = check.heap_live_bytes.map_or_else(String::new, |heap| {
                format!(" · heap live {}", kb(heap as f64))
            });
            ui.colored_label(
                egui::Color32::LIGHT_GREEN,
                format!(
                    "Live at exit {}{heap} · retained: ratio {}, fit {}",
                    kb(live),
                    error(check.prediction.retained_bytes, check.retained_error_pct),
                    error(
                        check.prediction.retained_fit_bytes,
                        check.retained_fit_error_pct
                    ),
                ),
            );
        }
    }
    for label in &prediction.lossy {
        ui.colored_label(egui::Color32::YELLOW, format!("lossy sample: {label}"));
    }
    ui.separator();
    let largest = prediction
        .classes
        .iter()
        .map(|class| class.average_bytes)
        .fold(0.0f64, f64::max)
        .max(1.0);
    egui::ScrollArea::vertical()
        .id_salt("highrise-predict-classes")
        .max_height(260.0)
        .show(ui, |ui| {
            egui::Grid::new("highrise-predict-grid")
                .striped(true)
                .num_columns(6)
                .show(ui, |ui| {
                    for title in ["class", "per basis", "objects", "average", "maximum", "fit"] {
                        ui.label(egui::RichText::new(title).strong());
                    }
                    ui.end_row();
                    for class in &prediction.classes {
                        ui.label(&class.class);
                        ui.label(format!(
                            "{:.3} (max {:.3})",
                            class.mean_ratio, class.max_ratio
                        ));
                        ui.label(format!("{:.0}", class.average_count));
                        let bar = (class.average_bytes / largest) as f32;
                        ui.horizontal(|ui| {
                            let (rect, _) = ui
                                .allocate_exact_size(egui::vec2(80.0, 10.0), egui::Sense::hover());
                            ui.painter().rect_filled(
                                egui::Rect::from_min_size(rect.min, egui::vec2(80.0 * bar, 10.0)),
                                2.0,
                                egui::Color32::from_rgb(220, 90, 60),
                            );
                            ui.label(kb(class.average_bytes));
                        });
                        ui.label(kb(class.maximum_bytes));
                        ui.label(class.fit_bytes.map_or_else(|| "-".to_string(), kb));
                        ui.end_row();
                    }
                });
        });
    egui::CollapsingHeader::new("Per data set (the ratio method on each alone)").show(ui, |ui| {
        for set in &prediction.data_sets {
            ui.label(format!(
                "{} ({}) · basis {} · {}",
                kb(set.average_bytes),
                kb(set.maximum_bytes),
                set.basis_count,
                set.label
            ));
        }
        for label in &prediction.without_basis {
            ui.label(format!("left out (no basis objects): {label}"));
        }
    });
}

/// The system: draws the window when open.
pub(super) fn predict_system(
    mut contexts: EguiContexts,
    mut state: ResMut<PredictView>,
    recorder: Res<Recorder>,
) -> Result {
    if !state.open {
        return Ok(());
    }
    let ctx = contexts.ctx_mut()?;
    predict_window(ctx, &mut state, &recorder.dir);
    if state.diagram_open {
        super::diagram::diagram_window(ctx, &mut state);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use highrise_report::predict::DataSetClass;

    use super::*;

    fn run(label: &str, calls: u64, nodes: u64) -> DataSet {
        let class = |name: &str, created: u64| DataSetClass {
            class: name.to_string(),
            created,
            created_bytes: created * 32,
            live_at_exit: None,
            live_bytes_at_exit: None,
            mean_size_bytes: 32.0,
            max_size_bytes: 32.0,
        };
        DataSet {
            label: label.to_string(),
            classes: vec![class("ast.Call", calls), class("ast.Node", nodes)],
            created_by_exit: BTreeMap::from([("ast.Call".to_string(), calls)]),
            lossy: false,
            heap_live_bytes: None,
        }
    }

    /// Two phase runs of the measured recording count together, at its basis count: 30 calls
    /// and 150 nodes against 5 nodes per call predicted (30 · 6 · 32 B, exact).
    #[test]
    fn the_measured_runs_count_together() {
        let samples = [run("a", 10, 50), run("b", 20, 100)];
        let measured = [run("m1", 10, 50), run("m2", 30, 100)];
        let (prediction, check) = prediction_of(&samples, &measured, "Call", 100).unwrap();
        assert_eq!(prediction.average_bytes, 100.0 * 6.0 * 32.0);
        let check = check.expect("a measured run");
        assert_eq!(check.basis_count, 30);
        assert_eq!(check.created_bytes, (40 + 150) * 32);
        assert!(prediction_of(&samples, &[], "Nope", 1).is_err());
    }
}
