//! egui over the scene: each city's name at its front edge, and the tooltip at the pointer.

use bevy::prelude::*;
use bevy_egui::{egui, EguiContexts};

use super::tooltip::tooltip_lines;
use crate::viewer::camera::MainCamera;
use crate::viewer::city::Cities;
use crate::viewer::compare::Compare;
use crate::viewer::hover::Hovered;
use crate::viewer::sessions::Sessions;

/// Names each city in the scene, at its front edge.
pub(super) fn city_labels(
    mut contexts: EguiContexts,
    sessions: Res<Sessions>,
    compare: Res<Compare>,
    cities: Res<Cities>,
    cameras: Query<(&Camera, &GlobalTransform), With<MainCamera>>,
) -> Result {
    let Ok((camera, camera_transform)) = cameras.single() else {
        return Ok(());
    };
    let ctx = contexts.ctx_mut()?;
    let painter = ctx.layer_painter(egui::LayerId::background());
    for key in compare.scene_order(&sessions) {
        let Some(bounds) = cities.get(key).and_then(|city| city.world_bounds()) else {
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

/// Draws the tooltip of what is hovered next to the pointer.
pub(super) fn tooltip(
    mut contexts: EguiContexts,
    sessions: Res<Sessions>,
    compare: Res<Compare>,
    cities: Res<Cities>,
    hovered: Res<Hovered>,
) -> Result {
    let lines = tooltip_lines(&sessions, &compare, &cities, &hovered);
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
