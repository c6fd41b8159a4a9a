//! Synthetic cities for benchmarks, tests and demos: a deterministic generator of method sets
//! with a nested package tree and a skewed class-size distribution (a few big classes, many
//! small ones), as real programs have.

use crate::spec::MethodSpec;

/// Shape of a synthetic program.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SyntheticShape {
    /// Number of methods.
    pub methods: u32,
    /// Number of classes (at most `methods`).
    pub classes: u32,
    /// Number of packages, all non-empty paths (at least 1).
    pub packages: u32,
    /// Deepest package nesting (1 = only top-level packages).
    pub max_depth: u32,
    /// Seed; the same shape and seed give the same methods.
    pub seed: u64,
}

impl SyntheticShape {
    /// The benchmark shape the layout targets: 200k methods, 10k classes, 1k packages,
    /// nesting depth up to 6.
    pub const BENCH_200K: SyntheticShape = SyntheticShape {
        methods: 200_000,
        classes: 10_000,
        packages: 1_000,
        max_depth: 6,
        seed: 2017,
    };
}

/// SplitMix64: tiny, fast, good enough for test data.
#[derive(Debug, Clone)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    /// A generator with the given seed.
    pub fn new(seed: u64) -> Self {
        Self(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (`n` > 0).
    pub fn below(&mut self, n: u32) -> u32 {
        (((self.next_u64() >> 32) * u64::from(n.max(1))) >> 32) as u32
    }

    /// Uniform in `[0, 1)`.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1_u64 << 53) as f64
    }
}

const SYLLABLES: [&str; 16] = [
    "get", "set", "run", "draw", "load", "move", "drop", "tick", "calc", "find", "make", "read",
    "send", "hash", "rot", "pay",
];

/// Package paths of the synthetic program (deterministic for a shape).
pub fn synthetic_packages(shape: &SyntheticShape) -> Vec<String> {
    let mut rng = SplitMix64::new(shape.seed ^ 0x5EED_0001);
    let count = shape.packages.max(1) as usize;
    let top_level = (count as f64).sqrt().ceil().max(1.0) as usize;
    let mut paths: Vec<String> = Vec::with_capacity(count);
    let mut depths: Vec<u32> = Vec::with_capacity(count);
    for i in 0..count {
        if i < top_level {
            paths.push(format!("pkg{i}"));
            depths.push(1);
            continue;
        }
        // Pick a parent that can still nest; retry a few times, then fall back to top level.
        let mut parent = None;
        for _ in 0..8 {
            let candidate = rng.below(i as u32) as usize;
            if depths[candidate] < shape.max_depth.max(1) {
                parent = Some(candidate);
                break;
            }
        }
        match parent {
            Some(p) => {
                let path = format!("{}.sub{i}", paths[p]);
                paths.push(path);
                depths.push(depths[p] + 1);
            }
            None => {
                paths.push(format!("pkg{i}"));
                depths.push(1);
            }
        }
    }
    paths
}

/// The methods of a synthetic program; ids are `0..methods`.
pub fn synthetic_methods(shape: &SyntheticShape) -> Vec<MethodSpec> {
    let mut rng = SplitMix64::new(shape.seed);
    let packages = synthetic_packages(shape);
    let classes = shape.classes.clamp(1, shape.methods.max(1)) as usize;
    let class_package: Vec<usize> = (0..classes)
        .map(|_| rng.below(packages.len() as u32) as usize)
        .collect();
    // Skewed sizes: weight = exp(2 * normal-ish), every class at least one method.
    let weights: Vec<f64> = (0..classes)
        .map(|_| {
            let normal: f64 = (0..4).map(|_| rng.unit()).sum::<f64>() - 2.0;
            (1.6 * normal).exp()
        })
        .collect();
    let total_weight: f64 = weights.iter().sum();
    let methods = shape.methods as usize;
    let spare = methods.saturating_sub(classes) as f64;
    let mut sizes: Vec<usize> = weights
        .iter()
        .map(|w| 1 + (spare * w / total_weight) as usize)
        .collect();
    let mut assigned: usize = sizes.iter().sum();
    let mut k = 0;
    while assigned < methods {
        sizes[k % classes] += 1;
        assigned += 1;
        k += 1;
    }
    while assigned > methods {
        if sizes[k % classes] > 1 {
            sizes[k % classes] -= 1;
            assigned -= 1;
        }
        k += 1;
    }
    let mut out = Vec::with_capacity(methods);
    for (c, &size) in sizes.iter().enumerate() {
        let package = &packages[class_package[c]];
        let class = format!("Class{c}");
        for m in 0..size {
            let a = SYLLABLES[rng.below(16) as usize];
            let b = SYLLABLES[rng.below(16) as usize];
            out.push(MethodSpec::new(
                out.len() as u32,
                package.clone(),
                class.clone(),
                format!("{a}{b}{m}"),
            ));
        }
    }
    out
}

/// `count` new methods "in random places" of an existing program, as lazily loaded classes
/// produce them: each joins the class of a random existing method (so big classes get more);
/// 1 in 20 starts a new class in that package and 1 in 100 a new sub-package. Ids continue
/// after the largest id in `base`.
pub fn synthetic_additions(base: &[MethodSpec], count: usize, seed: u64) -> Vec<MethodSpec> {
    let mut rng = SplitMix64::new(seed);
    let first_id = base.iter().map(|m| m.id).max().map_or(0, |id| id + 1);
    if base.is_empty() {
        return Vec::new();
    }
    (0..count)
        .map(|k| {
            let like = &base[rng.below(base.len() as u32) as usize];
            let id = first_id + k as u32;
            let roll = rng.below(100);
            let package = if roll == 0 {
                if like.package.is_empty() {
                    format!("fresh{k}")
                } else {
                    format!("{}.fresh{k}", like.package)
                }
            } else {
                like.package.clone()
            };
            let class = if roll < 5 {
                format!("Fresh{k}")
            } else {
                like.class.clone()
            };
            MethodSpec::new(id, package, class, format!("added{k}"))
        })
        .collect()
}
