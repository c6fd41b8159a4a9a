//! The landscape: OpenTelemetry sessions grouped by host on labelled plates, and calls between
//! services (the ingest server's links board) drawn as arcs and listed in the tooltip.

use bevy::prelude::*;
use highrise_ingest::{MethodRef, SessionLink, SessionLinks};
use highrise_viewer::viewer::arcs::place_links;
use highrise_viewer::viewer::city::{Cities, CityKey};
use highrise_viewer::viewer::hover::pick;
use highrise_viewer::viewer::landscape::{HostPlate, Landscape, LandscapePlugin, LinksFeed};
use highrise_viewer::viewer::sessions::{Report, Sessions};
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
        let hovered = pick(cities, Vec3::new(at.x, 500.0, at.y), -Vec3::Y);
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
