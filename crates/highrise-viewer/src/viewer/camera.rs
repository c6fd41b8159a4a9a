//! The camera: orbit (default) and fly modes on smooth-bevy-cameras, with input maps of our own
//! so that panels keep the mouse, and speeds that scale with the city.
//!
//! Orbit: left-drag rotates, right- or middle-drag pans, the wheel zooms. Fly (Tab toggles):
//! WASD moves, Space/Shift rise and sink, right-drag looks around. F (or Home) frames every
//! city; double-clicking a building focuses it.
//!
//! Framing ([`frame_box`]) fits the box of every shown city, from the ground to its tallest
//! building, into the part of the window the panel leaves, with a margin, and follows the
//! scene as it grows and its towers rise until the user takes the camera (F resumes). When a
//! city's plan moves buildings, a user-placed camera moves with what it looked at.

use bevy::input::mouse::{MouseMotion, MouseScrollUnit, MouseWheel};
use bevy::prelude::*;
use bevy_egui::EguiContexts;
use smooth_bevy_cameras::controllers::fps::{self, FpsCameraController, FpsCameraPlugin};
use smooth_bevy_cameras::controllers::orbit::{
    self, OrbitCameraBundle, OrbitCameraController, OrbitCameraPlugin,
};
use smooth_bevy_cameras::{LookTransform, LookTransformPlugin, Smoother};

use super::city::{Cities, CityKey, CitySet};
use super::compare::Compare;
use super::hover::Hovered;
use super::landscape::Landscape;
use super::sessions::Sessions;

/// Marks the one 3D camera.
#[derive(Component, Debug)]
pub struct MainCamera;

/// Orbit around a target, or fly freely.
#[derive(Resource, Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CameraMode {
    #[default]
    Orbit,
    Fly,
}

/// Ask the camera to look at a point from a distance (search results, double-click).
#[derive(Event, Debug, Clone, Copy)]
pub struct FocusOn {
    pub point: Vec3,
    pub distance_wu: f32,
}

/// Ask the camera to frame a box of the world (a focused package's buildings), as it frames
/// the whole scene.
#[derive(Event, Debug, Clone, Copy)]
pub struct FrameBox {
    pub min: Vec3,
    pub max: Vec3,
}

/// Ask the camera to frame every city.
#[derive(Event, Debug, Clone, Copy, Default)]
pub struct FrameAll;

/// The shares of the window the panels cover: the side panel's of its width from the left,
/// the timeline's of its height from the bottom. Framing centres the scene in the rest.
#[derive(Resource, Default, Debug, Clone, Copy)]
pub struct PanelCover {
    pub left_fraction: f32,
    pub bottom_fraction: f32,
}

/// Camera bookkeeping.
#[derive(Resource, Default, Debug)]
pub struct CameraState {
    /// The user moved the camera: stop re-framing as the city grows.
    pub user_moved: bool,
    /// The camera frames a focused package (again as its plan changes) until the user moves it.
    pub framing_focus: bool,
    /// The world box framed last (ground and tallest building), to re-frame when it changes.
    framed_box: Option<(Vec3, Vec3)>,
    /// The cities the scene showed when it was framed last.
    framed_scene: Vec<CityKey>,
    last_click_s: f64,
}

impl CameraState {
    /// The user moved the camera: framing follows neither the growing city nor a focused
    /// package any more.
    fn taken_by_user(&mut self) {
        self.user_moved = true;
        self.framing_focus = false;
    }
}

/// The camera; `interactive: false` (offscreen rendering) keeps only the framing.
#[derive(Debug)]
pub struct CameraPlugin {
    pub interactive: bool,
}

impl Plugin for CameraPlugin {
    fn build(&self, app: &mut App) {
        app.add_plugins((
            LookTransformPlugin,
            OrbitCameraPlugin::new(true),
            FpsCameraPlugin::new(true),
        ))
        .init_resource::<CameraMode>()
        .init_resource::<CameraState>()
        .init_resource::<PanelCover>()
        .add_event::<FocusOn>()
        .add_event::<FrameAll>()
        .add_event::<FrameBox>()
        .add_systems(Startup, spawn_camera);
        if self.interactive {
            app.add_systems(
                Update,
                (
                    (orbit_input, fly_input, keys, double_click_focus),
                    (keep_point_of_interest, auto_frame, apply_frame_and_focus),
                )
                    .chain()
                    .after(CitySet::Animate),
            );
        } else {
            app.add_systems(
                Update,
                (keep_point_of_interest, auto_frame, apply_frame_and_focus)
                    .chain()
                    .after(CitySet::Animate),
            );
        }
    }
}

fn spawn_camera(mut commands: Commands, offscreen: Option<Res<super::offscreen::OffscreenTarget>>) {
    // Without a window (`report --png`) the camera renders into the offscreen image.
    let camera = offscreen.map_or_else(Camera::default, |target| Camera {
        target: bevy::render::camera::RenderTarget::Image(target.0.clone().into()),
        ..default()
    });
    commands.spawn((
        Camera3d::default(),
        camera,
        MainCamera,
        // The buildings' instanced draw issues direct (not indirect) draw calls.
        bevy::render::view::NoIndirectDrawing,
        OrbitCameraBundle::new(
            OrbitCameraController {
                mouse_rotate_sensitivity: Vec2::splat(0.25),
                mouse_wheel_zoom_sensitivity: 0.12,
                smoothing_weight: 0.75,
                ..default()
            },
            Vec3::new(-25.0, 35.0, 45.0),
            Vec3::ZERO,
            Vec3::Y,
        ),
    ));
}

fn pointer_over_ui(contexts: &mut EguiContexts) -> bool {
    contexts
        .ctx_mut()
        .is_ok_and(|ctx| ctx.is_pointer_over_area() || ctx.wants_pointer_input())
}

#[allow(clippy::too_many_arguments)] // a Bevy system: each parameter is one resource or query
fn orbit_input(
    mode: Res<CameraMode>,
    mut contexts: EguiContexts,
    mut events: EventWriter<orbit::ControlEvent>,
    mut wheel: EventReader<MouseWheel>,
    mut motion: EventReader<MouseMotion>,
    buttons: Res<ButtonInput<MouseButton>>,
    cameras: Query<(&OrbitCameraController, &LookTransform)>,
    mut state: ResMut<CameraState>,
) {
    if *mode != CameraMode::Orbit {
        return;
    }
    let over_ui = pointer_over_ui(&mut contexts);
    let delta: Vec2 = motion.read().map(|m| m.delta).sum();
    let Ok((controller, look)) = cameras.single() else {
        wheel.clear();
        return;
    };
    if over_ui {
        wheel.clear();
        return;
    }
    if buttons.pressed(MouseButton::Left) && delta != Vec2::ZERO {
        events.write(orbit::ControlEvent::Orbit(
            controller.mouse_rotate_sensitivity * delta,
        ));
        state.taken_by_user();
    }
    if (buttons.pressed(MouseButton::Right) || buttons.pressed(MouseButton::Middle))
        && delta != Vec2::ZERO
    {
        // Pan speed proportional to the distance, so it feels the same at any city size.
        events.write(orbit::ControlEvent::TranslateTarget(
            delta * look.radius() * 0.3,
        ));
        state.taken_by_user();
    }
    let mut scalar = 1.0;
    for event in wheel.read() {
        let lines = match event.unit {
            MouseScrollUnit::Line => event.y,
            MouseScrollUnit::Pixel => event.y / controller.pixels_per_line,
        };
        scalar *= 1.0 - lines * controller.mouse_wheel_zoom_sensitivity;
        state.taken_by_user();
    }
    if scalar != 1.0 {
        events.write(orbit::ControlEvent::Zoom(scalar));
    }
}

#[allow(clippy::too_many_arguments)] // a Bevy system: each parameter is one resource or query
fn fly_input(
    mode: Res<CameraMode>,
    mut contexts: EguiContexts,
    mut events: EventWriter<fps::ControlEvent>,
    mut motion: EventReader<MouseMotion>,
    buttons: Res<ButtonInput<MouseButton>>,
    keyboard: Res<ButtonInput<KeyCode>>,
    cities: Res<Cities>,
    cameras: Query<&FpsCameraController>,
    mut state: ResMut<CameraState>,
) {
    let delta: Vec2 = motion.read().map(|m| m.delta).sum();
    if *mode != CameraMode::Fly {
        return;
    }
    let Ok(controller) = cameras.single() else {
        return;
    };
    let typing = contexts
        .ctx_mut()
        .is_ok_and(|ctx| ctx.wants_keyboard_input());
    if buttons.pressed(MouseButton::Right) && !pointer_over_ui(&mut contexts) && delta != Vec2::ZERO
    {
        events.write(fps::ControlEvent::Rotate(
            controller.mouse_rotate_sensitivity * delta,
        ));
        state.taken_by_user();
    }
    if typing {
        return;
    }
    // Cross the whole world in about four seconds.
    let speed = world_extent(&cities).max(20.0) / 4.0;
    for (key, direction) in [
        (KeyCode::KeyW, Vec3::Z),
        (KeyCode::KeyA, Vec3::X),
        (KeyCode::KeyS, -Vec3::Z),
        (KeyCode::KeyD, -Vec3::X),
        (KeyCode::ShiftLeft, -Vec3::Y),
        (KeyCode::Space, Vec3::Y),
    ] {
        if keyboard.pressed(key) {
            events.write(fps::ControlEvent::TranslateEye(speed * direction));
            state.taken_by_user();
        }
    }
}

fn keys(
    keyboard: Res<ButtonInput<KeyCode>>,
    mut contexts: EguiContexts,
    mut state: ResMut<CameraState>,
    mut mode: ResMut<CameraMode>,
    mut commands: Commands,
    cameras: Query<(Entity, Option<&OrbitCameraController>), With<MainCamera>>,
    mut frame: EventWriter<FrameAll>,
) {
    if contexts
        .ctx_mut()
        .is_ok_and(|ctx| ctx.wants_keyboard_input())
    {
        return;
    }
    if keyboard.just_pressed(KeyCode::KeyF) || keyboard.just_pressed(KeyCode::Home) {
        // Frame now, and keep framing as the city grows until the user moves the camera.
        state.user_moved = false;
        state.framed_box = None;
        frame.write(FrameAll);
    }
    if keyboard.just_pressed(KeyCode::Tab) {
        let Ok((camera, orbit)) = cameras.single() else {
            return;
        };
        // Exactly one controller at a time; a fresh smoother avoids a jump.
        let mut entity = commands.entity(camera);
        if orbit.is_some() {
            entity.remove::<OrbitCameraController>().insert((
                FpsCameraController {
                    translate_sensitivity: 1.0,
                    mouse_rotate_sensitivity: Vec2::splat(0.25),
                    smoothing_weight: 0.75,
                    ..default()
                },
                Smoother::new(0.75),
            ));
            *mode = CameraMode::Fly;
        } else {
            entity.remove::<FpsCameraController>().insert((
                OrbitCameraController {
                    mouse_rotate_sensitivity: Vec2::splat(0.25),
                    mouse_wheel_zoom_sensitivity: 0.12,
                    smoothing_weight: 0.75,
                    ..default()
                },
                Smoother::new(0.75),
            ));
            *mode = CameraMode::Orbit;
        }
    }
}

fn double_click_focus(
    buttons: Res<ButtonInput<MouseButton>>,
    time: Res<Time>,
    hovered: Res<Hovered>,
    mut state: ResMut<CameraState>,
    mut focus: EventWriter<FocusOn>,
) {
    if !buttons.just_pressed(MouseButton::Left) {
        return;
    }
    let now_s = time.elapsed_secs_f64();
    if now_s - state.last_click_s < 0.35 && hovered.building().is_some() {
        focus.write(FocusOn {
            point: hovered.point,
            distance_wu: 25.0,
        });
        state.taken_by_user();
    }
    state.last_click_s = now_s;
}

/// The largest side of all shown cities together, world units.
fn world_extent(cities: &Cities) -> f32 {
    world_bounds(cities).map_or(0.0, |(min, max)| (max - min).max_element())
}

/// The box around every shown city: its ground, up to its tallest building (the target
/// heights, so a tower still rising is framed already), world coordinates.
pub fn world_bounds(cities: &Cities) -> Option<(Vec3, Vec3)> {
    cities
        .iter()
        .filter(|(_, city)| !city.hidden)
        .filter_map(|(_, city)| {
            let bounds = city.world_bounds()?;
            Some((
                Vec3::new(bounds.min_x, 0.0, bounds.min_z),
                Vec3::new(bounds.max_x, city.top_wu(), bounds.max_z),
            ))
        })
        .reduce(|(a_min, a_max), (b_min, b_max)| (a_min.min(b_min), a_max.max(b_max)))
}

/// [`world_bounds`] grown to the landscape's host plates (with their labels).
pub fn scene_bounds(cities: &Cities, landscape: &Landscape) -> Option<(Vec3, Vec3)> {
    let (mut min, mut max) = world_bounds(cities)?;
    for area in &landscape.hosts {
        min = min.min(Vec3::new(area.rect.min_x, 0.0, area.rect.min_z));
        max = max.max(Vec3::new(area.rect.max_x, 0.0, area.rect.max_z));
    }
    Some((min, max))
}

/// Where the eye goes, seen from: above and in front (+Z), a little to the left.
const VIEW_FROM: Vec3 = Vec3::new(-0.45, 0.7, 0.95);
/// Free space kept around the framed box, as a fraction of the view.
const FRAME_MARGIN: f32 = 0.08;

/// The look target and eye that show the whole box `min..max` from direction `from` (target
/// to eye) through a perspective of vertical field of view `fov_y` and `aspect` (width /
/// height), centred in the part of the view the panels leave (`cover`), with a margin. Each
/// of the box's corners lands inside the view.
pub fn frame_box(
    min: Vec3,
    max: Vec3,
    from: Vec3,
    fov_y: f32,
    aspect: f32,
    cover: PanelCover,
) -> (Vec3, Vec3) {
    let left_fraction = cover.left_fraction;
    let bottom_fraction = cover.bottom_fraction.clamp(0.0, 0.6);
    let back = from.normalize();
    let forward = -back;
    let right = forward.cross(Vec3::Y).normalize();
    let up = right.cross(forward);
    let centre = (min + max) / 2.0;
    let tan_y = (fov_y / 2.0).tan() * (1.0 - bottom_fraction) * (1.0 - FRAME_MARGIN);
    let visible = (1.0 - left_fraction.clamp(0.0, 0.8)).max(0.2);
    // The visible part of the view is `visible` of its width: fit into that width.
    let tan_x = (fov_y / 2.0).tan() * aspect * visible * (1.0 - FRAME_MARGIN);
    let mut distance = 1.0f32;
    for corner in 0..8 {
        let p = Vec3::new(
            if corner & 1 == 0 { min.x } else { max.x },
            if corner & 2 == 0 { min.y } else { max.y },
            if corner & 4 == 0 { min.z } else { max.z },
        );
        let d = p - centre;
        let needed = (d.dot(right).abs() / tan_x).max(d.dot(up).abs() / tan_y) - d.dot(forward);
        distance = distance.max(needed);
    }
    // Shift the view so the box's centre sits in the middle of the visible part: the middle
    // of [-1 + 2 * left, 1] in normalised device coordinates.
    let mid_ndc = left_fraction.clamp(0.0, 0.8);
    let shift = -right * (mid_ndc * distance * (fov_y / 2.0).tan() * aspect)
        - up * (bottom_fraction * distance * (fov_y / 2.0).tan());
    let target = centre + shift;
    (target, target + back * distance)
}

/// When a city's plan moves its buildings while the user looks at part of it, the camera
/// moves with the building nearest to what it looks at (it glides there with the city).
fn keep_point_of_interest(
    cities: Res<Cities>,
    state: Res<CameraState>,
    mut cameras: Query<&mut LookTransform, With<MainCamera>>,
) {
    if !state.user_moved || state.framing_focus {
        return; // framing follows the whole city, or the focused package, anyway
    }
    let Ok(mut look) = cameras.single_mut() else {
        return;
    };
    for (_, city) in cities.iter() {
        let (Some(glide), Some(layout)) = (city.glide.as_ref(), city.layout.as_ref()) else {
            continue;
        };
        if !glide.just_started || city.hidden {
            continue;
        }
        let local = Vec2::new(
            look.target.x - glide.from_origin.x,
            look.target.z - glide.from_origin.z,
        );
        // Where the plan had each building (the camera went there), else where it was drawn.
        let from_of = |index: usize| {
            glide
                .from_plan
                .get(index)
                .copied()
                .unwrap_or(glide.from_buildings[index])
        };
        let nearest = (0..glide.from_buildings.len())
            .map(|index| (index, from_of(index).distance_squared(local)))
            .min_by(|a, b| a.1.total_cmp(&b.1));
        let Some((index, _)) = nearest else {
            continue;
        };
        let Some(building) = layout.buildings().get(index) else {
            continue;
        };
        let to = building.footprint.center();
        let from = from_of(index);
        // World positions: a plan that changes the city's bounds may move its origin too.
        let moved_origin = city.origin - glide.from_origin;
        let shift = Vec3::new(
            to.x - from.x + moved_origin.x,
            0.0,
            to.z - from.y + moved_origin.z,
        );
        look.target += shift;
        look.eye += shift;
    }
}

/// Until the user takes the camera, keep the whole world in view as cities appear, grow and
/// their towers rise; when the compare view changes what the scene shows, frame the new scene
/// once.
fn auto_frame(
    sessions: Res<Sessions>,
    compare: Res<Compare>,
    cities: Res<Cities>,
    landscape: Res<Landscape>,
    mut state: ResMut<CameraState>,
    mut frame: EventWriter<FrameAll>,
) {
    let scene = compare.scene_order(&sessions);
    if scene != state.framed_scene {
        state.framed_scene = scene;
        state.user_moved = false;
        state.framed_box = None;
    }
    if state.user_moved {
        return;
    }
    let Some((min, max)) = scene_bounds(&cities, &landscape) else {
        return;
    };
    // Re-frame when the box changed by more than a few percent of its size (heights move
    // all the time; the smoother makes each re-frame a glide).
    let size = (max - min).max_element().max(1.0);
    let changed = state.framed_box.is_none_or(|(old_min, old_max)| {
        (old_min - min)
            .abs()
            .max_element()
            .max((old_max - max).abs().max_element())
            > 0.04 * size
    });
    if changed {
        state.framed_box = Some((min, max));
        frame.write(FrameAll);
    }
}

fn apply_frame_and_focus(
    cities: Res<Cities>,
    landscape: Res<Landscape>,
    cover: Res<PanelCover>,
    (mut frames, mut boxes): (EventReader<FrameAll>, EventReader<FrameBox>),
    mut focus: EventReader<FocusOn>,
    mut cameras: Query<(&mut LookTransform, Option<&Projection>), With<MainCamera>>,
) {
    let Ok((mut look, projection)) = cameras.single_mut() else {
        return;
    };
    let (fov_y, aspect) = match projection {
        Some(Projection::Perspective(p)) => (p.fov, p.aspect_ratio),
        _ => (std::f32::consts::FRAC_PI_4, 1.6),
    };
    let framed = if frames.read().count() > 0 {
        scene_bounds(&cities, &landscape)
    } else {
        None
    };
    if let Some((min, max)) = boxes.read().last().map(|b| (b.min, b.max)).or(framed) {
        let (target, eye) = frame_box(min, max, VIEW_FROM, fov_y, aspect, *cover);
        look.target = target;
        look.eye = eye;
    }
    if let Some(request) = focus.read().last() {
        let direction = look
            .look_direction()
            .map_or(Vec3::new(0.45, -0.75, -0.95).normalize(), |d| d);
        look.target = request.point;
        look.eye = request.point - direction * request.distance_wu;
    }
}

/// What a user would judge of one city in the current view: how compact its plan is, and
/// whether its tallest building is entirely in the part of the window the panel leaves.
#[derive(Debug, Clone, PartialEq)]
pub struct CityCheck {
    pub city: CityKey,
    /// The plan's footprint over that of a fresh full layout of the same methods.
    pub footprint_ratio: f32,
    /// The tallest building's box lies inside the visible view.
    pub tallest_inside: bool,
    /// Its height, world units.
    pub tallest_wu: f32,
    /// Where the city's box (ground to tallest building) lands in the window: `[min_x, min_y,
    /// max_x, max_y]` in logical pixels, `None` when a corner is behind the camera.
    pub screen_px: Option<[f32; 4]>,
}

/// [`CityCheck`] for every shown city, from the viewer's own state (printed with each
/// scheduled screenshot).
pub fn view_check(
    sessions: &Sessions,
    compare: &Compare,
    cities: &Cities,
    camera: &Camera,
    camera_transform: &GlobalTransform,
    cover: &PanelCover,
) -> Vec<CityCheck> {
    let mut checks = Vec::new();
    for key in compare.scene_order(sessions) {
        let Some(city) = cities.get(key) else {
            continue;
        };
        let Some(layout) = city.layout.as_ref() else {
            continue;
        };
        let fresh_wu2 = layout.tidy().area_wu2().max(1.0);
        let tallest = city
            .target_heights_wu
            .iter()
            .enumerate()
            .max_by(|a, b| a.1.total_cmp(b.1));
        let (tallest_inside, tallest_wu) = match tallest {
            Some((index, &height_wu)) => {
                let building = &layout.buildings()[index];
                let f = building.footprint;
                let (base, top) = (building.base_height_wu, building.base_height_wu + height_wu);
                let left_ndc = -1.0 + 2.0 * cover.left_fraction;
                let inside = [f.min_x, f.max_x].iter().all(|&x| {
                    [f.min_z, f.max_z].iter().all(|&z| {
                        [base, top].iter().all(|&y| {
                            camera
                                .world_to_ndc(camera_transform, city.origin + Vec3::new(x, y, z))
                                .is_some_and(|ndc| {
                                    ndc.x >= left_ndc && ndc.x <= 1.0 && ndc.y.abs() <= 1.0
                                })
                        })
                    })
                });
                (inside, height_wu)
            }
            None => (true, 0.0),
        };
        let bounds = layout.bounds();
        let mut screen_px = Some([f32::MAX, f32::MAX, f32::MIN, f32::MIN]);
        for x in [bounds.min_x, bounds.max_x] {
            for z in [bounds.min_z, bounds.max_z] {
                for y in [0.0, tallest_wu] {
                    let corner = city.origin + Vec3::new(x, y, z);
                    screen_px = match (
                        screen_px,
                        camera.world_to_viewport(camera_transform, corner),
                    ) {
                        (Some([x0, y0, x1, y1]), Ok(p)) => {
                            Some([x0.min(p.x), y0.min(p.y), x1.max(p.x), y1.max(p.y)])
                        }
                        _ => None,
                    };
                }
            }
        }
        checks.push(CityCheck {
            city: key,
            footprint_ratio: layout.area_wu2() / fresh_wu2,
            tallest_inside,
            tallest_wu,
            screen_px,
        });
    }
    checks
}
