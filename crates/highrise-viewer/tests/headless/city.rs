//! The city systems: snapshots become eased heights and colours, new methods join and moved
//! buildings glide, tidy and highlight keep colours and heights right.

use bevy::prelude::*;
use highrise_aggregate::MethodStats;
use highrise_layout::HitTarget;
use highrise_viewer::viewer::city::{
    Cities, CityKey, ColourKey, ColourMode, HeightMode, HeightScale, Palette, HEAT_STEPS,
    STUB_HEIGHT_WU,
};
use highrise_viewer::viewer::hover::Hovered;
use highrise_viewer::viewer::instancing::instance_rgba;

use crate::support::*;

#[test]
fn snapshots_become_eased_heights_and_heat_colours() {
    let mut app = app();
    let methods = vec![stats(1.0, 3, 1), stats(0.25, 1, 40), MethodStats::default()];
    accept(&mut app, report(tetris(), methods, 1));
    settle(&mut app);
    let cities = app.world().resource::<Cities>();
    let city = &cities[CityKey::Session(1)];
    let layout = city.layout.as_ref().expect("laid out");
    let max = city.max_height_wu();
    let index_of = |method_id| layout.building_of(method_id).expect("placed") as usize;
    let (run, rotate, draw) = (index_of(0), index_of(1), index_of(2));
    assert!(
        (city.heights_wu[run] - max).abs() < 0.01,
        "{:?}",
        city.heights_wu
    );
    assert!((city.heights_wu[rotate] - 0.25 * max).abs() < 0.01);
    assert_eq!(city.heights_wu[draw], STUB_HEIGHT_WU);
    assert_eq!(city.colours[run], ColourKey::Heat((HEAT_STEPS - 1) as u8));
    assert_eq!(city.colours[draw], ColourKey::Stub);

    let palette = app.world().resource::<Palette>();
    let (palette_heat_max, palette_stub) = (
        palette.rgba(ColourKey::Heat(31)),
        palette.rgba(ColourKey::Stub),
    );
    let drawn = buildings(&mut app);
    assert_eq!(drawn.len(), 3);
    assert!(
        (drawn[run].height - max).abs() < 0.01,
        "drawn height {:?}",
        drawn[run]
    );
    assert_eq!(instance_rgba(&drawn[run]), palette_heat_max);
    assert_eq!(instance_rgba(&drawn[draw]), palette_stub);
}

#[test]
fn heights_ease_instead_of_jumping() {
    let mut app = app();
    accept(&mut app, report(tetris(), vec![stats(1.0, 1, 1)], 1));
    app.update();
    app.update();
    let first = app.world().resource::<Cities>()[CityKey::Session(1)]
        .heights_wu
        .clone();
    app.update();
    let second = app.world().resource::<Cities>()[CityKey::Session(1)]
        .heights_wu
        .clone();
    let max = app.world().resource::<Cities>()[CityKey::Session(1)].max_height_wu();
    let run = app.world().resource::<Cities>()[CityKey::Session(1)]
        .layout
        .as_ref()
        .and_then(|l| l.building_of(0))
        .expect("placed") as usize;
    assert!(first[run] > STUB_HEIGHT_WU && first[run] < max, "{first:?}");
    assert!(second[run] > first[run] && second[run] < max, "{second:?}");
}

/// Thousands of methods share the time in a big program: on the default, relative scale the
/// hottest stands (nearly) full height and the next in proportion, while the paper's absolute
/// scale leaves them a tenth of it; the colour keeps meaning heat on both.
#[test]
fn hot_spots_stand_as_towers_on_the_relative_scale() {
    let mut app = app();
    let methods = vec![stats(0.10, 1, 1), stats(0.05, 1, 1), stats(0.001, 1, 1)];
    accept(&mut app, report(tetris(), methods, 1));
    settle(&mut app);
    let heights = |app: &App| {
        let city = &app.world().resource::<Cities>()[CityKey::Session(1)];
        let layout = city.layout.as_ref().expect("laid out");
        let at = |id| city.heights_wu[layout.building_of(id).expect("placed") as usize];
        let max = city.max_height_wu();
        (
            at(0) / max,
            at(1) / max,
            at(2) / max,
            city.full_scale,
            city.colours.clone(),
        )
    };
    let (hot, warm, crumb, full, relative_colours) = heights(&app);
    // Full height = 2^-3.25 = 10.5 % of the window, the step at or above the hottest.
    assert!((full - 2f32.powf(-3.25)).abs() < 1e-4, "{full}");
    assert!((hot - 0.10 / full).abs() < 0.01, "{hot}");
    assert!((warm - 0.05 / full).abs() < 0.01, "{warm}");
    assert!(crumb < 0.05, "{crumb}");

    app.insert_resource(HeightScale::Absolute);
    settle(&mut app);
    let (hot, warm, _, full, absolute_colours) = heights(&app);
    assert_eq!(full, 1.0);
    assert!((hot - 0.10).abs() < 0.01, "{hot}");
    assert!((warm - 0.05).abs() < 0.01, "{warm}");
    assert_eq!(relative_colours, absolute_colours);
}

#[test]
fn modes_change_targets() {
    let mut app = app();
    let methods = vec![
        MethodStats {
            elevation: 0.1,
            inclusive_elevation: 0.9,
            summed_elevation: 0.3,
            thread_count: 5,
            parked_threads: 0,
            calls: 2,
            approximate: false,
        },
        stats(0.5, 1, 1),
        stats(0.5, 1, 1),
    ];
    accept(&mut app, report(tetris(), methods, 1));
    app.update();
    *app.world_mut().resource_mut::<HeightMode>() = HeightMode::Inclusive;
    *app.world_mut().resource_mut::<ColourMode>() = ColourMode::Threads;
    settle(&mut app);
    let cities = app.world().resource::<Cities>();
    let city = &cities[CityKey::Session(1)];
    let run = city
        .layout
        .as_ref()
        .and_then(|l| l.building_of(0))
        .expect("placed") as usize;
    assert!((city.heights_wu[run] - 0.9 * city.max_height_wu()).abs() < 0.01);
    assert_eq!(city.colours[run], ColourKey::Threads(5));
}

/// Methods defined later join the city; existing buildings never jump: they start where they
/// stood and, when the plan moved them, glide to their new plots and settle exactly there.
#[test]
fn new_methods_join_and_existing_buildings_glide_instead_of_jumping() {
    let mut app = app();
    accept(&mut app, report(tetris(), vec![], 1));
    app.update();
    let before = buildings(&mut app);
    let mut more = tetris();
    more.extend([
        def(3, "main.game", "Board", "clear"),
        def(4, "main.net", "Socket", "poll"),
        def(5, "main.game.ai", "Planner", "plan"),
    ]);
    accept(&mut app, report(more, vec![], 2));
    app.update();
    let first = buildings(&mut app);
    assert_eq!(first.len(), 6);
    assert_eq!(before.len(), 3);
    for (index, instance) in before.iter().enumerate() {
        let now = &first[index];
        assert!(
            (now.centre_x - instance.centre_x).abs() < 1e-4
                && (now.centre_z - instance.centre_z).abs() < 1e-4,
            "building {index} jumped: {now:?} from {instance:?}"
        );
    }
    for _ in 0..8 {
        app.update();
    }
    let settled = buildings(&mut app);
    let cities = app.world().resource::<Cities>();
    let city = &cities[CityKey::Session(1)];
    assert!(city.glide.is_none(), "the glide ended");
    let layout = city.layout.as_ref().expect("plan");
    for (instance, building) in settled.iter().zip(layout.buildings()) {
        let centre = building.footprint.center() + city.origin;
        assert_eq!((instance.centre_x, instance.centre_z), (centre.x, centre.z));
    }
}

#[test]
fn tidy_and_hover_changes_keep_colours_and_heights_right() {
    let mut app = app();
    let mut definitions = tetris();
    definitions.push(def(3, "main.game", "Board", "clear"));
    accept(
        &mut app,
        report(
            definitions,
            vec![stats(1.0, 2, 1), MethodStats::default(), stats(0.5, 1, 3)],
            1,
        ),
    );
    settle(&mut app);
    let expected = |app: &App| {
        let city = &app.world().resource::<Cities>()[CityKey::Session(1)];
        let layout = city.layout.as_ref().expect("laid out");
        let max = city.max_height_wu();
        let run = layout.building_of(0).expect("run") as usize;
        let draw = layout.building_of(2).expect("draw") as usize;
        assert!(
            (city.heights_wu[run] - max).abs() < 0.01,
            "{:?}",
            city.heights_wu
        );
        assert!((city.heights_wu[draw] - 0.5 * max).abs() < 0.01);
        assert_eq!(city.colours[run], ColourKey::Heat((HEAT_STEPS - 1) as u8));
        (run, draw)
    };
    let (run, _) = expected(&app);

    // Hover on, then off: the highlight comes and goes.
    app.insert_resource(Hovered {
        city: Some(CityKey::Session(1)),
        target: Some(HitTarget::Building {
            building: run as u32,
            method_id: 0,
        }),
        point: Vec3::ZERO,
    });
    app.update();
    assert_eq!(
        app.world().resource::<Cities>()[CityKey::Session(1)].colours[run],
        ColourKey::Highlight
    );
    app.insert_resource(Hovered::default());
    app.update();
    expected(&app);

    // Tidy rebuilds every entity; heights and colours follow the methods to their new plots.
    app.world_mut()
        .resource_mut::<Cities>()
        .get_mut(CityKey::Session(1))
        .expect("session")
        .tidy();
    for _ in 0..5 {
        app.update();
    }
    expected(&app);
    assert_eq!(buildings(&mut app).len(), 4);
}

/// Classes arriving one after another (as a JVM loads them) keep the city compact; when the
/// plan moves buildings they glide, and once settled every building stands exactly on its
/// plot.
#[test]
fn lazily_arriving_classes_stay_compact_and_glide_into_place() {
    let mut app = app();
    let defs = six_packages();
    let mut sent = Vec::new();
    let mut glided = false;
    for chunk in defs.chunks(4) {
        sent.extend(chunk.iter().cloned());
        let count = sent.len();
        accept(
            &mut app,
            report(sent.clone(), vec![stats(0.1, 1, 1); count], count as u64),
        );
        app.update();
        let cities = app.world().resource::<Cities>();
        let city = &cities[CityKey::Session(1)];
        glided |= city.glide.is_some();
        let layout = city.layout.as_ref().expect("plan");
        let ratio = layout.area_wu2() / layout.tidy().area_wu2();
        assert!(
            ratio <= 1.3,
            "footprint {ratio:.2}x a fresh layout after {count} methods"
        );
    }
    // Let every glide finish (100 ms a frame).
    for _ in 0..10 {
        app.update();
    }
    let drawn = buildings(&mut app);
    let cities = app.world().resource::<Cities>();
    let city = &cities[CityKey::Session(1)];
    assert!(city.glide.is_none(), "settled");
    let layout = city.layout.as_ref().expect("plan");
    assert_eq!(drawn.len(), layout.buildings().len());
    for (instance, building) in drawn.iter().zip(layout.buildings()) {
        let centre = building.footprint.center();
        assert_eq!(
            (instance.centre_x, instance.centre_z),
            (centre.x + city.origin.x, centre.z + city.origin.z),
            "building {} on its plot",
            building.method_id
        );
    }
    eprintln!("a glide happened: {glided}");
}
