//! Lazy arrival: a city built by insertion alone stays within 1.3x the footprint of a fresh
//! full layout of the same methods after every arrival, whatever the order; re-layouts keep
//! building, class and package indices, and nothing moves without `relaid_out` saying so.

mod support;

use glam::Vec3;
use highrise_layout::synthetic::{synthetic_methods, SplitMix64};
use highrise_layout::{measure_drift, CityLayout, HitTarget, LayoutConfig, MethodSpec};
use proptest::prelude::*;
use support::{check_geometry, shape};

/// The contract: at most this times the area of a fresh full layout, at every moment.
const MAX_RATIO: f64 = 1.3;

const PACKAGES: [&str; 10] = [
    "",
    "a",
    "a.b",
    "a.b.c",
    "a.b.c.d",
    "b",
    "b.x",
    "zeta",
    "a.c",
    "q.r.s.t.u",
];

/// Random method sets (many small classes, a few big ones) with unique ids.
fn methods(max: usize) -> impl Strategy<Value = Vec<MethodSpec>> {
    prop::collection::vec((0..PACKAGES.len(), 0..40_u32, 0..6_u32), 1..max).prop_map(|raw| {
        raw.into_iter()
            .enumerate()
            .map(|(i, (p, c, n))| {
                // Squaring skews class sizes: class 0 of each package gets the most methods.
                let class = (c * c) / 40;
                MethodSpec::new(
                    i as u32 * 3 + 1,
                    PACKAGES[p],
                    format!("C{class}"),
                    format!("m{n}_{i}"),
                )
            })
            .collect()
    })
}

fn shuffle<T>(items: &mut [T], seed: u64) {
    let mut rng = SplitMix64::new(seed);
    for i in (1..items.len()).rev() {
        items.swap(i, rng.below(i as u32 + 1) as usize);
    }
}

fn ratio(city: &CityLayout, so_far: &[MethodSpec]) -> f64 {
    let fresh = CityLayout::full(so_far).expect("layout");
    f64::from(city.area_wu2()) / f64::from(fresh.area_wu2())
}

/// What a consumer may rely on across one insert.
fn check_insert_contract(before: &CityLayout, after: &CityLayout, relaid_out: bool) {
    // Indices are append-only.
    assert_eq!(after.buildings().len(), before.buildings().len() + 1);
    for (a, b) in before.buildings().iter().zip(after.buildings()) {
        assert_eq!(a.method_id, b.method_id, "building index changed method");
    }
    for (a, b) in before.packages().iter().zip(after.packages()) {
        assert_eq!((&a.path, a.parent, a.depth), (&b.path, b.parent, b.depth));
    }
    for (a, b) in before.classes().iter().zip(after.classes()) {
        assert_eq!((&a.name, a.package), (&b.name, b.package));
    }
    // Main district and main block stay first and belong to their package / class.
    for (p, pkg) in after.packages().iter().enumerate() {
        let main = pkg.districts[0] as usize;
        assert_eq!(after.districts()[main].package, p as u32);
        assert!(!after.districts()[main].is_annex);
    }
    for (c, class) in after.classes().iter().enumerate() {
        let main = class.blocks[0] as usize;
        assert_eq!(after.blocks()[main].class, c as u32);
        assert!(!after.blocks()[main].is_annex);
    }
    // Generation goes up by one exactly when the outcome reports a change.
    assert_eq!(
        after.generation(),
        before.generation() + u64::from(relaid_out)
    );
    if !relaid_out {
        assert_eq!(measure_drift(before, after).moved_buildings, 0);
        for (a, b) in before.districts().iter().zip(after.districts()) {
            assert_eq!(a.rect, b.rect, "district moved without relaid_out");
        }
        for (a, b) in before.blocks().iter().zip(after.blocks()) {
            assert_eq!(a.rect, b.rect, "block moved without relaid_out");
        }
    }
}

/// Straight down onto every building hits that building.
fn check_hits(city: &mut CityLayout) {
    let heights: Vec<f32> = (0..city.buildings().len())
        .map(|i| 1.0 + (i % 7) as f32)
        .collect();
    city.set_heights(&heights).expect("heights");
    for (i, b) in city.buildings().iter().enumerate() {
        let c = b.footprint.center();
        let hit = city
            .hit_test(Vec3::new(c.x, 100.0, c.z), Vec3::NEG_Y)
            .expect("hit");
        assert_eq!(
            hit.target,
            HitTarget::Building {
                building: i as u32,
                method_id: b.method_id
            }
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn any_arrival_order_stays_within_the_ratio(
        specs in methods(160),
        seed in any::<u64>(),
        from_full in 0.0..0.5_f64,
    ) {
        let mut specs = specs;
        shuffle(&mut specs, seed);
        // Sometimes start from a full layout of a prefix, as a viewer that saw some
        // definitions at once does.
        let cut = (specs.len() as f64 * from_full) as usize;
        let mut city = if cut == 0 {
            CityLayout::empty(&LayoutConfig::default())
        } else {
            CityLayout::full(&specs[..cut]).expect("layout")
        };
        for (k, m) in specs.iter().enumerate().skip(cut) {
            let before = city.clone();
            let outcome = city.insert(m).expect("insert");
            prop_assert_eq!(outcome.building as usize, k);
            check_insert_contract(&before, &city, outcome.relaid_out);
            let r = ratio(&city, &specs[..=k]);
            prop_assert!(r <= MAX_RATIO, "ratio {} after {} methods", r, k + 1);
            if outcome.relaid_out {
                check_geometry(&city);
            }
        }
        check_geometry(&city);
        check_hits(&mut city);
        // Tidy still gives the fresh full layout.
        support::assert_same_city(&city.tidy(), &CityLayout::full(&specs).expect("layout"));
    }
}

/// Inserts `groups` one group at a time from empty, checking the ratio after every group
/// (and the full contract on a sample of inserts); returns the worst ratio.
fn build_lazily(groups: &[Vec<MethodSpec>]) -> (CityLayout, f64) {
    let mut city = CityLayout::empty(&LayoutConfig::default());
    let mut so_far = Vec::new();
    let mut worst = 0.0_f64;
    let mut n = 0_usize;
    for group in groups {
        for m in group {
            n += 1;
            if n % 97 == 0 {
                let before = city.clone();
                let outcome = city.insert(m).expect("insert");
                check_insert_contract(&before, &city, outcome.relaid_out);
            } else {
                city.insert(m).expect("insert");
            }
        }
        so_far.extend(group.iter().cloned());
        let r = ratio(&city, &so_far);
        assert!(
            r <= MAX_RATIO,
            "ratio {r:.3} after {} methods",
            so_far.len()
        );
        worst = worst.max(r);
    }
    check_geometry(&city);
    check_hits(&mut city);
    (city, worst)
}

fn by_class(methods: &[MethodSpec]) -> Vec<Vec<MethodSpec>> {
    let mut groups: Vec<Vec<MethodSpec>> = Vec::new();
    for m in methods {
        match groups.last_mut() {
            Some(g) if g[0].class == m.class && g[0].package == m.package => g.push(m.clone()),
            _ => groups.push(vec![m.clone()]),
        }
    }
    groups
}

#[test]
fn classes_arriving_in_load_order_stay_compact() {
    let base = synthetic_methods(&shape(4_000));
    let (city, worst) = build_lazily(&by_class(&base));
    assert!(worst <= MAX_RATIO);
    assert!(city.relayout_count() > 0);
}

#[test]
fn classes_arriving_in_random_order_stay_compact() {
    let mut classes = by_class(&synthetic_methods(&shape(4_000)));
    shuffle(&mut classes, 17);
    build_lazily(&classes);
}

#[test]
fn packages_arriving_one_by_one_stay_compact() {
    let mut base = synthetic_methods(&shape(4_000));
    base.sort_by(|a, b| b.package.cmp(&a.package));
    let mut groups: Vec<Vec<MethodSpec>> = Vec::new();
    for m in base {
        match groups.last_mut() {
            Some(g) if g[0].package == m.package => g.push(m),
            _ => groups.push(vec![m]),
        }
    }
    build_lazily(&groups);
}

#[test]
fn methods_arriving_in_random_order_stay_compact() {
    let mut base = synthetic_methods(&shape(3_000));
    shuffle(&mut base, 3);
    // Checked after every 10 methods.
    let groups: Vec<Vec<MethodSpec>> = base.chunks(10).map(<[_]>::to_vec).collect();
    build_lazily(&groups);
}
