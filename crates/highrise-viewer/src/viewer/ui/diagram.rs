//! The class-diagram window (Murphy & Saenko 1998, their Figure 1, with the multiplicities
//! their section 5.2 asks for): the classes the agents read from the program, laid out in rows
//! by `highrise_layout::layered`, each box coloured by the bytes its objects took (red most,
//! blue least) and labelled with the objects made; fields as arrows labelled with the objects
//! made per owner (average and most in one call), supertypes as grey arrows with a hollow head.
//! It shows the diagram of the prediction window's sample recording that has the most
//! relations (`highrise_report::diagram`).

use std::collections::HashMap;

use bevy_egui::egui::{self, Color32, Pos2, Rect, Sense, Stroke, Vec2};
use highrise_report::diagram::{ClassDiagram, DiagramRelation};

use super::predict::PredictView;

const BOX: Vec2 = Vec2::new(176.0, 46.0);
const GAP: Vec2 = Vec2::new(28.0, 64.0);

/// Red (most bytes) to blue (least), on a log scale between the diagram's extremes.
fn heat(bytes: u64, most: u64) -> Color32 {
    if bytes == 0 || most == 0 {
        return Color32::from_gray(70);
    }
    let t = ((bytes as f32).ln() / (most as f32).ln().max(1.0)).clamp(0.0, 1.0);
    let lerp = |a: f32, b: f32| (a + (b - a) * t) as u8;
    Color32::from_rgb(lerp(40.0, 200.0), lerp(70.0, 50.0), lerp(190.0, 45.0))
}

/// Where the segment from `center` toward `toward` leaves a box of `half` extents.
fn border(center: Pos2, half: Vec2, toward: Pos2) -> Pos2 {
    let d = toward - center;
    if d.x == 0.0 && d.y == 0.0 {
        return center;
    }
    let scale = (half.x / d.x.abs()).min(half.y / d.y.abs());
    center + d * scale.min(1.0)
}

fn arrow_head(painter: &egui::Painter, tip: Pos2, from: Pos2, stroke: Stroke, hollow: bool) {
    let dir = (tip - from).normalized();
    let side = Vec2::new(-dir.y, dir.x);
    let base = tip - dir * 10.0;
    let (a, b) = (base + side * 5.0, base - side * 5.0);
    if hollow {
        painter.add(egui::Shape::convex_polygon(
            vec![tip, a, b],
            Color32::from_gray(30),
            stroke,
        ));
    } else {
        painter.line_segment([tip, a], stroke);
        painter.line_segment([tip, b], stroke);
    }
}

fn short(class: &str) -> &str {
    class.rsplit('.').next().unwrap_or(class)
}

fn relation_line(relation: &DiagramRelation) -> String {
    match relation.kind {
        "field" => {
            let made = relation.per_owner.map_or_else(
                || "none made".to_string(),
                |per| {
                    format!(
                        "{per:.1} made per owner (max {:.0})",
                        relation.max_per_owner.unwrap_or(0.0)
                    )
                },
            );
            format!(
                "{}.{} -> {}{}: {made}",
                short(&relation.from),
                relation.field,
                short(&relation.to),
                if relation.many { " [*]" } else { "" }
            )
        }
        kind => format!("{} {kind} {}", short(&relation.from), short(&relation.to)),
    }
}

/// Classes shown at first: a real program's diagram has hundreds (Rhino's, 236).
pub const DEFAULT_CLASSES: usize = 24;

/// What drawing a diagram needs, worked out once per diagram and class count (not every
/// frame): the part of the diagram shown ([`ClassDiagram::focus`]), each relation's two
/// classes, as indices into its `classes`, and each class's place.
#[derive(Debug, Clone, Default)]
pub struct DiagramPlan {
    diagram: ClassDiagram,
    ends: Vec<Option<(usize, usize)>>,
    places: Vec<[f32; 2]>,
}

impl DiagramPlan {
    /// The plan of the `most` heaviest classes of `diagram` ([`ClassDiagram::focus`]).
    pub fn of(diagram: &ClassDiagram, most: usize) -> Self {
        let diagram = diagram.focus(most);
        let index: HashMap<&str, usize> = diagram
            .classes
            .iter()
            .enumerate()
            .map(|(i, class)| (class.class.as_str(), i))
            .collect();
        let ends: Vec<Option<(usize, usize)>> = diagram
            .relations
            .iter()
            .map(|relation| {
                Some((
                    *index.get(relation.from.as_str())?,
                    *index.get(relation.to.as_str())?,
                ))
            })
            .collect();
        // Owners above their parts; supertypes above their subtypes.
        let edges: Vec<(usize, usize)> = diagram
            .relations
            .iter()
            .zip(&ends)
            .filter_map(|(relation, ends)| {
                let (from, to) = (*ends)?;
                Some(if relation.kind == "field" {
                    (from, to)
                } else {
                    (to, from)
                })
            })
            .collect();
        let places = highrise_layout::layered(diagram.classes.len(), &edges);
        Self {
            diagram,
            ends,
            places,
        }
    }
}

/// Draws the plan's diagram into `ui` (a scroll area of its own).
pub fn diagram_ui(ui: &mut egui::Ui, plan: &DiagramPlan) {
    let diagram = &plan.diagram;
    let places = &plan.places;
    let columns = places.iter().map(|p| p[0]).fold(0.0f32, f32::max) + 1.0;
    let rows = places.iter().map(|p| p[1]).fold(0.0f32, f32::max) + 1.0;
    let most = diagram
        .classes
        .iter()
        .map(|class| class.created_bytes)
        .max()
        .unwrap_or(0);
    egui::ScrollArea::both().show(ui, |ui| {
        let size = Vec2::new(columns * (BOX.x + GAP.x), rows * (BOX.y + GAP.y));
        let (area, response) = ui.allocate_exact_size(size, Sense::hover());
        let painter = ui.painter_at(area);
        let center = |i: usize| {
            area.min
                + Vec2::new(
                    places[i][0] * (BOX.x + GAP.x) + (BOX.x + GAP.x) / 2.0,
                    places[i][1] * (BOX.y + GAP.y) + (BOX.y + GAP.y) / 2.0,
                )
        };
        let half = BOX / 2.0;
        let font = egui::FontId::proportional(11.0);
        let mut self_fields: Vec<Vec<String>> = vec![Vec::new(); diagram.classes.len()];
        // Fields between the same two classes share one arrow and one label.
        let mut field_arrows: Vec<((usize, usize), Vec<String>)> = Vec::new();
        for (relation, ends) in diagram.relations.iter().zip(&plan.ends) {
            let Some((from, to)) = *ends else {
                continue;
            };
            let label = format!(
                "{}{}{}",
                relation.field,
                if relation.many { "*" } else { "" },
                relation
                    .per_owner
                    .filter(|_| relation.parts > 0)
                    .map_or_else(String::new, |per| format!(" ×{per:.1}"))
            );
            if from == to {
                self_fields[from].push(format!("↺ {label}"));
                continue;
            }
            if relation.kind == "field" {
                match field_arrows
                    .iter_mut()
                    .find(|(pair, _)| *pair == (from, to))
                {
                    Some((_, labels)) => labels.push(label),
                    None => field_arrows.push(((from, to), vec![label])),
                }
                continue;
            }
            let (a, b) = (center(from), center(to));
            let (start, end) = (border(a, half, b), border(b, half, a));
            let stroke = Stroke::new(1.2, Color32::from_gray(150));
            if relation.kind == "implements" {
                painter.add(egui::Shape::dashed_line(&[start, end], stroke, 6.0, 4.0));
            } else {
                painter.line_segment([start, end], stroke);
            }
            arrow_head(&painter, end, start, stroke, true);
        }
        for ((from, to), labels) in &field_arrows {
            let (a, b) = (center(*from), center(*to));
            let (start, end) = (border(a, half, b), border(b, half, a));
            let stroke = Stroke::new(1.5, Color32::from_rgb(230, 160, 60));
            painter.line_segment([start, end], stroke);
            arrow_head(&painter, end, start, stroke, false);
            // Nearer the owner, so the labels of fields each way between two classes stay apart.
            painter.text(
                start + (end - start) * 0.3,
                egui::Align2::LEFT_CENTER,
                labels.join(", "),
                font.clone(),
                Color32::from_rgb(240, 200, 130),
            );
        }
        let hovered = response.hover_pos();
        for (i, class) in diagram.classes.iter().enumerate() {
            let rect = Rect::from_center_size(center(i), BOX);
            painter.rect_filled(rect, 4.0, heat(class.created_bytes, most));
            painter.rect_stroke(
                rect,
                4.0,
                Stroke::new(1.0, Color32::from_gray(200)),
                egui::StrokeKind::Inside,
            );
            painter.text(
                rect.center_top() + Vec2::new(0.0, 4.0),
                egui::Align2::CENTER_TOP,
                short(&class.class),
                egui::FontId::proportional(13.0),
                Color32::WHITE,
            );
            painter.text(
                rect.center_top() + Vec2::new(0.0, 22.0),
                egui::Align2::CENTER_TOP,
                format!(
                    "{} made · {:.1} kB",
                    class.created,
                    class.created_bytes as f64 / 1000.0
                ),
                font.clone(),
                Color32::from_gray(230),
            );
            for (k, line) in self_fields[i].iter().enumerate() {
                painter.text(
                    rect.left_bottom() + Vec2::new(2.0, 2.0 + 12.0 * k as f32),
                    egui::Align2::LEFT_TOP,
                    line,
                    font.clone(),
                    Color32::from_rgb(240, 200, 130),
                );
            }
            if hovered.is_some_and(|pos| rect.contains(pos)) {
                let mut text = format!(
                    "{}\n{} objects made, {:.1} kB, {:.1} B each",
                    class.class,
                    class.created,
                    class.created_bytes as f64 / 1000.0,
                    class.mean_size_bytes
                );
                for relation in diagram
                    .relations
                    .iter()
                    .filter(|r| r.from == class.class || r.to == class.class)
                {
                    text.push('\n');
                    text.push_str(&relation_line(relation));
                }
                response.clone().on_hover_text_at_pointer(text);
            }
        }
    });
}

/// The window; open while the prediction window's "class diagram" toggle is on.
pub fn diagram_window(ctx: &egui::Context, state: &mut PredictView) {
    let mut open = state.diagram_open;
    if state.diagram_classes == 0 {
        state.diagram_classes = DEFAULT_CLASSES;
    }
    let most = state.diagram_classes;
    let planned = state.diagram().and_then(|(path, diagram)| {
        let current = state
            .diagram_plan
            .as_ref()
            .is_some_and(|(planned, shown, _)| planned == path && *shown == most);
        (!current).then(|| (path.to_path_buf(), most, DiagramPlan::of(diagram, most)))
    });
    if planned.is_some() {
        state.diagram_plan = planned;
    }
    egui::Window::new("Class diagram")
        .id(egui::Id::new("highrise-class-diagram"))
        .open(&mut open)
        .default_size([1180.0, 600.0])
        .default_pos([40.0, 190.0])
        .resizable(true)
        .show(ctx, |ui| match state.diagram() {
            None => {
                ui.label(
                    "No class relations in these recordings: the Java agent reads them with \
                     alloc=on, the Python agent with --live (README \"Class diagram\").",
                );
            }
            Some((path, diagram)) => {
                let (classes, relations) = (diagram.classes.len(), diagram.relations.len());
                let with_objects = diagram.classes.iter().filter(|c| c.created > 0).count();
                ui.label(format!(
                    "{}: {classes} classes ({with_objects} with objects made), {relations} \
                     relations. Boxes: objects made over the run (red: most bytes, blue: \
                     least). Orange arrows: fields (* many), × objects of the field's class \
                     made with each owner; grey: supertypes (dashed: interfaces). Hover a box \
                     for its relations.",
                    path.file_name().map_or_else(
                        || path.display().to_string(),
                        |name| name.to_string_lossy().into_owned()
                    ),
                ));
                let mut most = state.diagram_classes;
                ui.horizontal(|ui| {
                    ui.add(
                        egui::Slider::new(&mut most, 1..=with_objects.max(1))
                            .text("classes with the most bytes"),
                    )
                    .on_hover_text(
                        "Shown: the classes whose objects took the most bytes, the interfaces \
                         and abstract classes their fields' objects count under, and the \
                         relations among them",
                    );
                    if let Some((_, _, plan)) = &state.diagram_plan {
                        ui.label(format!(
                            "showing {} of {classes} classes, {} of {relations} relations",
                            plan.diagram.classes.len(),
                            plan.diagram.relations.len()
                        ));
                    }
                });
                state.diagram_classes = most;
                if let Some((_, _, plan)) = &state.diagram_plan {
                    diagram_ui(ui, plan);
                }
            }
        });
    state.diagram_open = open;
}

#[cfg(test)]
mod tests {
    use highrise_report::diagram::DiagramClass;

    use super::*;

    fn class(name: &str, created: u64) -> DiagramClass {
        DiagramClass {
            class: name.to_string(),
            created,
            created_bytes: created * 24,
            mean_size_bytes: 24.0,
        }
    }

    fn field(from: &str, to: &str, name: &str, per_owner: f64) -> DiagramRelation {
        DiagramRelation {
            from: from.to_string(),
            to: to.to_string(),
            kind: "field",
            field: name.to_string(),
            many: true,
            per_owner: Some(per_owner),
            max_per_owner: Some(per_owner * 2.0),
            owners: 1,
            parts: 4,
            parts_total: 4,
        }
    }

    /// Every text one frame of the diagram paints.
    fn painted_texts(diagram: &ClassDiagram) -> Vec<String> {
        let ctx = egui::Context::default();
        let input = egui::RawInput {
            screen_rect: Some(Rect::from_min_size(Pos2::ZERO, Vec2::new(1200.0, 800.0))),
            ..Default::default()
        };
        let output = ctx.run(input, |ctx| {
            egui::CentralPanel::default()
                .show(ctx, |ui| diagram_ui(ui, &DiagramPlan::of(diagram, 100)));
        });
        let mut texts = Vec::new();
        for clipped in output.shapes {
            if let egui::Shape::Text(text) = clipped.shape {
                texts.push(text.galley.text().to_string());
            }
        }
        texts
    }

    #[test]
    fn boxes_fields_and_self_relations_are_labelled() {
        let mut parent = field("ui.Panel", "ui.Panel", "children", 0.5);
        parent.many = false;
        let diagram = ClassDiagram {
            classes: vec![
                class("ui.Panel", 3),
                class("ui.Item", 12),
                class("ui.Widget", 1),
            ],
            relations: vec![
                field("ui.Panel", "ui.Item", "items", 4.0),
                field("ui.Panel", "ui.Item", "selected", 1.0),
                parent,
                DiagramRelation {
                    kind: "extends",
                    field: String::new(),
                    per_owner: None,
                    ..field("ui.Item", "ui.Widget", "", 0.0)
                },
            ],
        };
        let texts = painted_texts(&diagram);
        for expected in [
            "Panel",
            "Item",
            "Widget",
            "12 made · 0.3 kB",
            "items* ×4.0, selected* ×1.0",
            "↺ children ×0.5",
        ] {
            assert!(
                texts.iter().any(|t| t == expected),
                "{expected:?} not in {texts:?}"
            );
        }
    }
}
