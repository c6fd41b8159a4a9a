//! Prints the lazy-loading figures recorded in BENCHMARKS.md: a city built entirely by
//! insertion from empty, in several arrival orders, against a fresh full layout of the same
//! methods (checked after every arriving class), with re-layout counts and insert times.
//!
//! `cargo run --release -p highrise-layout --example lazy_report [methods] [check_every_classes]`

use std::time::Instant;

use highrise_layout::synthetic::{synthetic_methods, SplitMix64, SyntheticShape};
use highrise_layout::{CityLayout, LayoutConfig, MethodSpec};

/// Groups of methods that arrive together (a class, a package, or single methods).
fn orders(base: &[MethodSpec], seed: u64) -> Vec<(&'static str, Vec<Vec<MethodSpec>>)> {
    let by_key = |key: &dyn Fn(&MethodSpec) -> String| {
        let mut groups: Vec<Vec<MethodSpec>> = Vec::new();
        let mut last: Option<String> = None;
        for m in base {
            let k = key(m);
            if last.as_ref() != Some(&k) {
                groups.push(Vec::new());
                last = Some(k);
            }
            groups.last_mut().expect("group").push(m.clone());
        }
        groups
    };
    let classes = by_key(&|m| format!("{}/{}", m.package, m.class));
    let mut by_package: Vec<MethodSpec> = base.to_vec();
    by_package.sort_by(|a, b| a.package.cmp(&b.package));
    let packages = {
        let mut groups: Vec<Vec<MethodSpec>> = Vec::new();
        for m in by_package {
            match groups.last_mut() {
                Some(g) if g[0].package == m.package => g.push(m),
                _ => groups.push(vec![m]),
            }
        }
        groups
    };
    let mut shuffled_classes = classes.clone();
    let mut rng = SplitMix64::new(seed);
    for i in (1..shuffled_classes.len()).rev() {
        shuffled_classes.swap(i, rng.below(i as u32 + 1) as usize);
    }
    let mut methods: Vec<MethodSpec> = base.to_vec();
    for i in (1..methods.len()).rev() {
        methods.swap(i, rng.below(i as u32 + 1) as usize);
    }
    let chunk = (methods.len() / classes.len().max(1)).max(1);
    let random_methods = methods.chunks(chunk).map(<[_]>::to_vec).collect();
    vec![
        ("classes in load order", classes),
        ("classes in random order", shuffled_classes),
        ("package by package", packages),
        ("methods in random order", random_methods),
    ]
}

fn main() {
    let methods: u32 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(20_000);
    let check_every: usize = std::env::args()
        .nth(2)
        .and_then(|a| a.parse().ok())
        .unwrap_or(1);
    let shape = SyntheticShape {
        methods,
        classes: (methods / 20).max(1),
        packages: (methods / 200).max(1),
        ..SyntheticShape::BENCH_200K
    };
    let base = synthetic_methods(&shape);
    for (name, groups) in orders(&base, 5) {
        let mut city = CityLayout::empty(&LayoutConfig::default());
        let mut so_far: Vec<MethodSpec> = Vec::new();
        let (mut worst, mut relayouts, mut insert_s) = (0.0_f64, 0_u64, 0.0_f64);
        let mut slowest_s = 0.0_f64;
        // Plots as of the last re-layout, to count the buildings each re-layout moves.
        let mut plots: Vec<(f32, f32)> = Vec::new();
        let (mut moved, mut existing) = (0_usize, 0_usize);
        for (k, group) in groups.iter().enumerate() {
            let start = Instant::now();
            let count = city.relayout_count();
            for m in group {
                relayouts += u64::from(city.insert(m).expect("insert").relaid_out);
            }
            let took = start.elapsed().as_secs_f64();
            let relaid = city.relayout_count() > count;
            if relaid {
                existing += plots.len();
                moved += plots
                    .iter()
                    .zip(city.buildings())
                    .filter(|(p, b)| **p != (b.plot.min_x, b.plot.min_z))
                    .count();
            }
            if relaid || plots.len() + 5_000 < city.buildings().len() {
                plots = city
                    .buildings()
                    .iter()
                    .map(|b| (b.plot.min_x, b.plot.min_z))
                    .collect();
            }
            insert_s += took;
            slowest_s = slowest_s.max(took);
            so_far.extend(group.iter().cloned());
            if k % check_every == 0 || k + 1 == groups.len() {
                let fresh = CityLayout::full(&so_far).expect("layout");
                worst = worst.max(f64::from(city.area_wu2()) / f64::from(fresh.area_wu2()));
            }
        }
        println!(
            "{name}: {} groups, worst area ratio {worst:.3}, final {:.3}, {} re-layouts moving {:.0} % of the existing buildings on average, generation {} ({} outcomes), total insert {:.1} ms ({:.1} us per group, slowest group {:.2} ms)",
            groups.len(),
            f64::from(city.area_wu2()) / f64::from(CityLayout::full(&so_far).expect("layout").area_wu2()),
            city.relayout_count(),
            100.0 * moved as f64 / existing.max(1) as f64,
            city.generation(),
            relayouts,
            insert_s * 1e3,
            insert_s * 1e6 / groups.len() as f64,
            slowest_s * 1e3,
        );
    }
}
