//! The side panel: sessions, recordings, modes, compare, search, and the selected session's
//! window, top methods and package tree.

use bevy::prelude::*;
use bevy_egui::{egui, EguiContexts};
use highrise_aggregate::Snapshot;
use highrise_aggregate_sink::AggregateCommand;
use highrise_ingest::{ReplayProgress, SessionEnd, SessionSource, SessionStatus};
use highrise_protocol::replayed_file;

use super::names::building_names;
use super::search::{method_focus_point, SearchIndex};
use super::SearchBox;
use crate::viewer::arcs::CallArcs;
use crate::viewer::camera::{CameraMode, FocusOn, PanelCover};
use crate::viewer::city::{
    Cities, City, CityKey, ClassFloors, ColourMode, HeightMode, HeightScale,
};
use crate::viewer::compare::{Compare, CompareMode};
use crate::viewer::focus::{FocusPackage, PackageFocus};
use crate::viewer::instancing::LevelOfDetail;
use crate::viewer::landscape::otlp_host;
use crate::viewer::recording::{open_section, recording_section, Recorder};
use crate::viewer::sessions::{Ingest, SessionCommand, SessionView, Sessions};

#[allow(clippy::too_many_arguments)] // a Bevy system: each parameter is one resource or query
/// The side panel; records how much of the window it covers (framing centres the scene in
/// the rest).
pub(super) fn panel(
    mut contexts: EguiContexts,
    mut sessions: ResMut<Sessions>,
    mut compare: ResMut<Compare>,
    mut cities: ResMut<Cities>,
    (mut height_mode, mut height_scale): (ResMut<HeightMode>, ResMut<HeightScale>),
    mut colour_mode: ResMut<ColourMode>,
    (mut class_floors, mut call_arcs, mut detail): (
        ResMut<ClassFloors>,
        ResMut<CallArcs>,
        ResMut<LevelOfDetail>,
    ),
    (mut sites_view, mut predict_view): (ResMut<super::SitesView>, ResMut<super::PredictView>),
    camera_mode: Res<CameraMode>,
    (mut search_box, mut search_index): (ResMut<SearchBox>, ResMut<SearchIndex>),
    mut focus: EventWriter<FocusOn>,
    mut commands: EventWriter<SessionCommand>,
    ingest: Option<Res<Ingest>>,
    mut recorder: ResMut<Recorder>,
    mut cover: ResMut<PanelCover>,
    (package_focus, mut focus_package): (Option<Res<PackageFocus>>, EventWriter<FocusPackage>),
) -> Result {
    let ctx = contexts.ctx_mut()?;
    let panel_width = egui::SidePanel::left("highrise-panel")
        .default_width(300.0)
        .show(ctx, |ui| {
            egui::ScrollArea::vertical().show(ui, |ui| {
                ui.heading("highrise");
                sessions_section(ui, &mut sessions, &recorder);
                open_section(ui, ingest.as_deref(), &mut recorder);
                ui.separator();
                let full_scale = sessions
                    .selected
                    .and_then(|id| cities.get(CityKey::Session(id)))
                    .map(|city| (city.full_scale, city.sqrt_heights));
                view_section(
                    ui,
                    (&mut height_mode, &mut height_scale, full_scale),
                    &mut colour_mode,
                    (&mut class_floors, &mut detail),
                    &mut call_arcs,
                    *camera_mode,
                );
                if ui
                    .selectable_label(sites_view.open, "Allocation sites (calling contexts)")
                    .on_hover_text("The selected session's calling-context tree: where objects are created, or where time goes")
                    .clicked()
                {
                    sites_view.open = !sites_view.open;
                }
                if ui
                    .selectable_label(predict_view.open, "Memory prediction (from recordings)")
                    .on_hover_text("A component's memory for N objects of a basis class, from sample recordings (Murphy & Saenko 1998)")
                    .clicked()
                {
                    predict_view.open = !predict_view.open;
                }
                ui.separator();
                compare_section(ui, &sessions, &mut compare);
                ui.separator();
                search_section(
                    ui,
                    &sessions,
                    &cities,
                    &mut search_box,
                    &mut search_index,
                    &mut focus,
                );
                let Some(selected) = sessions.selected else {
                    ui.label("Waiting for a program to connect…");
                    return;
                };
                if let Some(view) = sessions.by_id.get_mut(&selected) {
                    ui.separator();
                    recording_section(ui, selected, view, ingest.as_deref(), &mut recorder);
                    let city = cities.entry(CityKey::Session(selected));
                    let focused = package_focus
                        .as_deref()
                        .and_then(|f| f.focused.as_ref())
                        .filter(|(key, _)| *key == CityKey::Session(selected))
                        .map(|(_, path)| path.as_str());
                    let wanted = selected_section(
                        ui,
                        selected,
                        view,
                        city,
                        (&mut focus, &mut commands),
                        focused,
                    );
                    if let Some(package) = wanted {
                        focus_package.write(FocusPackage {
                            city: CityKey::Session(selected),
                            package,
                        });
                    }
                }
            });
        })
        .response
        .rect
        .width();
    // Framing centres the scene in what the panel leaves visible.
    let fraction = (panel_width / ctx.screen_rect().width().max(1.0)).clamp(0.0, 0.8);
    if (cover.left_fraction - fraction).abs() > 0.01 {
        cover.left_fraction = fraction;
    }
    Ok(())
}

fn sessions_section(ui: &mut egui::Ui, sessions: &mut Sessions, recorder: &Recorder) {
    ui.label(egui::RichText::new("Sessions").strong());
    if sessions.shown().next().is_none() {
        ui.label("No program connected yet.");
    }
    let mut clicked = None;
    let mut detach = None;
    for (&session_id, view) in sessions.shown() {
        let Some(info) = &view.report.info else {
            continue;
        };
        let stats = &view.report.stats;
        let status = match &view.report.status {
            _ if view.crash.is_some() => "failed",
            SessionStatus::Handshaking => "handshaking",
            SessionStatus::Connected => "connected",
            SessionStatus::Ended(SessionEnd::Goodbye) => "ended",
            SessionStatus::Ended(SessionEnd::Disconnected) => "disconnected",
            SessionStatus::Ended(SessionEnd::Failed(_)) => "failed",
            SessionStatus::Ended(SessionEnd::ServerShutdown) => "stopped",
            SessionStatus::Ended(SessionEnd::Detached) => "detached",
        };
        let selected = sessions.selected == Some(session_id);
        let line = match (
            &stats.source,
            otlp_host(&info.agent),
            replayed_file(&info.agent),
        ) {
            // A replay is no attached program: it says so, with its file and position.
            (SessionSource::Replay { path }, _, _) => replay_line(
                &view.title(),
                path,
                recorder
                    .replays
                    .get(&session_id)
                    .map(|handle| handle.progress()),
                view.crash.is_some(),
            ),
            // `highrise replay --addr`: a recording sent over the wire, not a program.
            (SessionSource::Live, _, Some(file)) => {
                format!("{} · replay of {file} (sent) · {status}", view.title())
            }
            (SessionSource::Live, Some(host), None) => {
                format!("{} · {host} · {status}", view.title())
            }
            (SessionSource::Live, None, None) => {
                format!("{} · pid {} · {status}", view.title(), info.pid)
            }
        };
        // A session highrise failed on is a bug to report: its line in red.
        let line = if view.crash.is_some() {
            egui::RichText::new(line).color(egui::Color32::LIGHT_RED)
        } else {
            egui::RichText::new(line)
        };
        let live_agent = matches!(view.report.status, SessionStatus::Connected)
            && matches!(stats.source, SessionSource::Live)
            && otlp_host(&info.agent).is_none()
            && replayed_file(&info.agent).is_none();
        ui.horizontal(|ui| {
            if ui.selectable_label(selected, line).clicked() {
                clicked = Some(session_id);
            }
            if live_agent
                && ui
                    .small_button("Detach")
                    .on_hover_text(
                        "End this session and take the agent out of the program: \
                         an attached JVM gets its original code back and its sampler stops",
                    )
                    .clicked()
            {
                detach = Some(session_id);
            }
        });
        if let Some(crash) = &view.crash {
            ui.colored_label(egui::Color32::LIGHT_RED, crash_line(&crash.message))
                .on_hover_text(&crash.message);
        }
        ui.label(format!(
            "  {} · {} methods · {} threads",
            stats.flow(&info.measure),
            stats.definitions,
            view.report.threads.len()
        ));
        if let Some(info) = view
            .report
            .info
            .as_ref()
            .filter(|i| i.measure.is_estimated())
        {
            let window_s = view
                .snapshot()
                .map_or(highrise_aggregate::DEFAULT_WINDOW_S, Snapshot::window_s);
            ui.label(format!("  measured: {}", info.measure.describe(window_s)));
        }
        // The agent's notices: what it could not instrument, what counts as a thread.
        for notice in view.report.info.iter().flat_map(|info| &info.notices) {
            ui.label(format!("  {}", notice.text));
        }
        if let Some(line) = dropped_line(stats.agent_events_dropped, view.snapshot()) {
            ui.colored_label(egui::Color32::YELLOW, line);
        }
        if stats.errors_total > 0 {
            egui::CollapsingHeader::new(format!("  {} errors", stats.errors_total))
                .id_salt(("errors", session_id))
                .show(ui, |ui| {
                    for error in &view.report.errors {
                        ui.colored_label(egui::Color32::LIGHT_RED, error.to_string());
                    }
                });
        }
    }
    sessions.detach.extend(detach);
    if clicked.is_some() {
        sessions.selected = clicked;
    }
}

/// The session list's line for a replayed recording: its file and where the replay is
/// (program time reached / the recording's end), playing, paused or finished.
pub fn replay_line(
    title: &str,
    path: &std::path::Path,
    progress: Option<ReplayProgress>,
    crashed: bool,
) -> String {
    let file = path.file_name().map_or_else(
        || path.display().to_string(),
        |name| name.to_string_lossy().into_owned(),
    );
    let Some(progress) = progress else {
        return format!("{title} · replay of {file}");
    };
    let state = if crashed {
        "failed"
    } else if progress.finished {
        "replayed"
    } else if progress.paused {
        "paused"
    } else {
        "replaying"
    };
    format!(
        "{title} · replay of {file} · {:.1} / {:.1} s · {state}",
        progress.program_time_ns as f64 / 1e9,
        progress.end_program_time_ns as f64 / 1e9
    )
}

/// Longest crash message the session list shows in full (the rest is on hover), characters.
pub const CRASH_LINE_CHARS: usize = 160;

/// The session list's line for a session highrise failed on: a bug to report, with the
/// message (cut at [`CRASH_LINE_CHARS`]).
pub fn crash_line(message: &str) -> String {
    let shown: String = message.chars().take(CRASH_LINE_CHARS).collect();
    let cut = if shown.len() < message.len() {
        "…"
    } else {
        ""
    };
    format!("  failed — a highrise bug, report this: {shown}{cut}")
}

/// How exact the session's numbers are: the share of events the agent dropped over the window
/// (buildings it made estimates of say so in their tooltip), and the run's total.
pub fn dropped_line(events_dropped: u64, snapshot: Option<&Snapshot>) -> Option<String> {
    if events_dropped == 0 {
        return None;
    }
    let window_s = snapshot.map_or(0.0, |s| s.window_ns as f64 / 1e9);
    Some(match snapshot.map_or(0.0, |s| s.dropped_share) {
        share if share > 0.0 => format!(
            "  {:.1} % of events dropped in the last {window_s:.1} s ({events_dropped} in all): \
             ≈ buildings are estimates",
            share * 100.0
        ),
        _ => format!("  {events_dropped} events dropped earlier, none in the last {window_s:.1} s"),
    })
}

fn view_section(
    ui: &mut egui::Ui,
    (height_mode, height_scale, full_scale): (
        &mut HeightMode,
        &mut HeightScale,
        Option<(f32, bool)>,
    ),
    colour_mode: &mut ColourMode,
    (class_floors, detail): (&mut ClassFloors, &mut LevelOfDetail),
    call_arcs: &mut CallArcs,
    camera_mode: CameraMode,
) {
    ui.label(egui::RichText::new("Height").strong());
    ui.horizontal(|ui| {
        ui.radio_value(height_mode, HeightMode::Exclusive, "exclusive");
        ui.radio_value(height_mode, HeightMode::Inclusive, "inclusive");
        ui.radio_value(height_mode, HeightMode::Summed, "summed");
    })
    .response
    .on_hover_text("Time: the share of the last window each method spent on top of a stack");
    ui.horizontal(|ui| {
        ui.radio_value(height_mode, HeightMode::Allocations, "allocations/s")
            .on_hover_text("Objects each method's own frames create per second (the busiest stands at full height)");
    });
    if !height_mode.reads_memory() {
        ui.horizontal(|ui| {
            ui.radio_value(height_scale, HeightScale::Auto, "auto")
                .on_hover_text("Relative; by the square root from 1,000 methods, so a big program's next hot spots stand as towers too");
            ui.radio_value(height_scale, HeightScale::Relative, "relative")
                .on_hover_text("Full height is about the hottest method's share, heights in proportion");
            ui.radio_value(height_scale, HeightScale::Sqrt, "√")
                .on_hover_text("Relative, heights by the square root: a method at a quarter of full height stands half as tall");
            ui.radio_value(height_scale, HeightScale::Absolute, "absolute")
                .on_hover_text("The paper's scale: full height is 100 % of the window");
        });
        // The legend: what a full-height building means now, in the selected city.
        if let Some((full, sqrt)) = full_scale.filter(|(full, _)| *full > 0.0) {
            ui.label(if sqrt {
                format!(
                    "full height = {:.0} %, half height = {:.1} % of the window (√)",
                    full * 100.0,
                    full * 25.0
                )
            } else {
                format!("full height = {:.0} % of the window", full * 100.0)
            });
        }
    }
    ui.label(egui::RichText::new("Colour").strong());
    ui.horizontal(|ui| {
        ui.radio_value(colour_mode, ColourMode::Heat, "heat");
        ui.radio_value(colour_mode, ColourMode::Class, "class");
        ui.radio_value(colour_mode, ColourMode::Threads, "threads");
        ui.radio_value(colour_mode, ColourMode::Bytes, "bytes")
            .on_hover_text(
                "Bytes allocated over the window: red the most, blue the least (log scale)",
            );
    });
    ui.checkbox(&mut class_floors.0, "class floors")
        .on_hover_text("Stack each building into floors, one per class its method creates, thickness by count (since start)");
    let mut grouped = *detail == LevelOfDetail::Auto;
    if ui
        .checkbox(&mut grouped, "group far classes")
        .on_hover_text("Level of detail: where a class's buildings are too small on screen to tell apart, its block is one box, as tall as its tallest method (hover names that method)")
        .changed()
    {
        *detail = if grouped {
            LevelOfDetail::Auto
        } else {
            LevelOfDetail::Off
        };
    }
    ui.horizontal(|ui| {
        ui.label("call arcs");
        ui.radio_value(call_arcs, CallArcs::Off, "off");
        ui.radio_value(call_arcs, CallArcs::Hovered, "hovered");
        ui.radio_value(call_arcs, CallArcs::Top, format!("top {}", crate::viewer::arcs::TOP_EDGES));
    })
    .response
    .on_hover_text("Who calls whom over the last window: arcs from caller (cyan) to callee (orange), thicker for more calls/s; the hovered building's, or also each city's busiest");
    ui.label(format!(
        "Camera: {} (Tab) · F frame · F12 screenshot",
        match camera_mode {
            CameraMode::Orbit => "orbit — drag, right-drag, wheel",
            CameraMode::Fly => "fly — WASD, Space/Shift, right-drag",
        }
    ));
}

fn search_section(
    ui: &mut egui::Ui,
    sessions: &Sessions,
    cities: &Cities,
    search_box: &mut SearchBox,
    search_index: &mut SearchIndex,
    focus: &mut EventWriter<FocusOn>,
) {
    ui.label(egui::RichText::new("Find a method").strong());
    ui.text_edit_singleline(&mut search_box.0);
    for (session_id, method_id, name) in search_index.find(sessions, cities, &search_box.0, 12) {
        let (session_id, method_id) = (*session_id, *method_id);
        if ui.small_button(name).clicked() {
            if let Some(point) = cities
                .session(session_id)
                .and_then(|city| method_focus_point(city, method_id))
            {
                focus.write(FocusOn {
                    point,
                    distance_wu: 25.0,
                });
            }
        }
    }
}

/// The selected session's window, top methods and package tree; returns the package a click
/// asked to focus (`Some(None)`: the whole city again).
fn selected_section(
    ui: &mut egui::Ui,
    session_id: u64,
    view: &mut SessionView,
    city: &mut City,
    (focus, commands): (&mut EventWriter<FocusOn>, &mut EventWriter<SessionCommand>),
    focused_package: Option<&str>,
) -> Option<Option<String>> {
    ui.label(egui::RichText::new(view.title()).strong());
    let mut window_s = view.window_s;
    if ui
        .add(
            egui::Slider::new(&mut window_s, 0.5..=60.0)
                .logarithmic(true)
                .text("window s"),
        )
        .changed()
    {
        view.window_s = window_s;
        commands.write(SessionCommand {
            session_id,
            command: AggregateCommand::SetWindow {
                window_ns: (f64::from(window_s) * 1e9) as u64,
            },
        });
    }
    if ui.button("Tidy layout").clicked() {
        city.tidy();
    }

    ui.label(egui::RichText::new("Top methods").strong());
    if let Some(snapshot) = view.shown_snapshot().cloned() {
        for (method_id, stats) in snapshot.top_by_elevation(10) {
            let name = city
                .layout
                .as_ref()
                .and_then(|layout| layout.building_of(method_id))
                .and_then(|building| building_names(city, building))
                .map_or_else(|| format!("method #{method_id}"), |names| names.0);
            let label = format!(
                "{}{:>5.1} %  {}×  {name}",
                if stats.approximate { "≈" } else { "" },
                stats.elevation * 100.0,
                stats.thread_count
            );
            if ui.small_button(label).clicked() {
                if let Some(point) = method_focus_point(city, method_id) {
                    focus.write(FocusOn {
                        point,
                        distance_wu: 25.0,
                    });
                }
            }
        }
    }

    ui.label(egui::RichText::new("Packages (click to dive in, untick to exclude)").strong());
    let layout = city.layout.as_ref()?;
    let mut changed = false;
    let mut wanted_focus = None;
    let mut packages: Vec<(u16, String)> = layout
        .packages()
        .iter()
        .filter(|p| !p.path.is_empty())
        .map(|p| (p.depth, p.path.clone()))
        .collect();
    packages.sort_by(|a, b| a.1.cmp(&b.1));
    for (depth, path) in packages {
        let mut included = !view.excluded_packages.contains(&path);
        ui.horizontal(|ui| {
            ui.add_space(f32::from(depth.saturating_sub(1)) * 14.0);
            let name = path.rsplit('.').next().unwrap_or(&path).to_string();
            if ui
                .checkbox(&mut included, "")
                .on_hover_text("Untick to leave this package out of the city")
                .changed()
            {
                changed = true;
            }
            let is_focused = focused_package == Some(path.as_str());
            if ui
                .selectable_label(is_focused, name)
                .on_hover_text(
                    "Dive in: frame this package and dim the rest (again: the whole city)",
                )
                .clicked()
            {
                wanted_focus = Some((!is_focused).then(|| path.clone()));
            }
        });
        if included {
            view.excluded_packages.remove(&path);
        } else {
            view.excluded_packages.insert(path);
        }
    }
    if changed {
        commands.write(SessionCommand {
            session_id,
            command: AggregateCommand::ExcludePackages(
                view.excluded_packages.iter().cloned().collect(),
            ),
        });
    }
    wanted_focus
}

/// The compare controls: which sessions are A and B, the mode, and the structural summary.
fn compare_section(ui: &mut egui::Ui, sessions: &Sessions, compare: &mut Compare) {
    ui.label(egui::RichText::new("Compare two versions").strong());
    ui.horizontal_wrapped(|ui| {
        for mode in CompareMode::ALL {
            ui.radio_value(&mut compare.mode, mode, mode.label());
        }
    });
    if compare.mode == CompareMode::Off {
        return;
    }
    let choices: Vec<(u64, String)> = sessions
        .shown()
        .map(|(&id, view)| (id, format!("#{id} {}", view.title())))
        .collect();
    for (label, slot) in [("A", &mut compare.a), ("B", &mut compare.b)] {
        let current = slot
            .and_then(|id| choices.iter().find(|(c, _)| *c == id))
            .map_or_else(|| "choose…".to_string(), |(_, name)| name.clone());
        egui::ComboBox::from_label(label)
            .selected_text(current)
            .show_ui(ui, |ui| {
                for (id, name) in &choices {
                    ui.selectable_value(slot, Some(*id), name);
                }
            });
    }
    if !compare.is_active() {
        ui.label("Choose two different sessions.");
        return;
    }
    let Some(summary) = compare.summary.as_ref() else {
        return;
    };
    let list = |items: &[String]| {
        if items.is_empty() {
            "none".to_string()
        } else {
            items.join(", ")
        }
    };
    ui.label(format!(
        "methods: +{} added, −{} removed, {} moved",
        summary.methods_added.len(),
        summary.methods_removed.len(),
        summary.methods_moved.len()
    ));
    ui.label(format!("packages added: {}", list(&summary.packages_added)));
    ui.label(format!(
        "packages removed: {}",
        list(&summary.packages_removed)
    ));
    ui.label(format!(
        "classes added: {} · removed: {}",
        list(&summary.classes_added),
        list(&summary.classes_removed)
    ));
    for moved in &summary.classes_moved {
        ui.small(format!(
            "class {}: {} -> {}",
            highrise_protocol::display_class(&moved.class),
            moved.from_package,
            moved.to_package
        ));
    }
    let class_moved = |class: &str, from: &str| {
        summary
            .classes_moved
            .iter()
            .any(|m| m.class == class && m.from_package == from)
    };
    // Methods that moved without their whole class.
    let lone_moves: Vec<_> = summary
        .methods_moved
        .iter()
        .filter(|m| !class_moved(&m.class, &m.from_package))
        .collect();
    for moved in lone_moves.iter().take(12) {
        ui.small(format!(
            "{}: {} -> {}",
            highrise_protocol::display_name(
                "",
                &moved.class,
                &moved.method,
                moved.signature.as_deref()
            ),
            moved.from_package,
            moved.to_package
        ));
    }
    if lone_moves.len() > 12 {
        ui.small(format!("… and {} more moved", lone_moves.len() - 12));
    }
    if compare.mode == CompareMode::Diff {
        ui.small("height |B − A| · blue faster · red slower · green added · purple removed · amber moved");
    }
}
