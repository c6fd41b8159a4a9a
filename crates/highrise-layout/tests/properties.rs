//! Property tests: geometry invariants, the paper's ordering, purity, stability of
//! incremental insertion (moves only when reported), and hit-testing against brute force.

mod support;

use glam::Vec3;
use highrise_layout::{measure_drift, CityLayout, HitTarget, LayoutConfig, MethodSpec};
use proptest::prelude::*;
use support::{assert_same_city, brute_force_hit, check_geometry, check_ordering};

const PACKAGES: [&str; 9] = [
    "", "a", "a.b", "a.b.c", "a.b.c.d", "b", "b.x", "zeta", "a.c",
];
const CLASSES: [&str; 6] = ["Alpha", "Board", "Game", "Piece", "Util", "Z"];
const NAMES: [&str; 8] = [
    "clear", "draw", "get", "init", "move", "rotate", "tick", "zap",
];

/// Random method sets with unique ids, shared names, overloads and nesting.
fn methods(max: usize) -> impl Strategy<Value = Vec<MethodSpec>> {
    prop::collection::vec(
        (0..PACKAGES.len(), 0..CLASSES.len(), 0..NAMES.len(), 0..3_u8),
        1..max,
    )
    .prop_map(|raw| {
        raw.into_iter()
            .enumerate()
            .map(|(i, (p, c, n, sig))| {
                let m = MethodSpec::new(i as u32 * 7 + 3, PACKAGES[p], CLASSES[c], NAMES[n]);
                match sig {
                    0 => m,
                    k => m.with_signature(format!("(I{k})V")),
                }
            })
            .collect()
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn full_layout_is_well_formed_and_ordered(specs in methods(200)) {
        let city = CityLayout::full(&specs).expect("layout");
        prop_assert_eq!(city.buildings().len(), specs.len());
        check_geometry(&city);
        check_ordering(&city);
    }

    #[test]
    fn full_layout_does_not_depend_on_input_order(specs in methods(150), seed in any::<u64>()) {
        let mut shuffled = specs.clone();
        let mut rng = highrise_layout::synthetic::SplitMix64::new(seed);
        for i in (1..shuffled.len()).rev() {
            let j = rng.below(i as u32 + 1) as usize;
            shuffled.swap(i, j);
        }
        let a = CityLayout::full(&specs).expect("layout");
        let b = CityLayout::full(&shuffled).expect("layout");
        assert_same_city(&a, &b);
        // And the same input twice gives the same output.
        assert_same_city(&a, &CityLayout::full(&specs).expect("layout"));
    }

    #[test]
    fn insertion_moves_nothing_unless_it_says_so(specs in methods(150), split in 0.0..1.0_f64) {
        let cut = ((specs.len() as f64) * split) as usize;
        let mut city = CityLayout::full(&specs[..cut]).expect("layout");
        for m in &specs[cut..] {
            let before = city.clone();
            let outcome = city.insert(m).expect("insert");
            let drift = measure_drift(&before, &city);
            prop_assert_eq!(drift.common_buildings, before.buildings().len());
            prop_assert_eq!(city.generation(), before.generation() + u64::from(outcome.relaid_out));
            if !outcome.relaid_out {
                prop_assert_eq!(drift.moved_buildings, 0);
            }
        }
        check_geometry(&city);
        // Tidy restores the paper's ordering and equals a fresh full layout.
        let tidy = city.tidy();
        check_ordering(&tidy);
        assert_same_city(&tidy, &CityLayout::full(&specs).expect("layout"));
    }

    #[test]
    fn growing_from_empty_stays_well_formed(specs in methods(120)) {
        let mut city = CityLayout::empty(&LayoutConfig::default());
        for m in &specs {
            city.insert(m).expect("insert");
        }
        check_geometry(&city);
    }

    #[test]
    fn hit_test_matches_brute_force(
        specs in methods(120),
        grow in 0..40_usize,
        rays in prop::collection::vec((0.0..1.0_f32, 0.0..1.0_f32, -1.0..1.0_f32, -1.0..1.0_f32, 0.05..1.0_f32), 20),
        seed in any::<u64>(),
    ) {
        let cut = specs.len().saturating_sub(grow).max(1);
        let mut city = CityLayout::full(&specs[..cut]).expect("layout");
        for m in &specs[cut..] {
            city.insert(m).expect("insert");
        }
        let mut rng = highrise_layout::synthetic::SplitMix64::new(seed);
        let heights: Vec<f32> = (0..city.buildings().len()).map(|_| (rng.unit() * 6.0) as f32).collect();
        city.set_heights(&heights).expect("heights");
        // Raise one building with set_height too.
        city.set_height(0, 9.0).expect("height");
        let bounds = city.bounds();
        for (u, v, dx, dz, down) in rays {
            let target = Vec3::new(bounds.min_x + u * bounds.width_wu(), 0.0, bounds.min_z + v * bounds.depth_wu());
            let dir = Vec3::new(dx, -down, dz).normalize();
            let origin = target - dir * 30.0;
            let fast = city.hit_test(origin, dir);
            let slow = brute_force_hit(&city, origin, dir);
            match (fast, slow) {
                (None, None) => {}
                (Some(f), Some((t, target))) => {
                    prop_assert!((f.distance - t).abs() <= 1e-3 * (1.0 + t), "distance {} vs {}", f.distance, t);
                    if f.target != target {
                        // Only acceptable for a genuine tie of two things of the same kind.
                        let same_kind = std::mem::discriminant(&f.target) == std::mem::discriminant(&target);
                        prop_assert!(same_kind, "{:?} vs {:?}", f.target, target);
                    }
                }
                (f, s) => prop_assert!(false, "fast {:?} vs brute force {:?}", f, s),
            }
        }
        // With no block grouped, the grouped query is the plain one.
        for (u, v) in [(0.3_f32, 0.6_f32), (0.7, 0.2)] {
            let target = Vec3::new(bounds.min_x + u * bounds.width_wu(), 0.0, bounds.min_z + v * bounds.depth_wu());
            let origin = target + Vec3::new(-20.0, 30.0, 25.0);
            let dir = (target - origin).normalize();
            prop_assert_eq!(city.hit_test_grouped(origin, dir, &|_| false), city.hit_test(origin, dir));
        }
        // Every block grouped: straight down onto any building hits its block's tallest one,
        // at the top of that box.
        for b in city.buildings() {
            let c = b.footprint.center();
            let tallest = city.tallest_building(b.block).expect("a block with a building");
            let hit = city.hit_test_grouped(Vec3::new(c.x, 100.0, c.z), Vec3::NEG_Y, &|_| true).expect("hit");
            prop_assert_eq!(hit.target, HitTarget::Building { building: tallest, method_id: city.buildings()[tallest as usize].method_id });
            let top = b.base_height_wu + city.heights_wu()[tallest as usize];
            prop_assert!((hit.point.y - top).abs() < 1e-3, "{} vs {}", hit.point.y, top);
            let block_max = city.buildings().iter().zip(city.heights_wu())
                .filter(|(o, _)| o.block == b.block)
                .fold(0.0_f32, |m, (_, &h)| m.max(h));
            prop_assert_eq!(block_max, city.heights_wu()[tallest as usize]);
        }
        // Straight down onto every building hits that building.
        for (i, b) in city.buildings().iter().enumerate() {
            let c = b.footprint.center();
            let hit = city.hit_test(Vec3::new(c.x, 100.0, c.z), Vec3::NEG_Y).expect("hit");
            prop_assert_eq!(hit.target, HitTarget::Building { building: i as u32, method_id: b.method_id });
        }
    }
}
