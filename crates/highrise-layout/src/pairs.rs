//! Two versions side by side: each laid out on its own ([`independent_pair`], the paper's
//! case 2, where districts visibly change after a refactoring) or both on one shared plan
//! ([`aligned_pair`], so the same method stands on the same plot in both cities).
//!
//! Methods are matched across versions by fully-qualified name (package, class, method,
//! signature), not by id: ids belong to a session. A method that exists only in one version
//! but whose class, method name and signature exist in the other under a different package is
//! flagged as moved between packages rather than added or removed.

use std::collections::HashSet;

use crate::fxhash::{map_with_capacity, FxHashMap};
use crate::plan::CityLayout;
use crate::spec::{LayoutConfig, LayoutError, MethodRef, MethodSpec};

/// How a method differs between version A and version B.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Change {
    /// In both versions, same package.
    Unchanged,
    /// Only in B.
    Added,
    /// Only in A.
    Removed,
    /// Only in B under this package, but in A under another (its package moved).
    MovedIn,
    /// Only in A under this package, but in B under another (its package moved).
    MovedOut,
}

/// One building of an [`AlignedPair`]'s shared plan.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AlignedBuilding {
    /// The method's id in version A, if it exists there.
    pub method_id_a: Option<u32>,
    /// The method's id in version B, if it exists there.
    pub method_id_b: Option<u32>,
    /// How it changed from A to B.
    pub change: Change,
}

/// Two versions on one plan: `city` lays out the union of both method sets, so every method
/// has one plot, the same in both views. Draw version A with the buildings whose
/// `method_id_a` is set and version B with those whose `method_id_b` is set.
#[derive(Debug, Clone)]
pub struct AlignedPair {
    /// The union city. Its buildings' `method_id`s are union ids (index into
    /// [`AlignedPair::buildings`]'s source order), not either version's ids; use
    /// [`AlignedPair::buildings`] or the lookups below to get back to A and B.
    pub city: CityLayout,
    /// Per building of `city` (same index): ids in A and B and the change.
    pub buildings: Vec<AlignedBuilding>,
    building_of_a: FxHashMap<u32, u32>,
    building_of_b: FxHashMap<u32, u32>,
}

impl AlignedPair {
    /// Building index in `city` of version A's method `method_id`.
    pub fn building_of_a(&self, method_id: u32) -> Option<u32> {
        self.building_of_a.get(&method_id).copied()
    }

    /// Building index in `city` of version B's method `method_id`.
    pub fn building_of_b(&self, method_id: u32) -> Option<u32> {
        self.building_of_b.get(&method_id).copied()
    }
}

/// Two versions, each laid out on its own with [`CityLayout::full`].
#[derive(Debug, Clone)]
pub struct IndependentPair {
    /// Version A's city.
    pub a: CityLayout,
    /// Version B's city.
    pub b: CityLayout,
    /// Per building of `a` (same index): `Unchanged`, `Removed` or `MovedOut`.
    pub changes_a: Vec<Change>,
    /// Per building of `b` (same index): `Unchanged`, `Added` or `MovedIn`.
    pub changes_b: Vec<Change>,
}

/// Lays out the union of `a` and `b` once, so each method stands on the same plot in both
/// versions, with per-building presence and change flags.
pub fn aligned_pair(a: &[MethodSpec], b: &[MethodSpec]) -> Result<AlignedPair, LayoutError> {
    aligned_pair_with_config(a, b, &LayoutConfig::default())
}

/// [`aligned_pair`] with explicit configuration.
pub fn aligned_pair_with_config(
    a: &[MethodSpec],
    b: &[MethodSpec],
    config: &LayoutConfig,
) -> Result<AlignedPair, LayoutError> {
    check_unique_ids(a)?;
    check_unique_ids(b)?;
    let diff = diff(a, b);
    let mut union: Vec<MethodRef<'_>> = Vec::with_capacity(a.len() + b.len());
    let mut sources: Vec<AlignedBuilding> = Vec::with_capacity(a.len() + b.len());
    for (m, &change) in a.iter().zip(&diff.a) {
        let id = union.len() as u32;
        union.push(MethodRef { id, ..m.as_ref() });
        sources.push(AlignedBuilding {
            method_id_a: Some(m.id),
            method_id_b: None,
            change,
        });
    }
    for ((m, &change), &matched) in b.iter().zip(&diff.b).zip(&diff.b_match) {
        match matched {
            Some(k) => sources[k].method_id_b = Some(m.id),
            None => {
                let id = union.len() as u32;
                union.push(MethodRef { id, ..m.as_ref() });
                sources.push(AlignedBuilding {
                    method_id_a: None,
                    method_id_b: Some(m.id),
                    change,
                });
            }
        }
    }
    let city = crate::full_layout::build(&union, config)?;
    let buildings: Vec<AlignedBuilding> = city
        .buildings()
        .iter()
        .map(|b| sources[b.method_id as usize])
        .collect();
    let mut building_of_a = map_with_capacity(a.len());
    let mut building_of_b = map_with_capacity(b.len());
    for (i, ab) in buildings.iter().enumerate() {
        if let Some(id) = ab.method_id_a {
            building_of_a.insert(id, i as u32);
        }
        if let Some(id) = ab.method_id_b {
            building_of_b.insert(id, i as u32);
        }
    }
    Ok(AlignedPair {
        city,
        buildings,
        building_of_a,
        building_of_b,
    })
}

/// Lays out `a` and `b` each on its own; buildings carry change flags for highlighting.
pub fn independent_pair(
    a: &[MethodSpec],
    b: &[MethodSpec],
) -> Result<IndependentPair, LayoutError> {
    independent_pair_with_config(a, b, &LayoutConfig::default())
}

/// [`independent_pair`] with explicit configuration.
pub fn independent_pair_with_config(
    a: &[MethodSpec],
    b: &[MethodSpec],
    config: &LayoutConfig,
) -> Result<IndependentPair, LayoutError> {
    let city_a = CityLayout::full_with_config(a, config)?;
    let city_b = CityLayout::full_with_config(b, config)?;
    let diff = diff(a, b);
    let per_building = |city: &CityLayout, specs: &[MethodSpec], changes: &[Change]| {
        let mut out = vec![Change::Unchanged; city.buildings().len()];
        for (m, &change) in specs.iter().zip(changes) {
            if let Some(i) = city.building_of(m.id) {
                out[i as usize] = change;
            }
        }
        out
    };
    Ok(IndependentPair {
        changes_a: per_building(&city_a, a, &diff.a),
        changes_b: per_building(&city_b, b, &diff.b),
        a: city_a,
        b: city_b,
    })
}

fn check_unique_ids(specs: &[MethodSpec]) -> Result<(), LayoutError> {
    let mut seen = HashSet::with_capacity(specs.len());
    for m in specs {
        if !seen.insert(m.id) {
            return Err(LayoutError::DuplicateMethodId(m.id));
        }
    }
    Ok(())
}

/// Per-spec changes of both versions, and for each B spec the A spec it matches.
struct Diff {
    a: Vec<Change>,
    b: Vec<Change>,
    b_match: Vec<Option<usize>>,
}

type Fqn<'a> = (&'a str, &'a str, &'a str, Option<&'a str>);

fn fqn(m: &MethodSpec) -> Fqn<'_> {
    (&m.package, &m.class, &m.method, m.signature.as_deref())
}

/// Class, method and signature: the name without its package.
fn short(m: &MethodSpec) -> (&str, &str, Option<&str>) {
    (&m.class, &m.method, m.signature.as_deref())
}

fn diff(a: &[MethodSpec], b: &[MethodSpec]) -> Diff {
    // Identical names in one version (a buggy agent) are matched k-th to k-th.
    let mut unmatched_a: FxHashMap<Fqn<'_>, Vec<usize>> = map_with_capacity(a.len());
    for (i, m) in a.iter().enumerate().rev() {
        unmatched_a.entry(fqn(m)).or_default().push(i);
    }
    let mut a_change = vec![Change::Removed; a.len()];
    let mut b_change = vec![Change::Added; b.len()];
    let mut b_match = vec![None; b.len()];
    for (j, m) in b.iter().enumerate() {
        if let Some(i) = unmatched_a.get_mut(&fqn(m)).and_then(Vec::pop) {
            a_change[i] = Change::Unchanged;
            b_change[j] = Change::Unchanged;
            b_match[j] = Some(i);
        }
    }
    let in_a: HashSet<_> = a.iter().map(short).collect();
    let in_b: HashSet<_> = b.iter().map(short).collect();
    for (i, m) in a.iter().enumerate() {
        if a_change[i] == Change::Removed && in_b.contains(&short(m)) {
            a_change[i] = Change::MovedOut;
        }
    }
    for (j, m) in b.iter().enumerate() {
        if b_change[j] == Change::Added && in_a.contains(&short(m)) {
            b_change[j] = Change::MovedIn;
        }
    }
    Diff {
        a: a_change,
        b: b_change,
        b_match,
    }
}
