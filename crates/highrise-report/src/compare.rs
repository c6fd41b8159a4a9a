//! Two runs → what changed: per-method elevation and structure.

use std::path::PathBuf;

use serde::Serialize;

pub use crate::pairing::MethodKey;
use crate::pairing::{pair_up_with_classes, ClassMethods, FxSet, Paired};
use crate::summary::{round, MethodSummary, RunSummary};

/// One method in A and/or B.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MethodDelta {
    /// `same` (same package, class, method), `moved` (same class and method, another
    /// package), `added` (only in B), `removed` (only in A).
    pub change: &'static str,
    /// The name in B (in A for removed methods), `package.Class.method`.
    pub name: String,
    /// The same as people read it, with the parameters:
    /// `main.game.Board.createOrientation(String, InputStream)` (see
    /// [`highrise_protocol::display_name`]).
    pub display_name: String,
    pub class: String,
    pub method: String,
    /// The signature as the agent sent it (B's; A's for removed methods).
    pub signature: Option<String>,
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
    /// `package.Class.method(args)` as people read it ([`highrise_protocol::display_name`]).
    pub methods_added: Vec<String>,
    pub methods_removed: Vec<String>,
    /// `Class.method: from → to` as data.
    pub methods_moved: Vec<MethodMove>,
}

/// One method that moved between packages: the same class, method name and signature (its
/// signature read in B's terms where it names classes that moved too).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct MethodMove {
    pub class: String,
    pub method: String,
    /// The signature as B's agent sent it.
    pub signature: Option<String>,
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

/// The structural diff of two method sets (packages, classes and methods added, removed and
/// moved between packages). The viewer's compare panel and the report share it; how methods
/// pair (robust to whole packages moving, signatures naming moved classes included) is
/// described in [`crate::pairing`] and [`a_signatures_as_in_b`](crate::a_signatures_as_in_b).
pub fn structure(a: &[MethodKey], b: &[MethodKey]) -> Structure {
    structure_of_pairs(a, b, &pair_up_with_classes(a, b))
}

fn structure_of_pairs(a: &[MethodKey], b: &[MethodKey], paired: &Paired<'_>) -> Structure {
    let pairs = &paired.pairs;
    let name = |key: &MethodKey| {
        highrise_protocol::display_name(
            &key.package,
            &key.class,
            &key.method,
            key.signature.as_deref(),
        )
    };
    let mut structure = Structure::default();
    for &(index_a, index_b, change) in pairs {
        match (index_a, index_b, change) {
            (Some(from), Some(to), "moved") => structure.methods_moved.push(MethodMove {
                class: a[from].class.clone(),
                method: a[from].method.clone(),
                signature: b[to].signature.clone(),
                from_package: a[from].package.clone(),
                to_package: b[to].package.clone(),
            }),
            (Some(from), None, _) => structure.methods_removed.push(name(&a[from])),
            (None, Some(to), _) => structure.methods_added.push(name(&b[to])),
            _ => {}
        }
    }
    let (classes_a, classes_b) = (&paired.classes_a, &paired.classes_b);
    let (packages_a, packages_b) = (packages(classes_a), packages(classes_b));
    structure.packages_added = sorted(packages_b.difference(&packages_a).map(|p| p.to_string()));
    structure.packages_removed = sorted(packages_a.difference(&packages_b).map(|p| p.to_string()));
    // (class, from, to) of every moved method, once each (a class's methods mostly come
    // one after another: skip repeats before hashing).
    let mut class_moves: FxSet<(&str, &str, &str)> = FxSet::default();
    let mut last = None;
    for &(index_a, index_b, change) in pairs.iter() {
        if let (Some(from), Some(to), "moved") = (index_a, index_b, change) {
            let moved = (
                a[from].class.as_str(),
                a[from].package.as_str(),
                b[to].package.as_str(),
            );
            if last != Some(moved) {
                class_moves.insert(moved);
                last = Some(moved);
            }
        }
    }
    let moved_from: FxSet<(&str, &str)> = class_moves
        .iter()
        .map(|&(class, from, _)| (from, class))
        .collect();
    let moved_to: FxSet<(&str, &str)> = class_moves
        .iter()
        .map(|&(class, _, to)| (to, class))
        .collect();
    let class_name = |&(package, class): &(&str, &str)| {
        if package.is_empty() {
            class.to_string()
        } else {
            format!("{package}.{class}")
        }
    };
    structure.classes_added = sorted(
        classes_b
            .keys()
            .filter(|class| !classes_a.contains_key(*class) && !moved_to.contains(*class))
            .map(class_name),
    );
    structure.classes_removed = sorted(
        classes_a
            .keys()
            .filter(|class| !classes_b.contains_key(*class) && !moved_from.contains(*class))
            .map(class_name),
    );
    structure.classes_moved = sorted(class_moves.into_iter().map(|(class, from, to)| ClassMove {
        class: class.to_string(),
        from_package: from.to_string(),
        to_package: to.to_string(),
    }));
    structure.methods_added.sort_unstable();
    structure.methods_removed.sort_unstable();
    structure.methods_moved.sort_unstable();
    structure
}

fn packages<'a>(classes: &ClassMethods<'a>) -> FxSet<&'a str> {
    classes.keys().map(|&(package, _)| package).collect()
}

fn sorted<T: Ord>(items: impl Iterator<Item = T>) -> Vec<T> {
    let mut items: Vec<T> = items.collect();
    items.sort_unstable();
    items
}

/// Compares run B with run A.
pub fn compare(a: &RunSummary, b: &RunSummary) -> Comparison {
    let keys_a: Vec<MethodKey> = a.methods.iter().map(MethodKey::of).collect();
    let keys_b: Vec<MethodKey> = b.methods.iter().map(MethodKey::of).collect();
    let paired = pair_up_with_classes(&keys_a, &keys_b);
    let pairs = &paired.pairs;
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
    let structure = structure_of_pairs(&keys_a, &keys_b, &paired);
    methods.sort_by(|x, y| {
        y.delta_mean_pct
            .abs()
            .total_cmp(&x.delta_mean_pct.abs())
            .then_with(|| x.display_name.cmp(&y.display_name))
            .then_with(|| x.change.cmp(y.change))
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
        display_name: either.map(|m| m.display_name.clone()).unwrap_or_default(),
        class: either.map(|m| m.class.clone()).unwrap_or_default(),
        method: either.map(|m| m.method.clone()).unwrap_or_default(),
        signature: either.and_then(|m| m.signature.clone()),
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
