//! Diving into a package: focusing one frames its buildings (the view fills with them), dims
//! every building of its city outside it, and leaves breadcrumbs (drawn by the panel's
//! overlay) that lead back out. A click on a district's ground or a block's slab, a package in
//! the panel, a breadcrumb, `--focus PACKAGE` or Escape (one level out) choose it, each by a
//! [`FocusPackage`] event.
//!
//! The focus follows the city's plan: as definitions arrive and the plan changes, the dimming
//! is made again for the package's buildings, and the camera frames it again until the user
//! moves the camera.

use bevy::prelude::*;

use super::camera::{CameraState, FrameAll, FrameBox};
use super::city::{Cities, CityKey, CitySet};
use super::hover::Hovered;
use highrise_layout::{CityLayout, HitTarget};

/// Which package the scene is focused on, if any.
#[derive(Resource, Debug, Default, Clone, PartialEq)]
pub struct PackageFocus {
    /// The focused city and package path (`""` never: the root is the whole city).
    pub focused: Option<(CityKey, String)>,
    /// The city, package and plan generation the dimming was last made for.
    applied: Option<(CityKey, String, u64)>,
}

/// Focus a package of a city (`package: None`: back to the whole scene).
#[derive(Event, Debug, Clone, PartialEq)]
pub struct FocusPackage {
    pub city: CityKey,
    pub package: Option<String>,
}

/// The package `--focus` names, focused in the first city that has it.
#[derive(Resource, Debug, Default, Clone)]
pub struct FocusAtStart(pub Option<String>);

/// Focus; `interactive` adds the click on a district and Escape.
#[derive(Debug)]
pub struct FocusPlugin {
    pub interactive: bool,
}

impl Plugin for FocusPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<PackageFocus>()
            .init_resource::<FocusAtStart>()
            .add_event::<FocusPackage>()
            .add_event::<FrameBox>()
            .add_systems(
                Update,
                (focus_at_start, take_requests, apply_focus)
                    .chain()
                    .after(CitySet::Animate),
            );
        if self.interactive {
            app.add_systems(
                Update,
                (click_to_focus, escape_to_leave).before(take_requests),
            );
        }
    }
}

/// The package a district stands for (`None` for the root: the whole city).
pub fn district_package(layout: &CityLayout, district: u32) -> Option<String> {
    let district = layout.districts().get(district as usize)?;
    let package = layout.packages().get(district.package as usize)?;
    (!package.path.is_empty()).then(|| package.path.clone())
}

/// The package a hit on the ground stands for: a district's, a block's district's.
fn hit_package(layout: &CityLayout, target: HitTarget) -> Option<String> {
    match target {
        HitTarget::District { district } => district_package(layout, district),
        HitTarget::Block { block } => {
            district_package(layout, layout.blocks().get(block as usize)?.district)
        }
        HitTarget::Building { .. } => None,
    }
}

/// The package one level out of `path` that the plan has (`None`: the whole city).
pub fn parent_package(layout: &CityLayout, path: &str) -> Option<String> {
    let packages = layout.packages();
    let package = packages.iter().find(|p| p.path == path)?;
    let parent = packages.get(package.parent? as usize)?;
    (!parent.path.is_empty()).then(|| parent.path.clone())
}

/// The breadcrumbs of a package: every package from the top level down to it that the plan
/// has, outermost first.
pub fn package_trail(layout: &CityLayout, path: &str) -> Vec<String> {
    let packages = layout.packages();
    let mut trail = Vec::new();
    let mut at = packages.iter().position(|p| p.path == path);
    while let Some(index) = at {
        let package = &packages[index];
        if package.path.is_empty() {
            break;
        }
        trail.push(package.path.clone());
        at = package.parent.map(|p| p as usize);
    }
    trail.reverse();
    trail
}

/// Which packages of a plan are package `path` or one of its sub-packages, by package index
/// (`None` when the plan has no such package).
pub fn packages_in(layout: &CityLayout, path: &str) -> Option<Vec<bool>> {
    let packages = layout.packages();
    let focused = packages.iter().position(|p| p.path == path)?;
    // Per package: inside the focused one? Parents may come after children, so each walks
    // up its chain (memoised).
    let mut inside: Vec<Option<bool>> = vec![None; packages.len()];
    inside[focused] = Some(true);
    for start in 0..packages.len() {
        let mut chain = Vec::new();
        let mut at = Some(start);
        let verdict = loop {
            let Some(index) = at else {
                break false;
            };
            if let Some(known) = inside[index] {
                break known;
            }
            chain.push(index);
            at = packages[index].parent.map(|p| p as usize);
        };
        for index in chain {
            inside[index] = Some(verdict);
        }
    }
    Some(inside.into_iter().map(|i| i.unwrap_or(false)).collect())
}

/// Which buildings of a plan belong to the packages marked `inside` (by package index, as
/// [`packages_in`] gives them).
pub fn buildings_in(layout: &CityLayout, inside: &[bool]) -> Vec<bool> {
    let blocks = layout.blocks();
    let classes = layout.classes();
    layout
        .buildings()
        .iter()
        .map(|building| {
            blocks
                .get(building.block as usize)
                .and_then(|block| classes.get(block.class as usize))
                .and_then(|class| inside.get(class.package as usize).copied())
                .unwrap_or(false)
        })
        .collect()
}

fn focus_at_start(
    cities: Res<Cities>,
    mut wanted: ResMut<FocusAtStart>,
    mut requests: EventWriter<FocusPackage>,
) {
    let Some(path) = wanted.0.as_deref() else {
        return;
    };
    let found = cities.iter().find(|(key, city)| {
        matches!(key, CityKey::Session(_))
            && city
                .layout
                .as_ref()
                .is_some_and(|layout| layout.packages().iter().any(|p| p.path == path))
    });
    if let Some((key, _)) = found {
        requests.write(FocusPackage {
            city: key,
            package: Some(path.to_owned()),
        });
        wanted.0 = None;
    }
}

fn take_requests(
    mut requests: EventReader<FocusPackage>,
    mut focus: ResMut<PackageFocus>,
    mut cities: ResMut<Cities>,
    mut camera: Option<ResMut<CameraState>>,
    mut frame_all: EventWriter<FrameAll>,
) {
    let Some(request) = requests.read().last().cloned() else {
        return;
    };
    let wanted = request.package.map(|package| (request.city, package));
    if focus.focused == wanted {
        return;
    }
    focus.focused = wanted;
    focus.applied = None;
    if focus.focused.is_none() {
        for (_, city) in cities.iter_mut() {
            city.set_dimmed(Vec::new(), Vec::new());
        }
        // Back to the whole scene, framed as the city grows.
        if let Some(camera) = camera.as_deref_mut() {
            camera.user_moved = false;
            camera.framing_focus = false;
        }
        frame_all.write(FrameAll);
    }
}

/// Dims what lies outside the focused package (again when the plan changed) and frames it
/// when it was just chosen.
fn apply_focus(
    mut focus: ResMut<PackageFocus>,
    mut cities: ResMut<Cities>,
    mut camera: Option<ResMut<CameraState>>,
    mut frame: EventWriter<FrameBox>,
) {
    let Some((key, path)) = focus.focused.clone() else {
        return;
    };
    let Some(city) = cities.get_mut(key) else {
        focus.focused = None;
        return;
    };
    let generation = city.plan_generation();
    let applied = focus.applied.as_ref();
    if applied.is_some_and(|(k, p, g)| *k == key && *p == path && *g == generation) {
        return;
    }
    let Some(layout) = city.layout.as_ref() else {
        return;
    };
    let Some(packages) = packages_in(layout, &path) else {
        return; // not in the plan yet (or any more): wait
    };
    let inside = buildings_in(layout, &packages);
    let first_time = !applied.is_some_and(|(k, p, _)| *k == key && *p == path);
    // Framed when chosen, and again as the plan moves it until the user takes the camera.
    let following = camera.as_deref().is_some_and(|c| c.framing_focus);
    if first_time || following {
        // Its blocks (and its sub-packages', annexes included), with a margin for their
        // names, up to its tallest building (target heights: a tower still rising is framed
        // already). Blocks, not districts: a district grown to fill its parent's free space
        // may be mostly bare ground.
        let (mut min, mut max) = (Vec3::splat(f32::MAX), Vec3::splat(f32::MIN));
        for block in layout.blocks().iter().filter(|b| {
            layout
                .classes()
                .get(b.class as usize)
                .is_some_and(|c| packages.get(c.package as usize).copied().unwrap_or(false))
        }) {
            let rect = block.rect;
            min = min.min(Vec3::new(rect.min_x, 0.0, rect.min_z));
            max = max.max(Vec3::new(rect.max_x, block.base_height_wu, rect.max_z));
        }
        let margin_wu = ((max.x - min.x).max(max.z - min.z) * 0.12).max(3.0);
        min -= Vec3::new(margin_wu, 0.0, margin_wu);
        max += Vec3::new(margin_wu, 0.0, margin_wu);
        for ((building, _), &height_wu) in layout
            .buildings()
            .iter()
            .zip(&inside)
            .zip(&city.target_heights_wu)
            .filter(|((_, &inside), _)| inside)
        {
            max.y = max.y.max(building.base_height_wu + height_wu);
        }
        // The ground fills the view: a tower far taller than the district may rise out of it.
        max.y = max.y.min(min.y + (max.x - min.x).max(max.z - min.z));
        if min.x <= max.x {
            frame.write(FrameBox {
                min: min + city.origin,
                max: max + city.origin,
            });
            if let Some(camera) = camera.as_deref_mut() {
                camera.user_moved = true;
                camera.framing_focus = true;
            }
        }
    }
    city.set_dimmed(
        inside.into_iter().map(|inside| !inside).collect(),
        packages.into_iter().map(|inside| !inside).collect(),
    );
    focus.applied = Some((key, path, generation));
}

/// A click (press and release without dragging) on a district's ground or a block's slab
/// focuses its package; on the root's ground, the whole city.
fn click_to_focus(
    buttons: Option<Res<ButtonInput<MouseButton>>>,
    windows: Query<&Window>,
    hovered: Option<Res<Hovered>>,
    cities: Res<Cities>,
    mut pressed_at: Local<Option<Vec2>>,
    mut requests: EventWriter<FocusPackage>,
) {
    let (Some(buttons), Some(hovered)) = (buttons, hovered) else {
        return;
    };
    let cursor = windows.iter().find_map(Window::cursor_position);
    if buttons.just_pressed(MouseButton::Left) {
        *pressed_at = cursor;
    }
    if !buttons.just_released(MouseButton::Left) {
        return;
    }
    let (Some(from), Some(to)) = (pressed_at.take(), cursor) else {
        return;
    };
    if from.distance(to) > 4.0 {
        return; // a drag turned the camera
    }
    let (Some(key), Some(target)) = (hovered.city, hovered.target) else {
        return;
    };
    if matches!(target, HitTarget::Building { .. }) {
        return;
    }
    let Some(layout) = cities.get(key).and_then(|city| city.layout.as_ref()) else {
        return;
    };
    requests.write(FocusPackage {
        city: key,
        package: hit_package(layout, target),
    });
}

/// Escape: one package out (from a top-level package, the whole scene).
fn escape_to_leave(
    keyboard: Option<Res<ButtonInput<KeyCode>>>,
    focus: Res<PackageFocus>,
    cities: Res<Cities>,
    mut requests: EventWriter<FocusPackage>,
) {
    if !keyboard.is_some_and(|k| k.just_pressed(KeyCode::Escape)) {
        return;
    }
    let Some((key, path)) = focus.focused.as_ref() else {
        return;
    };
    let parent = cities
        .get(*key)
        .and_then(|city| city.layout.as_ref())
        .and_then(|layout| parent_package(layout, path));
    requests.write(FocusPackage {
        city: *key,
        package: parent,
    });
}
