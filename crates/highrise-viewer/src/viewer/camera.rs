//! The camera: orbit (default) and fly modes on smooth-bevy-cameras, with input maps of our own
//! so that panels keep the mouse, and speeds that scale with the city.
//!
//! Orbit: left-drag rotates, right- or middle-drag pans, the wheel zooms. Fly (Tab toggles):
//! WASD moves, Space/Shift rise and sink, right-drag looks around. F (or Home) frames every
//! city; double-clicking a building focuses it.

use bevy::input::mouse::{MouseMotion, MouseScrollUnit, MouseWheel};
use bevy::prelude::*;
use bevy_egui::EguiContexts;
use smooth_bevy_cameras::controllers::fps::{self, FpsCameraController, FpsCameraPlugin};
use smooth_bevy_cameras::controllers::orbit::{
    self, OrbitCameraBundle, OrbitCameraController, OrbitCameraPlugin,
};
use smooth_bevy_cameras::{LookTransform, LookTransformPlugin, Smoother};

use super::city::{CityKey, CitySet};
use super::compare::{scene_cities, Compare};
use super::hover::Hovered;
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

/// Ask the camera to frame every city.
#[derive(Event, Debug, Clone, Copy, Default)]
pub struct FrameAll;

/// Camera bookkeeping.
#[derive(Resource, Default, Debug)]
struct CameraState {
    /// The user moved the camera: stop re-framing as the city grows.
    user_moved: bool,
    /// The world bounds framed last, to re-frame when they change.
    framed_extent_wu: f32,
    /// The cities the scene showed when it was framed last.
    framed_scene: Vec<CityKey>,
    last_click_s: f64,
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
        .add_event::<FocusOn>()
        .add_event::<FrameAll>()
        .add_systems(Startup, spawn_camera);
        if self.interactive {
            app.add_systems(
                Update,
                (
                    (orbit_input, fly_input, keys, double_click_focus),
                    (auto_frame, apply_frame_and_focus),
                )
                    .chain()
                    .after(CitySet),
            );
        } else {
            app.add_systems(
                Update,
                (auto_frame, apply_frame_and_focus).chain().after(CitySet),
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
        state.user_moved = true;
    }
    if (buttons.pressed(MouseButton::Right) || buttons.pressed(MouseButton::Middle))
        && delta != Vec2::ZERO
    {
        // Pan speed proportional to the distance, so it feels the same at any city size.
        events.write(orbit::ControlEvent::TranslateTarget(
            delta * look.radius() * 0.3,
        ));
        state.user_moved = true;
    }
    let mut scalar = 1.0;
    for event in wheel.read() {
        let lines = match event.unit {
            MouseScrollUnit::Line => event.y,
            MouseScrollUnit::Pixel => event.y / controller.pixels_per_line,
        };
        scalar *= 1.0 - lines * controller.mouse_wheel_zoom_sensitivity;
        state.user_moved = true;
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
    sessions: Res<Sessions>,
    compare: Res<Compare>,
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
        state.user_moved = true;
    }
    if typing {
        return;
    }
    // Cross the whole world in about four seconds.
    let speed = world_extent(&sessions, &compare).max(20.0) / 4.0;
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
            state.user_moved = true;
        }
    }
}

fn keys(
    keyboard: Res<ButtonInput<KeyCode>>,
    mut contexts: EguiContexts,
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
        state.user_moved = true;
    }
    state.last_click_s = now_s;
}

/// The largest side of all shown cities together, world units.
fn world_extent(sessions: &Sessions, compare: &Compare) -> f32 {
    world_bounds(sessions, compare).map_or(0.0, |(min, max)| (max - min).max_element())
}

fn world_bounds(sessions: &Sessions, compare: &Compare) -> Option<(Vec3, Vec3)> {
    scene_cities(sessions, compare)
        .filter(|(_, city)| !city.hidden)
        .filter_map(|(_, city)| {
            let bounds = city.world_bounds()?;
            Some((
                Vec3::new(bounds.min_x, 0.0, bounds.min_z),
                Vec3::new(bounds.max_x, city.max_height_wu() * 0.5, bounds.max_z),
            ))
        })
        .reduce(|(a_min, a_max), (b_min, b_max)| (a_min.min(b_min), a_max.max(b_max)))
}

/// Until the user takes the camera, keep the whole world in view as cities appear and grow;
/// when the compare view changes what the scene shows, frame the new scene once.
fn auto_frame(
    sessions: Res<Sessions>,
    compare: Res<Compare>,
    mut state: ResMut<CameraState>,
    mut frame: EventWriter<FrameAll>,
) {
    let scene = compare.scene_order(&sessions);
    if scene != state.framed_scene {
        state.framed_scene = scene;
        state.user_moved = false;
        state.framed_extent_wu = 0.0;
    }
    if state.user_moved {
        return;
    }
    let extent = world_extent(&sessions, &compare);
    if extent > 0.0 && (extent - state.framed_extent_wu).abs() > 0.5 {
        state.framed_extent_wu = extent;
        frame.write(FrameAll);
    }
}

fn apply_frame_and_focus(
    sessions: Res<Sessions>,
    compare: Res<Compare>,
    mut frames: EventReader<FrameAll>,
    mut focus: EventReader<FocusOn>,
    mut cameras: Query<&mut LookTransform, With<MainCamera>>,
) {
    let Ok(mut look) = cameras.single_mut() else {
        return;
    };
    if frames.read().count() > 0 {
        if let Some((min, max)) = world_bounds(&sessions, &compare) {
            let centre = (min + max) / 2.0;
            // Room for the ground and for the tallest towers (max.y is half the 100 % height).
            let extent = (max - min).max_element().max(max.y * 2.4).max(10.0);
            look.target = Vec3::new(centre.x, max.y * 0.5, centre.z);
            look.eye = look.target + Vec3::new(-0.45, 0.7, 0.95).normalize() * extent * 1.35;
        }
    }
    if let Some(request) = focus.read().last() {
        let direction = look
            .look_direction()
            .map_or(Vec3::new(0.45, -0.75, -0.95).normalize(), |d| d);
        look.target = request.point;
        look.eye = request.point - direction * request.distance_wu;
    }
}
