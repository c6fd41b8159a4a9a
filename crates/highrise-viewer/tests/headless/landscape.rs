//! The landscape: OpenTelemetry sessions grouped by host on labelled plates, and calls between
//! services (the ingest server's links board) drawn as arcs and listed in the tooltip.

use bevy::prelude::*;
use highrise_links::{MethodRef, SessionLink, SessionLinks};
use highrise_viewer::viewer::arcs::place_links;
use highrise_viewer::viewer::city::{Cities, CityKey};
use highrise_viewer::viewer::hover::pick;
use highrise_viewer::viewer::landscape::{HostPlate, Landscape, LandscapePlugin, LinksFeed};
use highrise_viewer::viewer::sessions::{accept_report, Report, Sessions};
use highrise_viewer::viewer::ui::link_lines;

use crate::support::*;

/// A report of an OTLP session: `service` on `host`, as the bridge's Hello says it.
fn otlp_report(
    session_id: u64,
    service: &str,
    host: &str,
    methods: &[(&str, &str, &str)],
) -> Report {
    let definitions = methods
        .iter()
        .enumerate()
        .map(|(id, (package, class, method))| def(id as u32, package, class, method))
        .collect();
    let busy = methods.iter().map(|_| stats(0.4, 1, 10)).collect();
    let mut report = session_report(session_id, "", definitions, busy);
    let info = report.info.as_mut().expect("hello");
    info.program = service.into();
    info.agent =
        format!("otlp; host={host}; instance=i{session_id}; sdk=opentelemetry python 1.45");
    info.pid = 0;
    report
}

#[test]
fn services_stand_on_their_hosts_plates_and_calls_between_them_are_arcs() {
    let mut app = app();
    let board = SessionLinks::default();
    app.add_plugins(LandscapePlugin)
        .insert_resource(LinksFeed(board.clone()));
    let shop = [
        ("shop.api", "Handler", "handle"),
        ("shop.api", "Inventory", "reserve"),
        ("shop.db", "Repository", "query"),
    ];
    accept(&mut app, otlp_report(1, "checkout", "web-1", &shop));
    accept(&mut app, otlp_report(2, "cart", "web-1", &shop));
    accept(
        &mut app,
        otlp_report(
            3,
            "inventory",
            "db-host",
            &[(
                "opentelemetry.instrumentation.flask",
                "server",
                "GET /reserve",
            )],
        ),
    );
    board.publish(
        3.0,
        vec![SessionLink {
            caller: MethodRef {
                session_id: 1,
                method_id: 1,
            },
            callee: MethodRef {
                session_id: 3,
                method_id: 0,
            },
            calls_total: 30,
            calls_window: 12,
            calls_by_second: Default::default(),
        }],
    );
    for _ in 0..30 {
        app.update();
    }

    let world = app.world_mut();
    let plates = world.query::<&HostPlate>().iter(world).count();
    let world = app.world();
    let landscape = world.resource::<Landscape>();
    let cities = world.resource::<Cities>();
    let hosts: Vec<(&str, usize)> = landscape
        .hosts
        .iter()
        .map(|area| (area.host.as_str(), area.services))
        .collect();
    assert_eq!(hosts, [("db-host", 1), ("web-1", 2)]);
    assert_eq!(plates, 2, "one plate per host");
    for (session_id, host) in [(1, "web-1"), (2, "web-1"), (3, "db-host")] {
        let bounds = cities[CityKey::Session(session_id)]
            .world_bounds()
            .expect("laid out");
        let plate = &landscape
            .hosts
            .iter()
            .find(|a| a.host == host)
            .expect("host")
            .rect;
        assert!(
            bounds.min_x >= plate.min_x
                && bounds.max_x <= plate.max_x
                && bounds.min_z >= plate.min_z
                && bounds.max_z <= plate.max_z,
            "session {session_id} {bounds:?} off {host}'s plate {plate:?}"
        );
    }

    // The call from checkout's reserve to the inventory's request: one arc, roof to roof.
    let arcs = place_links(cities, &landscape.links);
    assert_eq!(arcs.len(), 1);
    let roof = |session_id: u64, method_id: u32| {
        let city = &cities[CityKey::Session(session_id)];
        let layout = city.layout.as_ref().expect("laid out");
        let building = layout.building_of(method_id).expect("placed");
        let centre = layout.buildings()[building as usize].footprint.center() + city.origin;
        Vec2::new(centre.x, centre.z)
    };
    assert!(Vec2::new(arcs[0].from.x, arcs[0].from.z).distance(roof(1, 1)) < 1e-3);
    assert!(Vec2::new(arcs[0].to.x, arcs[0].to.z).distance(roof(3, 0)) < 1e-3);
    assert_eq!(arcs[0].width, 2, "the busiest link is drawn thickest");

    // Hovering either end names the other service in the tooltip.
    let hover = |session_id: u64, method_id: u32| {
        let at = roof(session_id, method_id);
        let hovered = pick(cities, Vec3::new(at.x, 500.0, at.y), -Vec3::Y, None);
        assert_eq!(
            hovered.method(),
            Some((CityKey::Session(session_id), method_id))
        );
        link_lines(landscape, world.resource::<Sessions>(), cities, &hovered)
    };
    assert_eq!(
        hover(1, 1),
        ["calls inventory · opentelemetry.instrumentation.flask.server.GET /reserve: 4.0/s (30 calls)"]
    );
    assert_eq!(
        hover(3, 0),
        ["called from checkout · shop.api.Inventory.reserve: 4.0/s (30 calls)"]
    );
    assert!(hover(2, 1).is_empty(), "cart made no call to the inventory");
}

/// Replays of recordings made with `highrise record --otlp`: no bridge, so the calls between
/// services come from the `links.json` beside the recordings, counted at the callee replay's
/// own moment.
#[test]
fn replayed_services_draw_the_calls_recorded_beside_them() {
    use highrise_links::{LinkEnd, LinksFile, NamedLink};
    use highrise_viewer::viewer::replay_links::{replayed_links, ReplayLinks};
    use std::sync::Arc;

    let dir = tempfile::tempdir().expect("a directory");
    let zero_s = 1_800_000_000u64;
    let end = |service: &str, recording: &str, method: &str| LinkEnd {
        service: service.into(),
        agent: format!("otlp; host={service}-host; instance=; sdk="),
        recording: Some(recording.into()),
        method: method.into(),
    };
    LinksFile {
        links: vec![NamedLink {
            caller: end(
                "checkout",
                "checkout-1.0-s2.hrec",
                "shop.api.Inventory.reserve",
            ),
            callee: end(
                "inventory",
                "inventory-s1.hrec",
                "opentelemetry.instrumentation.flask.server.GET /reserve",
            ),
            calls: 9,
            // Two calls in the session's 10th second, three in its 11th, four in its 13th.
            calls_by_second: vec![(zero_s + 10, 2), (zero_s + 11, 3), (zero_s + 13, 4)],
        }],
    }
    .write(dir.path())
    .expect("written");

    let replayed = |session_id: u64, service: &str, file: &str, methods, now_s: u64| {
        let mut report = otlp_report(session_id, service, &format!("{service}-host"), methods);
        report.stats.source = highrise_ingest::SessionSource::Replay {
            path: dir.path().join(file),
        };
        report.info.as_mut().expect("hello").clock_zero_unix_ns = zero_s * 1_000_000_000;
        let snapshot = report.sink.as_mut().expect("a snapshot");
        Arc::make_mut(snapshot).now_ns = now_s * 1_000_000_000;
        report
    };
    let shop = [
        ("shop.api", "Handler", "handle"),
        ("shop.api", "Inventory", "reserve"),
    ];
    let inventory = [(
        "opentelemetry.instrumentation.flask",
        "server",
        "GET /reserve",
    )];
    let mut app = app();
    app.add_plugins(LandscapePlugin);
    accept(
        &mut app,
        replayed(2, "checkout", "checkout-1.0-s2.hrec", &shop, 12),
    );
    // The callee replay is in its 12th second: seconds 10 and 11 are whole, 2 + 3 calls so
    // far, all in the window.
    accept(
        &mut app,
        replayed(1, "inventory", "inventory-s1.hrec", &inventory, 12),
    );
    for _ in 0..10 {
        app.update();
    }
    let world = app.world();
    let links = &world.resource::<Landscape>().links;
    assert_eq!(links.links.len(), 1, "{links:?}");
    let link = &links.links[0];
    assert_eq!(
        (link.caller, link.callee),
        (
            MethodRef {
                session_id: 2,
                method_id: 1
            },
            MethodRef {
                session_id: 1,
                method_id: 0
            }
        )
    );
    assert_eq!((link.calls_total, link.calls_window), (5, 5));
    assert_eq!(links.window_s, 3.0);
    let arcs = place_links(world.resource::<Cities>(), links);
    assert_eq!(arcs.len(), 1, "drawn");
    assert!(!arcs[0].idle, "calls in the window: drawn bright");

    // Later in the callee's replay the window moves on; a recording not replayed links nothing.
    let sessions = world.resource::<Sessions>();
    let replay = world.resource::<ReplayLinks>();
    let mut later = Sessions::default();
    for (id, view) in &sessions.by_id {
        let mut report = view.report.clone();
        if *id == 1 {
            Arc::make_mut(report.sink.as_mut().expect("a snapshot")).now_ns = 15 * 1_000_000_000;
        }
        accept_report(&mut later, report);
    }
    let at_15 = replayed_links(replay.files(), &later);
    assert_eq!((at_15[0].calls_total, at_15[0].calls_window), (9, 4));
    let view = later.by_id.get_mut(&1).expect("the inventory");
    Arc::make_mut(view.report.sink.as_mut().expect("a snapshot")).now_ns = 20 * 1_000_000_000;
    let at_20 = replayed_links(replay.files(), &later);
    assert_eq!(
        (at_20[0].calls_total, at_20[0].calls_window),
        (9, 0),
        "quiet: drawn faint"
    );
    later.by_id.remove(&2);
    assert!(replayed_links(replay.files(), &later).is_empty());
}
