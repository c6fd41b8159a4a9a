//! Hover and the panel's text: picking a building or the ground, the tooltip's lines, search.

use bevy::prelude::*;
use highrise_aggregate::MethodStats;
use highrise_layout::HitTarget;
use highrise_viewer::viewer::city::{Cities, CityKey, ColourKey};
use highrise_viewer::viewer::compare::Compare;
use highrise_viewer::viewer::hover::{pick, Hovered};
use highrise_viewer::viewer::sessions::Sessions;
use highrise_viewer::viewer::ui::{dropped_line, search, tooltip_lines, APPROXIMATE_LINE};

use crate::support::*;

/// The building of `method_id` in session 1's city and a ray straight down from above its
/// centre: the synthetic hover.
fn hover_method(app: &App, method_id: u32) -> (u32, Hovered) {
    let cities = app.world().resource::<Cities>();
    let city = &cities[CityKey::Session(1)];
    let layout = city.layout.as_ref().expect("laid out");
    let index = layout.building_of(method_id).expect("placed");
    let centre = layout.buildings()[index as usize].footprint.center() + city.origin;
    (
        index,
        pick(cities, centre + Vec3::Y * 500.0, -Vec3::Y, None),
    )
}

/// The tooltip's lines for `hovered`.
fn tooltip(app: &App, hovered: &Hovered) -> Vec<String> {
    let world = app.world();
    tooltip_lines(
        world.resource::<Sessions>(),
        world.resource::<Compare>(),
        world.resource::<Cities>(),
        hovered,
    )
}

#[test]
fn hovering_a_building_names_it_in_the_tooltip() {
    let mut app = app();
    accept(&mut app, report(tetris(), vec![stats(0.873, 3, 120)], 1));
    settle(&mut app);
    let (index, hovered) = hover_method(&app, 0);
    assert_eq!(hovered.building(), Some((CityKey::Session(1), index)));
    assert_eq!(
        hovered.target,
        Some(HitTarget::Building {
            building: index,
            method_id: 0
        })
    );
    let lines = tooltip(&app, &hovered);
    assert_eq!(lines[0], "main.game.Game.run");
    assert!(lines.contains(&"elevation 87.3 %".to_string()), "{lines:?}");
    assert!(lines.contains(&"threads 3".to_string()), "{lines:?}");
    assert!(
        lines.contains(&"calls in window 120".to_string()),
        "{lines:?}"
    );
    assert!(lines
        .iter()
        .any(|l| l.contains("class Game · package main.game")));

    assert!(
        !lines.iter().any(|l| l.contains("estimate")),
        "exact numbers: {lines:?}"
    );

    // The hovered building is highlighted on the next frame.
    app.insert_resource(hovered);
    app.update();
    let city = &app.world().resource::<Cities>()[CityKey::Session(1)];
    assert_eq!(city.colours[index as usize], ColourKey::Highlight);
}

/// A method threads sit in for a whole window (the paper's leak) says how many.
#[test]
fn a_building_threads_are_parked_in_says_how_many() {
    let mut app = app();
    let leak = MethodStats {
        parked_threads: 2,
        ..stats(1.0, 3, 0)
    };
    accept(&mut app, report(tetris(), vec![leak], 1));
    settle(&mut app);
    let (_, hovered) = hover_method(&app, 0);
    let lines = tooltip(&app, &hovered);
    assert!(
        lines.contains(&"threads 3 · 2 parked in it".to_string()),
        "{lines:?}"
    );
}

#[test]
fn a_building_whose_numbers_are_estimates_says_so_and_the_panel_gives_the_dropped_share() {
    let mut app = app();
    let mut lossy = report(
        tetris(),
        vec![MethodStats {
            approximate: true,
            ..stats(0.5, 1, 10)
        }],
        1,
    );
    lossy.stats.agent_events_dropped = 4_000;
    if let Some(snapshot) = lossy.sink.as_mut().and_then(std::sync::Arc::get_mut) {
        snapshot.dropped_share = 0.25;
    }
    accept(&mut app, lossy);
    settle(&mut app);
    let (_, hovered) = hover_method(&app, 0);
    let lines = tooltip(&app, &hovered);
    assert!(
        lines.contains(&"elevation ≈ 50.0 %".to_string()),
        "{lines:?}"
    );
    assert!(lines.contains(&APPROXIMATE_LINE.to_string()), "{lines:?}");
    let view = &app.world().resource::<Sessions>().by_id[&1];
    assert_eq!(
        dropped_line(view.report.stats.agent_events_dropped, view.snapshot()).as_deref(),
        Some(
            "  25.0 % of events dropped in the last 3.0 s (4000 in all): ≈ buildings are estimates"
        )
    );
    assert_eq!(dropped_line(0, view.snapshot()), None);
}

#[test]
fn hovering_ground_names_the_package_and_search_finds_methods() {
    let mut app = app();
    accept(
        &mut app,
        report(tetris(), vec![stats(0.5, 1, 10), stats(0.25, 1, 5)], 1),
    );
    for _ in 0..10 {
        app.update();
    }
    let sessions = app.world().resource::<Sessions>();
    let cities = app.world().resource::<Cities>();
    let city = &cities[CityKey::Session(1)];
    let layout = city.layout.as_ref().expect("laid out");
    let district = layout
        .districts()
        .iter()
        .position(|d| layout.packages()[d.package as usize].path == "main.ui")
        .expect("main.ui district");
    let rect = layout.districts()[district].rect;
    // Just inside the district's corner: street, not a block.
    let corner = Vec3::new(rect.min_x + 0.2, 0.0, rect.min_z + 0.2) + city.origin;
    let hovered = pick(cities, corner + Vec3::Y * 100.0, -Vec3::Y, None);
    let lines = tooltip(&app, &hovered);
    assert_eq!(
        lines.first().map(String::as_str),
        Some("package main.ui"),
        "{hovered:?}"
    );
    assert!(lines.contains(&"1 methods".to_string()), "{lines:?}");

    // The one name that holds the text comes first; names that hold its letters in order follow.
    let found = search(sessions, cities, "board.ROT", 10);
    assert_eq!(found[0].1, 1, "{found:?}");
    assert_eq!(found[0].2, "main.game.Board.rotate");
    assert!(found[1..].iter().all(|f| f.1 != 1), "{found:?}");
}

#[test]
fn a_building_that_allocates_lists_its_classes_in_the_tooltip() {
    use highrise_aggregate::{Amount, MemorySnapshot, MethodClassAmount, MethodMemory};
    use highrise_protocol::{ClassDef, ClassKind};
    let mut app = app();
    let mut allocating = report(tetris(), vec![stats(0.5, 1, 10)], 1);
    let made = |count: u64, bytes: u64| Amount {
        count,
        bytes,
        ..Amount::default()
    };
    allocating.class_chunks = vec![vec![
        ClassDef {
            id: 0,
            package: "main.game".into(),
            name: "Piece".into(),
            kind: ClassKind::Class,
        },
        ClassDef {
            id: 1,
            package: "".into(),
            name: "int[]".into(),
            kind: ClassKind::Array,
        },
    ]
    .into()];
    if let Some(snapshot) = allocating.sink.as_mut().and_then(std::sync::Arc::get_mut) {
        snapshot.memory = std::sync::Arc::new(MemorySnapshot {
            methods: vec![MethodMemory {
                window: made(300, 9_600),
                total: Amount {
                    frees: 12,
                    ..made(1_000, 32_000)
                },
            }],
            method_classes: vec![
                MethodClassAmount {
                    method_id: 0,
                    class_id: 0,
                    amount: made(700, 16_800),
                },
                MethodClassAmount {
                    method_id: 0,
                    class_id: 1,
                    amount: made(300, 15_200),
                },
            ],
            records: 40,
            ..MemorySnapshot::default()
        });
    }
    accept(&mut app, allocating);
    settle(&mut app);
    let (_, hovered) = hover_method(&app, 0);
    let lines = tooltip(&app, &hovered);
    // 300 objects over the 3 s window: 100/s.
    assert!(
        lines.contains(
            &"allocations 100/s (3.2 kB/s) · 1000 since start (32.0 kB), 12 freed".to_string()
        ),
        "{lines:?}"
    );
    let piece = lines
        .iter()
        .position(|l| l == "  main.game.Piece 700 (16.8 kB)");
    let ints = lines.iter().position(|l| l == "  int[] 300 (15.2 kB)");
    assert!(
        piece.is_some() && ints.is_some() && piece < ints,
        "{lines:?}"
    );
    // Another building, which allocated nothing, says nothing about allocations.
    let (_, other) = hover_method(&app, 1);
    assert!(
        !tooltip(&app, &other)
            .iter()
            .any(|l| l.starts_with("allocations")),
        "no allocations"
    );
}
