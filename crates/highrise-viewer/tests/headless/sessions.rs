//! Session intake and commands: the panel's package exclusion reaches the live aggregator.

use std::time::Duration;

use bevy::prelude::*;
use highrise_aggregate::Snapshot;
use highrise_viewer::viewer::sessions::Sessions;

use crate::support::*;

/// The panel's package checkbox sends `ExcludePackages` as a `SessionCommand`; the sessions
/// plugin forwards it to the live session's aggregator over the real ingest server, and the
/// next reports give the excluded package's time to its caller.
#[test]
fn excluding_a_package_in_the_panel_gives_its_time_to_the_caller() {
    use highrise_aggregate_sink::AggregateCommand;
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
