//! What is under the cursor: a ray from the camera through the cursor, tested against each
//! city's layout (a bounding-volume hierarchy over the current heights, not a scan).

use bevy::prelude::*;
use bevy::window::PrimaryWindow;
use bevy_egui::EguiContexts;
use highrise_layout::HitTarget;

use super::camera::MainCamera;
use super::city::CitySet;
use super::sessions::Sessions;

/// The thing under the cursor, if any.
#[derive(Resource, Debug, Default, Clone, PartialEq)]
pub struct Hovered {
    pub session_id: Option<u64>,
    pub target: Option<HitTarget>,
    /// Where the ray met it, world coordinates.
    pub point: Vec3,
}

impl Hovered {
    /// `(session, building index)` when a building is hovered.
    pub fn building(&self) -> Option<(u64, u32)> {
        match (self.session_id, self.target) {
            (Some(session_id), Some(HitTarget::Building { building, .. })) => {
                Some((session_id, building))
            }
            _ => None,
        }
    }
}

/// The nearest building, block or district any city shows along a world-space ray.
pub fn pick(sessions: &Sessions, ray_origin: Vec3, ray_dir: Vec3) -> Hovered {
    let mut best: Option<(f32, Hovered)> = None;
    for (&session_id, view) in sessions.shown() {
        let Some(layout) = view.city.layout.as_ref() else {
            continue;
        };
        let Some(hit) = layout.hit_test(ray_origin - view.city.origin, ray_dir) else {
            continue;
        };
        if best
            .as_ref()
            .is_none_or(|(distance, _)| hit.distance < *distance)
        {
            best = Some((
                hit.distance,
                Hovered {
                    session_id: Some(session_id),
                    target: Some(hit.target),
                    point: hit.point + view.city.origin,
                },
            ));
        }
    }
    best.map(|(_, hovered)| hovered).unwrap_or_default()
}

#[derive(Debug)]
pub struct HoverPlugin;

impl Plugin for HoverPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<Hovered>()
            .add_systems(Update, hover_under_cursor.before(CitySet));
    }
}

fn hover_under_cursor(
    windows: Query<&Window, With<PrimaryWindow>>,
    cameras: Query<(&Camera, &GlobalTransform), With<MainCamera>>,
    sessions: Res<Sessions>,
    mut contexts: EguiContexts,
    mut hovered: ResMut<Hovered>,
) {
    let over_ui = contexts
        .ctx_mut()
        .is_ok_and(|ctx| ctx.is_pointer_over_area() || ctx.wants_pointer_input());
    let ray = windows
        .single()
        .ok()
        .and_then(|window| window.cursor_position())
        .filter(|_| !over_ui)
        .and_then(|cursor| {
            let (camera, transform) = cameras.single().ok()?;
            camera.viewport_to_world(transform, cursor).ok()
        });
    let now = match ray {
        Some(ray) => pick(&sessions, ray.origin, *ray.direction),
        None => Hovered::default(),
    };
    if *hovered != now {
        *hovered = now;
    }
}
