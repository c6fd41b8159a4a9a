//! egui over the scene: each city's name at its front edge, and the tooltip at the pointer.

use bevy::prelude::*;
use bevy_egui::{egui, EguiContexts};

use super::tooltip::{building_detail, link_lines, tooltip_lines, BuildingDetail, SPARKLINE_NS};
use crate::viewer::camera::{MainCamera, PanelCover};
use crate::viewer::city::Cities;
use crate::viewer::compare::Compare;
use crate::viewer::focus::{package_trail, FocusPackage, PackageFocus};
use crate::viewer::hover::Hovered;
use crate::viewer::labels::{
    city_name_anchor, SceneLabels, CITY_NAME_PX, HOT_SPOT_TEXT_PX, OVERVIEW_PAD_PX,
};
use crate::viewer::landscape::Landscape;
use crate::viewer::sessions::Sessions;

/// Names each city in the scene, at its front edge.
pub(super) fn city_labels(
    mut contexts: EguiContexts,
    sessions: Res<Sessions>,
    compare: Res<Compare>,
    cities: Res<Cities>,
    landscape: Res<Landscape>,
    cameras: Query<(&Camera, &GlobalTransform), With<MainCamera>>,
) -> Result {
    let Ok((camera, camera_transform)) = cameras.single() else {
        return Ok(());
    };
    let ctx = contexts.ctx_mut()?;
    let painter = ctx.layer_painter(egui::LayerId::background());
    // Each host's name over its plate's back left corner (the cities' names are at their
    // front edges).
    for area in &landscape.hosts {
        let anchor = Vec3::new(area.rect.min_x + 0.5, 0.0, area.rect.min_z + 0.5);
        let Ok(position) = camera.world_to_viewport(camera_transform, anchor) else {
            continue;
        };
        let services = match area.services {
            1 => "1 service".to_owned(),
            n => format!("{n} services"),
        };
        painter.text(
            egui::pos2(position.x, position.y),
            egui::Align2::LEFT_BOTTOM,
            format!("{} · {services}", area.host),
            egui::FontId::proportional(19.0),
            egui::Color32::from_rgb(150, 190, 255),
        );
    }
    for key in compare.scene_order(&sessions) {
        let Some(anchor) = cities.get(key).and_then(city_name_anchor) else {
            continue;
        };
        let Ok(position) = camera.world_to_viewport(camera_transform, anchor) else {
            continue;
        };
        painter.text(
            egui::pos2(position.x, position.y),
            egui::Align2::CENTER_TOP,
            compare.label(&sessions, key),
            egui::FontId::proportional(CITY_NAME_PX),
            egui::Color32::from_rgb(235, 235, 240),
        );
    }
    Ok(())
}

/// Draws the package names the labels placed on screen for the overview: light text with a
/// dark shadow, so it reads on light slabs as on dark ones.
pub(super) fn overview_names(
    mut contexts: EguiContexts,
    labels: Option<Res<SceneLabels>>,
) -> Result {
    let Some(labels) = labels.filter(|l| !l.overview.is_empty()) else {
        return Ok(());
    };
    let ctx = contexts.ctx_mut()?;
    let painter = ctx.layer_painter(egui::LayerId::background());
    for label in &labels.overview {
        let at = egui::pos2(
            label.min_px.x + OVERVIEW_PAD_PX,
            (label.min_px.y + label.max_px.y) / 2.0,
        );
        let font = egui::FontId::proportional(label.text_px);
        for offset in [
            egui::vec2(1.0, 1.0),
            egui::vec2(-1.0, 1.0),
            egui::vec2(1.0, -1.0),
        ] {
            painter.text(
                at + offset,
                egui::Align2::LEFT_CENTER,
                &label.text,
                font.clone(),
                egui::Color32::from_rgba_unmultiplied(0, 0, 0, 200),
            );
        }
        painter.text(
            at,
            egui::Align2::LEFT_CENTER,
            &label.text,
            font,
            egui::Color32::from_rgb(236, 238, 245),
        );
    }
    Ok(())
}

/// Draws the hot spots' names where the labels placed them: light text on a dark box, a leader
/// line down to the building's top when the name had to move aside.
pub(super) fn hot_spot_names(
    mut contexts: EguiContexts,
    labels: Option<Res<SceneLabels>>,
) -> Result {
    let Some(labels) = labels.filter(|l| !l.hot_spots.is_empty()) else {
        return Ok(());
    };
    let ctx = contexts.ctx_mut()?;
    let painter = ctx.layer_painter(egui::LayerId::background());
    for spot in &labels.hot_spots {
        let rect = egui::Rect::from_min_max(
            egui::pos2(spot.min_px.x, spot.min_px.y),
            egui::pos2(spot.max_px.x, spot.max_px.y),
        );
        // The leader line leaves the name's edge that faces the tower.
        let foot = egui::pos2(
            spot.anchor_px.x.clamp(rect.min.x + 4.0, rect.max.x - 4.0),
            if spot.anchor_px.y > rect.min.y {
                rect.max.y
            } else {
                rect.min.y
            },
        );
        let anchor = egui::pos2(spot.anchor_px.x, spot.anchor_px.y);
        if anchor.distance(foot) > 4.0 {
            painter.line_segment(
                [foot, anchor],
                egui::Stroke::new(1.0, egui::Color32::from_gray(200)),
            );
        }
        painter.rect_filled(
            rect,
            3.0,
            egui::Color32::from_rgba_unmultiplied(18, 20, 28, 200),
        );
        painter.text(
            rect.center(),
            egui::Align2::CENTER_CENTER,
            &spot.text,
            egui::FontId::proportional(HOT_SPOT_TEXT_PX),
            egui::Color32::from_rgb(255, 236, 200),
        );
    }
    Ok(())
}

/// The breadcrumbs of a focused package, at the scene's top left: the city (back to the whole
/// scene), then each enclosing package, then the focused one; a click goes there.
pub(super) fn breadcrumbs(
    mut contexts: EguiContexts,
    focus: Option<Res<PackageFocus>>,
    sessions: Res<Sessions>,
    compare: Res<Compare>,
    cities: Res<Cities>,
    cover: Res<PanelCover>,
    mut requests: EventWriter<FocusPackage>,
) -> Result {
    let Some((key, path)) = focus.as_deref().and_then(|f| f.focused.clone()) else {
        return Ok(());
    };
    let Some(layout) = cities.get(key).and_then(|city| city.layout.as_ref()) else {
        return Ok(());
    };
    let trail = package_trail(layout, &path);
    let ctx = contexts.ctx_mut()?;
    let left_px = ctx.screen_rect().width() * cover.left_fraction + 12.0;
    let mut wanted = None;
    egui::Area::new(egui::Id::new("highrise-breadcrumbs"))
        .fixed_pos(egui::pos2(left_px, 10.0))
        .show(ctx, |ui| {
            egui::Frame::popup(ui.style()).show(ui, |ui| {
                ui.horizontal(|ui| {
                    if ui
                        .button(compare.label(&sessions, key))
                        .on_hover_text("The whole city (Escape goes one level out)")
                        .clicked()
                    {
                        wanted = Some(None);
                    }
                    let mut previous = "";
                    for (index, crumb) in trail.iter().enumerate() {
                        ui.label("›");
                        // Each crumb names what it adds to the one before.
                        let name = crumb
                            .strip_prefix(previous)
                            .and_then(|rest| rest.strip_prefix('.'))
                            .unwrap_or(crumb);
                        if index + 1 == trail.len() {
                            ui.label(egui::RichText::new(name).strong());
                        } else if ui.button(name).clicked() {
                            wanted = Some(Some(crumb.clone()));
                        }
                        previous = crumb;
                    }
                });
            });
        });
    if let Some(package) = wanted {
        requests.write(FocusPackage { city: key, package });
    }
    Ok(())
}

/// Draws the tooltip of what is hovered next to the pointer.
pub(super) fn tooltip(
    mut contexts: EguiContexts,
    sessions: Res<Sessions>,
    compare: Res<Compare>,
    cities: Res<Cities>,
    hovered: Res<Hovered>,
    landscape: Res<Landscape>,
) -> Result {
    let mut lines = tooltip_lines(&sessions, &compare, &cities, &hovered);
    if !lines.is_empty() {
        lines.extend(link_lines(&landscape, &sessions, &cities, &hovered));
    }
    if lines.is_empty() {
        return Ok(());
    }
    let ctx = contexts.ctx_mut()?;
    let Some(pointer) = ctx.pointer_hover_pos() else {
        return Ok(());
    };
    // Beside the pointer, on the side with more room, so a tall tooltip stays on screen.
    let screen = ctx.screen_rect();
    let below = pointer.y < screen.center().y;
    let right = pointer.x < screen.center().x;
    let pivot = match (right, below) {
        (true, true) => egui::Align2::LEFT_TOP,
        (true, false) => egui::Align2::LEFT_BOTTOM,
        (false, true) => egui::Align2::RIGHT_TOP,
        (false, false) => egui::Align2::RIGHT_BOTTOM,
    };
    let offset = egui::vec2(
        if right { 16.0 } else { -16.0 },
        if below { 16.0 } else { -16.0 },
    );
    egui::Area::new(egui::Id::new("highrise-tooltip"))
        .order(egui::Order::Tooltip)
        .pivot(pivot)
        .fixed_pos(pointer + offset)
        .interactable(false)
        .show(ctx, |ui| {
            egui::Frame::popup(ui.style()).show(ui, |ui| {
                tooltip_lines_ui(ui, &lines);
                if let Some(detail) = building_detail(&sessions, &hovered) {
                    detail_ui(ui, &detail);
                }
            });
        });
    Ok(())
}

/// The tooltip's widest text, points: a longer line (a method called from many places) wraps
/// instead of stretching the tooltip across the window.
pub(crate) const TOOLTIP_MAX_WIDTH: f32 = 440.0;

/// The tooltip's lines, the first one (the method) strong, wrapped at [`TOOLTIP_MAX_WIDTH`].
fn tooltip_lines_ui(ui: &mut egui::Ui, lines: &[String]) {
    ui.set_max_width(TOOLTIP_MAX_WIDTH);
    ui.style_mut().wrap_mode = Some(egui::TextWrapMode::Wrap);
    let mut lines = lines.iter();
    if let Some(title) = lines.next() {
        ui.label(egui::RichText::new(title).strong());
    }
    for line in lines {
        ui.label(line);
    }
}

/// Threads shown as bars under the tooltip (busiest first).
const TOOLTIP_THREADS: usize = 6;

/// The tooltip's graphics: the elevation over the last minute, and a bar per thread.
fn detail_ui(ui: &mut egui::Ui, detail: &BuildingDetail) {
    let width = 260.0;
    if detail.elevation.len() >= 2 {
        ui.label(
            egui::RichText::new("elevation, last minute kept")
                .small()
                .weak(),
        );
        let (rect, _) = ui.allocate_exact_size(egui::vec2(width, 36.0), egui::Sense::hover());
        let painter = ui.painter_at(rect);
        painter.rect_filled(rect, 2.0, egui::Color32::from_gray(30));
        let newest_ns = detail.elevation.last().map_or(0, |p| p.0);
        let oldest_ns = newest_ns.saturating_sub(SPARKLINE_NS);
        let line: Vec<egui::Pos2> = detail
            .elevation
            .iter()
            .map(|&(t_ns, elevation)| {
                let x = (t_ns.saturating_sub(oldest_ns)) as f32 / SPARKLINE_NS as f32;
                egui::pos2(
                    rect.left() + rect.width() * x,
                    rect.bottom() - 1.0 - (rect.height() - 2.0) * elevation.clamp(0.0, 1.0),
                )
            })
            .collect();
        painter.add(egui::Shape::line(
            line,
            egui::Stroke::new(1.5, egui::Color32::from_rgb(250, 170, 60)),
        ));
        let peak = detail.elevation.iter().map(|p| p.1).fold(0.0f32, f32::max);
        painter.text(
            rect.right_top() + egui::vec2(-3.0, 1.0),
            egui::Align2::RIGHT_TOP,
            format!("peak {:.0} %", peak * 100.0),
            egui::FontId::proportional(10.0),
            egui::Color32::from_gray(170),
        );
    }
    if detail.threads.is_empty() {
        return;
    }
    ui.label(
        egui::RichText::new("per thread: own time (bright), on the stack (dim)")
            .small()
            .weak(),
    );
    for (name, own, on_stack) in detail.threads.iter().take(TOOLTIP_THREADS) {
        ui.horizontal(|ui| {
            let (rect, _) = ui.allocate_exact_size(egui::vec2(120.0, 12.0), egui::Sense::hover());
            let painter = ui.painter_at(rect);
            painter.rect_filled(rect, 1.0, egui::Color32::from_gray(35));
            let bar = |fraction: f32| {
                egui::Rect::from_min_size(
                    rect.min,
                    egui::vec2(rect.width() * fraction.clamp(0.0, 1.0), rect.height()),
                )
            };
            painter.rect_filled(bar(*on_stack), 1.0, egui::Color32::from_rgb(70, 90, 140));
            painter.rect_filled(bar(*own), 1.0, egui::Color32::from_rgb(110, 170, 255));
            ui.label(format!("{:.0} % {name}", own * 100.0));
        });
    }
    if detail.threads.len() > TOOLTIP_THREADS {
        ui.label(format!(
            "… {} more threads",
            detail.threads.len() - TOOLTIP_THREADS
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A line of 40 callers wraps: the tooltip stays at most TOOLTIP_MAX_WIDTH wide (and a
    /// short one keeps its own width).
    #[test]
    fn a_long_tooltip_line_wraps_at_the_maximum_width() {
        let width_of = |lines: Vec<String>| {
            let ctx = egui::Context::default();
            let mut width = 0.0;
            let _ = ctx.run(egui::RawInput::default(), |ctx| {
                egui::Area::new(egui::Id::new("tooltip-test")).show(ctx, |ui| {
                    let response = ui.scope(|ui| tooltip_lines_ui(ui, &lines)).response;
                    width = response.rect.width();
                });
            });
            width
        };
        let callers: Vec<String> = (0..40)
            .map(|i| format!("org.example.Caller{i}.run 12/s"))
            .collect();
        let long = width_of(vec![
            "org.example.Target.method".into(),
            format!("called by {}", callers.join(", ")),
        ]);
        assert!(long <= TOOLTIP_MAX_WIDTH + 0.5, "{long}");
        assert!(long > TOOLTIP_MAX_WIDTH * 0.8, "{long}");
        let short = width_of(vec!["Main.run".into(), "elevation 42 %".into()]);
        assert!(short < 150.0, "{short}");
    }
}
