//! The compare view: the diff city, the aligned pair, the independent view and the summary.

use bevy::prelude::*;
use highrise_aggregate::MethodStats;
use highrise_viewer::viewer::city::{Cities, CityKey, ColourKey};
use highrise_viewer::viewer::compare::Compare;
use highrise_viewer::viewer::hover::pick;
use highrise_viewer::viewer::sessions::{accept_report, Sessions};
use highrise_viewer::viewer::ui::tooltip_lines;

use crate::support::*;

#[test]
fn compare_view_shows_a_diff_city_and_the_structural_summary() {
    use highrise_viewer::viewer::compare::CompareMode;
    let mut app = app();
    // A: run 50 %, rotate 10 %, draw 20 %, Legacy.load 5 %.
    let mut version_a = tetris();
    version_a.push(def(3, "main.io", "Legacy", "load"));
    // B (other ids, other order): run 20 % (faster), rotate 40 % (slower), draw moved from
    // main.ui to main.render, Legacy.load gone, Cache.get new.
    let version_b = vec![
        def(10, "main.render", "Renderer", "draw"),
        def(11, "main.game", "Game", "run"),
        def(12, "main.game", "Board", "rotate"),
        def(13, "main.game", "Cache", "get"),
    ];
    let mut stats_b = vec![MethodStats::default(); 14];
    stats_b[10] = stats(0.2, 1, 5);
    stats_b[11] = stats(0.2, 1, 1);
    stats_b[12] = stats(0.4, 2, 9);
    stats_b[13] = stats(0.3, 1, 3);
    {
        let mut sessions = app.world_mut().resource_mut::<Sessions>();
        accept_report(
            &mut sessions,
            session_report(
                1,
                "before",
                version_a,
                vec![
                    stats(0.5, 1, 1),
                    stats(0.1, 1, 4),
                    stats(0.2, 1, 5),
                    stats(0.05, 1, 1),
                ],
            ),
        );
        accept_report(
            &mut sessions,
            session_report(2, "after", version_b, stats_b),
        );
    }
    app.world_mut().resource_mut::<Compare>().mode = CompareMode::Diff;
    settle(&mut app);

    let compare = app.world().resource::<Compare>();
    assert_eq!(
        (compare.a, compare.b),
        (Some(1), Some(2)),
        "first two sessions"
    );
    assert_eq!(
        compare.scene_order(app.world().resource::<Sessions>()),
        vec![CityKey::Diff]
    );
    let cities = app.world().resource::<Cities>();
    assert!(cities[CityKey::Session(1)].hidden && cities[CityKey::Session(2)].hidden);
    let summary = compare.summary.as_ref().expect("summary");
    assert_eq!(summary.packages_added, vec!["main.render".to_string()]);
    assert_eq!(
        summary.packages_removed,
        vec!["main.io".to_string(), "main.ui".to_string()]
    );
    assert_eq!(
        summary.methods_added,
        vec!["main.game.Cache.get".to_string()]
    );
    assert_eq!(
        summary.methods_removed,
        vec!["main.io.Legacy.load".to_string()]
    );
    assert_eq!(summary.classes_added, vec!["main.game.Cache".to_string()]);
    assert_eq!(summary.classes_removed, vec!["main.io.Legacy".to_string()]);
    assert_eq!(summary.methods_moved.len(), 1);
    let moved = &summary.methods_moved[0];
    assert_eq!(
        (
            moved.class.as_str(),
            moved.method.as_str(),
            moved.from_package.as_str(),
            moved.to_package.as_str()
        ),
        ("Renderer", "draw", "main.ui", "main.render")
    );
    assert_eq!(summary.classes_moved.len(), 1, "Renderer moved as a whole");

    let pair = compare.pair.as_ref().expect("plan");
    let diff = &app.world().resource::<Cities>()[CityKey::Diff];
    let colour_of = |a: Option<u32>, b: Option<u32>| {
        let index = pair
            .buildings
            .iter()
            .position(|p| p.method_id_a == a && p.method_id_b == b)
            .unwrap_or_else(|| panic!("plot for {a:?}/{b:?}"));
        (diff.colours[index], diff.heights_wu[index], index)
    };
    let max = diff.max_height_wu();
    let (run, run_height, run_index) = colour_of(Some(0), Some(11));
    assert!(matches!(run, ColourKey::Faster(_)), "{run:?}");
    assert!((run_height - max).abs() < 0.02, "{run_height} vs {max}");
    let (rotate, rotate_height, _) = colour_of(Some(1), Some(12));
    assert!(matches!(rotate, ColourKey::Slower(_)), "{rotate:?}");
    // The largest difference (30 points) stands at full height.
    assert!((rotate_height - max).abs() < 0.02);
    assert_eq!(colour_of(None, Some(13)).0, ColourKey::Added);
    assert_eq!(colour_of(Some(3), None).0, ColourKey::Removed);
    assert_eq!(colour_of(Some(2), None).0, ColourKey::Moved);
    assert_eq!(colour_of(None, Some(10)).0, ColourKey::Moved);

    // Hovering the diff city's `run` names both versions and the difference.
    let centre = pair.city.buildings()[run_index].footprint.center() + diff.origin;
    let hovered = pick(
        app.world().resource::<Cities>(),
        centre + Vec3::Y * 500.0,
        -Vec3::Y,
        None,
    );
    assert_eq!(hovered.building(), Some((CityKey::Diff, run_index as u32)));
    let lines = tooltip_lines(
        app.world().resource::<Sessions>(),
        compare,
        app.world().resource::<Cities>(),
        &hovered,
    );
    assert_eq!(lines[0], "main.game.Game.run");
    assert!(
        lines
            .iter()
            .any(|l| l.contains("B − A: -30.0 points (faster)")),
        "{lines:?}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("A · tetris (before): elevation 50.0 %")),
        "{lines:?}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("B · tetris (after): elevation 20.0 %")),
        "{lines:?}"
    );

    // Aligned: the same method stands on the same plot in both cities, absent ones are dark.
    app.world_mut().resource_mut::<Compare>().mode = CompareMode::Aligned;
    settle(&mut app);
    let compare = app.world().resource::<Compare>();
    assert_eq!(
        compare.scene_order(app.world().resource::<Sessions>()),
        vec![CityKey::AlignedA, CityKey::AlignedB]
    );
    let cities = app.world().resource::<Cities>();
    let (a, b) = (&cities[CityKey::AlignedA], &cities[CityKey::AlignedB]);
    assert!(a.origin.x < b.origin.x, "A left of B");
    assert!((a.heights_wu[run_index] - 0.5 * max).abs() < 0.02);
    assert!((b.heights_wu[run_index] - 0.2 * max).abs() < 0.02);
    let added_index = compare
        .pair
        .as_ref()
        .and_then(|pair| {
            pair.buildings
                .iter()
                .position(|p| p.method_id_a.is_none() && p.method_id_b == Some(13))
        })
        .expect("Cache.get plot");
    assert_eq!(a.colours[added_index], ColourKey::Absent);
    assert!(matches!(b.colours[added_index], ColourKey::Heat(_)));
    let diff_hidden = cities[CityKey::Diff].hidden;
    assert!(diff_hidden);

    // Independent: the sessions' own cities, A then B; off: everything back.
    app.world_mut().resource_mut::<Compare>().mode = CompareMode::Independent;
    app.update();
    let cities = app.world().resource::<Cities>();
    assert!(!cities[CityKey::Session(1)].hidden && !cities[CityKey::Session(2)].hidden);
    assert!(app.world().resource::<Cities>()[CityKey::AlignedA].hidden);
}
