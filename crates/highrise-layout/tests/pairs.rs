//! Two versions side by side: aligned (one plan for both) and independent (each its own).

mod support;

use std::collections::HashMap;

use highrise_layout::{aligned_pair, independent_pair, Change, LayoutError, MethodSpec};
use support::tetris::{tetris, tetris_before_refactoring};
use support::{check_geometry, check_ordering};

fn fqn(m: &MethodSpec) -> String {
    format!("{}/{}/{}", m.package, m.class, m.method)
}

#[test]
fn aligned_pair_puts_each_method_on_one_plot_in_both_versions() {
    let before = tetris_before_refactoring();
    let after = tetris();
    let pair = aligned_pair(&before, &after).expect("pair");
    check_geometry(&pair.city);
    check_ordering(&pair.city);
    assert_eq!(pair.buildings.len(), pair.city.buildings().len());

    // Every method of A and of B has a building; methods with the same name share it.
    let by_name_a: HashMap<String, u32> = before.iter().map(|m| (fqn(m), m.id)).collect();
    let by_name_b: HashMap<String, u32> = after.iter().map(|m| (fqn(m), m.id)).collect();
    for (name, &id_a) in &by_name_a {
        let building = pair.building_of_a(id_a).expect("A method laid out");
        if let Some(&id_b) = by_name_b.get(name) {
            assert_eq!(
                pair.building_of_b(id_b),
                Some(building),
                "{name} on two plots"
            );
            assert_eq!(pair.buildings[building as usize].change, Change::Unchanged);
        }
    }
    for &id_b in by_name_b.values() {
        assert!(pair.building_of_b(id_b).is_some());
    }

    // The refactoring moved game/gui/ai under main and Tetris out of the default package: those
    // methods are flagged as moved (once on each side); Move and Ai.bumpiness are new.
    let count = |change| pair.buildings.iter().filter(|b| b.change == change).count();
    let moved_out = count(Change::MovedOut);
    let moved_in = count(Change::MovedIn);
    assert!(
        moved_out > 50 && moved_out == moved_in,
        "{moved_out} out, {moved_in} in"
    );
    assert_eq!(
        count(Change::Added),
        3,
        "Move.apply, Move.score, Ai.bumpiness"
    );
    assert_eq!(count(Change::Removed), 0);
    for b in &pair.buildings {
        match b.change {
            Change::Unchanged => assert!(b.method_id_a.is_some() && b.method_id_b.is_some()),
            Change::Added | Change::MovedIn => {
                assert!(b.method_id_a.is_none() && b.method_id_b.is_some())
            }
            Change::Removed | Change::MovedOut => {
                assert!(b.method_id_a.is_some() && b.method_id_b.is_none())
            }
        }
    }
}

#[test]
fn independent_pair_shows_the_districts_changing() {
    let before = tetris_before_refactoring();
    let after = tetris();
    let pair = independent_pair(&before, &after).expect("pair");
    check_geometry(&pair.a);
    check_geometry(&pair.b);
    check_ordering(&pair.a);
    check_ordering(&pair.b);
    // Before: game, gui, ai beside main (which kept Settings) and org, Tetris in the default
    // package; after: everything of the game under main.
    let top_level = |city: &highrise_layout::CityLayout| {
        let mut names: Vec<String> = city
            .packages()
            .iter()
            .filter(|p| p.depth == 1)
            .map(|p| p.path.clone())
            .collect();
        names.sort();
        names
    };
    assert_eq!(top_level(&pair.a), ["ai", "game", "gui", "main", "org"]);
    assert_eq!(top_level(&pair.b), ["main", "org"]);
    assert_eq!(pair.changes_a.len(), pair.a.buildings().len());
    assert_eq!(pair.changes_b.len(), pair.b.buildings().len());
    assert!(
        pair.changes_a
            .iter()
            .filter(|&&c| c == Change::MovedOut)
            .count()
            > 50
    );
    assert_eq!(
        pair.changes_b
            .iter()
            .filter(|&&c| c == Change::Added)
            .count(),
        3
    );
    // Each side equals its own full layout.
    support::assert_same_city(
        &pair.a,
        &highrise_layout::CityLayout::full(&before).expect("layout"),
    );
}

#[test]
fn pairs_refuse_duplicate_ids() {
    let a = vec![
        MethodSpec::new(1, "p", "C", "m"),
        MethodSpec::new(1, "p", "C", "n"),
    ];
    assert_eq!(
        aligned_pair(&a, &[]).err(),
        Some(LayoutError::DuplicateMethodId(1))
    );
    assert_eq!(
        independent_pair(&a, &[]).err(),
        Some(LayoutError::DuplicateMethodId(1))
    );
}

#[test]
fn identical_versions_are_all_unchanged() {
    let pair = aligned_pair(&tetris(), &tetris()).expect("pair");
    assert!(pair.buildings.iter().all(|b| b.change == Change::Unchanged));
    assert_eq!(pair.city.buildings().len(), tetris().len());
}
