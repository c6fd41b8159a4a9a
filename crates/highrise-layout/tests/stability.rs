//! Stability of incremental insertion at a realistic scale, and aspect ratios: the figures the
//! layout's goals set (nothing moves unless an insert reports a re-layout, area overhead <= 25 %
//! after +1 % methods, a lazily loaded city within 1.3x a full layout).

mod support;

use highrise_layout::synthetic::{synthetic_additions, synthetic_methods};
use highrise_layout::{area_overhead, measure_drift, CityLayout, MethodSpec, Placement};
use support::{check_geometry, shape};

#[test]
fn one_percent_more_methods_moves_little_and_costs_little_area() {
    let base = synthetic_methods(&shape(20_000));
    let full = CityLayout::full(&base).expect("layout");
    let extra = synthetic_additions(&base, base.len() / 100, 1);
    let mut grown = full.clone();
    for m in &extra {
        grown.insert(m).expect("insert");
    }
    check_geometry(&grown);
    let drift = measure_drift(&full, &grown);
    assert_eq!(drift.common_buildings, base.len());
    if grown.relayout_count() == 0 {
        assert_eq!(
            drift.moved_buildings, 0,
            "buildings moved without a re-layout"
        );
    }
    assert!(
        drift.moved_fraction() <= 0.5,
        "+1 % moved {:.3} of the buildings",
        drift.moved_fraction()
    );
    let mut all = base.clone();
    all.extend(extra);
    let fresh = CityLayout::full(&all).expect("layout");
    let overhead = area_overhead(&grown, &fresh);
    assert!(overhead <= 0.25, "area overhead {overhead:.3} > 25 %");
    // The tidy layout, by contrast, reshuffles: that is why it only runs on request.
    assert!(measure_drift(&full, &fresh).moved_fraction() > 0.5);
}

#[test]
fn lazily_loaded_city_stays_compact_and_moves_only_in_relayouts() {
    // Every method inserted one by one from an empty city, as a program that loads all its
    // classes lazily would: the city stays within 1.3x a full layout, and buildings move only
    // in the re-layouts that keep it so.
    let base = synthetic_methods(&shape(4_000));
    let mut lazy = CityLayout::empty(&Default::default());
    for (k, chunk) in base.chunks(500).enumerate() {
        let before = lazy.clone();
        for m in chunk {
            lazy.insert(m).expect("insert");
        }
        if lazy.relayout_count() == before.relayout_count() {
            assert_eq!(measure_drift(&before, &lazy).moved_buildings, 0);
        }
        let fresh = CityLayout::full(&base[..(k + 1) * 500]).expect("layout");
        assert!(area_overhead(&lazy, &fresh) <= 0.3 + 1e-9);
    }
    check_geometry(&lazy);
    let tidy = lazy.tidy();
    support::check_ordering(&tidy);
    // Tidy is the paper's full layout again. (The lazy city may now be the smaller of the two:
    // its root is trimmed to what stands on it and its districts fill their gaps.)
    support::assert_same_city(&tidy, &CityLayout::full(&base).expect("layout"));
    assert!(lazy.area_wu2() <= 1.3 * tidy.area_wu2());
}

#[test]
fn a_growing_class_grows_its_block_in_place() {
    // One class defined method by method: its block grows row by row and column by column,
    // stays near square, and never needs an annex because it has room at the city's edge.
    let mut city = CityLayout::empty(&Default::default());
    for i in 0..100_u32 {
        let outcome = city
            .insert(&MethodSpec::new(i, "app", "Big", format!("m{i:03}")))
            .expect("insert");
        assert_ne!(outcome.placement, Placement::AnnexBlock);
    }
    assert_eq!(city.blocks().len(), 1);
    let rect = city.blocks()[0].rect;
    assert_eq!(rect.width_wu() * rect.depth_wu(), 100.0);
}

#[test]
fn ten_thousand_classes_in_one_package_stay_near_square() {
    // The failure mode of strip layouts: a flat package with very many classes.
    let methods: Vec<MethodSpec> = (0..30_000_u32)
        .map(|i| MethodSpec::new(i, "flat", format!("C{}", i % 10_000), format!("m{i}")))
        .collect();
    let city = CityLayout::full(&methods).expect("layout");
    for d in city.districts() {
        let aspect =
            d.rect.width_wu().max(d.rect.depth_wu()) / d.rect.width_wu().min(d.rect.depth_wu());
        assert!(aspect <= 2.0, "district aspect ratio {aspect}");
    }
}

#[test]
fn every_district_of_a_synthetic_program_is_near_square() {
    let city = CityLayout::full(&synthetic_methods(&shape(20_000))).expect("layout");
    let mut worst = 1.0_f32;
    for d in city.districts() {
        let aspect =
            d.rect.width_wu().max(d.rect.depth_wu()) / d.rect.width_wu().min(d.rect.depth_wu());
        worst = worst.max(aspect);
    }
    assert!(worst <= 2.5, "worst district aspect ratio {worst}");
}

#[test]
fn districts_tile_their_parents_leaving_little_bare_ground() {
    // 20k methods in 100 packages: sub-districts take the shapes that fit beside their
    // siblings, so a third of the plate is blocks and under 35 % is bare ground (with every
    // district in its own best shape, 26 % and 43 %).
    let city = CityLayout::full(&synthetic_methods(&shape(20_000))).expect("layout");
    let (built, bare) = (city.plate_built_share(), city.plate_unbuilt_share());
    assert!(built >= 0.30, "blocks cover {built}");
    assert!(bare <= 0.35, "bare ground {bare}");
}

#[test]
fn districts_cover_the_plate_full_or_loaded_lazily() {
    // 20k methods in 100 packages: at least 85 % of the plate under districts, whether laid out
    // at once or class by class in load order or shuffled (no bare L of ground beside the city).
    let base = synthetic_methods(&shape(20_000));
    let full = CityLayout::full(&base).expect("layout");
    assert!(
        full.plate_covered_share() >= 0.85,
        "full {}",
        full.plate_covered_share()
    );
    let mut shuffled = base.clone();
    let mut rng = highrise_layout::synthetic::SplitMix64::new(7);
    for i in (1..shuffled.len()).rev() {
        shuffled.swap(i, rng.below(i as u32 + 1) as usize);
    }
    for (name, order) in [("load order", &base), ("shuffled", &shuffled)] {
        let mut lazy = CityLayout::empty(&Default::default());
        for m in order {
            lazy.insert(m).expect("insert");
        }
        check_geometry(&lazy);
        let covered = lazy.plate_covered_share();
        assert!(covered >= 0.85, "{name}: {covered}");
    }
}
