//! Prints the stability figures recorded in BENCHMARKS.md: how many existing buildings move
//! and how much area incremental insertion costs, at the benchmark scale.
//!
//! `cargo run --release -p highrise-layout --example stability_report [methods]`

use std::collections::BTreeMap;
use std::time::Instant;

use highrise_layout::synthetic::{
    synthetic_additions, synthetic_methods, SplitMix64, SyntheticShape,
};
use highrise_layout::{area_overhead, measure_drift, CityLayout, LayoutConfig};

fn main() {
    let methods: u32 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(SyntheticShape::BENCH_200K.methods);
    let shape = SyntheticShape {
        methods,
        classes: (methods / 20).max(1),
        packages: (methods / 200).max(1),
        ..SyntheticShape::BENCH_200K
    };
    let base = synthetic_methods(&shape);
    let start = Instant::now();
    let full = CityLayout::full(&base).expect("layout");
    println!(
        "shape: {} methods, {} classes, {} packages (depth <= {}); full layout {:.1} ms, {:.0} x {:.0} wu, {:.1} % of the ground is plots",
        shape.methods,
        full.classes().len(),
        full.packages().len() - 1,
        shape.max_depth,
        start.elapsed().as_secs_f64() * 1e3,
        full.bounds().width_wu(),
        full.bounds().depth_wu(),
        100.0 * full.buildings().len() as f64 / f64::from(full.area_wu2()),
    );
    for percent in [1_usize, 5, 10] {
        let extra = synthetic_additions(&base, base.len() * percent / 100, 99);
        let mut grown = full.clone();
        let mut placements: BTreeMap<String, usize> = BTreeMap::new();
        let start = Instant::now();
        let mut slowest_us = 0.0_f64;
        for m in &extra {
            let one = Instant::now();
            let outcome = grown.insert(m).expect("insert");
            slowest_us = slowest_us.max(one.elapsed().as_secs_f64() * 1e6);
            *placements
                .entry(format!("{:?}", outcome.placement))
                .or_default() += 1;
        }
        let elapsed = start.elapsed();
        let mut all = base.clone();
        all.extend(extra.iter().cloned());
        let fresh = CityLayout::full(&all).expect("layout");
        let drift = measure_drift(&full, &grown);
        println!(
            "+{percent} % ({} methods): {} re-layouts, moved {} of {} ({:.3} %), area overhead vs fresh full layout {:+.1} %, annexes {}, mean insert {:.1} us (slowest {:.0} us), placements {:?}",
            extra.len(),
            grown.relayout_count(),
            drift.moved_buildings,
            drift.common_buildings,
            100.0 * drift.moved_fraction(),
            100.0 * area_overhead(&grown, &fresh),
            grown.annex_count(),
            elapsed.as_secs_f64() * 1e6 / extra.len() as f64,
            slowest_us,
            placements,
        );
        let tidy_drift = measure_drift(&full, &fresh);
        if percent == 1 {
            println!(
                "   for comparison, a fresh full layout of the same +1 % moves {:.1} % of the buildings",
                100.0 * tidy_drift.moved_fraction()
            );
        }
    }
    // Lazy loading from nothing: every method inserted one by one, in random order.
    let mut order = base.clone();
    let mut rng = SplitMix64::new(5);
    for i in (1..order.len()).rev() {
        let j = rng.below(i as u32 + 1) as usize;
        order.swap(i, j);
    }
    let mut lazy = CityLayout::empty(&LayoutConfig::default());
    let start = Instant::now();
    for m in &order {
        lazy.insert(m).expect("insert");
    }
    println!(
        "lazy load of all {} methods from an empty city: area overhead vs full layout {:+.1} %, annexes {}, {} re-layouts, mean insert {:.1} us",
        order.len(),
        100.0 * area_overhead(&lazy, &full),
        lazy.annex_count(),
        lazy.relayout_count(),
        start.elapsed().as_secs_f64() * 1e6 / order.len() as f64,
    );
}
