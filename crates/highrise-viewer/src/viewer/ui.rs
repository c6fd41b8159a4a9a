//! The egui side: a panel with sessions, modes, the window length, search, top methods, the
//! package tree (live exclusion) and "tidy layout"; and the tooltip of what is hovered.

use bevy::prelude::*;
use bevy_egui::{egui, EguiContexts, EguiPrimaryContextPass};
use highrise_aggregate::MethodStats;
use highrise_ingest::{AggregateCommand, SessionEnd, SessionStatus};
use highrise_layout::HitTarget;

use highrise_layout::{Change, CityLayout};

use super::camera::{CameraMode, FocusOn, MainCamera};
use super::city::{CityKey, ColourMode, HeightMode};
use super::compare::{Compare, CompareMode};
use super::hover::Hovered;
use super::recording::{open_section, recording_section, Recorder};
use super::sessions::{Ingest, SessionCommand, SessionView, Sessions};

#[derive(Debug)]
pub struct UiPlugin;

impl Plugin for UiPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<SearchBox>().add_systems(
            EguiPrimaryContextPass,
            (panel, city_labels, tooltip).chain(),
        );
    }
}

/// The search box's text.
#[derive(Resource, Default, Debug)]
pub struct SearchBox(pub String);

/// "package.Class.method" (the fully-qualified name users search and read).
pub use highrise_protocol::qualified_name;

/// Names of a building: (display name, class as people read it, package); see
/// [`layout_building_names`].
pub fn building_names(view: &SessionView, building: u32) -> Option<(String, String, String)> {
    layout_building_names(view.city.layout.as_ref()?, building)
}

/// Names of a building of any plan: (the method's display name,
/// `main.game.Board.createOrientation(String, InputStream)` per language as
/// [`highrise_protocol::display_name`] spells it; the class, `Outer.Inner`; the package).
pub fn layout_building_names(
    layout: &CityLayout,
    building: u32,
) -> Option<(String, String, String)> {
    let (package, class, method, signature) = building_parts(layout, building)?;
    Some((
        highrise_protocol::display_name(package, class, method, signature),
        highrise_protocol::display_class(class),
        package.to_string(),
    ))
}

/// The name of a building as the agent sent it: `package.Class.method` and the raw signature
/// (`main.game.Board.rotate(I)V`), what search matches besides the display name.
pub fn raw_building_name(layout: &CityLayout, building: u32) -> Option<String> {
    let (package, class, method, signature) = building_parts(layout, building)?;
    let mut name = qualified_name(package, class, method);
    name.push_str(signature.unwrap_or_default());
    Some(name)
}

/// (package, class, method, signature) of a building, as sent.
fn building_parts(layout: &CityLayout, building: u32) -> Option<(&str, &str, &str, Option<&str>)> {
    let placed = layout.buildings().get(building as usize)?;
    let block = layout.blocks().get(placed.block as usize)?;
    let class = layout.classes().get(block.class as usize)?;
    let package = layout.packages().get(class.package as usize)?;
    let (method, signature) = layout.method_name(building)?;
    Some((&package.path, &class.name, method, signature))
}

fn percent(fraction: f32) -> String {
    format!("{:.1} %", fraction * 100.0)
}

/// The tooltip's lines for what is hovered (empty when nothing is).
pub fn tooltip_lines(sessions: &Sessions, compare: &Compare, hovered: &Hovered) -> Vec<String> {
    let (Some(key), Some(target)) = (hovered.city, hovered.target) else {
        return Vec::new();
    };
    let CityKey::Session(session_id) = key else {
        return compare_tooltip_lines(sessions, compare, key, target);
    };
    let Some(view) = sessions.by_id.get(&session_id) else {
        return Vec::new();
    };
    let Some(layout) = view.city.layout.as_ref() else {
        return Vec::new();
    };
    let stats_of = |method_id: u32| {
        view.snapshot()
            .map_or_else(MethodStats::default, |s| s.method(method_id))
    };
    match target {
        HitTarget::Building {
            building,
            method_id,
        } => {
            let Some((name, class, package)) = building_names(view, building) else {
                return Vec::new();
            };
            let stats = stats_of(method_id);
            vec![
                name,
                format!("elevation {}", percent(stats.elevation)),
                format!("threads {}", stats.thread_count),
                format!("calls in window {}", stats.calls),
                format!("inclusive {}", percent(stats.inclusive_elevation)),
                format!("summed over threads {}", percent(stats.summed_elevation)),
                format!(
                    "class {class} · package {}",
                    if package.is_empty() {
                        "(root)"
                    } else {
                        &package
                    }
                ),
                format!("program {}", view.title()),
            ]
        }
        HitTarget::Block { block } => {
            let Some(class_index) = layout.blocks().get(block as usize).map(|b| b.class) else {
                return Vec::new();
            };
            let methods: Vec<u32> = layout
                .buildings()
                .iter()
                .filter(|b| layout.blocks()[b.block as usize].class == class_index)
                .map(|b| b.method_id)
                .collect();
            let class = &layout.classes()[class_index as usize];
            let package = &layout.packages()[class.package as usize].path;
            totals_lines(
                format!("class {}", qualified_name_of_class(package, &class.name)),
                &methods,
                &stats_of,
            )
        }
        HitTarget::District { district } => {
            let Some(package_index) = layout.districts().get(district as usize).map(|d| d.package)
            else {
                return Vec::new();
            };
            let package = &layout.packages()[package_index as usize];
            let prefix = format!("{}.", package.path);
            let methods: Vec<u32> = layout
                .buildings()
                .iter()
                .filter(|b| {
                    let class = &layout.classes()[layout.blocks()[b.block as usize].class as usize];
                    let path = &layout.packages()[class.package as usize].path;
                    package.path.is_empty() || *path == package.path || path.starts_with(&prefix)
                })
                .map(|b| b.method_id)
                .collect();
            let label = if package.path.is_empty() {
                "(root package)".to_string()
            } else {
                package.path.clone()
            };
            totals_lines(format!("package {label}"), &methods, &stats_of)
        }
    }
}

/// Tooltip of a compare city: the method with both versions' values and the difference, or the
/// class or package under the cursor.
fn compare_tooltip_lines(
    sessions: &Sessions,
    compare: &Compare,
    key: CityKey,
    target: HitTarget,
) -> Vec<String> {
    let Some(pair) = compare.pair.as_ref() else {
        return Vec::new();
    };
    let layout = &pair.city;
    let title = compare.label(sessions, key);
    match target {
        HitTarget::Building { building, .. } => {
            let (Some((name, class, package)), Some(plot)) = (
                layout_building_names(layout, building),
                pair.buildings.get(building as usize),
            ) else {
                return Vec::new();
            };
            let side = |session: Option<u64>, method_id: Option<u32>| {
                let view = session.and_then(|id| sessions.by_id.get(&id));
                let label = view.map_or_else(|| "?".to_string(), |v| v.title());
                match method_id {
                    None => (None, format!("{label}: not in this version")),
                    Some(id) => {
                        let stats = view
                            .and_then(|v| v.snapshot())
                            .map_or_else(MethodStats::default, |s| s.method(id));
                        (
                            Some(stats.elevation),
                            format!(
                                "{label}: elevation {} · {} threads · {} calls",
                                percent(stats.elevation),
                                stats.thread_count,
                                stats.calls
                            ),
                        )
                    }
                }
            };
            let id_a = plot.method_id_a.or_else(|| {
                compare
                    .moved_from_a
                    .get(building as usize)
                    .copied()
                    .flatten()
            });
            let (value_a, line_a) = side(compare.a, id_a);
            let (value_b, line_b) = side(compare.b, plot.method_id_b);
            let verdict = match (plot.change, value_a, value_b) {
                (Change::Added, ..) => "added in B".to_string(),
                (Change::Removed, ..) => "removed in B".to_string(),
                (Change::MovedIn, Some(a), Some(b)) => format!(
                    "moved into this package in B · B − A: {:+.1} points",
                    (b - a) * 100.0
                ),
                (Change::MovedIn, ..) => "moved into this package in B".to_string(),
                (Change::MovedOut, ..) => "moved out of this package in B".to_string(),
                (Change::Unchanged, Some(a), Some(b)) => {
                    let delta_points = (b - a) * 100.0;
                    let word = if delta_points > 0.05 {
                        "slower"
                    } else if delta_points < -0.05 {
                        "faster"
                    } else {
                        "unchanged"
                    };
                    format!("B − A: {delta_points:+.1} points ({word})")
                }
                (Change::Unchanged, ..) => String::new(),
            };
            let mut lines = vec![name, format!("A · {line_a}"), format!("B · {line_b}")];
            if !verdict.is_empty() {
                lines.push(verdict);
            }
            lines.push(format!(
                "class {class} · package {}",
                if package.is_empty() {
                    "(root)"
                } else {
                    &package
                }
            ));
            lines.push(title);
            lines
        }
        HitTarget::Block { block } => {
            let Some(class) = layout
                .blocks()
                .get(block as usize)
                .and_then(|b| layout.classes().get(b.class as usize))
            else {
                return Vec::new();
            };
            let package = &layout.packages()[class.package as usize].path;
            vec![
                format!("class {}", qualified_name_of_class(package, &class.name)),
                title,
            ]
        }
        HitTarget::District { district } => {
            let Some(package) = layout
                .districts()
                .get(district as usize)
                .and_then(|d| layout.packages().get(d.package as usize))
            else {
                return Vec::new();
            };
            vec![format!("package {}", package.path), title]
        }
    }
}

/// "package.Class" (just the class in the root package), nested classes as people read them
/// (`game.Outer.Inner`).
pub fn qualified_name_of_class(package: &str, class: &str) -> String {
    let class = highrise_protocol::display_class(class);
    if package.is_empty() {
        class
    } else {
        format!("{package}.{class}")
    }
}

fn totals_lines(
    title: String,
    methods: &[u32],
    stats_of: &dyn Fn(u32) -> MethodStats,
) -> Vec<String> {
    let mut summed = 0.0f32;
    let mut calls = 0u64;
    let mut busiest: Option<(u32, f32)> = None;
    for &method_id in methods {
        let stats = stats_of(method_id);
        summed += stats.summed_elevation;
        calls += u64::from(stats.calls);
        if busiest.is_none_or(|(_, e)| stats.elevation > e) {
            busiest = Some((method_id, stats.elevation));
        }
    }
    let mut lines = vec![
        title,
        format!("{} methods", methods.len()),
        format!("summed elevation {}", percent(summed)),
        format!("calls in window {calls}"),
    ];
    if let Some((_, elevation)) = busiest.filter(|(_, e)| *e > 0.0) {
        lines.push(format!("busiest method at {}", percent(elevation)));
    }
    lines
}

/// Where to fly to show a method: the top of its building, world coordinates.
pub fn method_focus_point(view: &SessionView, method_id: u32) -> Option<Vec3> {
    let layout = view.city.layout.as_ref()?;
    let index = layout.building_of(method_id)? as usize;
    let building = &layout.buildings()[index];
    let height = view.city.heights_wu.get(index).copied().unwrap_or(0.0);
    let centre = building.footprint.center();
    Some(Vec3::new(centre.x, building.base_height_wu + height, centre.z) + view.city.origin)
}

/// Methods of all cities whose display name (`Board.createOrientation(String, InputStream)`)
/// or name as sent (`Board.createOrientation(Ljava/lang/String;…`) contains `query`
/// (case-insensitive); each with its display name.
pub fn search(sessions: &Sessions, query: &str, limit: usize) -> Vec<(u64, u32, String)> {
    let query = query.trim().to_lowercase();
    if query.is_empty() {
        return Vec::new();
    }
    let mut found = Vec::new();
    for (&session_id, view) in sessions.shown() {
        let Some(layout) = view.city.layout.as_ref() else {
            continue;
        };
        for (index, building) in layout.buildings().iter().enumerate() {
            if let Some((name, _, _)) = building_names(view, index as u32) {
                if building_matches(layout, index as u32, &name, &query) {
                    found.push((session_id, building.method_id, name));
                    if found.len() >= limit {
                        return found;
                    }
                }
            }
        }
    }
    found
}

/// Whether a building's display name `name` or its name as sent contains `query` (already
/// lower-case): `createorientation(string` and `ljava/lang/string;` both find
/// `Board.createOrientation(Ljava/lang/String;Ljava/io/InputStream;)[[Z`.
pub fn building_matches(layout: &CityLayout, building: u32, name: &str, query: &str) -> bool {
    name.to_lowercase().contains(query)
        || raw_building_name(layout, building).is_some_and(|raw| raw.to_lowercase().contains(query))
}

#[allow(clippy::too_many_arguments)] // a Bevy system: each parameter is one resource or query
fn panel(
    mut contexts: EguiContexts,
    mut sessions: ResMut<Sessions>,
    mut compare: ResMut<Compare>,
    mut height_mode: ResMut<HeightMode>,
    mut colour_mode: ResMut<ColourMode>,
    camera_mode: Res<CameraMode>,
    mut search_box: ResMut<SearchBox>,
    mut focus: EventWriter<FocusOn>,
    mut commands: EventWriter<SessionCommand>,
    ingest: Option<Res<Ingest>>,
    mut recorder: ResMut<Recorder>,
    mut cover: ResMut<super::camera::PanelCover>,
) -> Result {
    let ctx = contexts.ctx_mut()?;
    let panel_width = egui::SidePanel::left("highrise-panel")
        .default_width(300.0)
        .show(ctx, |ui| {
            egui::ScrollArea::vertical().show(ui, |ui| {
                ui.heading("highrise");
                sessions_section(ui, &mut sessions);
                open_section(ui, ingest.as_deref(), &mut recorder);
                ui.separator();
                view_section(ui, &mut height_mode, &mut colour_mode, *camera_mode);
                ui.separator();
                compare_section(ui, &sessions, &mut compare);
                ui.separator();
                search_section(ui, &sessions, &mut search_box, &mut focus);
                let Some(selected) = sessions.selected else {
                    ui.label("Waiting for a program to connect…");
                    return;
                };
                if let Some(view) = sessions.by_id.get_mut(&selected) {
                    ui.separator();
                    recording_section(ui, selected, view, ingest.as_deref(), &mut recorder);
                    selected_section(ui, selected, view, &mut focus, &mut commands);
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

fn sessions_section(ui: &mut egui::Ui, sessions: &mut Sessions) {
    ui.label(egui::RichText::new("Sessions").strong());
    if sessions.shown().next().is_none() {
        ui.label("No program connected yet.");
    }
    let mut clicked = None;
    for (&session_id, view) in sessions.shown() {
        let Some(info) = &view.report.info else {
            continue;
        };
        let stats = &view.report.stats;
        let status = match &view.report.status {
            SessionStatus::Handshaking => "handshaking".to_string(),
            SessionStatus::Connected => "connected".to_string(),
            SessionStatus::Ended(SessionEnd::Goodbye) => "ended".to_string(),
            SessionStatus::Ended(SessionEnd::Disconnected) => "disconnected".to_string(),
            SessionStatus::Ended(SessionEnd::Failed(_)) => "failed".to_string(),
            SessionStatus::Ended(SessionEnd::ServerShutdown) => "stopped".to_string(),
        };
        let selected = sessions.selected == Some(session_id);
        if ui
            .selectable_label(
                selected,
                format!("{} · pid {} · {status}", view.title(), info.pid),
            )
            .clicked()
        {
            clicked = Some(session_id);
        }
        ui.label(format!(
            "  {:.0} events/s · {} methods · {} threads",
            stats.events_per_s,
            stats.definitions,
            view.report.threads.len()
        ));
        if stats.agent_events_dropped > 0 {
            ui.colored_label(
                egui::Color32::YELLOW,
                format!(
                    "  {} events dropped by the agent",
                    stats.agent_events_dropped
                ),
            );
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
    if clicked.is_some() {
        sessions.selected = clicked;
    }
}

fn view_section(
    ui: &mut egui::Ui,
    height_mode: &mut HeightMode,
    colour_mode: &mut ColourMode,
    camera_mode: CameraMode,
) {
    ui.label(egui::RichText::new("Height").strong());
    ui.horizontal(|ui| {
        ui.radio_value(height_mode, HeightMode::Exclusive, "exclusive");
        ui.radio_value(height_mode, HeightMode::Inclusive, "inclusive");
        ui.radio_value(height_mode, HeightMode::Summed, "summed");
    });
    ui.label(egui::RichText::new("Colour").strong());
    ui.horizontal(|ui| {
        ui.radio_value(colour_mode, ColourMode::Heat, "heat");
        ui.radio_value(colour_mode, ColourMode::Class, "class");
        ui.radio_value(colour_mode, ColourMode::Threads, "threads");
    });
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
    search_box: &mut SearchBox,
    focus: &mut EventWriter<FocusOn>,
) {
    ui.label(egui::RichText::new("Find a method").strong());
    ui.text_edit_singleline(&mut search_box.0);
    for (session_id, method_id, name) in search(sessions, &search_box.0, 12) {
        if ui.small_button(&name).clicked() {
            if let Some(point) = sessions
                .by_id
                .get(&session_id)
                .and_then(|view| method_focus_point(view, method_id))
            {
                focus.write(FocusOn {
                    point,
                    distance_wu: 25.0,
                });
            }
        }
    }
}

fn selected_section(
    ui: &mut egui::Ui,
    session_id: u64,
    view: &mut SessionView,
    focus: &mut EventWriter<FocusOn>,
    commands: &mut EventWriter<SessionCommand>,
) {
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
        view.city.tidy();
    }

    ui.label(egui::RichText::new("Top methods").strong());
    if let Some(snapshot) = view.report.sink.clone() {
        for (method_id, stats) in snapshot.top_by_elevation(10) {
            let name = view
                .city
                .layout
                .as_ref()
                .and_then(|layout| layout.building_of(method_id))
                .and_then(|building| building_names(view, building))
                .map_or_else(|| format!("method #{method_id}"), |names| names.0);
            let label = format!(
                "{:>5.1} %  {}×  {name}",
                stats.elevation * 100.0,
                stats.thread_count
            );
            if ui.small_button(label).clicked() {
                if let Some(point) = method_focus_point(view, method_id) {
                    focus.write(FocusOn {
                        point,
                        distance_wu: 25.0,
                    });
                }
            }
        }
    }

    ui.label(egui::RichText::new("Packages (untick to exclude)").strong());
    let Some(layout) = view.city.layout.as_ref() else {
        return;
    };
    let mut changed = false;
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
            if ui.checkbox(&mut included, name).changed() {
                changed = true;
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

/// Names each city in the scene, at its front edge.
fn city_labels(
    mut contexts: EguiContexts,
    sessions: Res<Sessions>,
    compare: Res<Compare>,
    cameras: Query<(&Camera, &GlobalTransform), With<MainCamera>>,
) -> Result {
    let Ok((camera, camera_transform)) = cameras.single() else {
        return Ok(());
    };
    let ctx = contexts.ctx_mut()?;
    let painter = ctx.layer_painter(egui::LayerId::background());
    for key in compare.scene_order(&sessions) {
        let Some(bounds) = compare
            .city(&sessions, key)
            .and_then(|city| city.world_bounds())
        else {
            continue;
        };
        let anchor = Vec3::new((bounds.min_x + bounds.max_x) / 2.0, 0.0, bounds.max_z + 1.5);
        let Ok(position) = camera.world_to_viewport(camera_transform, anchor) else {
            continue;
        };
        painter.text(
            egui::pos2(position.x, position.y),
            egui::Align2::CENTER_TOP,
            compare.label(&sessions, key),
            egui::FontId::proportional(16.0),
            egui::Color32::from_rgb(235, 235, 240),
        );
    }
    Ok(())
}

fn tooltip(
    mut contexts: EguiContexts,
    sessions: Res<Sessions>,
    compare: Res<Compare>,
    hovered: Res<Hovered>,
) -> Result {
    let lines = tooltip_lines(&sessions, &compare, &hovered);
    if lines.is_empty() {
        return Ok(());
    }
    let ctx = contexts.ctx_mut()?;
    let Some(pointer) = ctx.pointer_hover_pos() else {
        return Ok(());
    };
    egui::Area::new(egui::Id::new("highrise-tooltip"))
        .order(egui::Order::Tooltip)
        .fixed_pos(pointer + egui::vec2(16.0, 16.0))
        .interactable(false)
        .show(ctx, |ui| {
            egui::Frame::popup(ui.style()).show(ui, |ui| {
                ui.style_mut().wrap_mode = Some(egui::TextWrapMode::Extend);
                let mut lines = lines.iter();
                if let Some(title) = lines.next() {
                    ui.label(egui::RichText::new(title).strong());
                }
                for line in lines {
                    ui.label(line);
                }
            });
        });
    Ok(())
}

#[cfg(test)]
mod tests {
    use highrise_layout::MethodSpec;

    use super::*;

    fn spec(id: u32, package: &str, class: &str, method: &str, signature: &str) -> MethodSpec {
        MethodSpec {
            id,
            package: package.into(),
            class: class.into(),
            method: method.into(),
            signature: Some(signature.into()),
        }
    }

    #[test]
    fn buildings_are_named_per_language_and_found_by_either_name() {
        let specs = [
            spec(
                0,
                "main.game",
                "Board",
                "createOrientation",
                "(Ljava/lang/String;Ljava/io/InputStream;)[[Z",
            ),
            spec(1, "main.game", "Board$Cell", "<init>", "(II)V"),
            spec(
                2,
                "pygments.lexer",
                "RegexLexer",
                "get_tokens_unprocessed",
                "(self, text, stack)",
            ),
        ];
        let layout = CityLayout::full(&specs).expect("lays out");
        let names = |id: u32| {
            let building = layout.building_of(id).expect("placed");
            let names = layout_building_names(&layout, building).expect("named");
            (building, names)
        };
        let (orientation, (name, class, package)) = names(0);
        assert_eq!(
            name,
            "main.game.Board.createOrientation(String, InputStream)"
        );
        assert_eq!((class.as_str(), package.as_str()), ("Board", "main.game"));
        let (_, (name, class, _)) = names(1);
        assert_eq!(name, "main.game.Board.Cell.Cell(int, int)");
        assert_eq!(class, "Board.Cell");
        let (_, (name, _, _)) = names(2);
        assert_eq!(
            name,
            "pygments.lexer.RegexLexer.get_tokens_unprocessed(self, text, stack)"
        );
        let (_, (shown, _, _)) = names(0);
        for query in [
            "createorientation(string, inputstream",
            "ljava/io/inputstream;",
        ] {
            assert!(
                building_matches(&layout, orientation, &shown, query),
                "{query}"
            );
        }
        assert!(!building_matches(&layout, orientation, &shown, "rotate"));
        assert_eq!(
            qualified_name_of_class("main.game", "Board$Cell"),
            "main.game.Board.Cell"
        );
    }
}
