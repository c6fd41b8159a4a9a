//! Criterion benchmarks of the layout at the scale: 200k methods in 10k classes in 1k
//! packages (nesting depth up to 6). Run with
//! `cargo bench -p highrise-layout -- --warm-up-time 1 --measurement-time 3`.

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion};
use glam::Vec3;
use highrise_layout::synthetic::{
    synthetic_additions, synthetic_methods, SplitMix64, SyntheticShape,
};
use highrise_layout::CityLayout;

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
    c.bench_function("insert_one_method_into_200k_city", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            let mut done = 0_u64;
            while done < iters {
                let mut city = base.clone();
                let n = (iters - done).min(batch as u64) as usize;
                let start = Instant::now();
                for m in &extra[..n] {
                    black_box(city.insert(m).expect("insert"));
                }
                total += start.elapsed();
                done += n as u64;
            }
            total
        })
    });
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

criterion_group!(benches, bench_full, bench_insert, bench_hit);
criterion_main!(benches);
