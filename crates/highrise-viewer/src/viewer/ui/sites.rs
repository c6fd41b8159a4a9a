//! The allocation-site view: a window with the selected session's allocation-site tree
//! ([`crate::viewer::sites`]) and its class list, as in Fernandez Blanco et al. (2018).
//!
//! - Nodes are coloured by bytes created here and in callees (red the most, blue the least,
//!   log scale), or by time in finished calls (log scale) when the tree shows time; inner boxes are the classes created in
//!   the context itself, sized by count, in each class's colour (the city's class floors use
//!   the same); edge width grows with the calls through the callee's context.
//! - Hovering a node highlights its outgoing edges and the nodes they reach and shows the
//!   popup (method, calls, classes created here — marked — and in callees, instances, kB);
//!   clicking it flies the city camera to the method's building.
//! - The class list: classes by instances with a bar in the class colour, kB; hovering a class
//!   shades every context that does not create it (here or in callees), clicking pins that
//!   until clicked again, right-clicking excludes it (its boxes go, emptied branches are
//!   pruned) or brings it back.
//!
//! Only what is on screen is drawn: the layout is built once per tree change, and a frame
//! visits each node once to cull it.

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

use bevy::prelude::*;
use bevy_egui::{egui, EguiContexts};
use highrise_aggregate::{ContextTree, OTHER_CONTEXTS};

use crate::viewer::camera::FocusOn;
use crate::viewer::city::{class_colour, heat_colour, log_share, Cities, ColourKey, HEAT_STEPS};
use crate::viewer::sessions::{Report, Sessions};
use crate::viewer::sites::{site_tree, SiteNode, SiteTree, SitesShow};

use super::search::method_focus_point;

/// A node's box, px.
pub const NODE_W: f32 = 170.0;
pub const NODE_H: f32 = 26.0;
/// From one column's left edge to the next's, and one row's top to the next's, px.
pub const COLUMN_W: f32 = 215.0;
pub const ROW_H: f32 = 34.0;
const MARGIN: f32 = 12.0;
/// Inner boxes drawn per node (the popup lists every class).
const INNER_BOXES: usize = 4;

/// The view's state (a resource): open or not, what it shows, excluded and pinned classes,
/// and the laid-out tree of the selected session.
#[derive(Resource, Debug, Default)]
pub struct SitesView {
    pub open: bool,
    pub show: SitesShow,
    /// Classes left out (per session: cleared when the selected session changes).
    pub excluded: BTreeSet<u32>,
    /// The class whose contexts stay highlighted until clicked again.
    pub pinned_class: Option<u32>,
    cache: Option<SitesCache>,
    /// A layout being built off the main thread (a 50k-context tree takes tens of ms).
    pending: Option<std::thread::JoinHandle<SitesCache>>,
}

/// (session, tree generation, definitions, classes, show, excluded classes).
type SitesKey = (u64, u64, usize, usize, SitesShow, Vec<u32>);

impl SitesView {
    /// The view, open or closed.
    pub fn opened(open: bool) -> Self {
        Self {
            open,
            ..Self::default()
        }
    }

    /// The selected session's laid-out tree, once it has one.
    pub fn cache(&self) -> Option<&SitesCache> {
        self.cache.as_ref()
    }

    /// Takes a finished layout, and starts building one (on its own thread) when the shown
    /// one is not of `tree` as the view shows it now; the old layout stays up meanwhile.
    pub fn refresh(&mut self, session_id: u64, report: &Report, tree: &Arc<ContextTree>) {
        if let Some(build) = self.pending.take() {
            if !build.is_finished() {
                self.pending = Some(build);
                return;
            }
            match build.join() {
                Ok(cache) => self.cache = Some(cache),
                Err(_) => warn!("laying out the allocation sites failed"),
            }
        }
        let key: SitesKey = (
            session_id,
            tree.generation,
            report.definitions().count(),
            report.classes().count(),
            self.show,
            self.excluded.iter().copied().collect(),
        );
        if self.cache.as_ref().is_some_and(|cache| cache.key == key) {
            return;
        }
        let (report, tree) = (report.clone(), Arc::clone(tree));
        let (show, excluded) = (self.show, self.excluded.clone());
        let started = std::thread::Builder::new()
            .name("highrise-sites".into())
            .spawn(move || {
                let laid_out = site_tree(&tree, show, &excluded);
                SitesCache::build(key, laid_out, SiteLabels::of(&report))
            });
        match started {
            Ok(build) => self.pending = Some(build),
            Err(error) => warn!("cannot lay out the allocation sites: {error}"),
        }
    }

    /// The view showing an already laid-out tree (benchmarks, tests).
    pub fn with_cache(mut self, cache: SitesCache) -> Self {
        self.cache = Some(cache);
        self
    }
}

/// A laid-out tree with the names and colours it is drawn with.
#[derive(Debug)]
pub struct SitesCache {
    /// What it was built from.
    key: SitesKey,
    pub tree: SiteTree,
    pub labels: SiteLabels,
    /// Shown node at (column, row).
    at: HashMap<(u16, u32), u32>,
}

/// Names and colours of a session's methods and classes.
#[derive(Debug, Default)]
pub struct SiteLabels {
    /// Method id → its display name without the package ("Class.method(Params)").
    pub methods: HashMap<u32, String>,
    /// Class id → (display name, colour).
    pub classes: HashMap<u32, (String, egui::Color32)>,
    heat: Vec<egui::Color32>,
}

impl SiteLabels {
    /// From a session's definitions.
    pub fn of(report: &Report) -> Self {
        let mut labels = Self::with_heat();
        // The display name without its package: `Canvas.Canvas()`, `Factory.create(String)`.
        labels.methods = report
            .definitions()
            .map(|d| {
                (
                    d.id,
                    super::names::without_package(&d.display_name(), &d.package),
                )
            })
            .collect();
        labels.classes = report
            .classes()
            .map(|class| {
                let name = class.display_name();
                let colour = class_colour_egui(&name);
                (class.id, (name, colour))
            })
            .collect();
        labels
    }

    /// No names (ids are shown), the colour tables only.
    pub fn with_heat() -> Self {
        Self {
            heat: (0..HEAT_STEPS)
                .map(|step| srgb(heat_colour(step as f32 / (HEAT_STEPS - 1) as f32)))
                .collect(),
            ..Self::default()
        }
    }

    /// A method's short name (its id when unknown).
    pub fn method(&self, method_id: u32) -> String {
        if method_id == OTHER_CONTEXTS {
            return "(other contexts)".to_string();
        }
        self.methods
            .get(&method_id)
            .cloned()
            .unwrap_or_else(|| format!("#{method_id}"))
    }

    /// A class's display name and colour (its id, grey, when unknown).
    pub fn class(&self, class_id: u32) -> (String, egui::Color32) {
        self.classes.get(&class_id).cloned().unwrap_or_else(|| {
            (
                format!("#{class_id}"),
                egui::Color32::from_rgb(110, 110, 118),
            )
        })
    }

    fn heat(&self, t: f32) -> egui::Color32 {
        let step = (t.clamp(0.0, 1.0) * (HEAT_STEPS - 1) as f32).round() as usize;
        self.heat.get(step).copied().unwrap_or(egui::Color32::GRAY)
    }
}

fn srgb(colour: Color) -> egui::Color32 {
    let c = colour.to_srgba();
    let byte = |v: f32| (v.clamp(0.0, 1.0) * 255.0).round() as u8;
    egui::Color32::from_rgb(byte(c.red), byte(c.green), byte(c.blue))
}

/// A class's colour as the city's class floors wear it.
pub fn class_colour_egui(display_name: &str) -> egui::Color32 {
    let ColourKey::Class(index) = class_colour(display_name) else {
        return egui::Color32::GRAY;
    };
    srgb(crate::viewer::city::class_hue(index))
}

impl SitesCache {
    fn build(key: SitesKey, tree: SiteTree, labels: SiteLabels) -> Self {
        let at = tree
            .nodes
            .iter()
            .enumerate()
            .map(|(index, node)| ((node.column, node.row), index as u32))
            .collect();
        Self {
            key,
            tree,
            labels,
            at,
        }
    }

    /// A cache around an already built tree (benchmarks, tests).
    pub fn from_tree(tree: SiteTree, labels: SiteLabels) -> Self {
        Self::build(
            (0, 0, 0, 0, SitesShow::Allocations, Vec::new()),
            tree,
            labels,
        )
    }
}

/// What the user did in the view this frame.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct SitesAction {
    /// A node was clicked: fly to this method's building.
    pub fly_to: Option<u32>,
    /// A class row was right-clicked: exclude it (or bring it back).
    pub toggle_excluded: Option<u32>,
    /// A class row was clicked: pin its highlight (or release it).
    pub toggle_pinned: Option<u32>,
    /// The class row under the pointer.
    pub hovered_class: Option<u32>,
}

fn node_rect(origin: egui::Pos2, node: &SiteNode) -> egui::Rect {
    egui::Rect::from_min_size(
        origin
            + egui::vec2(
                MARGIN + f32::from(node.column) * COLUMN_W,
                MARGIN + node.row as f32 * ROW_H,
            ),
        egui::vec2(NODE_W, NODE_H),
    )
}

/// Draws the tree into `ui` (scrollable both ways), only what is on screen.
pub fn tree_ui(
    ui: &mut egui::Ui,
    cache: &SitesCache,
    show: SitesShow,
    highlight_class: Option<u32>,
) -> SitesAction {
    let tree = &cache.tree;
    let labels = &cache.labels;
    let mut action = SitesAction::default();
    let size = egui::vec2(
        2.0 * MARGIN + f32::from(tree.columns) * COLUMN_W,
        2.0 * MARGIN + tree.rows as f32 * ROW_H,
    );
    egui::ScrollArea::both()
        .id_salt("highrise-sites-tree")
        .auto_shrink([false, false])
        .show_viewport(ui, |ui, viewport| {
            let (canvas, response) = ui.allocate_exact_size(size, egui::Sense::click());
            let origin = canvas.min;
            let visible = viewport.translate(origin.to_vec2()).expand(8.0);
            // The node under the pointer, from its grid cell.
            let hovered = response.hover_pos().and_then(|pointer| {
                let local = pointer - origin - egui::vec2(MARGIN, MARGIN);
                let (column, row) = ((local.x / COLUMN_W).floor(), (local.y / ROW_H).floor());
                if column < 0.0 || row < 0.0 {
                    return None;
                }
                let index = *cache.at.get(&(column as u16, row as u32))?;
                node_rect(origin, &tree.nodes[index as usize])
                    .contains(pointer)
                    .then_some(index)
            });
            let painter = ui.painter_at(ui.clip_rect());
            let max_calls = (tree.max_calls.max(2) as f32).ln();
            let font = egui::FontId::proportional(12.0);
            // Edges first (under the nodes).
            for node in &tree.nodes {
                let Some(parent) = node.parent else {
                    continue;
                };
                let from = node_rect(origin, &tree.nodes[parent as usize]);
                let to = node_rect(origin, node);
                let span = egui::Rect::from_min_max(
                    egui::pos2(from.right(), from.center().y.min(to.center().y)),
                    egui::pos2(to.left(), from.center().y.max(to.center().y)),
                );
                if !visible.intersects(span.expand(4.0)) {
                    continue;
                }
                let width = 1.0 + 5.0 * (node.calls.max(1) as f32).ln() / max_calls;
                let outgoing = hovered == Some(parent);
                let colour = if outgoing {
                    egui::Color32::from_rgb(255, 225, 90)
                } else {
                    egui::Color32::from_gray(120)
                };
                let elbow_x = from.right() + (to.left() - from.right()) / 2.0;
                painter.add(egui::Shape::line(
                    vec![
                        egui::pos2(from.right(), from.center().y),
                        egui::pos2(elbow_x, from.center().y),
                        egui::pos2(elbow_x, to.center().y),
                        egui::pos2(to.left(), to.center().y),
                    ],
                    egui::Stroke::new(width, colour),
                ));
            }
            for (index, node) in tree.nodes.iter().enumerate() {
                let rect = node_rect(origin, node);
                if !visible.intersects(rect) {
                    continue;
                }
                let t = match show {
                    SitesShow::Allocations => log_share(node.bytes, tree.min_bytes, tree.max_bytes),
                    SitesShow::Time => log_share(node.time_ns, tree.min_time_ns, tree.max_time_ns),
                };
                let shaded = highlight_class.is_some_and(|class| !node.creates(class));
                let fade = |c: egui::Color32| if shaded { c.gamma_multiply(0.2) } else { c };
                painter.rect_filled(rect, 3.0, fade(labels.heat(t)));
                let connected =
                    hovered.is_some_and(|h| h as usize == index || node.parent == Some(h));
                let stroke = if connected {
                    egui::Stroke::new(2.0, egui::Color32::from_rgb(255, 225, 90))
                } else {
                    egui::Stroke::new(1.0, fade(egui::Color32::from_gray(30)))
                };
                painter.rect_stroke(rect, 3.0, stroke, egui::StrokeKind::Inside);
                // Inner boxes, right-aligned: the classes created here, sized by count.
                let mut right = rect.right() - 4.0;
                if show == SitesShow::Allocations {
                    for &(class_id, count, _) in node.direct.iter().take(INNER_BOXES) {
                        let share = count as f32 / tree.max_direct_count.max(1) as f32;
                        let side = 5.0 + (NODE_H - 10.0) * share.sqrt();
                        let inner = egui::Rect::from_center_size(
                            egui::pos2(right - side / 2.0, rect.center().y),
                            egui::vec2(side, side),
                        );
                        painter.rect_filled(inner, 1.0, fade(labels.class(class_id).1));
                        painter.rect_stroke(
                            inner,
                            1.0,
                            egui::Stroke::new(1.0, fade(egui::Color32::BLACK)),
                            egui::StrokeKind::Inside,
                        );
                        right -= side + 3.0;
                    }
                }
                let text_clip = egui::Rect::from_min_max(rect.min, egui::pos2(right, rect.max.y));
                painter
                    .with_clip_rect(text_clip.intersect(painter.clip_rect()))
                    .text(
                        rect.left_center() + egui::vec2(5.0, 0.0),
                        egui::Align2::LEFT_CENTER,
                        labels.method(node.method_id),
                        font.clone(),
                        fade(egui::Color32::from_gray(15)),
                    );
            }
            if let Some(index) = hovered {
                let node = &tree.nodes[index as usize];
                response
                    .clone()
                    .on_hover_ui_at_pointer(|ui| node_popup(ui, node, labels, tree));
                if response.clicked() && node.method_id != OTHER_CONTEXTS {
                    action.fly_to = Some(node.method_id);
                }
            }
        });
    action
}

/// The popup of one context.
fn node_popup(ui: &mut egui::Ui, node: &SiteNode, labels: &SiteLabels, tree: &SiteTree) {
    ui.style_mut().wrap_mode = Some(egui::TextWrapMode::Extend);
    ui.label(egui::RichText::new(labels.method(node.method_id)).strong());
    ui.label(format!(
        "{} calls from this context · {:.1} ms in its finished calls",
        node.calls,
        node.time_ns as f64 / 1e6
    ));
    if node.count > 0 {
        ui.label(format!(
            "{} instances, {:.1} kB here and in callees",
            node.count,
            node.bytes as f64 / 1e3
        ));
    }
    let mut classes = node.inclusive.clone();
    classes.sort_by_key(|&(class_id, count, _)| (std::cmp::Reverse(count), class_id));
    for (class_id, count, bytes) in classes.iter().take(12) {
        let (name, colour) = labels.class(*class_id);
        let here = node
            .direct
            .iter()
            .find(|(id, _, _)| id == class_id)
            .map_or(0, |&(_, count, _)| count);
        ui.horizontal(|ui| {
            let (square, _) = ui.allocate_exact_size(egui::vec2(10.0, 10.0), egui::Sense::hover());
            ui.painter().rect_filled(square, 1.0, colour);
            let marker = if here > 0 {
                format!(" — {here} created here")
            } else {
                String::new()
            };
            ui.label(format!(
                "{name} {count} ({:.1} kB){marker}",
                *bytes as f64 / 1e3
            ));
        });
    }
    if classes.len() > 12 {
        ui.label(format!("… {} more classes", classes.len() - 12));
    }
    if node.method_id == OTHER_CONTEXTS {
        ui.label(format!(
            "contexts beyond the tree's node cap ({} calls in all), merged",
            tree.capped_calls
        ));
    }
}

/// The class list: by instances, a bar in the class colour, kB; hover, click, right-click.
pub fn class_list_ui(ui: &mut egui::Ui, cache: &SitesCache, pinned: Option<u32>) -> SitesAction {
    let mut action = SitesAction::default();
    let max_count = cache.tree.classes.first().map_or(1, |c| c.count.max(1));
    egui::ScrollArea::vertical()
        .id_salt("highrise-sites-classes")
        .auto_shrink([false, false])
        .show(ui, |ui| {
            for class in &cache.tree.classes {
                let (name, colour) = cache.labels.class(class.class_id);
                let (rect, response) = ui.allocate_exact_size(
                    egui::vec2(ui.available_width(), 18.0),
                    egui::Sense::click(),
                );
                let painter = ui.painter_at(rect);
                if pinned == Some(class.class_id) {
                    painter.rect_filled(rect, 2.0, egui::Color32::from_gray(70));
                } else if response.hovered() {
                    painter.rect_filled(rect, 2.0, egui::Color32::from_gray(50));
                }
                let bar_w = 60.0 * class.count as f32 / max_count as f32;
                let bar = egui::Rect::from_min_size(
                    rect.min + egui::vec2(2.0, 4.0),
                    egui::vec2(bar_w.max(2.0), 10.0),
                );
                painter.rect_filled(
                    bar,
                    1.0,
                    if class.excluded {
                        colour.gamma_multiply(0.3)
                    } else {
                        colour
                    },
                );
                let text = format!(
                    "{name}  {}  {:.1} kB{}",
                    class.count,
                    class.bytes as f64 / 1e3,
                    if class.excluded { "  (excluded)" } else { "" }
                );
                painter.text(
                    rect.left_center() + egui::vec2(68.0, 0.0),
                    egui::Align2::LEFT_CENTER,
                    text,
                    egui::FontId::proportional(12.0),
                    if class.excluded {
                        egui::Color32::from_gray(120)
                    } else {
                        egui::Color32::from_gray(220)
                    },
                );
                if response.hovered() {
                    action.hovered_class = Some(class.class_id);
                }
                if response.clicked() {
                    action.toggle_pinned = Some(class.class_id);
                }
                if response.secondary_clicked() {
                    action.toggle_excluded = Some(class.class_id);
                }
            }
        });
    action
}

/// The window: header, tree and class list; applies the user's actions to `state`.
pub fn sites_window(ctx: &egui::Context, state: &mut SitesView, title: &str) -> SitesAction {
    let mut open = state.open;
    let mut action = SitesAction::default();
    egui::Window::new("Allocation sites")
        .id(egui::Id::new("highrise-sites"))
        .open(&mut open)
        .default_size([900.0, 460.0])
        .default_pos([320.0, 60.0])
        .resizable(true)
        .show(ctx, |ui| {
            ui.horizontal(|ui| {
                ui.label(egui::RichText::new(title).strong());
                ui.radio_value(&mut state.show, SitesShow::Allocations, "allocations");
                ui.radio_value(&mut state.show, SitesShow::Time, "time (call tree)");
                if !state.excluded.is_empty() && ui.small_button("show every class").clicked() {
                    state.excluded.clear();
                }
            });
            let Some(cache) = state.cache.as_ref() else {
                ui.label("No calling-context tree yet: it comes with the session's first snapshots.");
                return;
            };
            let tree = &cache.tree;
            ui.label(format!(
                "{} contexts shown of {}{}",
                tree.nodes.len(),
                tree.context_nodes,
                if tree.capped_calls > 0 {
                    format!(
                        " · node cap reached: {} calls counted in \"(other contexts)\"",
                        tree.capped_calls
                    )
                } else {
                    String::new()
                }
            ));
            if tree.nodes.is_empty() {
                ui.label(match state.show {
                    SitesShow::Allocations => "No allocations counted in this session (start the agent with allocation counting on).",
                    SitesShow::Time => "No calls yet.",
                });
                return;
            }
            let list_w = 250.0f32.min(ui.available_width() * 0.4);
            let height = ui.available_height();
            ui.horizontal_top(|ui| {
                let highlight = state.pinned_class;
                // Room for the separator and the spacing around it, or the window grows.
                let tree_w = ui.available_width() - list_w - 3.0 * ui.spacing().item_spacing.x - 8.0;
                let mut class_action = SitesAction::default();
                // The class list's hover is known only after it is drawn: use last frame's.
                let hovered_before = ui
                    .ctx()
                    .data(|d| d.get_temp::<Option<u32>>(egui::Id::new("highrise-sites-hovered-class")))
                    .flatten();
                ui.allocate_ui(egui::vec2(tree_w, height), |ui| {
                    let tree_action = tree_ui(ui, cache, state.show, hovered_before.or(highlight));
                    action.fly_to = tree_action.fly_to;
                });
                ui.separator();
                ui.allocate_ui(egui::vec2(list_w, height), |ui| {
                    ui.vertical(|ui| {
                        ui.label(egui::RichText::new("Classes").strong())
                            .on_hover_text("Hover: shade contexts that do not create it · click: pin · right-click: exclude");
                        class_action = class_list_ui(ui, cache, state.pinned_class);
                    });
                });
                ui.ctx().data_mut(|d| {
                    d.insert_temp(
                        egui::Id::new("highrise-sites-hovered-class"),
                        class_action.hovered_class,
                    )
                });
                action.toggle_excluded = class_action.toggle_excluded;
                action.toggle_pinned = class_action.toggle_pinned;
                action.hovered_class = class_action.hovered_class;
            });
        });
    state.open = open;
    if let Some(class_id) = action.toggle_excluded {
        if !state.excluded.remove(&class_id) {
            state.excluded.insert(class_id);
        }
    }
    if let Some(class_id) = action.toggle_pinned {
        state.pinned_class = (state.pinned_class != Some(class_id)).then_some(class_id);
    }
    action
}

/// The system: keeps the selected session's layout current, draws the window, flies to a
/// clicked node's building.
pub(super) fn sites(
    mut contexts: EguiContexts,
    mut state: ResMut<SitesView>,
    sessions: Res<Sessions>,
    cities: Res<Cities>,
    mut focus: EventWriter<FocusOn>,
) -> Result {
    if !state.open {
        return Ok(());
    }
    let selected = sessions
        .selected
        .and_then(|id| Some((id, sessions.by_id.get(&id)?)));
    let title = selected.map_or_else(|| "no session".to_string(), |(_, view)| view.title());
    if let Some((session_id, view)) = selected {
        if state.cache.as_ref().is_some_and(|c| c.key.0 != session_id) {
            state.excluded.clear();
            state.pinned_class = None;
        }
        if let Some(tree) = view.live_snapshot().and_then(|s| s.contexts.clone()) {
            state.refresh(session_id, &view.report, &tree);
        }
    }
    let ctx = contexts.ctx_mut()?;
    let action = sites_window(ctx, &mut state, &title);
    if let (Some(method_id), Some((session_id, _))) = (action.fly_to, selected) {
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
    Ok(())
}
