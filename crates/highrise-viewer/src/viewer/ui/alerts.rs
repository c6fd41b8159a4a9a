//! Alerts in the viewer: each session's snapshots go through an
//! [`AlertDetector`] (at most every 100 ms of program time); an alerted method's building
//! wears a badge ("⚠ stuck", "⚠ jump") over its roof, and a window lists every alert — click
//! one to fly to its building. Dropping alerts are listed without a building.

use std::collections::HashMap;

use bevy::prelude::*;
use bevy_egui::{egui, EguiContexts};
use highrise_aggregate::{AlertConfig, AlertDetector, AlertKind};
use highrise_ingest::SessionId;

use super::names::building_names;
use super::search::method_focus_point;
use crate::viewer::camera::{FocusOn, MainCamera};
use crate::viewer::city::Cities;
use crate::viewer::labels::BadgeRects;
use crate::viewer::sessions::Sessions;

/// Least program time between two observations of one session, ns.
const OBSERVE_EVERY_NS: u64 = 100_000_000;

/// Per session: its detector and the program time it last looked at.
#[derive(Resource, Debug, Default)]
pub struct ViewerAlerts {
    by_session: HashMap<SessionId, (AlertDetector, u64)>,
    /// The list window is open (it opens again by itself on each new alert).
    open: bool,
    /// Alerts counted at the last frame.
    seen: usize,
}

impl ViewerAlerts {
    /// Alerts raised so far in `session_id`.
    pub fn of(&self, session_id: SessionId) -> &[highrise_aggregate::Alert] {
        self.by_session
            .get(&session_id)
            .map_or(&[], |(detector, _)| detector.alerts())
    }
}

/// A short name for a badge and the list.
fn kind_word(kind: &AlertKind) -> &'static str {
    match kind {
        AlertKind::Stuck { .. } => "stuck",
        AlertKind::Jump { .. } => "jump",
        AlertKind::Dropping { .. } => "dropping",
    }
}

/// The system: observes new snapshots, draws the badges and the list, flies on a click.
pub(super) fn alerts(
    mut contexts: EguiContexts,
    mut state: ResMut<ViewerAlerts>,
    sessions: Res<Sessions>,
    cities: Res<Cities>,
    cameras: Query<(&Camera, &GlobalTransform), With<MainCamera>>,
    mut focus: EventWriter<FocusOn>,
    mut badges: ResMut<BadgeRects>,
) -> Result {
    badges.0.clear();
    for (&session_id, view) in sessions.shown() {
        let Some(snapshot) = view.live_snapshot() else {
            continue;
        };
        let (detector, last_ns) = state
            .by_session
            .entry(session_id)
            .or_insert_with(|| (AlertDetector::new(AlertConfig::default()), 0));
        if *last_ns == 0 || snapshot.now_ns >= last_ns.saturating_add(OBSERVE_EVERY_NS) {
            *last_ns = snapshot.now_ns.max(1);
            detector.observe(snapshot);
        }
    }
    let total: usize = state
        .by_session
        .values()
        .map(|(d, _)| d.alerts().len())
        .sum();
    if total == 0 {
        return Ok(());
    }
    let ctx = contexts.ctx_mut()?;
    // Badges over the alerted buildings.
    if let Ok((camera, camera_transform)) = cameras.single() {
        let painter = ctx.layer_painter(egui::LayerId::background());
        for (&session_id, _) in sessions.shown() {
            let Some(city) = cities.session(session_id) else {
                continue;
            };
            let mut badged: HashMap<u32, &'static str> = HashMap::new();
            for alert in state.of(session_id) {
                if let Some(method_id) = alert.method_id {
                    // A stuck badge wins over a jump one.
                    let word = kind_word(&alert.kind);
                    let entry = badged.entry(method_id).or_insert(word);
                    if word == "stuck" {
                        *entry = word;
                    }
                }
            }
            for (method_id, word) in badged {
                let Some(point) = method_focus_point(city, method_id) else {
                    continue;
                };
                let Ok(at) = camera.world_to_viewport(camera_transform, point + Vec3::Y * 0.5)
                else {
                    continue;
                };
                let drawn = painter.text(
                    egui::pos2(at.x, at.y),
                    egui::Align2::CENTER_BOTTOM,
                    format!("⚠ {word}"),
                    egui::FontId::proportional(15.0),
                    egui::Color32::from_rgb(255, 200, 60),
                );
                // Hot spot names keep clear of it.
                badges.0.push((
                    Vec2::new(drawn.min.x, drawn.min.y),
                    Vec2::new(drawn.max.x, drawn.max.y),
                ));
            }
        }
    }
    // The list.
    if total > state.seen {
        state.open = true;
    }
    state.seen = total;
    let mut open = state.open;
    let mut fly_to = None;
    egui::Window::new(format!("Alerts ({total})"))
        .id(egui::Id::new("highrise-alerts"))
        .open(&mut open)
        .anchor(egui::Align2::RIGHT_TOP, [-10.0, 10.0])
        .default_width(380.0)
        .collapsible(true)
        .show(ctx, |ui| {
            egui::ScrollArea::vertical()
                .max_height(220.0)
                .show(ui, |ui| {
                    for (&session_id, view) in sessions.shown() {
                        let city = cities.session(session_id);
                        for alert in state.of(session_id) {
                            let name = alert
                                .method_id
                                .and_then(|method_id| {
                                    let building = city?.layout.as_ref()?.building_of(method_id)?;
                                    Some(building_names(city?, building)?.0)
                                })
                                .unwrap_or_default();
                            let text = alert.describe(&name);
                            let line = format!("{} · {text}", view.title());
                            let response = ui.selectable_label(false, line).on_hover_text(format!(
                                "{} alert; click to fly to its building",
                                kind_word(&alert.kind)
                            ));
                            if response.clicked() {
                                fly_to = alert
                                    .method_id
                                    .and_then(|method_id| method_focus_point(city?, method_id));
                            }
                        }
                    }
                });
        });
    state.open = open;
    if let Some(point) = fly_to {
        focus.write(FocusOn {
            point,
            distance_wu: 25.0,
        });
    }
    Ok(())
}
