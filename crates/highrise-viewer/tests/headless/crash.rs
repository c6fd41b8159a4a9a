//! Sessions highrise failed on: a crashed final report (from ingest) or a panic in the viewer's
//! own per-session systems marks that session crashed with its message and greys its city,
//! which keeps what it showed; the other sessions go on.

use bevy::prelude::*;
use highrise_ingest::{SessionEnd, SessionError, SessionStatus};
use highrise_viewer::viewer::city::{
    grey, Cities, CityBuildings, CityKey, Palette, ViewerPanicHook,
};
use highrise_viewer::viewer::instancing::{BuildingInstance, BuildingInstances};
use highrise_viewer::viewer::sessions::Sessions;
use highrise_viewer::viewer::ui::{crash_line, CRASH_LINE_CHARS};

use crate::support::*;

/// What the GPU is handed for a city.
fn drawn(app: &mut App, city: CityKey) -> Vec<BuildingInstance> {
    let mut query = app
        .world_mut()
        .query::<(&CityBuildings, &BuildingInstances)>();
    query
        .iter(app.world())
        .find(|(of, _)| of.city == city)
        .map(|(_, draw)| draw.current().to_vec())
        .unwrap_or_default()
}

/// Each drawn building wears its palette colour, in grey when `greyed`.
fn assert_colours(app: &mut App, city: CityKey, greyed: bool) {
    let instances = drawn(app, city);
    assert!(!instances.is_empty(), "{city:?} drawn");
    let world = app.world();
    let (palette, cities) = (world.resource::<Palette>(), world.resource::<Cities>());
    let colours = &cities[city].colours;
    for (instance, &colour) in instances.iter().zip(colours) {
        let rgba = palette.rgba(colour);
        let wanted = if greyed { grey(rgba) } else { rgba };
        assert_eq!(instance.rgba, wanted, "{city:?} {colour:?}");
    }
}

fn two_sessions() -> App {
    let mut app = app();
    let methods = vec![stats(1.0, 3, 1), stats(0.25, 1, 40)];
    accept(&mut app, session_report(1, "v1", tetris(), methods.clone()));
    accept(&mut app, session_report(2, "v2", tetris(), methods));
    for _ in 0..20 {
        app.update();
    }
    app
}

/// A final report saying highrise failed on the session, without a snapshot (the snapshot
/// itself failed): the session is marked crashed with the message, keeps its last snapshot and
/// city (heights as they were), in grey; the other session is untouched.
#[test]
fn a_crashed_final_report_marks_the_session_and_greys_its_city() {
    let mut app = two_sessions();
    let heights_before = app.world().resource::<Cities>()[CityKey::Session(1)]
        .heights_wu
        .clone();
    let message = "index out of bounds at crates/x/src/y.rs:1:2";
    let mut last = session_report(1, "v1", tetris(), Vec::new());
    last.status = SessionStatus::Ended(SessionEnd::Failed(SessionError::Crashed(message.into())));
    last.sink = None;
    accept(&mut app, last);
    for _ in 0..5 {
        app.update();
    }

    let sessions = app.world().resource::<Sessions>();
    let crash = sessions.by_id[&1].crash.clone().expect("marked crashed");
    assert_eq!(crash.message, message);
    assert!(!crash.in_viewer);
    let kept = sessions.by_id[&1]
        .snapshot()
        .expect("the last snapshot kept");
    assert_eq!(kept.now_ns, 1);
    assert!(sessions.by_id[&2].crash.is_none());
    let cities = app.world().resource::<Cities>();
    assert!(cities[CityKey::Session(1)].greyed);
    assert!(cities[CityKey::Session(1)].failed.is_none());
    assert_eq!(cities[CityKey::Session(1)].heights_wu, heights_before);
    assert!(!cities[CityKey::Session(2)].greyed);
    assert_colours(&mut app, CityKey::Session(1), true);
    assert_colours(&mut app, CityKey::Session(2), false);

    let line = crash_line(&crash.message);
    assert!(
        line.contains("report this") && line.contains(message),
        "{line}"
    );
    let long = crash_line(&"x".repeat(CRASH_LINE_CHARS * 2));
    assert!(
        long.ends_with('…') && long.len() < CRASH_LINE_CHARS * 2,
        "{long}"
    );
}

/// A panic in the viewer's own per-session work (the test hook: placing a method named
/// `explode`) fails only that session: marked crashed "in the viewer", its city frozen as it
/// stood and greyed; the other session's city goes on taking new methods.
#[test]
fn a_panic_in_the_viewer_fails_only_its_session() {
    let mut app = two_sessions();
    app.insert_resource(ViewerPanicHook(Some("explode".into())));
    let mut exploding = tetris();
    exploding.push(def(3, "main.game", "Game", "explode"));
    accept(&mut app, session_report(2, "v2", exploding, Vec::new()));
    let mut more = tetris();
    more.push(def(3, "main.game", "Board", "clear"));
    accept(&mut app, session_report(1, "v1", more, Vec::new()));
    for _ in 0..10 {
        app.update();
    }

    let sessions = app.world().resource::<Sessions>();
    let crash = sessions.by_id[&2].crash.clone().expect("marked crashed");
    assert!(crash.in_viewer);
    assert!(
        crash.message.starts_with("in the viewer: injected panic")
            && crash.message.contains("explode"),
        "{}",
        crash.message
    );
    assert!(sessions.by_id[&2].pending_methods.is_empty());
    assert!(sessions.by_id[&1].crash.is_none());
    let cities = app.world().resource::<Cities>();
    let (failed, going_on) = (&cities[CityKey::Session(2)], &cities[CityKey::Session(1)]);
    assert!(failed.failed.is_some() && failed.greyed);
    assert_eq!(failed.layout.as_ref().map(|l| l.buildings().len()), Some(3));
    assert!(going_on.failed.is_none() && !going_on.greyed);
    assert_eq!(
        going_on.layout.as_ref().map(|l| l.buildings().len()),
        Some(4)
    );
    assert_colours(&mut app, CityKey::Session(2), true);
    assert_colours(&mut app, CityKey::Session(1), false);
    assert_eq!(drawn(&mut app, CityKey::Session(1)).len(), 4);

    // Later reports of the failed session update its counts only.
    let mut later = session_report(2, "v2", tetris(), Vec::new());
    later.stats.events = 99;
    accept(&mut app, later);
    app.update();
    let view = &app.world().resource::<Sessions>().by_id[&2];
    assert_eq!(view.report.stats.events, 99);
    assert!(view.pending_methods.is_empty());
}
