//! A small Rust test client speaks the whole protocol to a real listener over a real socket,
//! and the ingest side must report exactly what was sent.

mod support;

use std::collections::HashMap;

use highrise_ingest::{SessionEnd, SessionStatus};
use highrise_protocol::{AgentMessage, Event, EventKind, ViewerMessage, PROTOCOL_VERSION};
use highrise_testkit::messages::{batch, method};
use highrise_testkit::server::{wait_for_ended, Client};
use support::*;

use EventKind::{Enter, Exit};

#[test]
fn a_full_session_is_reported_exactly() {
    let server = start_server();
    let mut client = Client::connect(&server);
    let mut hello = hello("tetris");
    hello.clock_unit_ns = 1000; // microsecond ticks: every timestamp is scaled to ns
    let answer = client.handshake(hello.clone());
    assert!(
        matches!(answer, ViewerMessage::Welcome { protocol_version, .. } if protocol_version == PROTOCOL_VERSION),
        "{answer:?}"
    );

    let first_defs = vec![
        method(0, "main", "Game", "run"),
        method(1, "main.game", "Board", "rotate"),
    ];
    let second_defs = vec![method(2, "main.game", "Board", "drop"), {
        let mut m = method(300, "", "Main", "main");
        m.signature = Some("([Ljava/lang/String;)V".into());
        m.file = Some("Main.java".into());
        m.line = Some(7);
        m
    }];
    client.send(&AgentMessage::DefineMethods(first_defs.clone()));
    for (thread_id, name) in [(1, "main"), (2, "worker-1"), (3, "worker-2")] {
        client.send(&AgentMessage::ThreadStart {
            thread_id,
            name: name.into(),
            timestamp: 10,
        });
    }
    client.send(&AgentMessage::DefineMethods(second_defs.clone()));

    // Interleaved batches from three threads.
    let mut sent: HashMap<u64, Vec<(u64, u32, EventKind)>> = HashMap::new();
    for round in 0..20u64 {
        for thread_id in 1..=3u64 {
            let t = 100 + round * 1000 + thread_id;
            let events = vec![
                (t, 0, Enter),
                (t + 10, 1, Enter),
                (t + 20, 300, Enter),
                (t + 25, 300, Exit),
                (t + 400, 1, Exit),
                (t + 401, 2, Enter),
                (t + 900, 2, Exit),
                (t + 999, 0, Exit),
            ];
            client.send(&batch(thread_id, &events));
            sent.entry(thread_id).or_default().extend(events);
        }
        if round % 5 == 0 {
            client.send(&AgentMessage::Heartbeat {
                timestamp: 100 + round * 1000 + 999,
            });
        }
    }
    client.send(&AgentMessage::Dropped {
        events_dropped: 17,
        batches_dropped: 2,
    });
    client.send(&AgentMessage::Resync {
        thread_id: 2,
        timestamp: 30_000,
        stack: vec![0, 1],
    });
    client.send(&AgentMessage::ThreadEnd {
        thread_id: 3,
        timestamp: 40_000,
    });
    client.send(&AgentMessage::Goodbye { timestamp: 50_000 });
    let bytes_sent = client.bytes_sent;
    client.close();

    let reports = wait_for_ended(&server, 1);
    let report = &reports[0];
    assert_eq!(report.status, SessionStatus::Ended(SessionEnd::Goodbye));
    assert!(report.errors.is_empty(), "{:?}", report.errors);
    let info = report.info.as_ref().expect("hello kept");
    assert_eq!(info.program, "tetris");
    assert_eq!(info.version_label, "test-1");
    assert_eq!(info.pid, 1234);
    assert_eq!(info.clock_unit_ns, 1000);

    let all_defs: Vec<_> = first_defs.iter().chain(&second_defs).cloned().collect();
    assert_eq!(report.definitions().cloned().collect::<Vec<_>>(), all_defs);

    let stats = &report.stats;
    assert_eq!(stats.bytes, bytes_sent);
    assert_eq!(stats.frames, 1 + 2 + 3 + 60 + 4 + 1 + 1 + 1 + 1);
    assert_eq!(stats.events, 480);
    assert_eq!(stats.batches, 60);
    assert_eq!(stats.definitions, 4);
    assert_eq!(stats.heartbeats, 4);
    assert_eq!(stats.resyncs, 1);
    assert_eq!(stats.agent_events_dropped, 17);
    assert_eq!(stats.agent_batches_dropped, 2);
    assert_eq!(stats.skipped_records, 0);
    assert_eq!(stats.threads_implicit, 0);
    assert_eq!(stats.last_timestamp_ns, 50_000_000);

    let threads: Vec<_> = report
        .threads
        .iter()
        .map(|t| {
            (
                t.thread_id,
                t.name.as_str(),
                t.events,
                t.started_ns,
                t.ended_ns,
            )
        })
        .collect();
    assert_eq!(
        threads,
        vec![
            (1, "main", 160, Some(10_000), None),
            (2, "worker-1", 160, Some(10_000), None),
            (3, "worker-2", 160, Some(10_000), Some(40_000_000)),
        ]
    );

    let recorded = report.sink.as_ref().expect("sink snapshot");
    assert_eq!(recorded.definitions, all_defs);
    for (thread_id, events) in &sent {
        let expected: Vec<Event> = events
            .iter()
            .map(|&(t, method_id, kind)| Event {
                timestamp_ns: t * 1000,
                method_id,
                kind,
            })
            .collect();
        assert_eq!(recorded.events[thread_id], expected, "thread {thread_id}");
    }
    assert_eq!(recorded.resyncs, vec![(2, 30_000_000, vec![0, 1])]);
    assert_eq!(recorded.thread_ends, vec![(3, 40_000_000)]);
    assert_eq!(recorded.thread_starts.len(), 3);
    // Four heartbeats, then the Goodbye's timestamp as the final "now".
    assert_eq!(
        recorded.heartbeats,
        vec![1_099_000, 6_099_000, 11_099_000, 16_099_000, 50_000_000]
    );
}

#[test]
fn concurrent_sessions_are_kept_apart_and_numbered() {
    let server = start_server();
    let mut clients: Vec<Client> = (0..4).map(|_| Client::connect(&server)).collect();
    for (index, client) in clients.iter_mut().enumerate() {
        client.handshake(hello(&format!("program-{index}")));
        client.send(&AgentMessage::DefineMethods(vec![method(0, "p", "C", "m")]));
    }
    for (index, client) in clients.iter_mut().enumerate() {
        for round in 0..=index as u64 {
            client.send(&batch(
                7,
                &[(round * 10, 0, Enter), (round * 10 + 5, 0, Exit)],
            ));
        }
    }
    for client in clients {
        client.send_goodbye_and_close();
    }
    let reports = wait_for_ended(&server, 4);
    let mut seen: Vec<(String, u64)> = reports
        .iter()
        .map(|r| {
            (
                r.info.as_ref().expect("info").program.clone(),
                r.stats.events,
            )
        })
        .collect();
    seen.sort();
    assert_eq!(
        seen,
        vec![
            ("program-0".into(), 2),
            ("program-1".into(), 4),
            ("program-2".into(), 6),
            ("program-3".into(), 8)
        ]
    );
    let mut ids: Vec<_> = reports.iter().map(|r| r.session_id).collect();
    ids.dedup();
    assert_eq!(ids.len(), 4);
}

#[test]
fn a_program_that_dies_without_goodbye_is_reported_disconnected() {
    let server = start_server();
    let mut client = Client::connect(&server);
    client.handshake(hello("crashy"));
    client.send(&AgentMessage::DefineMethods(vec![method(0, "p", "C", "m")]));
    client.send(&batch(1, &[(5, 0, Enter)]));
    drop(client);
    let report = &wait_for_ended(&server, 1)[0];
    assert_eq!(
        report.status,
        SessionStatus::Ended(SessionEnd::Disconnected)
    );
    assert_eq!(report.stats.events, 1);
    assert!(report.errors.is_empty());
}

#[test]
fn commands_reach_the_live_session_sink() {
    let server = start_server();
    let mut client = Client::connect(&server);
    let ViewerMessage::Welcome { session_id, .. } = client.handshake(hello("commanded")) else {
        panic!("not welcomed");
    };
    // The worker registers its command queue before the reader answers the Hello.
    assert!(server.send_command(session_id, "window 5s".into()));
    client.send(&AgentMessage::Heartbeat { timestamp: 1 });
    client.send_goodbye_and_close();
    let report = &wait_for_ended(&server, 1)[0];
    assert_eq!(
        report.sink.as_ref().expect("sink").commands,
        vec!["window 5s"]
    );
    assert!(!server.send_command(session_id, "late".into()));
}

#[test]
fn a_slow_consumer_never_makes_reports_pile_up() {
    let server = start_server();
    let mut client = Client::connect(&server);
    client.handshake(hello("busy"));
    client.send(&AgentMessage::DefineMethods(vec![method(0, "p", "C", "m")]));
    for round in 0..2_000u64 {
        client.send(&batch(
            1,
            &[(round * 10, 0, Enter), (round * 10 + 5, 0, Exit)],
        ));
    }
    // Nobody reads reports while 2 000 batches flow: the mailbox holds the session's first
    // report and its latest one, never more.
    std::thread::sleep(std::time::Duration::from_millis(300));
    assert!(server.updates().len() <= 2);
    client.send_goodbye_and_close();
    let report = &wait_for_ended(&server, 1)[0];
    assert_eq!(report.stats.events, 4_000);
    assert_eq!(report.status, SessionStatus::Ended(SessionEnd::Goodbye));
}

trait GoodbyeExt {
    fn send_goodbye_and_close(self);
}

impl GoodbyeExt for Client {
    fn send_goodbye_and_close(mut self) {
        self.send(&AgentMessage::Goodbye {
            timestamp: 1_000_000,
        });
        self.close();
    }
}

#[test]
fn detaching_a_session_closes_its_connection_and_ends_it_as_detached() {
    let server = start_server();
    let mut client = Client::connect(&server);
    let ViewerMessage::Welcome { session_id, .. } = client.handshake(hello("attached")) else {
        panic!("no welcome");
    };
    client.send(&AgentMessage::DefineMethods(vec![method(
        0, "app", "Main", "run",
    )]));
    client.send(&batch(1, &[(10, 0, Enter)]));
    assert!(server.detach_session(session_id));
    let reports = wait_for_ended(&server, 1);
    assert_eq!(
        reports[0].status,
        SessionStatus::Ended(SessionEnd::Detached)
    );
    assert!(reports[0].errors.is_empty(), "{:?}", reports[0].errors);
    // The agent's side: its connection is gone (end of stream or a reset), never a hang.
    let mut rest = Vec::new();
    if let Err(error) = std::io::Read::read_to_end(&mut client.stream, &mut rest) {
        assert!(
            !matches!(
                error.kind(),
                std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
            ),
            "the connection stayed open: {error}"
        );
    }
    assert!(rest.is_empty(), "nothing after the Welcome: {rest:?}");
    // A session that is gone, or never was, cannot be detached (its handle goes as its worker
    // finishes, just after the final report).
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while server.detach_session(session_id) {
        assert!(
            std::time::Instant::now() < deadline,
            "an ended session stays detachable"
        );
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    assert!(!server.detach_session(9999));
}

#[test]
fn notices_are_kept_latest_per_key_and_bad_ones_are_errors() {
    let server = start_server();
    let mut client = Client::connect(&server);
    client.handshake(hello("service"));
    let notice = |key: &str, text: &str| AgentMessage::Notice {
        key: key.into(),
        text: text.into(),
    };
    client.send(&notice(
        "not-instrumented",
        "1 classes not instrumented: a/A",
    ));
    client.send(&notice("threads", "asyncio tasks are threads"));
    client.send(&notice(
        "not-instrumented",
        "2 classes not instrumented: a/A, b/B",
    ));
    client.send(&notice("k".repeat(65).as_str(), "a key too long"));
    client.send(&notice("big", &"x".repeat(4097)));
    for extra in 0..highrise_ingest::MAX_NOTICES {
        client.send(&notice(&format!("key-{extra}"), "one more"));
    }
    client.send(&AgentMessage::Goodbye { timestamp: 10 });
    let report = &wait_for_ended(&server, 1)[0];
    assert_eq!(report.status, SessionStatus::Ended(SessionEnd::Goodbye));
    let notices = &report.info.as_ref().expect("hello").notices;
    assert_eq!(notices.len(), highrise_ingest::MAX_NOTICES);
    assert_eq!(
        (notices[0].key.as_str(), notices[0].text.as_str()),
        ("not-instrumented", "2 classes not instrumented: a/A, b/B")
    );
    assert_eq!(notices[1].text, "asyncio tasks are threads");
    // Two too long, and the keys beyond the most kept (16: 2 + 14 of the 16 extra).
    assert_eq!(report.errors.len(), 4, "{:?}", report.errors);
    assert!(
        report.errors[0].to_string().contains("too long"),
        "{:?}",
        report.errors
    );
    assert!(
        report.errors[3]
            .to_string()
            .contains("more than 16 notice keys"),
        "{:?}",
        report.errors
    );
}
