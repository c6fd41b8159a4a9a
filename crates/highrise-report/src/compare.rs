//! Two runs → what changed: per-method elevation and structure.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use serde::Serialize;

use crate::summary::{round, MethodSummary, RunSummary};

/// What identifies a method across runs.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct MethodKey {
    pub package: String,
    pub class: String,
    pub method: String,
    pub signature: Option<String>,
}

impl MethodKey {
    /// The key of a method definition.
    pub fn of_definition(definition: &highrise_protocol::MethodDef) -> Self {
        Self {
            package: definition.package.clone(),
            class: definition.class.clone(),
            method: definition.method.clone(),
            signature: definition.signature.clone(),
        }
    }

    fn of(method: &MethodSummary) -> Self {
        Self {
            package: method.package.clone(),
            class: method.class.clone(),
            method: method.method.clone(),
            signature: method.signature.clone(),
        }
    }
}

/// One method in A and/or B.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MethodDelta {
    /// `same` (same package, class, method), `moved` (same class and method, another
    /// package), `added` (only in B), `removed` (only in A).
    pub change: &'static str,
    /// The name in B (in A for removed methods).
    pub name: String,
    pub class: String,
    pub method: String,
    pub package_a: Option<String>,
    pub package_b: Option<String>,
    /// Mean elevation in A and B, percent (0 where the method does not exist).
    pub mean_a_pct: f64,
    pub mean_b_pct: f64,
    /// B − A mean elevation, percentage points.
    pub delta_mean_pct: f64,
    pub max_a_pct: f64,
    pub max_b_pct: f64,
    pub calls_a: u64,
    pub calls_b: u64,
}

/// A class whose methods moved to another package.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct ClassMove {
    pub class: String,
    pub from_package: String,
    pub to_package: String,
}

/// The structural diff, every list sorted by name.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Structure {
    pub packages_added: Vec<String>,
    pub packages_removed: Vec<String>,
    /// `package.Class`
    pub classes_added: Vec<String>,
    pub classes_removed: Vec<String>,
    pub classes_moved: Vec<ClassMove>,
    /// `package.Class.method`
    pub methods_added: Vec<String>,
    pub methods_removed: Vec<String>,
    /// `Class.method: from → to` as data.
    pub methods_moved: Vec<MethodMove>,
}

/// One method that moved between packages (same class and method name).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct MethodMove {
    pub class: String,
    pub method: String,
    pub from_package: String,
    pub to_package: String,
}

/// Which run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunLabel {
    pub path: PathBuf,
    pub program: String,
    pub version_label: String,
}

/// Run B against run A.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Comparison {
    pub a: RunLabel,
    pub b: RunLabel,
    pub max_threads_a: u64,
    pub max_threads_b: u64,
    /// Every method of either run, largest |B − A| mean elevation first.
    pub methods: Vec<MethodDelta>,
    pub structure: Structure,
}

impl Comparison {
    /// Methods present in both runs (same or moved) whose mean elevation grew by more than
    /// `threshold_pct` percentage points, largest growth first: the CI gate. Methods only in
    /// B are not counted (a rename would otherwise fail every gate); they are listed in
    /// [`Structure::methods_added`] with their elevation in [`Self::methods`].
    pub fn regressions(&self, threshold_pct: f64) -> Vec<&MethodDelta> {
        self.methods
            .iter()
            .filter(|delta| matches!(delta.change, "same" | "moved"))
            .filter(|delta| delta.delta_mean_pct > threshold_pct)
            .collect()
    }
}

/// How the methods of two runs pair up, as indices into `a` and `b`, with the verdict:
/// `same` (same key in both), `moved` (only in A and only in B with the same class, method and
/// signature: its package changed), `removed` (only in A), `added` (only in B). Pairs come in
/// key order: same and moved/removed by A's key, then added by B's.
fn pair_up(a: &[MethodKey], b: &[MethodKey]) -> Vec<(Option<usize>, Option<usize>, &'static str)> {
    let in_a: BTreeMap<&MethodKey, usize> = a.iter().enumerate().map(|(i, k)| (k, i)).collect();
    let in_b: BTreeMap<&MethodKey, usize> = b.iter().enumerate().map(|(i, k)| (k, i)).collect();
    let mut pairs = Vec::new();
    for (key, &index_a) in &in_a {
        if let Some(&index_b) = in_b.get(key) {
            pairs.push((Some(index_a), Some(index_b), "same"));
        }
    }
    let only_b: Vec<&MethodKey> = in_b
        .keys()
        .copied()
        .filter(|key| !in_a.contains_key(key))
        .collect();
    let mut matched_b: BTreeSet<&MethodKey> = BTreeSet::new();
    for (key, &index_a) in in_a.iter().filter(|(key, _)| !in_b.contains_key(*key)) {
        let moved_to = only_b.iter().copied().find(|candidate| {
            !matched_b.contains(candidate)
                && candidate.class == key.class
                && candidate.method == key.method
                && candidate.signature == key.signature
        });
        match moved_to {
            Some(to) => {
                matched_b.insert(to);
                pairs.push((Some(index_a), Some(in_b[to]), "moved"));
            }
            None => pairs.push((Some(index_a), None, "removed")),
        }
    }
    for key in only_b.iter().filter(|key| !matched_b.contains(**key)) {
        pairs.push((None, Some(in_b[*key]), "added"));
    }
    pairs
}

/// The structural diff of two method sets (packages, classes and methods added, removed and
/// moved between packages). The viewer's compare panel and the report share it.
pub fn structure(a: &[MethodKey], b: &[MethodKey]) -> Structure {
    structure_of_pairs(a, b, &pair_up(a, b))
}

fn structure_of_pairs(
    a: &[MethodKey],
    b: &[MethodKey],
    pairs: &[(Option<usize>, Option<usize>, &'static str)],
) -> Structure {
    let name =
        |key: &MethodKey| highrise_protocol::qualified_name(&key.package, &key.class, &key.method);
    let mut structure = Structure::default();
    for &(index_a, index_b, change) in pairs {
        match (index_a, index_b, change) {
            (Some(from), Some(to), "moved") => structure.methods_moved.push(MethodMove {
                class: a[from].class.clone(),
                method: a[from].method.clone(),
                from_package: a[from].package.clone(),
                to_package: b[to].package.clone(),
            }),
            (Some(from), None, _) => structure.methods_removed.push(name(&a[from])),
            (None, Some(to), _) => structure.methods_added.push(name(&b[to])),
            _ => {}
        }
    }
    let packages = |keys: &[MethodKey]| -> BTreeSet<String> {
        keys.iter().map(|k| k.package.clone()).collect()
    };
    let classes = |keys: &[MethodKey]| -> BTreeSet<(String, String)> {
        keys.iter()
            .map(|k| (k.package.clone(), k.class.clone()))
            .collect()
    };
    let (packages_a, packages_b) = (packages(a), packages(b));
    structure.packages_added = packages_b.difference(&packages_a).cloned().collect();
    structure.packages_removed = packages_a.difference(&packages_b).cloned().collect();
    let class_moves: BTreeSet<ClassMove> = structure
        .methods_moved
        .iter()
        .map(|moved| ClassMove {
            class: moved.class.clone(),
            from_package: moved.from_package.clone(),
            to_package: moved.to_package.clone(),
        })
        .collect();
    let (classes_a, classes_b) = (classes(a), classes(b));
    let class_name = |(package, class): &(String, String)| {
        if package.is_empty() {
            class.clone()
        } else {
            format!("{package}.{class}")
        }
    };
    structure.classes_added = classes_b
        .difference(&classes_a)
        .filter(|(package, class)| {
            !class_moves
                .iter()
                .any(|m| &m.to_package == package && &m.class == class)
        })
        .map(class_name)
        .collect();
    structure.classes_removed = classes_a
        .difference(&classes_b)
        .filter(|(package, class)| {
            !class_moves
                .iter()
                .any(|m| &m.from_package == package && &m.class == class)
        })
        .map(class_name)
        .collect();
    structure.classes_moved = class_moves.into_iter().collect();
    structure.methods_added.sort();
    structure.methods_removed.sort();
    structure.methods_moved.sort();
    structure
}

/// Compares run B with run A.
pub fn compare(a: &RunSummary, b: &RunSummary) -> Comparison {
    let keys_a: Vec<MethodKey> = a.methods.iter().map(MethodKey::of).collect();
    let keys_b: Vec<MethodKey> = b.methods.iter().map(MethodKey::of).collect();
    let pairs = pair_up(&keys_a, &keys_b);
    let mut methods: Vec<MethodDelta> = pairs
        .iter()
        .map(|&(index_a, index_b, change)| {
            delta(
                change,
                index_a.map(|i| &a.methods[i]),
                index_b.map(|i| &b.methods[i]),
            )
        })
        .collect();
    let structure = structure_of_pairs(&keys_a, &keys_b, &pairs);
    methods.sort_by(|x, y| {
        y.delta_mean_pct
            .abs()
            .total_cmp(&x.delta_mean_pct.abs())
            .then_with(|| x.name.cmp(&y.name))
    });
    let label = |run: &RunSummary| RunLabel {
        path: run.path.clone(),
        program: run.program.clone(),
        version_label: run.version_label.clone(),
    };
    Comparison {
        a: label(a),
        b: label(b),
        max_threads_a: a.max_threads,
        max_threads_b: b.max_threads,
        methods,
        structure,
    }
}

fn delta(
    change: &'static str,
    a: Option<&MethodSummary>,
    b: Option<&MethodSummary>,
) -> MethodDelta {
    let either = b.or(a);
    let mean = |m: Option<&MethodSummary>| m.map_or(0.0, |m| m.mean_elevation_pct);
    let max = |m: Option<&MethodSummary>| m.map_or(0.0, |m| m.max_elevation_pct);
    MethodDelta {
        change,
        name: either.map(|m| m.name.clone()).unwrap_or_default(),
        class: either.map(|m| m.class.clone()).unwrap_or_default(),
        method: either.map(|m| m.method.clone()).unwrap_or_default(),
        package_a: a.map(|m| m.package.clone()),
        package_b: b.map(|m| m.package.clone()),
        mean_a_pct: mean(a),
        mean_b_pct: mean(b),
        delta_mean_pct: round(mean(b) - mean(a)),
        max_a_pct: max(a),
        max_b_pct: max(b),
        calls_a: a.map_or(0, |m| m.calls),
        calls_b: b.map_or(0, |m| m.calls),
    }
}
