//! How much of the city's plate its districts cover: the share of the root district covered
//! by what stands on it directly (its districts and blocks), by blocks at any depth (where
//! buildings stand), and the bare ground nothing stands on, for a full layout and for the
//! same methods inserted lazily (in the given order and in a shuffled one).
//!
//! `cargo run --release -p highrise-layout --example plate_report [METHODS | FILE.tsv]`
//!
//! A number: a synthetic program of that many methods (200,000 by default, the benchmark
//! shape). A file: one method per line, `package<TAB>class<TAB>method` (a real program;
//! `scripts/methods-of-jars.sh` writes one from jars).

use std::time::Instant;

use highrise_layout::synthetic::{synthetic_methods, SplitMix64, SyntheticShape};
use highrise_layout::{CityLayout, MethodSpec};

/// (Covered share of the plate, built share, bare share, its width / depth.)
fn plate(city: &CityLayout) -> (f32, f32, f32, f32) {
    let root = city.bounds();
    (
        city.plate_covered_share(),
        city.plate_built_share(),
        city.plate_unbuilt_share(),
        root.width_wu() / root.depth_wu(),
    )
}

fn lazily(methods: &[MethodSpec], order: &[usize]) -> (CityLayout, f64) {
    let started = Instant::now();
    let mut city = CityLayout::empty(&Default::default());
    for &i in order {
        city.insert(&methods[i]).expect("unique ids");
    }
    (city, started.elapsed().as_secs_f64())
}

fn main() {
    let arg = std::env::args().nth(1).unwrap_or_else(|| "200000".into());
    let methods: Vec<MethodSpec> = match arg.parse::<u32>() {
        Ok(n) => synthetic_methods(&SyntheticShape {
            methods: n,
            classes: (n / 20).max(1),
            packages: (n / 200).max(1),
            ..SyntheticShape::BENCH_200K
        }),
        Err(_) => std::fs::read_to_string(&arg)
            .expect("a methods file")
            .lines()
            .filter_map(|line| {
                let mut parts = line.split('\t');
                let (package, class, method) = (parts.next()?, parts.next()?, parts.next()?);
                Some((package, class, method))
            })
            .enumerate()
            .map(|(id, (p, c, m))| MethodSpec::new(id as u32, p, c, m))
            .collect(),
    };
    let full = CityLayout::full(&methods).expect("unique ids");
    let (covered, built, bare, aspect) = plate(&full);
    println!(
        "{} methods, {} packages: full layout covers {:.1} % of its plate, blocks {:.1} %, \
         bare ground {:.1} % (width/depth {aspect:.2}, area {:.0})",
        methods.len(),
        full.packages().len(),
        100.0 * covered,
        100.0 * built,
        100.0 * bare,
        full.area_wu2()
    );
    // The dearest insert: a method of a new package (every district then fills again).
    // (The first insert into a full layout sets up its bookkeeping: timed apart.)
    let mut grown = full.clone();
    grown
        .insert(&MethodSpec::new(u32::MAX - 1, "zz.first", "First", "run"))
        .expect("a new id");
    let started = Instant::now();
    grown
        .insert(&MethodSpec::new(u32::MAX, "zz.fresh", "Fresh", "run"))
        .expect("a new id");
    println!(
        "one method of a new package into the full layout: {:.0} us",
        started.elapsed().as_secs_f64() * 1e6
    );
    let in_order: Vec<usize> = (0..methods.len()).collect();
    let mut shuffled = in_order.clone();
    let mut rng = SplitMix64::new(2017);
    for i in (1..shuffled.len()).rev() {
        shuffled.swap(i, rng.below(i as u32 + 1) as usize);
    }
    for (name, order) in [("in the given order", in_order), ("shuffled", shuffled)] {
        let (city, seconds) = lazily(&methods, &order);
        let (covered, built, bare, aspect) = plate(&city);
        println!(
            "inserted {name}: covers {:.1} % of its plate, blocks {:.1} %, bare ground \
             {:.1} % (width/depth {aspect:.2}), area {:.2}x the full layout's, {} re-layouts, \
             {seconds:.2} s",
            100.0 * covered,
            100.0 * built,
            100.0 * bare,
            city.area_wu2() / full.area_wu2(),
            city.relayout_count()
        );
    }
}
