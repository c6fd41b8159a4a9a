//! The camera: framing the scene and the compare view, the tallest tower in view, following
//! what the user looks at through a re-layout.

use bevy::prelude::*;
use highrise_viewer::viewer::city::{Cities, CityKey};
use highrise_viewer::viewer::compare::Compare;
use highrise_viewer::viewer::sessions::{accept_report, Sessions};

use crate::support::*;

/// The camera frames the whole scene once a city appears, and frames again when the compare
/// view changes what the scene shows (the non-interactive camera: framing only).
#[test]
fn the_camera_frames_the_city_and_reframes_for_the_compare_view() {
    use highrise_viewer::viewer::camera::{CameraPlugin, MainCamera};
    use highrise_viewer::viewer::compare::CompareMode;
    use smooth_bevy_cameras::LookTransform;

    let mut app = app();
    app.add_plugins(bevy::input::InputPlugin)
        .add_plugins(CameraPlugin { interactive: false });
    {
        let mut sessions = app.world_mut().resource_mut::<Sessions>();
        accept_report(
            &mut sessions,
            session_report(1, "a", tetris(), vec![stats(0.5, 1, 1); 3]),
        );
        let mut wide = tetris();
        wide.extend((3..60).map(|id| def(id, "main.extra", "Wide", &format!("m{id}"))));
        accept_report(
            &mut sessions,
            session_report(2, "b", wide, vec![stats(0.5, 1, 1); 60]),
        );
    }
    for _ in 0..5 {
        app.update();
    }
    let target = |app: &mut App| {
        let mut query = app
            .world_mut()
            .query_filtered::<&LookTransform, With<MainCamera>>();
        query.single(app.world()).expect("one camera").target
    };
    let centre_of = |app: &App, keys: &[u64]| {
        let cities = app.world().resource::<Cities>();
        let (mut min_x, mut max_x) = (f32::MAX, f32::MIN);
        for key in keys {
            let bounds = cities[CityKey::Session(*key)]
                .world_bounds()
                .expect("laid out");
            min_x = min_x.min(bounds.min_x);
            max_x = max_x.max(bounds.max_x);
        }
        (min_x + max_x) / 2.0
    };
    let both = centre_of(&app, &[1, 2]);
    assert!(
        (target(&mut app).x - both).abs() < 0.5,
        "framed both cities"
    );

    // The diff view shows one city: the camera moves to it.
    {
        let mut compare = app.world_mut().resource_mut::<Compare>();
        compare.mode = CompareMode::Diff;
        compare.a = Some(1);
        compare.b = Some(2);
    }
    for _ in 0..5 {
        app.update();
    }
    let diff = app.world().resource::<Cities>()[CityKey::Diff]
        .world_bounds()
        .expect("diff city");
    let framed = target(&mut app);
    assert!(
        (framed.x - (diff.min_x + diff.max_x) / 2.0).abs() < 0.5,
        "framed the diff city: {framed:?} vs {diff:?}"
    );
}

/// The camera frames the whole city including its tallest tower: every corner of the tower
/// lands inside the view.
#[test]
fn framing_keeps_the_tallest_tower_in_view() {
    use bevy::render::camera::CameraProjection;
    use highrise_viewer::viewer::camera::MainCamera;
    let mut app = app_with_camera_and_labels();
    let defs = six_packages();
    let count = defs.len();
    let mut methods = vec![stats(0.05, 1, 1); count];
    methods[count - 1] = stats(1.0, 1, 1);
    accept(&mut app, report(defs, methods, 1));
    for _ in 0..80 {
        app.update();
    }
    let cities = app.world().resource::<Cities>();
    let city = &cities[CityKey::Session(1)];
    let layout = city.layout.as_ref().expect("plan");
    let tower = layout.building_of(count as u32 - 1).expect("placed") as usize;
    let height_wu = city.target_heights_wu[tower];
    assert!(height_wu >= city.max_height_wu() * 0.99, "a 100 % tower");
    let footprint = layout.buildings()[tower].footprint;
    let base = layout.buildings()[tower].base_height_wu;
    let origin = city.origin;
    let mut query = app
        .world_mut()
        .query_filtered::<(&Transform, &Projection), With<MainCamera>>();
    let (transform, projection) = query.single(app.world()).expect("camera");
    let clip_from_world = projection.get_clip_from_view() * transform.compute_matrix().inverse();
    for x in [footprint.min_x, footprint.max_x] {
        for z in [footprint.min_z, footprint.max_z] {
            for y in [base, base + height_wu] {
                let clip = clip_from_world * (origin + Vec3::new(x, y, z)).extend(1.0);
                let ndc = clip.truncate() / clip.w;
                assert!(
                    clip.w > 0.0 && ndc.x.abs() <= 1.0 && ndc.y.abs() <= 1.0,
                    "tower corner ({x}, {y}, {z}) is in view: ndc {ndc:?}"
                );
            }
        }
    }
}

/// When the plan moves buildings while the user looks at one, the camera moves with it.
#[test]
fn a_re_layout_keeps_what_the_user_looks_at_in_view() {
    use highrise_viewer::viewer::camera::{CameraState, MainCamera};
    use smooth_bevy_cameras::LookTransform;
    let mut app = app_with_camera_and_labels();
    let mut sent = six_packages();
    let count = sent.len();
    accept(
        &mut app,
        report(sent.clone(), vec![stats(0.1, 1, 1); count], 1),
    );
    for _ in 0..5 {
        app.update();
    }
    let watched = 61u32; // a method of main.game5, packed after main.game0
    let plot = |app: &App| {
        let cities = app.world().resource::<Cities>();
        let city = &cities[CityKey::Session(1)];
        let layout = city.layout.as_ref().expect("plan");
        let building = layout.building_of(watched).expect("placed") as usize;
        layout.buildings()[building].footprint.center() + city.origin
    };
    let before = plot(&app);
    let offset = Vec3::new(0.0, 12.0, 10.0);
    place_camera(&mut app, before + offset, before);
    // Classes of main.game0 arrive one at a time until the plan moves the watched building.
    let mut moved = false;
    for round in 0..60u32 {
        let id = sent.len() as u32;
        sent.extend((0..6).map(|m| {
            def(
                id + m,
                "main.game0",
                &format!("Extra{round}"),
                &format!("m{m}"),
            )
        }));
        let count = sent.len();
        accept(
            &mut app,
            report(
                sent.clone(),
                vec![stats(0.1, 1, 1); count],
                2 + u64::from(round),
            ),
        );
        app.update();
        if plot(&app).distance(before) > 3.0 {
            moved = true;
            break;
        }
    }
    assert!(moved, "some arrival re-laid the city out");
    assert!(app.world().resource::<CameraState>().user_moved);
    for _ in 0..20 {
        app.update();
    }
    let after = plot(&app);
    let mut query = app
        .world_mut()
        .query_filtered::<&LookTransform, With<MainCamera>>();
    let look = query.single(app.world()).expect("camera");
    assert!(
        look.target.distance(after) < 1.5,
        "the camera followed the building from {before} to {after}: target {}",
        look.target
    );
}
