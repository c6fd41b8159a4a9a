//! Criterion benchmarks of the layout at its target scale: 200k methods in 10k classes in 1k
//! packages (nesting depth up to 6). Run with
//! `cargo bench -p highrise-layout -- --warm-up-time 1 --measurement-time 3`.

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion};
use glam::Vec3;
use highrise_layout::synthetic::{
    synthetic_additions, synthetic_methods, SplitMix64, SyntheticShape,
};
use highrise_layout::{CityLayout, LayoutConfig, MethodSpec};

fn bench_full(c: &mut Criterion) {
    let methods = synthetic_methods(&SyntheticShape::BENCH_200K);
    c.bench_function("full_layout_200k_methods_10k_classes_1k_packages", |b| {
        b.iter_with_large_drop(|| CityLayout::full(black_box(&methods)).expect("layout"))
    });
}

fn bench_insert(c: &mut Criterion) {
    let methods = synthetic_methods(&SyntheticShape::BENCH_200K);
    let base = CityLayout::full(&methods).expect("layout");
    // At most 1 % growth per fresh copy so the city stays at ~200k buildings.
    let batch = 2_000;
    let extra = synthetic_additions(&methods, batch, 7);
    bench_inserts(
        c,
        "insert_one_method_into_200k_city",
        &base,
        &extra,
        |city, m| {
            black_box(city.insert(m).expect("insert"));
        },
    );
}

/// Times `insert` over `items` into copies of `base`: a fresh copy whenever the items run out,
/// so the city stays near its size (copying is not timed).
fn bench_inserts<T>(
    c: &mut Criterion,
    name: &str,
    base: &CityLayout,
    items: &[T],
    insert: impl Fn(&mut CityLayout, &T),
) {
    c.bench_function(name, |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            let mut done = 0_u64;
            while done < iters {
                let mut city = base.clone();
                let n = (iters - done).min(items.len() as u64) as usize;
                let start = Instant::now();
                for item in &items[..n] {
                    insert(&mut city, item);
                }
                total += start.elapsed();
                done += n as u64;
            }
            total
        })
    });
}

/// The 200k methods grouped by class, in load order (one group per class).
fn classes_of(methods: &[MethodSpec]) -> Vec<&[MethodSpec]> {
    let mut groups = Vec::new();
    let mut start = 0;
    for i in 1..=methods.len() {
        if i == methods.len()
            || methods[i].class != methods[start].class
            || methods[i].package != methods[start].package
        {
            groups.push(&methods[start..i]);
            start = i;
        }
    }
    groups
}

/// A whole 200k city built class by class from empty (every class loaded lazily), re-layouts
/// included: one iteration is 10,000 classes, so the per-class cost is the time / 10,000.
fn bench_lazy(c: &mut Criterion) {
    let methods = synthetic_methods(&SyntheticShape::BENCH_200K);
    let classes = classes_of(&methods);
    let mut group = c.benchmark_group("lazy");
    group.sample_size(10);
    group.bench_function(
        "build_200k_city_class_by_class_from_empty_10k_classes",
        |b| {
            b.iter_with_large_drop(|| {
                let mut city = CityLayout::empty(&LayoutConfig::default());
                for class in &classes {
                    for m in *class {
                        black_box(city.insert(m).expect("insert"));
                    }
                }
                city
            })
        },
    );
    group.finish();
}

/// Whole new classes (about 20 methods each) arriving in a full 200k city, re-layouts
/// included; a fresh copy every 100 classes (+1 %) keeps the city at ~200k.
fn bench_insert_class(c: &mut Criterion) {
    let methods = synthetic_methods(&SyntheticShape::BENCH_200K);
    let base = CityLayout::full(&methods).expect("layout");
    let mut rng = SplitMix64::new(21);
    let first_id = methods.len() as u32;
    let batch = 100;
    let new_classes: Vec<Vec<MethodSpec>> = (0..batch)
        .map(|k| {
            let like = &methods[rng.below(methods.len() as u32) as usize];
            (0..20)
                .map(|m| {
                    MethodSpec::new(
                        first_id + (k * 20 + m) as u32,
                        like.package.clone(),
                        format!("Loaded{k}"),
                        format!("m{m}"),
                    )
                })
                .collect()
        })
        .collect();
    bench_inserts(
        c,
        "insert_20_method_class_into_200k_city",
        &base,
        &new_classes,
        |city, class| {
            for m in class {
                black_box(city.insert(m).expect("insert"));
            }
        },
    );
}

fn rays_over(city: &CityLayout, count: usize, seed: u64) -> Vec<(Vec3, Vec3)> {
    let mut rng = SplitMix64::new(seed);
    let bounds = city.bounds();
    (0..count)
        .map(|_| {
            let target = Vec3::new(
                bounds.min_x + rng.unit() as f32 * bounds.width_wu(),
                0.0,
                bounds.min_z + rng.unit() as f32 * bounds.depth_wu(),
            );
            // A camera 60 units up and 40 back, looking down at ~55 degrees.
            let origin = target + Vec3::new(-20.0 + 40.0 * rng.unit() as f32, 60.0, -40.0);
            (origin, (target - origin).normalize())
        })
        .collect()
}

fn random_heights(city: &CityLayout, seed: u64) -> Vec<f32> {
    let mut rng = SplitMix64::new(seed);
    (0..city.buildings().len())
        .map(|_| {
            // Most buildings low, a few high-risers.
            let u = rng.unit() as f32;
            if u > 0.98 {
                10.0 + 30.0 * rng.unit() as f32
            } else {
                3.0 * u
            }
        })
        .collect()
}

fn bench_hit(c: &mut Criterion) {
    let methods = synthetic_methods(&SyntheticShape::BENCH_200K);
    let mut city = CityLayout::full(&methods).expect("layout");
    let heights = random_heights(&city, 3);
    city.set_heights(&heights).expect("heights");
    let rays = rays_over(&city, 4096, 11);
    let mut i = 0;
    c.bench_function("hit_test_ray_200k_buildings", |b| {
        b.iter(|| {
            let (origin, dir) = rays[i % rays.len()];
            i += 1;
            city.hit_test(black_box(origin), black_box(dir))
        })
    });
    c.bench_function("set_heights_200k_buildings", |b| {
        b.iter(|| city.set_heights(black_box(&heights)).expect("heights"))
    });
}

criterion_group!(
    benches,
    bench_full,
    bench_insert,
    bench_insert_class,
    bench_lazy,
    bench_hit
);
criterion_main!(benches);
