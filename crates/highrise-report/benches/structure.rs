//! The structural diff (`highrise report --vs`, the viewer's compare panel) on a large
//! restructuring: 200k Java methods, every package moved under a new root package, most
//! descriptors naming project classes that moved too. Budget: 1 s.
//!
//! `cargo bench -p highrise-report --bench structure`

use criterion::{criterion_group, criterion_main, Criterion};
use highrise_report::{structure, MethodKey};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

const TOP_PACKAGES: usize = 40;
const SUBPACKAGES: usize = 5;
const CLASSES_PER_PACKAGE: usize = 50;
const METHODS_PER_CLASS: usize = 20;

/// Version A's methods, and the same program with every package under `root` (packages
/// and the class names inside descriptors).
fn restructured(root: &str) -> (Vec<MethodKey>, Vec<MethodKey>) {
    let mut rng = SmallRng::seed_from_u64(12);
    let packages: Vec<String> = (0..TOP_PACKAGES)
        .flat_map(|top| (0..SUBPACKAGES).map(move |sub| format!("app{top}.part{sub}")))
        .collect();
    let class_name = |c: usize| {
        if c % 7 == 6 {
            format!("Service{}$Handler", c - 1)
        } else {
            format!("Service{c}")
        }
    };
    let mut a = Vec::new();
    let mut b = Vec::new();
    for package in &packages {
        for c in 0..CLASSES_PER_PACKAGE {
            for m in 0..METHODS_PER_CLASS {
                let mut parameters = String::new();
                let mut moved_parameters = String::new();
                for _ in 0..rng.gen_range(0..4) {
                    match rng.gen_range(0..4) {
                        0 => {
                            parameters.push('I');
                            moved_parameters.push('I');
                        }
                        1 => {
                            parameters.push_str("Ljava/lang/String;");
                            moved_parameters.push_str("Ljava/lang/String;");
                        }
                        _ => {
                            let other = &packages[rng.gen_range(0..packages.len())];
                            let class = class_name(rng.gen_range(0..CLASSES_PER_PACKAGE));
                            let internal = other.replace('.', "/");
                            parameters.push_str(&format!("L{internal}/{class};"));
                            moved_parameters.push_str(&format!("L{root}/{internal}/{class};"));
                        }
                    }
                }
                let method = if m == 0 {
                    "<init>".to_string()
                } else {
                    format!("method{m}")
                };
                a.push(MethodKey {
                    package: package.clone(),
                    class: class_name(c),
                    method: method.clone(),
                    signature: Some(format!("({parameters})V")),
                });
                b.push(MethodKey {
                    package: format!("{root}.{package}"),
                    class: class_name(c),
                    method,
                    signature: Some(format!("({moved_parameters})V")),
                });
            }
        }
    }
    (a, b)
}

fn bench(c: &mut Criterion) {
    let (a, b) = restructured("main");
    assert_eq!(a.len(), 200_000);
    let diff = structure(&a, &b);
    assert!(diff.methods_added.is_empty() && diff.methods_removed.is_empty());
    assert_eq!(diff.methods_moved.len(), a.len());
    let mut group = c.benchmark_group("structure");
    group.sample_size(10);
    group.bench_function("200k methods, every package under a new root", |bench| {
        bench.iter(|| structure(&a, &b))
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
