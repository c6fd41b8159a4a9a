//! The aggregator wired behind the listener: what a connected program's threads do shows up
//! as elevation in the session reports.

mod support;

use std::time::Duration;

use highrise_aggregate_sink::{AggregateCommand, AggregateSink};
use highrise_ingest::{IngestServer, SessionEnd, SessionStatus};
use highrise_protocol::{AgentMessage, EventKind, ViewerMessage};
use highrise_testkit::messages::{batch, method};
use highrise_testkit::server::{start, test_config, wait_for_end, Client};
use support::hello;

const SECOND_NS: u64 = 1_000_000_000;

fn start_aggregating() -> IngestServer<AggregateSink> {
    start(test_config(), AggregateSink::factory)
}

/// A client that has said Hello, and its session id.
fn connect(server: &IngestServer<AggregateSink>) -> (Client, u64) {
    let mut client = Client::connect(server);
    let ViewerMessage::Welcome { session_id, .. } = client.handshake(hello("leaky")) else {
        panic!("not welcomed");
    };
    (client, session_id)
}

#[test]
fn leaked_threads_stuck_in_run_read_100_percent_with_their_count() {
    let server = start_aggregating();
    let (mut client, _) = connect(&server);
    client.send(&AgentMessage::DefineMethods(vec![
        method(0, "main.game", "Game", "run"),
        method(1, "main.game", "Game", "tick"),
    ]));
    // A busy thread ticking, and 5 threads that entered run() and never came back.
    for leaked in 0..5u64 {
        client.send(&batch(
            100 + leaked,
            &[(SECOND_NS / 10 * leaked, 0, EventKind::Enter)],
        ));
    }
    for second in 0..10u64 {
        let t = second * SECOND_NS;
        client.send(&batch(
            1,
            &[
                (t, 1, EventKind::Enter),
                (t + SECOND_NS / 4, 1, EventKind::Exit),
            ],
        ));
        client.send(&AgentMessage::Heartbeat {
            timestamp: t + SECOND_NS - 1,
        });
    }
    client.send(&AgentMessage::Goodbye {
        timestamp: 10 * SECOND_NS,
    });
    client.close();

    let report = wait_for_end(&server);
    assert_eq!(report.status, SessionStatus::Ended(SessionEnd::Goodbye));
    let snapshot = report.sink.as_ref().expect("snapshot");
    assert_eq!(snapshot.now_ns, 10 * SECOND_NS);
    let run = snapshot.method(0);
    assert!((run.elevation - 1.0).abs() < 1e-3, "{run:?}");
    assert_eq!(run.thread_count, 5);
    let tick = snapshot.method(1);
    assert!((tick.elevation - 0.25).abs() < 0.01, "{tick:?}");
    assert_eq!(tick.thread_count, 1);
    assert_eq!(tick.calls, 3);
    assert_eq!(snapshot.top_by_elevation(1)[0].0, 0);
}

#[test]
fn window_and_exclusion_commands_change_the_live_statistics() {
    let server = start_aggregating();
    let (mut client, session_id) = connect(&server);
    client.send(&AgentMessage::DefineMethods(vec![
        method(0, "app", "Server", "handle"),
        method(1, "app.json", "Parser", "parse"),
    ]));
    assert!(server.send_command(
        session_id,
        AggregateCommand::SetWindow {
            window_ns: 10 * SECOND_NS
        }
    ));
    assert!(server.send_command(
        session_id,
        AggregateCommand::ExcludePackages(vec!["app.json".into()])
    ));
    // Let the worker take the commands before the events arrive.
    std::thread::sleep(Duration::from_millis(100));
    // handle: 1 s of its own, then parse for 3 s inside it.
    client.send(&batch(
        1,
        &[
            (0, 0, EventKind::Enter),
            (SECOND_NS, 1, EventKind::Enter),
            (4 * SECOND_NS, 1, EventKind::Exit),
            (4 * SECOND_NS, 0, EventKind::Exit),
        ],
    ));
    client.send(&AgentMessage::Goodbye {
        timestamp: 10 * SECOND_NS,
    });
    client.close();
    let report = wait_for_end(&server);
    let snapshot = report.sink.as_ref().expect("snapshot");
    assert_eq!(snapshot.window_ns, 10 * SECOND_NS);
    // parse is excluded: its 3 s go to handle, which then ran 4 s of the 10 s window.
    assert!(
        (snapshot.method(0).elevation - 0.4).abs() < 0.01,
        "{:?}",
        snapshot.method(0)
    );
    assert_eq!(snapshot.method(1).elevation, 0.0);
}

#[test]
fn the_focused_method_comes_with_its_threads() {
    let server = start_aggregating();
    let (mut client, session_id) = connect(&server);
    client.send(&AgentMessage::DefineMethods(vec![method(
        0, "app", "Worker", "work",
    )]));
    assert!(server.send_command(session_id, AggregateCommand::Focus(Some(0))));
    std::thread::sleep(Duration::from_millis(100));
    for (thread_id, name) in [(1, "pool-1-thread-1"), (2, "pool-1-thread-2")] {
        client.send(&AgentMessage::ThreadStart {
            thread_id,
            name: name.into(),
            timestamp: 0,
        });
    }
    // work: 2 s on thread 1, 1 s on thread 2, within a 3 s window.
    client.send(&batch(
        1,
        &[
            (0, 0, EventKind::Enter),
            (2 * SECOND_NS, 0, EventKind::Exit),
        ],
    ));
    client.send(&batch(
        2,
        &[(0, 0, EventKind::Enter), (SECOND_NS, 0, EventKind::Exit)],
    ));
    client.send(&AgentMessage::Goodbye {
        timestamp: 3 * SECOND_NS,
    });
    client.close();
    let report = wait_for_end(&server);
    let focus = report.sink.as_ref().and_then(|s| s.focus.clone());
    // Names come from the session's thread list, as the viewer reads them.
    let name_of = |thread_id: u64| {
        report
            .threads
            .iter()
            .find(|thread| thread.thread_id == thread_id)
            .map(|thread| thread.name.clone())
    };
    let threads: Vec<_> = focus
        .expect("focus")
        .threads
        .into_iter()
        .map(|t| {
            let name = name_of(t.thread_id).expect("a listed thread");
            (name, (t.elevation * 100.0).round() as u32, t.calls)
        })
        .collect();
    assert_eq!(
        threads,
        [
            ("pool-1-thread-1".to_string(), 67, 1),
            ("pool-1-thread-2".to_string(), 33, 1)
        ]
    );
}
