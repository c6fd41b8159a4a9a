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

/// Compares run B with run A.
pub fn compare(a: &RunSummary, b: &RunSummary) -> Comparison {
    let in_a: BTreeMap<MethodKey, &MethodSummary> =
        a.methods.iter().map(|m| (MethodKey::of(m), m)).collect();
    let in_b: BTreeMap<MethodKey, &MethodSummary> =
        b.methods.iter().map(|m| (MethodKey::of(m), m)).collect();
    let mut methods = Vec::new();
    let mut structure = Structure::default();

    for (key, method_a) in &in_a {
        if let Some(method_b) = in_b.get(key) {
            methods.push(delta("same", Some(method_a), Some(method_b)));
        }
    }
    // Moves: a method only in A and one only in B with the same class, name and signature.
    let only_b: Vec<&MethodKey> = in_b.keys().filter(|key| !in_a.contains_key(*key)).collect();
    let mut matched_b: BTreeSet<&MethodKey> = BTreeSet::new();
    for (key, method_a) in in_a.iter().filter(|(key, _)| !in_b.contains_key(*key)) {
        let moved_to = only_b.iter().copied().find(|candidate| {
            !matched_b.contains(candidate)
                && candidate.class == key.class
                && candidate.method == key.method
                && candidate.signature == key.signature
        });
        match moved_to {
            Some(to) => {
                matched_b.insert(to);
                let method_b = in_b[to];
                methods.push(delta("moved", Some(method_a), Some(method_b)));
                structure.methods_moved.push(MethodMove {
                    class: key.class.clone(),
                    method: key.method.clone(),
                    from_package: key.package.clone(),
                    to_package: to.package.clone(),
                });
            }
            None => {
                methods.push(delta("removed", Some(method_a), None));
                structure.methods_removed.push(method_a.name.clone());
            }
        }
    }
    for key in only_b.iter().filter(|key| !matched_b.contains(**key)) {
        let method_b = in_b[*key];
        methods.push(delta("added", None, Some(method_b)));
        structure.methods_added.push(method_b.name.clone());
    }

    let packages = |run: &RunSummary| -> BTreeSet<String> {
        run.methods.iter().map(|m| m.package.clone()).collect()
    };
    let classes = |run: &RunSummary| -> BTreeSet<(String, String)> {
        run.methods
            .iter()
            .map(|m| (m.package.clone(), m.class.clone()))
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
