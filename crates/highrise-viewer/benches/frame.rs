//! CPU time per frame of the viewer's own systems at 200k buildings (goal ≤ 4 ms): snapshot
//! intake, target heights and colours, easing, transform and material writes, hit-test bounds,
//! and one hover pick — in a headless app (no rendering, which a software renderer could not
//! time meaningfully anyway).
//!
//! `viewer_frame_200k_buildings_labels_moving_camera` adds the camera and the scene labels
//! (level of detail chosen again as the camera moves).
//!
//! Run: `cargo bench -p highrise-viewer --bench frame`

use std::sync::Arc;
use std::time::Duration;

use bevy::prelude::*;
use criterion::{criterion_group, criterion_main, Criterion};
use highrise_aggregate::Snapshot;
use highrise_protocol::MethodDef;
use highrise_viewer::viewer::city::{headless_city_app, Cities, CityKey};
use highrise_viewer::viewer::hover::pick;
use highrise_viewer::viewer::instancing::DetailView;
use highrise_viewer::viewer::sessions::{accept_report, Sessions};

mod common;
use common::{definitions_200k, report, snapshot};

/// One frame of the worst case: the next of the rotating snapshots arrives, the app updates.
fn next_frame(
    app: &mut App,
    definitions: &Arc<[MethodDef]>,
    snapshots: &[Arc<Snapshot>],
    frame_index: &mut usize,
) {
    *frame_index += 1;
    let next = Arc::clone(&snapshots[*frame_index % snapshots.len()]);
    accept_report(
        &mut app.world_mut().resource_mut::<Sessions>(),
        report(definitions, next),
    );
    app.update();
}

fn frame(c: &mut Criterion) {
    let definitions = definitions_200k();
    let count = definitions.len();
    let snapshots: Vec<Arc<Snapshot>> = (0..8).map(|f| snapshot(count, f)).collect();

    let mut app = headless_city_app(Some(Duration::from_millis(16)));
    accept_report(
        &mut app.world_mut().resource_mut::<Sessions>(),
        report(&definitions, Arc::clone(&snapshots[0])),
    );
    for _ in 0..5 {
        app.update();
    }
    let bounds = app.world().resource::<Cities>()[CityKey::Session(1)]
        .world_bounds()
        .expect("laid out");
    let eye = Vec3::new(bounds.min_x - 50.0, 120.0, bounds.min_z - 50.0);
    let look_at = Vec3::new(
        (bounds.min_x + bounds.max_x) / 2.0,
        0.0,
        (bounds.min_z + bounds.max_z) / 2.0,
    );

    // The overview's level of detail, as the window would decide it (800 px tall, 45°).
    let view = DetailView::new(
        Mat4::perspective_infinite_reverse_rh(std::f32::consts::FRAC_PI_4, 1.6, 0.1),
        &GlobalTransform::from(Transform::from_translation(eye).looking_at(look_at, Vec3::Y)),
        800.0,
    );
    let mut frame_index = 0usize;
    // Worst case: a different 5 % of the methods is busy every frame, so nearly every
    // building is rising or falling all the time.
    c.bench_function("viewer_frame_200k_buildings", |b| {
        b.iter(|| {
            next_frame(&mut app, &definitions, &snapshots, &mut frame_index);
            let cities = app.world().resource::<Cities>();
            pick(cities, eye, (look_at - eye).normalize(), Some(&view))
        })
    });
}

/// The common case: a new snapshot every frame whose values hold still (a program in a steady
/// state), after the city has settled: intake, targets and the hover pick, nothing to move.
fn steady(c: &mut Criterion) {
    let definitions = definitions_200k();
    let busy = snapshot(definitions.len(), 0);
    let mut app = headless_city_app(Some(Duration::from_millis(16)));
    accept_report(
        &mut app.world_mut().resource_mut::<Sessions>(),
        report(&definitions, Arc::clone(&busy)),
    );
    for _ in 0..120 {
        app.update();
    }
    let mut now_ns = 1_000;
    c.bench_function("viewer_frame_200k_buildings_steady", |b| {
        b.iter(|| {
            now_ns += 1;
            let next = Arc::new(Snapshot {
                now_ns,
                ..(*busy).clone()
            });
            accept_report(
                &mut app.world_mut().resource_mut::<Sessions>(),
                report(&definitions, next),
            );
            app.update();
        })
    });
}

/// What a user sees of the 200k city at the default framing, nothing touched, printed: the
/// top-level packages named (on the ground or upright, each at 12 px or more: a top-level
/// package that only leads to one sub-package is named by that one's path), the hot spots named
/// and how tall they stand against the tallest building, and how much of the plate the
/// districts cover.
fn overview_check(app: &mut App) {
    use highrise_viewer::viewer::labels::SceneLabels;
    // The camera frames the city as it settles (one snapshot, no change).
    for _ in 0..90 {
        app.update();
    }
    let labels = app.world().resource::<SceneLabels>();
    let cities = app.world().resource::<Cities>();
    let city = &cities[CityKey::Session(1)];
    let layout = city.layout.as_ref().expect("laid out");
    let names: Vec<(&str, f32)> = labels
        .shown
        .iter()
        .chain(&labels.overview)
        .map(|l| (l.text.as_str(), l.text_px))
        .collect();
    let top_level: Vec<(&str, u32)> = layout
        .packages()
        .iter()
        .filter(|p| p.depth == 1)
        .map(|p| (p.path.as_str(), p.method_count))
        .collect();
    let (named, unnamed): (Vec<_>, Vec<_>) = top_level.iter().partition(|(path, _)| {
        names.iter().any(|(text, px)| {
            *px >= 12.0 && (text == path || text.starts_with(&format!("{path}.")))
        })
    });
    let named = named.len();
    let unnamed: Vec<String> = unnamed
        .iter()
        .map(|(path, methods)| format!("{path} ({methods} methods)"))
        .collect();
    let tallest_wu = city
        .target_heights_wu
        .iter()
        .copied()
        .fold(0.0f32, f32::max);
    let shortest_hot_wu = labels
        .hot_spots
        .iter()
        .map(|h| city.target_heights_wu[h.building as usize])
        .fold(f32::MAX, f32::min);
    eprintln!(
        "overview of the 200k city at the default framing: {named} of {} top-level packages \
         named at 12 px or more, {} names in all; {} hot spots named, the lowest at {:.0} % of the \
         tallest building; plate covered {:.1} %; not named: {}",
        top_level.len(),
        names.len(),
        labels.hot_spots.len(),
        shortest_hot_wu / tallest_wu.max(f32::MIN_POSITIVE) * 100.0,
        layout.plate_covered_share() * 100.0,
        unnamed.join(", ")
    );
}

/// The worst case again with the scene's names: the camera (framing) and the labels, with
/// the camera moving every frame, so the level of detail is chosen again whenever its interval
/// has passed (every ~6 frames at 16 ms), close enough to the city that class names show.
fn labels(c: &mut Criterion) {
    use highrise_viewer::viewer::camera::{CameraPlugin, CameraState, MainCamera};
    use highrise_viewer::viewer::labels::{LabelsPlugin, SceneLabels};
    use smooth_bevy_cameras::LookTransform;

    let definitions = definitions_200k();
    let count = definitions.len();
    let snapshots: Vec<Arc<Snapshot>> = (0..8).map(|f| snapshot(count, f)).collect();
    let mut app = headless_city_app(Some(Duration::from_millis(16)));
    app.add_plugins(bevy::input::InputPlugin)
        .add_plugins((CameraPlugin { interactive: false }, LabelsPlugin));
    accept_report(
        &mut app.world_mut().resource_mut::<Sessions>(),
        report(&definitions, Arc::clone(&snapshots[0])),
    );
    for _ in 0..5 {
        app.update();
    }
    overview_check(&mut app);
    app.world_mut().resource_mut::<CameraState>().user_moved = true;
    let bounds = app.world().resource::<Cities>()[CityKey::Session(1)]
        .world_bounds()
        .expect("laid out");
    let centre = Vec3::new(
        (bounds.min_x + bounds.max_x) / 2.0,
        0.0,
        (bounds.min_z + bounds.max_z) / 2.0,
    );
    let mut frame_index = 0usize;
    let mut most_labels = 0;
    c.bench_function("viewer_frame_200k_buildings_labels_moving_camera", |b| {
        b.iter(|| {
            let angle = (frame_index + 1) as f32 * 0.01;
            {
                let mut query = app
                    .world_mut()
                    .query_filtered::<&mut LookTransform, With<MainCamera>>();
                if let Ok(mut look) = query.single_mut(app.world_mut()) {
                    look.target = centre;
                    look.eye = centre + Vec3::new(angle.cos() * 40.0, 30.0, angle.sin() * 40.0);
                }
            }
            next_frame(&mut app, &definitions, &snapshots, &mut frame_index);
            most_labels = most_labels.max(app.world().resource::<SceneLabels>().shown.len());
        })
    });
    eprintln!("labels shown (most at once): {most_labels}");
}

/// The worst case with call arcs: every method calls two others (400k edges, each with calls
/// in the window), arcs in "top 40" mode plus the hovered building's callers and callees,
/// drawn as one ribbon mesh (CPU side: choosing, placing the strips and writing the mesh).
fn arcs(c: &mut Criterion) {
    use highrise_aggregate::{CallEdge, CallEdges};
    use highrise_layout::HitTarget;
    use highrise_viewer::viewer::arcs::{CallArcs, CallArcsPlugin};
    use highrise_viewer::viewer::camera::CameraPlugin;
    use highrise_viewer::viewer::hover::Hovered;

    let definitions = definitions_200k();
    let count = definitions.len() as u32;
    let mut edges: Vec<CallEdge> = (0..count)
        .flat_map(|caller| {
            [1, 7919].map(|step| CallEdge {
                caller,
                callee: (caller + step) % count,
                calls: 1_000 + u64::from(caller % 97),
                recent_calls: 10 + u64::from(caller % 89),
            })
        })
        .collect();
    edges.sort_by_key(|edge| (edge.caller, edge.callee));
    let edges = Arc::new(CallEdges {
        edges,
        span_ns: 3_000_000_000,
        now_ns: 3_000_000_000,
        capped_calls: 0,
    });
    let snapshots: Vec<Arc<Snapshot>> = (0..8)
        .map(|f| {
            let mut snapshot = (*snapshot(count as usize, f)).clone();
            snapshot.edges = Some(Arc::clone(&edges));
            Arc::new(snapshot)
        })
        .collect();
    // "off" has the arcs systems too: the difference is the arcs' own cost.
    for (mode, name) in [
        (CallArcs::Off, "viewer_frame_200k_buildings_arcs_off"),
        (CallArcs::Top, "viewer_frame_200k_buildings_arcs_top"),
    ] {
        let mut app = headless_city_app(Some(Duration::from_millis(16)));
        // The camera the ribbons face (no render app: not drawn here).
        app.add_plugins(bevy::input::InputPlugin)
            .add_plugins((CameraPlugin { interactive: false }, CallArcsPlugin))
            .insert_resource(mode);
        accept_report(
            &mut app.world_mut().resource_mut::<Sessions>(),
            report(&definitions, Arc::clone(&snapshots[0])),
        );
        for _ in 0..5 {
            app.update();
        }
        app.world_mut().insert_resource(Hovered {
            city: Some(CityKey::Session(1)),
            target: Some(HitTarget::Building {
                building: 0,
                method_id: 1_000,
            }),
            point: Vec3::ZERO,
        });
        let mut frame_index = 0usize;
        c.bench_function(name, |b| {
            b.iter(|| next_frame(&mut app, &definitions, &snapshots, &mut frame_index))
        });
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(30).measurement_time(Duration::from_secs(8));
    targets = frame, steady, labels, arcs
}
criterion_main!(benches);
