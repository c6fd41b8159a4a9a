//! Two sessions compared on one shared plan (`highrise_layout::aligned_pair`), for the page's
//! diff city and the window's compare view: the pairing helpers both use, and the diff the
//! page draws (heights and colours from `highrise_layout::look::diff_look`).

use std::collections::HashMap;

use highrise_aggregate::Snapshot;
use highrise_layout::look::diff_look;
use highrise_layout::{aligned_pair, AlignedPair, Change, LayoutError, MethodSpec};
use highrise_report::{a_signatures_as_in_b, MethodKey};

use crate::wire;

/// A method definition as the layout takes it.
pub fn method_spec(definition: &highrise_protocol::MethodDef) -> MethodSpec {
    MethodSpec {
        id: definition.id,
        package: definition.package.clone(),
        class: definition.class.clone(),
        method: definition.method.clone(),
        signature: definition.signature.clone(),
    }
}

/// The structural diff's keys of layout specs.
pub fn method_keys(specs: &[MethodSpec]) -> Vec<MethodKey> {
    specs
        .iter()
        .map(|spec| MethodKey {
            package: spec.package.clone(),
            class: spec.class.clone(),
            method: spec.method.clone(),
            signature: spec.signature.clone(),
        })
        .collect()
}

/// A's signatures spelled in B's terms (a JVM descriptor naming a class that moved names it
/// where B has it; see `highrise_report::pairing`): with them, `aligned_pair` and
/// [`moved_counterparts`] pair methods by the report's rule, so the methods of a restructured
/// package are moved in the plan, not removed and added. Shown names do not change (they
/// name parameter classes by their simple names).
pub fn spell_in_b_terms(specs_a: &mut [MethodSpec], keys_a: &[MethodKey], keys_b: &[MethodKey]) {
    for (spec, signature) in specs_a.iter_mut().zip(a_signatures_as_in_b(keys_a, keys_b)) {
        spec.signature = signature;
    }
}

/// For each building of the plan that moved into its package in B, the same method's id in A.
pub fn moved_counterparts(
    a: &[MethodSpec],
    b: &[MethodSpec],
    pair: &AlignedPair,
) -> Vec<Option<u32>> {
    let key = |spec: &MethodSpec| {
        (
            spec.class.clone(),
            spec.method.clone(),
            spec.signature.clone(),
        )
    };
    let mut a_by_key: HashMap<(String, String, Option<String>), u32> = HashMap::new();
    let a_by_id: HashMap<u32, &MethodSpec> = a.iter().map(|spec| (spec.id, spec)).collect();
    for building in &pair.buildings {
        if let (Change::MovedOut, Some(id)) = (building.change, building.method_id_a) {
            if let Some(spec) = a_by_id.get(&id) {
                a_by_key.entry(key(spec)).or_insert(id);
            }
        }
    }
    let b_by_id: HashMap<u32, &MethodSpec> = b.iter().map(|spec| (spec.id, spec)).collect();
    pair.buildings
        .iter()
        .map(|building| match (building.change, building.method_id_b) {
            (Change::MovedIn, Some(id)) => b_by_id
                .get(&id)
                .and_then(|spec| a_by_key.get(&key(spec)).copied()),
            _ => None,
        })
        .collect()
}

/// The shared plan of two sessions, with what the page needs to draw it.
#[derive(Debug)]
pub struct DiffPlan {
    pub pair: AlignedPair,
    /// Per building: the same method's id in A when it moved into its package in B.
    pub moved_from_a: Vec<Option<u32>>,
    /// Display names by building (B's name where the method is in B).
    pub names: Vec<String>,
}

impl DiffPlan {
    /// Lays `a` and `b` out on one plan; `name_a` and `name_b` give display names by method id.
    pub fn new(
        mut specs_a: Vec<MethodSpec>,
        specs_b: &[MethodSpec],
        name_a: impl Fn(u32) -> String,
        name_b: impl Fn(u32) -> String,
    ) -> Result<Self, LayoutError> {
        let (keys_a, keys_b) = (method_keys(&specs_a), method_keys(specs_b));
        spell_in_b_terms(&mut specs_a, &keys_a, &keys_b);
        let pair = aligned_pair(&specs_a, specs_b)?;
        let moved_from_a = moved_counterparts(&specs_a, specs_b, &pair);
        let names = pair
            .city
            .buildings()
            .iter()
            .map(|building| {
                let aligned = &pair.buildings[building.method_id as usize];
                match (aligned.method_id_b, aligned.method_id_a) {
                    (Some(id), _) => name_b(id),
                    (None, Some(id)) => name_a(id),
                    (None, None) => String::new(),
                }
            })
            .collect();
        Ok(Self {
            pair,
            moved_from_a,
            names,
        })
    }

    /// A [`wire::DIFF`] message: every building's diff look from the two snapshots' elevations.
    pub fn diff_message(&self, generation: u32, a: &Snapshot, b: &Snapshot) -> Vec<u8> {
        let value =
            |snapshot: &Snapshot, id: Option<u32>| id.map(|id| snapshot.method(id).elevation);
        let values: Vec<(Change, Option<f32>, Option<f32>)> = self
            .pair
            .city
            .buildings()
            .iter()
            .map(|building| {
                let index = building.method_id as usize;
                let aligned = &self.pair.buildings[index];
                let from_a =
                    aligned
                        .method_id_a
                        .or(self.moved_from_a.get(index).copied().flatten());
                (
                    aligned.change,
                    value(a, from_a),
                    value(b, aligned.method_id_b),
                )
            })
            .collect();
        // The largest difference stands at full height.
        let full_scale = values
            .iter()
            .map(|&(change, va, vb)| match change {
                Change::Added => vb.unwrap_or(0.0),
                Change::Removed => va.unwrap_or(0.0),
                _ => (vb.unwrap_or(0.0) - va.unwrap_or(0.0)).abs(),
            })
            .fold(0.0, f32::max);
        let looks = values.iter().map(|&(change, va, vb)| {
            let (height, colour) = diff_look(change, va, vb, full_scale);
            wire::DiffTower {
                height,
                colour,
                elevation_a: va,
                elevation_b: vb,
            }
        });
        wire::diff(generation, full_scale, looks)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use highrise_aggregate::MethodStats;

    fn snapshot(elevations: &[f32]) -> Snapshot {
        Snapshot {
            methods: elevations
                .iter()
                .map(|&elevation| MethodStats {
                    elevation,
                    ..MethodStats::default()
                })
                .collect(),
            ..Snapshot::default()
        }
    }

    #[test]
    fn the_diff_says_what_was_added_removed_and_what_got_slower() {
        let a = vec![
            MethodSpec::new(0, "shop", "Cart", "add"),
            MethodSpec::new(1, "shop", "Cart", "total"),
        ];
        let b = vec![
            MethodSpec::new(0, "shop", "Cart", "add"),
            MethodSpec::new(1, "shop", "Cart", "clear"),
        ];
        let plan = DiffPlan::new(a, &b, |id| format!("a{id}"), |id| format!("b{id}")).unwrap();
        let message = plan.diff_message(1, &snapshot(&[0.10, 0.05]), &snapshot(&[0.40, 0.02]));
        assert_eq!(message[0], wire::DIFF);
        let count = u32::from_le_bytes(message[16..20].try_into().unwrap()) as usize;
        assert_eq!(count, 3);
        let mut by_name: Vec<(String, u8)> = message[20..]
            .chunks(8)
            .zip(&plan.names)
            .map(|(tower, name)| (name.clone(), tower[0]))
            .collect();
        by_name.sort();
        // Cart.add got slower (+30 points), Cart.clear was added, Cart.total removed.
        assert_eq!(
            by_name,
            [
                ("a1".to_string(), 2),
                ("b0".to_string(), 5),
                ("b1".to_string(), 1)
            ]
        );
    }
}
