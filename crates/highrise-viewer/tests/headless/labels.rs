//! Scene labels: package and class names with level of detail, the hovered building's name.

use bevy::prelude::*;
use highrise_layout::HitTarget;
use highrise_viewer::viewer::city::{Cities, CityKey};
use highrise_viewer::viewer::hover::Hovered;

use crate::support::*;

/// Package names lie on their districts and class names in front of their blocks when the
/// camera is close; from far away the small class names give way (level of detail); hovering a
/// building floats its name above it.
#[test]
fn labels_name_packages_and_classes_with_level_of_detail() {
    use highrise_viewer::viewer::labels::{LabelKind, SceneLabels};
    let mut app = app_with_camera_and_labels();
    let defs = six_packages();
    let count = defs.len();
    accept(&mut app, report(defs, vec![stats(0.2, 1, 1); count], 1));
    for _ in 0..5 {
        app.update();
    }
    let bounds = app.world().resource::<Cities>()[CityKey::Session(1)]
        .world_bounds()
        .expect("laid out");
    let centre = Vec3::new(
        (bounds.min_x + bounds.max_x) / 2.0,
        0.0,
        (bounds.min_z + bounds.max_z) / 2.0,
    );
    let extent = bounds.width_wu().max(bounds.depth_wu());

    // Close: every package and several classes are named, none covering another.
    place_camera(&mut app, centre + Vec3::new(0.0, 0.9, 0.8) * extent, centre);
    let near = app.world().resource::<SceneLabels>().shown.clone();
    let packages: Vec<&str> = near
        .iter()
        .filter(|l| l.kind == LabelKind::Package)
        .map(|l| l.text.as_str())
        .collect();
    // Labels never cover each other on screen, so a package name may give way to a larger
    // package's; nearly all are named.
    let named = (0..6)
        .filter(|package| {
            let name = format!("main.game{package}");
            packages
                .iter()
                .any(|p| *p == name || name.ends_with(&format!(".{p}")))
        })
        .count();
    assert!(named >= 5, "packages are named: {packages:?}");
    let classes = near.iter().filter(|l| l.kind == LabelKind::Class).count();
    assert!(classes >= 6, "classes are named up close: {near:#?}");
    assert!(near.iter().all(|l| l.text_px >= 11.0));
    // Each package label lies inside its district, on the slab.
    let cities = app.world().resource::<Cities>();
    let layout = cities[CityKey::Session(1)].layout.as_ref().expect("plan");
    for label in near.iter().filter(|l| l.kind == LabelKind::Package) {
        let package = layout
            .packages()
            .iter()
            .find(|p| p.path == label.text || p.path.ends_with(&format!(".{}", label.text)))
            .expect("a package of that name");
        let rect = layout.districts()[package.districts[0] as usize].rect;
        assert!(
            label.centre.x - label.size_wu.x / 2.0 >= rect.min_x - 1e-3
                && label.centre.x + label.size_wu.x / 2.0 <= rect.max_x + 1e-3
                && label.centre.z <= rect.max_z
                && label.centre.z >= rect.min_z,
            "{label:?} lies on {rect:?}"
        );
    }

    // Farther away (60 wu): the class names are too small to read and give way; the larger
    // package names still read (about 11 px at 1280 x 800).
    place_camera(&mut app, centre + Vec3::new(0.0, 0.78, 0.62) * 60.0, centre);
    let far = app.world().resource::<SceneLabels>().shown.clone();
    assert!(
        far.iter().all(|l| l.kind != LabelKind::Class),
        "no class names from far away: {far:#?}"
    );
    assert!(
        far.iter().any(|l| l.kind == LabelKind::Package),
        "package names still read from there: {far:#?}"
    );

    // Hover: the building's name floats above it.
    let building = {
        let cities = app.world().resource::<Cities>();
        let layout = cities[CityKey::Session(1)].layout.as_ref().expect("plan");
        layout.building_of(5).expect("method 5 placed")
    };
    *app.world_mut().resource_mut::<Hovered>() = Hovered {
        city: Some(CityKey::Session(1)),
        target: Some(HitTarget::Building {
            building,
            method_id: 5,
        }),
        point: Vec3::ZERO,
    };
    app.update();
    let hovered = app
        .world()
        .resource::<SceneLabels>()
        .hovered
        .clone()
        .expect("hovered label");
    assert_eq!(hovered.text, "Class0x1.method1");
    assert!(hovered.centre.y > 0.2, "above the building: {hovered:?}");
}

/// The five hottest buildings carry their names and shares from the default framing, above
/// their tops, covering neither each other nor a package name; a building that cools down
/// loses its name.
#[test]
fn the_hottest_buildings_carry_their_names() {
    use highrise_viewer::viewer::labels::{LabelKind, SceneLabels};
    let mut app = app_with_camera_and_labels();
    let defs = six_packages();
    let count = defs.len();
    let mut methods = vec![stats(0.001, 1, 1); count];
    let hot = [
        (7u32, 0.6f32),
        (30, 0.4),
        (51, 0.3),
        (66, 0.25),
        (12, 0.2),
        (40, 0.19),
    ];
    for (method_id, elevation) in hot {
        methods[method_id as usize] = stats(elevation, 1, 10);
    }
    accept(&mut app, report(defs.clone(), methods.clone(), 1));
    settle(&mut app);
    let labels = app.world().resource::<SceneLabels>();
    let named: Vec<u32> = {
        let cities = app.world().resource::<Cities>();
        let layout = cities[CityKey::Session(1)].layout.as_ref().expect("plan");
        labels
            .hot_spots
            .iter()
            .map(|h| layout.buildings()[h.building as usize].method_id)
            .collect()
    };
    assert_eq!(named, vec![7, 30, 51, 66, 12], "{:#?}", labels.hot_spots);
    // A small city keeps the paper's proportions (auto: linear under 1,000 methods).
    assert!(!app.world().resource::<Cities>()[CityKey::Session(1)].sqrt_heights);
    let first = &labels.hot_spots[0];
    assert_eq!(first.text, "Class0x1.method3 · 60 %");
    for (index, spot) in labels.hot_spots.iter().enumerate() {
        assert!(spot.max_px.y <= spot.anchor_px.y, "above its top: {spot:?}");
        let others = labels.hot_spots[index + 1..]
            .iter()
            .map(|h| (h.min_px, h.max_px))
            .chain(
                labels
                    .shown
                    .iter()
                    .filter(|l| l.kind == LabelKind::Package)
                    .map(|l| (l.min_px, l.max_px)),
            );
        for (min, max) in others {
            let apart = spot.max_px.x <= min.x
                || max.x <= spot.min_px.x
                || spot.max_px.y <= min.y
                || max.y <= spot.min_px.y;
            assert!(apart, "{spot:?} covers {min:?}..{max:?}");
        }
    }

    // Method 7 cools to nothing: it loses its name, and the sixth takes the fifth place.
    methods[7] = stats(0.0, 0, 0);
    accept(&mut app, report(defs, methods, 2));
    settle(&mut app);
    let labels = app.world().resource::<SceneLabels>();
    let cities = app.world().resource::<Cities>();
    let layout = cities[CityKey::Session(1)].layout.as_ref().expect("plan");
    let named: Vec<u32> = labels
        .hot_spots
        .iter()
        .map(|h| layout.buildings()[h.building as usize].method_id)
        .collect();
    assert_eq!(named, vec![30, 51, 66, 12, 40]);
}

/// A 20,000-method city at the default framing, nothing touched: every top-level package is
/// named readably (on its district, or upright on screen at the overview), names cover no
/// other name, and the five hottest carry theirs.
#[test]
fn a_big_city_names_its_top_level_packages_at_the_overview() {
    use highrise_viewer::viewer::labels::{LabelKind, SceneLabels};
    let mut app = app_with_camera_and_labels();
    let tops = ["alpha", "beta", "gamma", "delta", "epsilon"];
    let packages: Vec<String> = tops
        .iter()
        .flat_map(|top| (0..8).map(move |sub| format!("{top}.part{sub}")))
        .collect();
    let defs = grid(&packages, 25, 20, |p, c| format!("Class{}x{c}", p % 8));
    let count = defs.len();
    assert_eq!(count, 20_000);
    let mut methods = vec![stats(0.0005, 1, 1); count];
    for (rank, method_id) in [1_234usize, 5_678, 9_012, 13_456, 17_890]
        .into_iter()
        .enumerate()
    {
        methods[method_id] = stats(0.3 - rank as f32 * 0.04, 1, 10);
    }
    accept(&mut app, report(defs, methods, 1));
    settle(&mut app);
    for _ in 0..30 {
        app.update();
    }
    let labels = app.world().resource::<SceneLabels>();
    let named: Vec<&highrise_viewer::viewer::labels::ShownLabel> = labels
        .shown
        .iter()
        .chain(&labels.overview)
        .filter(|l| l.kind == LabelKind::Package)
        .collect();
    for top in tops {
        let label = named.iter().find(|l| l.text == top);
        assert!(
            label.is_some_and(|l| l.text_px >= 12.0),
            "{top} named at 12 px or more: {:#?}",
            named
        );
    }
    let boxes: Vec<(Vec2, Vec2)> = labels
        .shown
        .iter()
        .chain(&labels.overview)
        .map(|l| (l.min_px, l.max_px))
        .chain(labels.hot_spots.iter().map(|h| (h.min_px, h.max_px)))
        .collect();
    for (index, a) in boxes.iter().enumerate() {
        for b in &boxes[index + 1..] {
            let apart = a.1.x <= b.0.x || b.1.x <= a.0.x || a.1.y <= b.0.y || b.1.y <= a.0.y;
            assert!(apart, "{a:?} and {b:?} overlap");
        }
    }
    assert_eq!(labels.hot_spots.len(), 5, "{:#?}", labels.hot_spots);

    // By the square root (auto, at 20,000 methods): the fifth hottest (14 % against 30 %)
    // stands at least half as tall as the hottest; the rest (0.05 %) under a tenth of it.
    let cities = app.world().resource::<Cities>();
    let city = &cities[CityKey::Session(1)];
    assert!(city.sqrt_heights);
    let layout = city.layout.as_ref().expect("plan");
    let tallest_wu = city
        .target_heights_wu
        .iter()
        .copied()
        .fold(0.0f32, f32::max);
    for (index, building) in layout.buildings().iter().enumerate() {
        let height_wu = city.target_heights_wu[index];
        if [1_234, 5_678, 9_012, 13_456, 17_890].contains(&building.method_id) {
            assert!(
                height_wu >= 0.5 * tallest_wu,
                "hot {height_wu} of {tallest_wu}"
            );
        } else {
            assert!(
                height_wu < 0.1 * tallest_wu,
                "cool {height_wu} of {tallest_wu}"
            );
        }
    }
}
