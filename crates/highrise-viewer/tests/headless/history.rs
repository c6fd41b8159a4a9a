//! The timeline: each session keeps its past; scrubbing shows a kept moment in the city, pause
//! freezes it while reports keep arriving, live returns; the tooltip's sparkline follows the
//! kept elevations.

use bevy::prelude::*;
use highrise_layout::HitTarget;
use highrise_viewer::viewer::city::{Cities, CityKey, HeightScale};
use highrise_viewer::viewer::hover::Hovered;
use highrise_viewer::viewer::sessions::Sessions;
use highrise_viewer::viewer::ui::building_detail;

use crate::support::*;

const MS: u64 = 1_000_000;

/// `run` climbs 2.5 % per quarter second (100 % at sample 40); `rotate` stays at 30 %.
fn report_at(step: u64) -> highrise_viewer::viewer::sessions::Report {
    let run = (step as f32 * 0.025).min(1.0);
    report(
        tetris(),
        vec![
            stats(run, 1, step as u32),
            stats(0.3, 2, 5),
            stats(0.0, 0, 0),
        ],
        (step + 1) * 250 * MS,
    )
}

/// Reports of `steps` arrive, one per frame.
fn feed(app: &mut App, steps: std::ops::Range<u64>) {
    for step in steps {
        accept(app, report_at(step));
        app.update();
    }
}

/// (run's height, rotate's height, the city's full height) as the city shows them.
fn heights(app: &App) -> (f32, f32, f32) {
    let city = &app.world().resource::<Cities>()[CityKey::Session(1)];
    let layout = city.layout.as_ref().expect("laid out");
    let index_of = |method_id| layout.building_of(method_id).expect("placed") as usize;
    (
        city.heights_wu[index_of(0)],
        city.heights_wu[index_of(1)],
        city.max_height_wu(),
    )
}

#[test]
fn scrubbing_back_shows_that_moment_and_live_comes_back() {
    let mut app = app();
    // The paper's scale: each moment's heights are its shares of the window, whatever the
    // hottest method is then (the relative scale would stretch the scrubbed moment).
    app.insert_resource(HeightScale::Absolute);
    feed(&mut app, 0..40);
    settle(&mut app);
    let (run, _, max) = heights(&app);
    assert!((run - 0.975 * max).abs() < 0.01, "live: {run} of {max}");
    {
        let sessions = app.world().resource::<Sessions>();
        let view = &sessions.by_id[&1];
        // Reports came every 250 ms of program time: all 40 kept.
        assert_eq!(view.history.len(), 40);
        assert_eq!(view.history.range_ns(), Some((250 * MS, 10_000 * MS)));
    }

    // Back to 2.6 s: the kept moment at 2.5 s (step 9, run at 22.5 %).
    let scrubbed = app
        .world_mut()
        .resource_mut::<Sessions>()
        .by_id
        .get_mut(&1)
        .expect("session")
        .scrub_to(2_600 * MS);
    assert!(scrubbed);
    settle(&mut app);
    let (run, rotate, max) = heights(&app);
    assert!((run - 0.225 * max).abs() < 0.01, "scrubbed: {run} of {max}");
    assert!((rotate - 0.3 * max).abs() < 0.01);
    let shown_ns = app.world().resource::<Sessions>().by_id[&1]
        .snapshot()
        .map(|s| s.now_ns);
    assert_eq!(shown_ns, Some(2_500 * MS));

    // New reports keep arriving: the city stays at the moment, the history grows.
    feed(&mut app, 40..48);
    settle(&mut app);
    let (run, _, max) = heights(&app);
    assert!((run - 0.225 * max).abs() < 0.01, "still scrubbed: {run}");
    assert_eq!(
        app.world().resource::<Sessions>().by_id[&1].history.len(),
        48
    );

    // The tooltip's sparkline for `run`: the kept minute up to the moment shown.
    app.world_mut().insert_resource(Hovered {
        city: Some(CityKey::Session(1)),
        target: Some(HitTarget::Building {
            building: 0,
            method_id: 0,
        }),
        point: Vec3::ZERO,
    });
    let detail = building_detail(app.world().resource::<Sessions>(), app.world().resource())
        .expect("a building is hovered");
    let values: Vec<f32> = detail.elevation.iter().map(|p| p.1).collect();
    assert_eq!(values.len(), 10, "0.25 s .. 2.5 s");
    assert!((values[0] - 0.0).abs() < 1e-6 && (values[9] - 0.225).abs() < 1e-6);
    assert!(detail.threads.is_empty(), "threads are live only");

    // Live again: the newest report.
    app.world_mut()
        .resource_mut::<Sessions>()
        .by_id
        .get_mut(&1)
        .expect("session")
        .go_live();
    settle(&mut app);
    let (run, _, max) = heights(&app);
    assert!((run - max).abs() < 0.01, "live again: {run} of {max}");
}

/// Hovering a building asks its live session for the method's threads (over the real ingest
/// server); the tooltip's bars then name them with their shares.
#[test]
fn hovering_a_building_brings_its_threads_by_name() {
    use highrise_protocol::{AgentMessage, EventKind, PackedEventWriter};
    use highrise_viewer::viewer::sessions::SessionsPlugin;
    use highrise_viewer::viewer::ui::focus_hovered;

    let ingest = live_ingest();
    let mut agent = TestAgent::connect(ingest.0.local_addr());
    let mut app = app();
    app.insert_resource(ingest)
        .add_plugins(SessionsPlugin)
        .init_resource::<Hovered>()
        .add_systems(Update, focus_hovered);
    agent.send(AgentMessage::DefineMethods(tetris()));
    for (thread_id, name) in [(1, "main"), (2, "AWT-EventQueue-0")] {
        agent.send(AgentMessage::ThreadStart {
            thread_id,
            name: name.into(),
            timestamp: 0,
        });
    }
    // Board.rotate: 1.5 s on "main", 0.6 s on the event queue, in the last 3 s.
    let send_rotations = |agent: &mut TestAgent, round: u64| {
        let from_ns = round * 3_000_000_000;
        for (thread_id, busy_ns) in [(1u64, 1_500_000_000u64), (2, 600_000_000)] {
            let mut events = PackedEventWriter::new(thread_id, from_ns);
            events.push(from_ns, 1, EventKind::Enter);
            events.push(from_ns + busy_ns, 1, EventKind::Exit);
            agent.send(AgentMessage::Events(events.finish()));
        }
        agent.send(AgentMessage::Heartbeat {
            timestamp: from_ns + 3_000_000_000,
        });
    };
    send_rotations(&mut agent, 0);
    let mut round = 1;
    app.world_mut().insert_resource(Hovered {
        city: Some(CityKey::Session(1)),
        target: Some(HitTarget::Building {
            building: 0,
            method_id: 1,
        }),
        point: Vec3::ZERO,
    });
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    let threads = loop {
        app.update();
        let sessions = app.world().resource::<Sessions>();
        let detail = building_detail(sessions, app.world().resource::<Hovered>());
        if let Some(detail) = detail.filter(|d| !d.threads.is_empty()) {
            break detail.threads;
        }
        assert!(std::time::Instant::now() < deadline, "no threads came");
        std::thread::sleep(std::time::Duration::from_millis(20));
        // The focus may reach the session after the first window: send another.
        if round < 20 {
            send_rotations(&mut agent, round);
            round += 1;
        }
    };
    let shares: Vec<(String, u32)> = threads
        .into_iter()
        .map(|(name, own, _)| (name, (own * 100.0).round() as u32))
        .collect();
    assert_eq!(
        shares,
        [
            ("main".to_string(), 50),
            ("AWT-EventQueue-0".to_string(), 20)
        ]
    );
}

/// Phase marks' methods are known to the timeline (it draws a band while each is open).
#[test]
fn phase_marks_are_found_among_the_definitions() {
    let mut app = app();
    let mut definitions = tetris();
    definitions.push(def(3, "highrise", "phase", "load"));
    accept(
        &mut app,
        report(definitions, vec![stats(0.0, 0, 0); 4], 250 * MS),
    );
    let sessions = app.world().resource::<Sessions>();
    assert_eq!(sessions.by_id[&1].phase_marks, [(3, "load".to_string())]);
}
