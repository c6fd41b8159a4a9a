//! The viewer's systems in a headless Bevy app (`MinimalPlugins`, no window, no GPU): session
//! reports in, building entities, heights, colours, hover and tooltip out.

use std::sync::Arc;
use std::time::Duration;

use bevy::prelude::*;
use highrise_aggregate::{MethodStats, Snapshot};
use highrise_ingest::{SessionReport, SessionStats, SessionStatus};
use highrise_layout::HitTarget;
use highrise_protocol::MethodDef;
use highrise_viewer::viewer::city::{
    headless_city_app, Cities, CityBuildings, CityKey, ColourKey, ColourMode, HeightMode, Palette,
    HEAT_STEPS, STUB_HEIGHT_WU,
};
use highrise_viewer::viewer::compare::Compare;
use highrise_viewer::viewer::hover::{pick, Hovered};
use highrise_viewer::viewer::instancing::{instance_rgba, BuildingInstance, BuildingInstances};
use highrise_viewer::viewer::sessions::{accept_report, Report, Sessions};
use highrise_viewer::viewer::ui::{search, tooltip_lines};

fn def(id: u32, package: &str, class: &str, method: &str) -> MethodDef {
    MethodDef {
        id,
        package: package.into(),
        class: class.into(),
        method: method.into(),
        signature: None,
        file: None,
        line: None,
    }
}

fn report(definitions: Vec<MethodDef>, methods: Vec<MethodStats>, now_ns: u64) -> Report {
    SessionReport {
        session_id: 1,
        peer: "127.0.0.1:9".parse().expect("addr"),
        info: Some(highrise_ingest::SessionInfo {
            agent: "test".into(),
            program: "tetris".into(),
            version_label: "v1".into(),
            pid: 7,
            clock_unit_ns: 1,
            clock_zero_unix_ns: 0,
        }),
        status: SessionStatus::Connected,
        stats: SessionStats::default(),
        errors: Vec::new(),
        definition_chunks: vec![definitions.into()],
        threads: Arc::new(Vec::new()),
        sink: Some(Arc::new(Snapshot {
            now_ns,
            window_ns: 3_000_000_000,
            bucket_ns: 1,
            methods,
            ..Snapshot::default()
        })),
    }
}

fn stats(elevation: f32, thread_count: u32, calls: u32) -> MethodStats {
    MethodStats {
        elevation,
        inclusive_elevation: elevation,
        summed_elevation: elevation * thread_count as f32,
        thread_count,
        calls,
    }
}

/// Folds a report into the app's sessions, as the intake system does.
fn accept(app: &mut App, report: Report) {
    accept_report(&mut app.world_mut().resource_mut::<Sessions>(), report);
}

fn app() -> App {
    headless_city_app(Some(Duration::from_millis(100)))
}

/// What the GPU is handed for session 1's city: one instance per building, in layout order
/// (and one drawing entity per city).
fn buildings(app: &mut App) -> Vec<BuildingInstance> {
    let mut query = app
        .world_mut()
        .query::<(&CityBuildings, &BuildingInstances)>();
    let drawn: Vec<_> = query
        .iter(app.world())
        .filter(|(of, _)| of.city == CityKey::Session(1))
        .map(|(_, draw)| draw.instances.to_vec())
        .collect();
    assert!(drawn.len() <= 1, "one drawing entity per city");
    drawn.into_iter().next().unwrap_or_default()
}

fn tetris() -> Vec<MethodDef> {
    vec![
        def(0, "main.game", "Game", "run"),
        def(1, "main.game", "Board", "rotate"),
        def(2, "main.ui", "Renderer", "draw"),
    ]
}

#[test]
fn snapshots_become_eased_heights_and_heat_colours() {
    let mut app = app();
    let methods = vec![stats(1.0, 3, 1), stats(0.25, 1, 40), MethodStats::default()];
    accept(&mut app, report(tetris(), methods, 1));
    for _ in 0..40 {
        app.update();
    }
    let cities = app.world().resource::<Cities>();
    let city = &cities[CityKey::Session(1)];
    let layout = city.layout.as_ref().expect("laid out");
    let max = city.max_height_wu();
    let index_of = |method_id| layout.building_of(method_id).expect("placed") as usize;
    let (run, rotate, draw) = (index_of(0), index_of(1), index_of(2));
    assert!(
        (city.heights_wu[run] - max).abs() < 0.01,
        "{:?}",
        city.heights_wu
    );
    assert!((city.heights_wu[rotate] - 0.25 * max).abs() < 0.01);
    assert_eq!(city.heights_wu[draw], STUB_HEIGHT_WU);
    assert_eq!(city.colours[run], ColourKey::Heat((HEAT_STEPS - 1) as u8));
    assert_eq!(city.colours[draw], ColourKey::Stub);

    let palette = app.world().resource::<Palette>();
    let (palette_heat_max, palette_stub) = (
        palette.rgba(ColourKey::Heat(31)),
        palette.rgba(ColourKey::Stub),
    );
    let drawn = buildings(&mut app);
    assert_eq!(drawn.len(), 3);
    assert!(
        (drawn[run].height - max).abs() < 0.01,
        "drawn height {:?}",
        drawn[run]
    );
    assert_eq!(instance_rgba(&drawn[run]), palette_heat_max);
    assert_eq!(instance_rgba(&drawn[draw]), palette_stub);
}

#[test]
fn heights_ease_instead_of_jumping() {
    let mut app = app();
    accept(&mut app, report(tetris(), vec![stats(1.0, 1, 1)], 1));
    app.update();
    app.update();
    let first = app.world().resource::<Cities>()[CityKey::Session(1)]
        .heights_wu
        .clone();
    app.update();
    let second = app.world().resource::<Cities>()[CityKey::Session(1)]
        .heights_wu
        .clone();
    let max = app.world().resource::<Cities>()[CityKey::Session(1)].max_height_wu();
    let run = app.world().resource::<Cities>()[CityKey::Session(1)]
        .layout
        .as_ref()
        .and_then(|l| l.building_of(0))
        .expect("placed") as usize;
    assert!(first[run] > STUB_HEIGHT_WU && first[run] < max, "{first:?}");
    assert!(second[run] > first[run] && second[run] < max, "{second:?}");
}

#[test]
fn modes_change_targets() {
    let mut app = app();
    let methods = vec![
        MethodStats {
            elevation: 0.1,
            inclusive_elevation: 0.9,
            summed_elevation: 0.3,
            thread_count: 5,
            calls: 2,
        },
        stats(0.5, 1, 1),
        stats(0.5, 1, 1),
    ];
    accept(&mut app, report(tetris(), methods, 1));
    app.update();
    *app.world_mut().resource_mut::<HeightMode>() = HeightMode::Inclusive;
    *app.world_mut().resource_mut::<ColourMode>() = ColourMode::Threads;
    for _ in 0..40 {
        app.update();
    }
    let cities = app.world().resource::<Cities>();
    let city = &cities[CityKey::Session(1)];
    let run = city
        .layout
        .as_ref()
        .and_then(|l| l.building_of(0))
        .expect("placed") as usize;
    assert!((city.heights_wu[run] - 0.9 * city.max_height_wu()).abs() < 0.01);
    assert_eq!(city.colours[run], ColourKey::Threads(5));
}

/// Methods defined later join the city; existing buildings never jump: they start where they
/// stood and, when the plan moved them, glide to their new plots and settle exactly there.
#[test]
fn new_methods_join_and_existing_buildings_glide_instead_of_jumping() {
    let mut app = app();
    accept(&mut app, report(tetris(), vec![], 1));
    app.update();
    let before = buildings(&mut app);
    let mut more = tetris();
    more.extend([
        def(3, "main.game", "Board", "clear"),
        def(4, "main.net", "Socket", "poll"),
        def(5, "main.game.ai", "Planner", "plan"),
    ]);
    accept(&mut app, report(more, vec![], 2));
    app.update();
    let first = buildings(&mut app);
    assert_eq!(first.len(), 6);
    assert_eq!(before.len(), 3);
    for (index, instance) in before.iter().enumerate() {
        let now = &first[index];
        assert!(
            (now.centre_x - instance.centre_x).abs() < 1e-4
                && (now.centre_z - instance.centre_z).abs() < 1e-4,
            "building {index} jumped: {now:?} from {instance:?}"
        );
    }
    for _ in 0..8 {
        app.update();
    }
    let settled = buildings(&mut app);
    let cities = app.world().resource::<Cities>();
    let city = &cities[CityKey::Session(1)];
    assert!(city.glide.is_none(), "the glide ended");
    let layout = city.layout.as_ref().expect("plan");
    for (instance, building) in settled.iter().zip(layout.buildings()) {
        let centre = building.footprint.center() + city.origin;
        assert_eq!((instance.centre_x, instance.centre_z), (centre.x, centre.z));
    }
}

#[test]
fn hovering_a_building_names_it_in_the_tooltip() {
    let mut app = app();
    accept(&mut app, report(tetris(), vec![stats(0.873, 3, 120)], 1));
    for _ in 0..40 {
        app.update();
    }
    let sessions = app.world().resource::<Sessions>();
    let cities = app.world().resource::<Cities>();
    let city = &cities[CityKey::Session(1)];
    let layout = city.layout.as_ref().expect("laid out");
    let index = layout.building_of(0).expect("placed");
    let centre = layout.buildings()[index as usize].footprint.center() + city.origin;
    // A ray straight down from above the building's centre: the synthetic hover.
    let hovered = pick(cities, centre + Vec3::Y * 500.0, -Vec3::Y);
    assert_eq!(hovered.building(), Some((CityKey::Session(1), index)));
    assert_eq!(
        hovered.target,
        Some(HitTarget::Building {
            building: index,
            method_id: 0
        })
    );
    let lines = tooltip_lines(
        sessions,
        app.world().resource::<Compare>(),
        cities,
        &hovered,
    );
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

    // The hovered building is highlighted on the next frame.
    app.insert_resource(hovered);
    app.update();
    let city = &app.world().resource::<Cities>()[CityKey::Session(1)];
    assert_eq!(city.colours[index as usize], ColourKey::Highlight);
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
    let hovered = pick(cities, corner + Vec3::Y * 100.0, -Vec3::Y);
    let lines = tooltip_lines(
        sessions,
        app.world().resource::<Compare>(),
        cities,
        &hovered,
    );
    assert_eq!(
        lines.first().map(String::as_str),
        Some("package main.ui"),
        "{hovered:?}"
    );
    assert!(lines.contains(&"1 methods".to_string()), "{lines:?}");

    let found = search(sessions, cities, "board.ROT", 10);
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].1, 1);
    assert_eq!(found[0].2, "main.game.Board.rotate");
}

#[test]
fn tidy_and_hover_changes_keep_colours_and_heights_right() {
    let mut app = app();
    let mut definitions = tetris();
    definitions.push(def(3, "main.game", "Board", "clear"));
    accept(
        &mut app,
        report(
            definitions,
            vec![stats(1.0, 2, 1), MethodStats::default(), stats(0.5, 1, 3)],
            1,
        ),
    );
    for _ in 0..40 {
        app.update();
    }
    let expected = |app: &App| {
        let city = &app.world().resource::<Cities>()[CityKey::Session(1)];
        let layout = city.layout.as_ref().expect("laid out");
        let max = city.max_height_wu();
        let run = layout.building_of(0).expect("run") as usize;
        let draw = layout.building_of(2).expect("draw") as usize;
        assert!(
            (city.heights_wu[run] - max).abs() < 0.01,
            "{:?}",
            city.heights_wu
        );
        assert!((city.heights_wu[draw] - 0.5 * max).abs() < 0.01);
        assert_eq!(city.colours[run], ColourKey::Heat((HEAT_STEPS - 1) as u8));
        (run, draw)
    };
    let (run, _) = expected(&app);

    // Hover on, then off: the highlight comes and goes.
    app.insert_resource(Hovered {
        city: Some(CityKey::Session(1)),
        target: Some(HitTarget::Building {
            building: run as u32,
            method_id: 0,
        }),
        point: Vec3::ZERO,
    });
    app.update();
    assert_eq!(
        app.world().resource::<Cities>()[CityKey::Session(1)].colours[run],
        ColourKey::Highlight
    );
    app.insert_resource(Hovered::default());
    app.update();
    expected(&app);

    // Tidy rebuilds every entity; heights and colours follow the methods to their new plots.
    app.world_mut()
        .resource_mut::<Cities>()
        .get_mut(CityKey::Session(1))
        .expect("session")
        .tidy();
    for _ in 0..5 {
        app.update();
    }
    expected(&app);
    assert_eq!(buildings(&mut app).len(), 4);
}

/// `report` for another session, with its own id and version label.
fn session_report(
    session_id: u64,
    label: &str,
    definitions: Vec<MethodDef>,
    methods: Vec<MethodStats>,
) -> Report {
    let mut report = report(definitions, methods, 1);
    report.session_id = session_id;
    if let Some(info) = report.info.as_mut() {
        info.version_label = label.into();
    }
    report
}

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
    for _ in 0..40 {
        app.update();
    }

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
    for _ in 0..40 {
        app.update();
    }
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

/// A real ingest server with the aggregator, publishing every 10 ms.
fn live_ingest() -> highrise_viewer::viewer::sessions::Ingest {
    let server = highrise_ingest::IngestServer::start(
        highrise_ingest::IngestConfig {
            listen_addr: "127.0.0.1:0".parse().expect("addr"),
            publish_interval: Duration::from_millis(10),
            ..highrise_ingest::IngestConfig::default()
        },
        highrise_ingest::AggregateSink::factory,
    )
    .expect("server");
    highrise_viewer::viewer::sessions::Ingest(server)
}

/// A program's agent over a real socket, already introduced (Hello as `tetris` `v1`).
struct TestAgent(std::net::TcpStream);

impl TestAgent {
    fn connect(addr: std::net::SocketAddr) -> Self {
        let mut agent = Self(std::net::TcpStream::connect(addr).expect("connect"));
        agent.send(highrise_protocol::AgentMessage::Hello(
            highrise_protocol::Hello {
                magic: highrise_protocol::MAGIC,
                protocol_version: highrise_protocol::PROTOCOL_VERSION,
                agent: "test".into(),
                program: "tetris".into(),
                version_label: "v1".into(),
                pid: 42,
                clock_unit_ns: 1,
                clock_zero_unix_ns: 0,
            },
        ));
        agent
    }

    fn send(&mut self, message: highrise_protocol::AgentMessage) {
        use std::io::Write;
        highrise_protocol::write_frame(&mut self.0, &message).expect("send");
        self.0.flush().expect("flush");
    }
}

/// What the panel's record button and "open recording" box do, against a real ingest server:
/// a live session (a real socket) is recorded mid-session, then opened as a replayed session
/// that reports the same methods through the same aggregator.
#[test]
fn the_record_button_records_a_live_session_and_the_recording_replays() {
    use highrise_ingest::{RecordingState, SessionSource};
    use highrise_protocol::{AgentMessage, EventKind, PackedEventWriter};
    use highrise_viewer::viewer::recording::Recorder;

    let ingest = live_ingest();
    let dir = std::env::temp_dir().join(format!("highrise-record-button-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let mut recorder = Recorder::new(dir.clone());
    let mut sessions = Sessions::default();
    // Waits for reports until `done` holds for some session, folding them into `sessions`.
    let wait_for = |sessions: &mut Sessions, done: &dyn Fn(&Sessions) -> bool| {
        let deadline = std::time::Instant::now() + Duration::from_secs(20);
        while !done(sessions) {
            assert!(std::time::Instant::now() < deadline, "timed out");
            if let Ok(report) = ingest.0.updates().recv_timeout(Duration::from_millis(50)) {
                accept_report(sessions, report);
            }
        }
    };

    let mut agent = TestAgent::connect(ingest.0.local_addr());
    agent.send(AgentMessage::DefineMethods(tetris()));
    // `Game.run` on thread 1 from t = 0, calling `Board.rotate` for the first half second.
    let batch = |from_ns: u64| {
        let mut events = PackedEventWriter::new(1, from_ns);
        if from_ns == 0 {
            events.push(0, 0, EventKind::Enter);
            events.push(1_000, 1, EventKind::Enter);
            events.push(500_000_000, 1, EventKind::Exit);
        } else {
            events.push(from_ns, 1, EventKind::Enter);
            events.push(from_ns + 400_000_000, 1, EventKind::Exit);
        }
        AgentMessage::Events(events.finish())
    };
    agent.send(batch(0));
    wait_for(&mut sessions, &|s| {
        s.by_id.values().any(|v| {
            v.definitions_seen == 3 && v.snapshot().is_some_and(|snap| snap.method(1).calls == 1)
        })
    });
    let live_id = *sessions.by_id.keys().next().expect("live session");

    // Record mid-session, as the button does.
    recorder.start(&ingest, live_id, &sessions.by_id[&live_id]);
    assert!(
        recorder
            .message
            .as_deref()
            .is_some_and(|m| m.starts_with("recording to")),
        "{:?}",
        recorder.message
    );
    // A recording started mid-session holds no history before its start: compare a window
    // (3 s) that lies wholly after it.
    agent.send(batch(3_000_000_000));
    agent.send(AgentMessage::Heartbeat {
        timestamp: 5_000_000_000,
    });
    wait_for(&mut sessions, &|s| {
        s.by_id[&live_id]
            .report
            .stats
            .recording
            .as_ref()
            .is_some_and(|r| r.frames >= 4)
            && s.by_id[&live_id].report.stats.last_timestamp_ns >= 5_000_000_000
    });
    recorder.stop(&ingest, live_id);
    let saved = recorder.message.clone().unwrap_or_default();
    assert!(saved.starts_with("saved "), "{saved}");
    wait_for(&mut sessions, &|s| {
        s.by_id[&live_id]
            .report
            .stats
            .recording
            .as_ref()
            .is_some_and(|r| r.state == RecordingState::Finished)
    });
    let path = sessions.by_id[&live_id]
        .report
        .stats
        .recording
        .as_ref()
        .map(|r| r.path.clone())
        .expect("recording path");
    assert!(path.starts_with(&dir), "{}", path.display());
    let live_snapshot = sessions.by_id[&live_id]
        .snapshot()
        .cloned()
        .expect("snapshot");
    drop(agent);

    // A broken file is a message, not a crash.
    let broken = dir.join("broken.hrec");
    std::fs::write(&broken, b"not a recording").expect("write");
    recorder.open(&ingest, &broken, 1.0);
    assert!(recorder.replays.is_empty());
    assert!(
        recorder
            .message
            .as_deref()
            .is_some_and(|m| m.contains("broken.hrec")),
        "{:?}",
        recorder.message
    );

    // Replay it as fast as possible: same methods, same statistics at the same program time.
    recorder.open(&ingest, &path, f64::INFINITY);
    let replay_id = *recorder.replays.keys().next().expect("replay opened");
    wait_for(&mut sessions, &|s| {
        s.by_id.get(&replay_id).is_some_and(|v| {
            v.report.stats.last_timestamp_ns >= 5_000_000_000 && v.definitions_seen == 3
        })
    });
    let replay = &sessions.by_id[&replay_id];
    assert_eq!(
        replay.report.stats.source,
        SessionSource::Replay { path: path.clone() }
    );
    let names: Vec<_> = replay
        .report
        .definitions()
        .map(|d| d.method.clone())
        .collect();
    assert_eq!(names, ["run", "rotate", "draw"]);
    let replayed = replay.snapshot().expect("replay snapshot");
    assert_eq!(replayed.now_ns, live_snapshot.now_ns);
    // `run` is still open on thread 1: the top of its stack for everything but `rotate`.
    assert_eq!(
        replayed.method(0).thread_count,
        live_snapshot.method(0).thread_count
    );
    assert!((replayed.method(0).elevation - live_snapshot.method(0).elevation).abs() < 1e-6);
    assert!((replayed.method(1).elevation - live_snapshot.method(1).elevation).abs() < 1e-6);
    assert!((live_snapshot.method(1).elevation - 0.4 / 3.0).abs() < 0.01);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The panel's package checkbox sends `ExcludePackages` as a `SessionCommand`; the sessions
/// plugin forwards it to the live session's aggregator over the real ingest server, and the
/// next reports give the excluded package's time to its caller.
#[test]
fn excluding_a_package_in_the_panel_gives_its_time_to_the_caller() {
    use highrise_ingest::AggregateCommand;
    use highrise_protocol::{AgentMessage, EventKind, PackedEventWriter};
    use highrise_viewer::viewer::sessions::{SessionCommand, SessionsPlugin};

    let ingest = live_ingest();
    let mut agent = TestAgent::connect(ingest.0.local_addr());
    let mut app = app();
    app.insert_resource(ingest).add_plugins(SessionsPlugin);

    agent.send(AgentMessage::DefineMethods(vec![
        def(0, "main.game", "Game", "run"),
        def(1, "main.util", "Helper", "work"),
    ]));
    // `run` calls `work`, which is on top of the stack 80 % of the time, for 3 s from `from_ns`.
    let three_seconds = |from_ns: u64| {
        let mut events = PackedEventWriter::new(1, from_ns);
        if from_ns == 0 {
            events.push(0, 0, EventKind::Enter);
        }
        for step in 0..10u64 {
            events.push(
                from_ns + step * 300_000_000 + 60_000_000,
                1,
                EventKind::Enter,
            );
            events.push(
                from_ns + step * 300_000_000 + 300_000_000,
                1,
                EventKind::Exit,
            );
        }
        AgentMessage::Events(events.finish())
    };
    agent.send(three_seconds(0));
    agent.send(AgentMessage::Heartbeat {
        timestamp: 3_000_000_000,
    });

    let stats_now = |app: &mut App, wanted: &dyn Fn(&Snapshot) -> bool| {
        let deadline = std::time::Instant::now() + Duration::from_secs(20);
        loop {
            app.update();
            let sessions = app.world().resource::<Sessions>();
            if let Some((&id, snapshot)) = sessions
                .by_id
                .iter()
                .find_map(|(id, view)| view.snapshot().map(|s| (id, s)))
                .filter(|(_, s)| wanted(s))
            {
                return (id, snapshot.method(0), snapshot.method(1));
            }
            assert!(std::time::Instant::now() < deadline, "timed out");
            std::thread::sleep(Duration::from_millis(10));
        }
    };
    let (session_id, run, work) = stats_now(&mut app, &|s| s.method(1).calls == 10);
    assert!((work.elevation - 0.8).abs() < 0.02, "{work:?}");
    assert!((run.elevation - 0.2).abs() < 0.02, "{run:?}");

    // What the checkbox does.
    app.world_mut().send_event(SessionCommand {
        session_id,
        command: AggregateCommand::ExcludePackages(vec!["main.util".into()]),
    });
    app.update();
    // The program goes on the same way; a whole window later, `work` is transparent.
    agent.send(three_seconds(3_000_000_000));
    agent.send(AgentMessage::Heartbeat {
        timestamp: 6_000_000_000,
    });
    let (_, run, work) = stats_now(&mut app, &|s| s.now_ns >= 6_000_000_000);
    assert!(
        (run.elevation - 1.0).abs() < 0.02,
        "run should get work's time: {run:?}"
    );
    // Within the aggregator's granularity (one bucket of the window) of zero.
    assert!(work.elevation < 0.01, "{work:?}");
}

/// The camera frames the whole scene once a city appears, and frames again when the compare
/// view changes what the scene shows (the non-interactive camera: framing only).
#[test]
fn the_camera_frames_the_city_and_reframes_for_the_compare_view() {
    use highrise_viewer::viewer::camera::{CameraPlugin, MainCamera};
    use highrise_viewer::viewer::compare::CompareMode;
    use smooth_bevy_cameras::LookTransform;

    let mut app = app();
    app.add_plugins(bevy::input::InputPlugin)
        .add_plugins(CameraPlugin { interactive: false });
    {
        let mut sessions = app.world_mut().resource_mut::<Sessions>();
        accept_report(
            &mut sessions,
            session_report(1, "a", tetris(), vec![stats(0.5, 1, 1); 3]),
        );
        let mut wide = tetris();
        wide.extend((3..60).map(|id| def(id, "main.extra", "Wide", &format!("m{id}"))));
        accept_report(
            &mut sessions,
            session_report(2, "b", wide, vec![stats(0.5, 1, 1); 60]),
        );
    }
    for _ in 0..5 {
        app.update();
    }
    let target = |app: &mut App| {
        let mut query = app
            .world_mut()
            .query_filtered::<&LookTransform, With<MainCamera>>();
        query.single(app.world()).expect("one camera").target
    };
    let centre_of = |app: &App, keys: &[u64]| {
        let cities = app.world().resource::<Cities>();
        let (mut min_x, mut max_x) = (f32::MAX, f32::MIN);
        for key in keys {
            let bounds = cities[CityKey::Session(*key)]
                .world_bounds()
                .expect("laid out");
            min_x = min_x.min(bounds.min_x);
            max_x = max_x.max(bounds.max_x);
        }
        (min_x + max_x) / 2.0
    };
    let both = centre_of(&app, &[1, 2]);
    assert!(
        (target(&mut app).x - both).abs() < 0.5,
        "framed both cities"
    );

    // The diff view shows one city: the camera moves to it.
    {
        let mut compare = app.world_mut().resource_mut::<Compare>();
        compare.mode = CompareMode::Diff;
        compare.a = Some(1);
        compare.b = Some(2);
    }
    for _ in 0..5 {
        app.update();
    }
    let diff = app.world().resource::<Cities>()[CityKey::Diff]
        .world_bounds()
        .expect("diff city");
    let framed = target(&mut app);
    assert!(
        (framed.x - (diff.min_x + diff.max_x) / 2.0).abs() < 0.5,
        "framed the diff city: {framed:?} vs {diff:?}"
    );
}

/// A headless app with the camera (framing only) and the scene labels.
fn app_with_camera_and_labels() -> App {
    use highrise_viewer::viewer::camera::CameraPlugin;
    use highrise_viewer::viewer::labels::LabelsPlugin;
    let mut app = app();
    app.add_plugins(bevy::input::InputPlugin)
        .add_plugins((CameraPlugin { interactive: false }, LabelsPlugin));
    app
}

/// Six packages of a few classes each, `main.gameN.ClassM.methodK`.
fn six_packages() -> Vec<MethodDef> {
    let mut defs = Vec::new();
    for package in 0..6 {
        for class in 0..3 {
            for method in 0..4 {
                let id = defs.len() as u32;
                defs.push(def(
                    id,
                    &format!("main.game{package}"),
                    &format!("Class{package}x{class}"),
                    &format!("method{method}"),
                ));
            }
        }
    }
    defs
}

/// Puts the camera at `eye` looking at `target` and lets the smoother arrive.
fn place_camera(app: &mut App, eye: Vec3, target: Vec3) {
    use highrise_viewer::viewer::camera::{CameraState, MainCamera};
    use smooth_bevy_cameras::LookTransform;
    app.world_mut().resource_mut::<CameraState>().user_moved = true;
    for _ in 0..60 {
        let mut query = app
            .world_mut()
            .query_filtered::<&mut LookTransform, With<MainCamera>>();
        let mut look = query.single_mut(app.world_mut()).expect("one camera");
        look.eye = eye;
        look.target = target;
        app.update();
    }
}

/// Package names lie on their districts and class names in front of their blocks when the
/// camera is close; from far away the small class names give way (level of detail); hovering a
/// building floats its name above it.
#[test]
fn labels_name_packages_and_classes_with_level_of_detail() {
    use highrise_viewer::viewer::labels::{LabelKind, SceneLabels};
    let mut app = app_with_camera_and_labels();
    let defs = six_packages();
    let count = defs.len();
    accept(&mut app, report(defs, vec![stats(0.2, 1, 1); count], 1));
    for _ in 0..5 {
        app.update();
    }
    let bounds = app.world().resource::<Cities>()[CityKey::Session(1)]
        .world_bounds()
        .expect("laid out");
    let centre = Vec3::new(
        (bounds.min_x + bounds.max_x) / 2.0,
        0.0,
        (bounds.min_z + bounds.max_z) / 2.0,
    );
    let extent = bounds.width_wu().max(bounds.depth_wu());

    // Close: every package and several classes are named, none covering another.
    place_camera(&mut app, centre + Vec3::new(0.0, 0.9, 0.8) * extent, centre);
    let near = app.world().resource::<SceneLabels>().shown.clone();
    let packages: Vec<&str> = near
        .iter()
        .filter(|l| l.kind == LabelKind::Package)
        .map(|l| l.text.as_str())
        .collect();
    // Labels never cover each other on screen, so a package name may give way to a larger
    // package's; nearly all are named.
    let named = (0..6)
        .filter(|package| {
            let name = format!("main.game{package}");
            packages
                .iter()
                .any(|p| *p == name || name.ends_with(&format!(".{p}")))
        })
        .count();
    assert!(named >= 5, "packages are named: {packages:?}");
    let classes = near.iter().filter(|l| l.kind == LabelKind::Class).count();
    assert!(classes >= 6, "classes are named up close: {near:#?}");
    assert!(near.iter().all(|l| l.text_px >= 11.0));
    // Each package label lies inside its district, on the slab.
    let cities = app.world().resource::<Cities>();
    let layout = cities[CityKey::Session(1)].layout.as_ref().expect("plan");
    for label in near.iter().filter(|l| l.kind == LabelKind::Package) {
        let package = layout
            .packages()
            .iter()
            .find(|p| p.path == label.text || p.path.ends_with(&format!(".{}", label.text)))
            .expect("a package of that name");
        let rect = layout.districts()[package.districts[0] as usize].rect;
        assert!(
            label.centre.x - label.size_wu.x / 2.0 >= rect.min_x - 1e-3
                && label.centre.x + label.size_wu.x / 2.0 <= rect.max_x + 1e-3
                && label.centre.z <= rect.max_z
                && label.centre.z >= rect.min_z,
            "{label:?} lies on {rect:?}"
        );
    }

    // Farther away (60 wu): the class names are too small to read and give way; the larger
    // package names still read (about 11 px at 1280 x 800).
    place_camera(&mut app, centre + Vec3::new(0.0, 0.78, 0.62) * 60.0, centre);
    let far = app.world().resource::<SceneLabels>().shown.clone();
    assert!(
        far.iter().all(|l| l.kind != LabelKind::Class),
        "no class names from far away: {far:#?}"
    );
    assert!(
        far.iter().any(|l| l.kind == LabelKind::Package),
        "package names still read from there: {far:#?}"
    );

    // Hover: the building's name floats above it.
    let building = {
        let cities = app.world().resource::<Cities>();
        let layout = cities[CityKey::Session(1)].layout.as_ref().expect("plan");
        layout.building_of(5).expect("method 5 placed")
    };
    *app.world_mut().resource_mut::<Hovered>() = Hovered {
        city: Some(CityKey::Session(1)),
        target: Some(HitTarget::Building {
            building,
            method_id: 5,
        }),
        point: Vec3::ZERO,
    };
    app.update();
    let hovered = app
        .world()
        .resource::<SceneLabels>()
        .hovered
        .clone()
        .expect("hovered label");
    assert_eq!(hovered.text, "Class0x1.method1");
    assert!(hovered.centre.y > 0.2, "above the building: {hovered:?}");
}

/// The camera frames the whole city including its tallest tower: every corner of the tower
/// lands inside the view.
#[test]
fn framing_keeps_the_tallest_tower_in_view() {
    use bevy::render::camera::CameraProjection;
    use highrise_viewer::viewer::camera::MainCamera;
    let mut app = app_with_camera_and_labels();
    let defs = six_packages();
    let count = defs.len();
    let mut methods = vec![stats(0.05, 1, 1); count];
    methods[count - 1] = stats(1.0, 1, 1);
    accept(&mut app, report(defs, methods, 1));
    for _ in 0..80 {
        app.update();
    }
    let cities = app.world().resource::<Cities>();
    let city = &cities[CityKey::Session(1)];
    let layout = city.layout.as_ref().expect("plan");
    let tower = layout.building_of(count as u32 - 1).expect("placed") as usize;
    let height_wu = city.target_heights_wu[tower];
    assert!(height_wu >= city.max_height_wu() * 0.99, "a 100 % tower");
    let footprint = layout.buildings()[tower].footprint;
    let base = layout.buildings()[tower].base_height_wu;
    let origin = city.origin;
    let mut query = app
        .world_mut()
        .query_filtered::<(&Transform, &Projection), With<MainCamera>>();
    let (transform, projection) = query.single(app.world()).expect("camera");
    let clip_from_world = projection.get_clip_from_view() * transform.compute_matrix().inverse();
    for x in [footprint.min_x, footprint.max_x] {
        for z in [footprint.min_z, footprint.max_z] {
            for y in [base, base + height_wu] {
                let clip = clip_from_world * (origin + Vec3::new(x, y, z)).extend(1.0);
                let ndc = clip.truncate() / clip.w;
                assert!(
                    clip.w > 0.0 && ndc.x.abs() <= 1.0 && ndc.y.abs() <= 1.0,
                    "tower corner ({x}, {y}, {z}) is in view: ndc {ndc:?}"
                );
            }
        }
    }
}

/// Classes arriving one after another (as a JVM loads them) keep the city compact; when the
/// plan moves buildings they glide, and once settled every building stands exactly on its
/// plot.
#[test]
fn lazily_arriving_classes_stay_compact_and_glide_into_place() {
    let mut app = app();
    let defs = six_packages();
    let mut sent = Vec::new();
    let mut glided = false;
    for chunk in defs.chunks(4) {
        sent.extend(chunk.iter().cloned());
        let count = sent.len();
        accept(
            &mut app,
            report(sent.clone(), vec![stats(0.1, 1, 1); count], count as u64),
        );
        app.update();
        let cities = app.world().resource::<Cities>();
        let city = &cities[CityKey::Session(1)];
        glided |= city.glide.is_some();
        let layout = city.layout.as_ref().expect("plan");
        let ratio = layout.area_wu2() / layout.tidy().area_wu2();
        assert!(
            ratio <= 1.3,
            "footprint {ratio:.2}x a fresh layout after {count} methods"
        );
    }
    // Let every glide finish (100 ms a frame).
    for _ in 0..10 {
        app.update();
    }
    let drawn = buildings(&mut app);
    let cities = app.world().resource::<Cities>();
    let city = &cities[CityKey::Session(1)];
    assert!(city.glide.is_none(), "settled");
    let layout = city.layout.as_ref().expect("plan");
    assert_eq!(drawn.len(), layout.buildings().len());
    for (instance, building) in drawn.iter().zip(layout.buildings()) {
        let centre = building.footprint.center();
        assert_eq!(
            (instance.centre_x, instance.centre_z),
            (centre.x + city.origin.x, centre.z + city.origin.z),
            "building {} on its plot",
            building.method_id
        );
    }
    eprintln!("a glide happened: {glided}");
}

/// When the plan moves buildings while the user looks at one, the camera moves with it.
#[test]
fn a_re_layout_keeps_what_the_user_looks_at_in_view() {
    use highrise_viewer::viewer::camera::{CameraState, MainCamera};
    use smooth_bevy_cameras::LookTransform;
    let mut app = app_with_camera_and_labels();
    let mut sent = six_packages();
    let count = sent.len();
    accept(
        &mut app,
        report(sent.clone(), vec![stats(0.1, 1, 1); count], 1),
    );
    for _ in 0..5 {
        app.update();
    }
    let watched = 61u32; // a method of main.game5, packed after main.game0
    let plot = |app: &App| {
        let cities = app.world().resource::<Cities>();
        let city = &cities[CityKey::Session(1)];
        let layout = city.layout.as_ref().expect("plan");
        let building = layout.building_of(watched).expect("placed") as usize;
        layout.buildings()[building].footprint.center() + city.origin
    };
    let before = plot(&app);
    let offset = Vec3::new(0.0, 12.0, 10.0);
    place_camera(&mut app, before + offset, before);
    // Classes of main.game0 arrive one at a time until the plan moves the watched building.
    let mut moved = false;
    for round in 0..60u32 {
        let id = sent.len() as u32;
        sent.extend((0..6).map(|m| {
            def(
                id + m,
                "main.game0",
                &format!("Extra{round}"),
                &format!("m{m}"),
            )
        }));
        let count = sent.len();
        accept(
            &mut app,
            report(
                sent.clone(),
                vec![stats(0.1, 1, 1); count],
                2 + u64::from(round),
            ),
        );
        app.update();
        if plot(&app).distance(before) > 3.0 {
            moved = true;
            break;
        }
    }
    assert!(moved, "some arrival re-laid the city out");
    assert!(app.world().resource::<CameraState>().user_moved);
    for _ in 0..20 {
        app.update();
    }
    let after = plot(&app);
    let mut query = app
        .world_mut()
        .query_filtered::<&LookTransform, With<MainCamera>>();
    let look = query.single(app.world()).expect("camera");
    assert!(
        look.target.distance(after) < 1.5,
        "the camera followed the building from {before} to {after}: target {}",
        look.target
    );
}
