//! What is under the cursor: a ray from the camera through the cursor, tested against each
//! city's layout (a bounding-volume hierarchy over the current heights, not a scan).

use bevy::prelude::*;
use bevy::window::PrimaryWindow;
use bevy_egui::EguiContexts;
use highrise_layout::HitTarget;

use super::camera::MainCamera;
use super::city::{Cities, CityKey, CitySet};
use super::instancing::DetailView;

/// The thing under the cursor, if any.
#[derive(Resource, Debug, Default, Clone, PartialEq)]
pub struct Hovered {
    /// The city it belongs to.
    pub city: Option<CityKey>,
    pub target: Option<HitTarget>,
    /// Where the ray met it, world coordinates.
    pub point: Vec3,
}

impl Hovered {
    /// `(city, building index)` when a building is hovered.
    pub fn building(&self) -> Option<(CityKey, u32)> {
        match (self.city, self.target) {
            (Some(city), Some(HitTarget::Building { building, .. })) => Some((city, building)),
            _ => None,
        }
    }

    /// `(city, method id)` when a building is hovered.
    pub fn method(&self) -> Option<(CityKey, u32)> {
        match (self.city, self.target) {
            (Some(city), Some(HitTarget::Building { method_id, .. })) => Some((city, method_id)),
            _ => None,
        }
    }
}

/// The nearest building, block or district any shown city has along a world-space ray. In
/// `view`, blocks drawn as one box (level of detail) are hit as that box, which stands for
/// the block's tallest building.
pub fn pick(
    cities: &Cities,
    ray_origin: Vec3,
    ray_dir: Vec3,
    view: Option<&DetailView>,
) -> Hovered {
    let mut best: Option<(f32, Hovered)> = None;
    for (key, city) in cities.iter() {
        if city.hidden {
            continue;
        }
        let Some(layout) = city.layout.as_ref() else {
            continue;
        };
        let grouped = |block: u32| view.is_some_and(|view| view.block_grouped(city, block));
        let Some(hit) = layout.hit_test_grouped(ray_origin - city.origin, ray_dir, &grouped) else {
            continue;
        };
        if best
            .as_ref()
            .is_none_or(|(distance, _)| hit.distance < *distance)
        {
            best = Some((
                hit.distance,
                Hovered {
                    city: Some(key),
                    target: Some(hit.target),
                    point: hit.point + city.origin,
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
            .add_systems(Update, hover_under_cursor.before(CitySet::Layout));
    }
}

fn hover_under_cursor(
    windows: Query<&Window, With<PrimaryWindow>>,
    cameras: Query<(&Camera, &GlobalTransform), With<MainCamera>>,
    cities: Res<Cities>,
    mut contexts: EguiContexts,
    mut hovered: ResMut<Hovered>,
) {
    let over_ui = contexts
        .ctx_mut()
        .is_ok_and(|ctx| ctx.is_pointer_over_area() || ctx.wants_pointer_input());
    let camera = cameras.single().ok();
    let ray = windows
        .single()
        .ok()
        .and_then(|window| window.cursor_position())
        .filter(|_| !over_ui)
        .and_then(|cursor| {
            let (camera, transform) = camera?;
            camera.viewport_to_world(transform, cursor).ok()
        });
    let view = camera.and_then(|(camera, transform)| {
        let height_px = camera.physical_viewport_size()?.y as f32;
        Some(DetailView::new(
            camera.clip_from_view(),
            transform,
            height_px,
        ))
    });
    let now = match ray {
        Some(ray) => pick(&cities, ray.origin, *ray.direction, view.as_ref()),
        None => Hovered::default(),
    };
    if *hovered != now {
        *hovered = now;
    }
}
