//! Every kind of bad input, against a real listener on a real socket: the session gets a clear
//! error (and ends, or skips the record where the framing is intact), other sessions carry on,
//! and the server never panics.

mod support;

use std::io::Write;
use std::net::TcpStream;
use std::time::Duration;

use highrise_ingest::{SessionEnd, SessionError, SessionStatus};
use highrise_protocol::{
    encode_message, AgentMessage, EventBatch, EventKind, ProtocolError, ViewerMessage,
    MAX_FRAME_BYTES, MAX_METHOD_ID, MAX_METHOD_ID_GAP,
};
use highrise_testkit::messages::{batch, method};
use highrise_testkit::server::{wait_for_ended, Client};
use support::*;

use EventKind::{Enter, Exit};

fn frame_of(payload: &[u8]) -> Vec<u8> {
    let mut frame = (payload.len() as u32).to_le_bytes().to_vec();
    frame.extend_from_slice(payload);
    frame
}

fn failure(report: &Report) -> &SessionError {
    match &report.status {
        SessionStatus::Ended(SessionEnd::Failed(error)) => error,
        other => panic!(
            "expected a failed session, got {other:?}; errors {:?}",
            report.errors
        ),
    }
}

/// A well-behaved session running beside the bad one, to show it is unaffected.
fn good_session(server: &highrise_ingest::IngestServer<RecordingSink>) -> Client {
    let mut client = Client::connect(server);
    client.handshake(hello("bystander"));
    client.send(&AgentMessage::DefineMethods(vec![method(0, "p", "C", "m")]));
    client.send(&batch(1, &[(10, 0, Enter), (20, 0, Exit)]));
    client
}

fn finish_good_session(mut client: Client) {
    client.send(&batch(1, &[(30, 0, Enter), (40, 0, Exit)]));
    client.send(&AgentMessage::Goodbye { timestamp: 50 });
    client.close();
}

fn assert_bystander_fine(reports: &[Report]) {
    let bystander = reports
        .iter()
        .find(|r| r.info.as_ref().is_some_and(|i| i.program == "bystander"))
        .expect("bystander report");
    assert_eq!(bystander.status, SessionStatus::Ended(SessionEnd::Goodbye));
    assert_eq!(bystander.stats.events, 4);
    assert!(bystander.errors.is_empty());
}

#[test]
fn garbage_bytes_end_only_that_session() {
    let server = start_server();
    let good = good_session(&server);
    let mut bad = Client::connect(&server);
    bad.send_raw(b"GET / HTTP/1.1\r\nHost: localhost\r\n\r\n");
    finish_good_session(good);
    bad.close();
    let reports = wait_for_ended(&server, 2);
    assert_bystander_fine(&reports);
    let bad = reports
        .iter()
        .find(|r| r.info.is_none())
        .expect("bad report");
    assert!(
        matches!(
            failure(bad),
            SessionError::Protocol(ProtocolError::FrameTooLarge { .. })
        ),
        "{:?}",
        bad.status
    );
    assert!(failure(bad).to_string().contains("not a highrise agent"));
}

#[test]
fn random_garbage_never_takes_the_server_down() {
    let server = start_server();
    let good = good_session(&server);
    let mut state = 0x2545_f491_4f6c_dd1du64;
    for _ in 0..20 {
        let mut bytes = Vec::new();
        for _ in 0..64 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            bytes.push(state as u8);
        }
        // Some start with a small, valid-looking length so the payload is decoded too.
        bytes[0] = (state % 60) as u8;
        bytes[1..4].fill(0);
        let mut bad = Client::connect(&server);
        bad.send_raw(&bytes);
        bad.close();
    }
    finish_good_session(good);
    let reports = wait_for_ended(&server, 21);
    assert_bystander_fine(&reports);
    for report in reports.iter().filter(|r| r.info.is_none()) {
        assert!(
            !report.errors.is_empty()
                || report.status == SessionStatus::Ended(SessionEnd::Disconnected),
            "{report:?}"
        );
    }
}

#[test]
fn a_truncated_frame_ends_the_session_with_what_was_missing() {
    let server = start_server();
    let mut client = Client::connect(&server);
    client.handshake(hello("truncated"));
    client.send(&AgentMessage::DefineMethods(vec![method(0, "p", "C", "m")]));
    let frame = frame_of(&encode_message(&batch(1, &[(1, 0, Enter), (2, 0, Exit)])));
    client.send_raw(&frame[..frame.len() - 3]);
    client.close();
    let report = &wait_for_ended(&server, 1)[0];
    let expected_payload = (frame.len() - 4) as u64;
    assert_eq!(
        failure(report),
        &SessionError::Protocol(ProtocolError::Truncated {
            got_bytes: expected_payload - 3,
            expected_bytes: expected_payload
        })
    );
    assert_eq!(report.stats.definitions, 1, "what came before is kept");
}

#[test]
fn a_truncated_header_ends_the_session() {
    let server = start_server();
    let mut client = Client::connect(&server);
    client.handshake(hello("half-header"));
    client.send_raw(&[5, 0]);
    client.close();
    let report = &wait_for_ended(&server, 1)[0];
    assert!(matches!(
        failure(report),
        SessionError::Protocol(ProtocolError::Truncated {
            got_bytes: 2,
            expected_bytes: 4
        })
    ));
}

#[test]
fn a_length_over_the_maximum_ends_the_session() {
    let server = start_server();
    let mut client = Client::connect(&server);
    client.handshake(hello("huge"));
    client.send_raw(&(MAX_FRAME_BYTES + 1).to_le_bytes());
    client.close();
    let report = &wait_for_ended(&server, 1)[0];
    assert_eq!(
        failure(report),
        &SessionError::Protocol(ProtocolError::FrameTooLarge {
            length_bytes: u64::from(MAX_FRAME_BYTES) + 1,
            max_bytes: u64::from(MAX_FRAME_BYTES),
        })
    );
}

#[test]
fn an_unknown_message_tag_is_skipped_and_the_session_goes_on() {
    let server = start_server();
    let mut client = Client::connect(&server);
    client.handshake(hello("future-agent"));
    client.send(&AgentMessage::DefineMethods(vec![method(0, "p", "C", "m")]));
    client.send_raw(&frame_of(&[42, 1, 2, 3]));
    client.send(&batch(1, &[(1, 0, Enter), (2, 0, Exit)]));
    client.send(&AgentMessage::Goodbye { timestamp: 3 });
    client.close();
    let report = &wait_for_ended(&server, 1)[0];
    assert_eq!(report.status, SessionStatus::Ended(SessionEnd::Goodbye));
    assert_eq!(
        report.errors,
        vec![SessionError::Protocol(ProtocolError::UnknownTag {
            tag: 42
        })]
    );
    assert_eq!(report.stats.skipped_records, 1);
    assert_eq!(report.stats.events, 2);
}

#[test]
fn a_malformed_payload_is_skipped_and_the_session_goes_on() {
    let server = start_server();
    let mut client = Client::connect(&server);
    client.handshake(hello("malformed"));
    // ThreadStart whose name is invalid UTF-8.
    client.send_raw(&frame_of(&[2, 1, 2, 0xff, 0xfe, 0]));
    // A batch whose event count does not match its bytes.
    client.send(&AgentMessage::Events(EventBatch {
        thread_id: 1,
        base_timestamp: 0,
        event_count: 3,
        packed_events: vec![0, 1, 1, 1],
    }));
    // Trailing bytes after a valid Heartbeat.
    let mut heartbeat = encode_message(&AgentMessage::Heartbeat { timestamp: 9 });
    heartbeat.push(0);
    client.send_raw(&frame_of(&heartbeat));
    client.send(&AgentMessage::Goodbye { timestamp: 10 });
    client.close();
    let report = &wait_for_ended(&server, 1)[0];
    assert_eq!(report.status, SessionStatus::Ended(SessionEnd::Goodbye));
    assert_eq!(report.errors.len(), 3, "{:?}", report.errors);
    assert!(report.errors.iter().all(|e| matches!(
        e,
        SessionError::Protocol(ProtocolError::Malformed { .. } | ProtocolError::BadEvents { .. })
    )));
    assert_eq!(report.stats.skipped_records, 3);
    assert_eq!(report.stats.heartbeats, 0);
}

#[test]
fn wrong_magic_is_answered_with_a_reject() {
    let server = start_server();
    let mut client = Client::connect(&server);
    let mut bad = hello("impostor");
    bad.magic = *b"NOPE";
    let answer = client.handshake(bad);
    let ViewerMessage::Reject { reason, .. } = answer else {
        panic!("expected a reject, got {answer:?}");
    };
    assert!(reason.contains("bad magic"), "{reason}");
    client.close();
    let report = &wait_for_ended(&server, 1)[0];
    assert!(matches!(
        failure(report),
        SessionError::Protocol(ProtocolError::BadMagic { found }) if found == b"NOPE"
    ));
}

#[test]
fn a_version_mismatch_says_which_side_to_upgrade() {
    let server = start_server();
    let next = highrise_protocol::PROTOCOL_VERSION + 1;
    for (agent_version, upgrade) in [(next, "upgrade the viewer"), (0, "upgrade the agent")] {
        let mut client = Client::connect(&server);
        let mut other = hello("other-version");
        other.protocol_version = agent_version;
        let ViewerMessage::Reject { reason, .. } = client.handshake(other) else {
            panic!("expected a reject");
        };
        assert!(reason.contains(upgrade), "{reason}");
        client.close();
    }
    let reports = wait_for_ended(&server, 2);
    assert!(reports.iter().all(|r| matches!(
        failure(r),
        SessionError::Protocol(ProtocolError::VersionMismatch { .. })
    )));
}

#[test]
fn a_first_message_that_is_not_hello_is_refused() {
    let server = start_server();
    let mut client = Client::connect(&server);
    client.send(&AgentMessage::Heartbeat { timestamp: 1 });
    assert!(matches!(client.read_answer(), ViewerMessage::Reject { .. }));
    client.close();
    let report = &wait_for_ended(&server, 1)[0];
    assert_eq!(
        failure(report),
        &SessionError::Protocol(ProtocolError::NotHello { tag: 5 })
    );
}

#[test]
fn events_for_undefined_methods_are_skipped_and_counted() {
    let server = start_server();
    let mut client = Client::connect(&server);
    client.handshake(hello("undefined"));
    client.send(&AgentMessage::DefineMethods(vec![method(0, "p", "C", "m")]));
    client.send(&batch(
        1,
        &[(1, 0, Enter), (2, 9, Enter), (3, 9, Exit), (4, 0, Exit)],
    ));
    client.send(&AgentMessage::Resync {
        thread_id: 1,
        timestamp: 5,
        stack: vec![0, 77],
    });
    client.send(&AgentMessage::Goodbye { timestamp: 6 });
    client.close();
    let report = &wait_for_ended(&server, 1)[0];
    assert_eq!(report.status, SessionStatus::Ended(SessionEnd::Goodbye));
    assert_eq!(report.stats.events, 2);
    assert_eq!(report.stats.resyncs, 0);
    assert_eq!(
        report.errors,
        vec![
            SessionError::UndefinedMethod {
                method_id: 9,
                events: 2
            },
            SessionError::UndefinedMethod {
                method_id: 77,
                events: 0
            },
        ]
    );
    let recorded = report.sink.as_ref().expect("sink");
    let kept: Vec<_> = recorded.events[&1].iter().map(|e| e.method_id).collect();
    assert_eq!(kept, vec![0, 0]);
    assert!(recorded.resyncs.is_empty());
}

#[test]
fn duplicate_definitions_keep_the_first() {
    let server = start_server();
    let mut client = Client::connect(&server);
    client.handshake(hello("duplicates"));
    let original = method(4, "p", "C", "m");
    client.send(&AgentMessage::DefineMethods(vec![
        original.clone(),
        original.clone(),
    ]));
    client.send(&AgentMessage::DefineMethods(vec![
        original.clone(),
        method(4, "p", "C", "other"),
        method(MAX_METHOD_ID, "p", "C", "too-big"),
    ]));
    client.send(&AgentMessage::Goodbye { timestamp: 1 });
    client.close();
    let report = &wait_for_ended(&server, 1)[0];
    assert_eq!(
        report.definitions().cloned().collect::<Vec<_>>(),
        vec![original]
    );
    assert_eq!(report.stats.duplicate_definitions, 2);
    assert_eq!(
        report.errors,
        vec![
            SessionError::ConflictingDefinition { method_id: 4 },
            SessionError::MethodIdTooLarge {
                method_id: MAX_METHOD_ID,
                max_method_id: MAX_METHOD_ID
            },
        ]
    );
}

/// Found by fuzzing (`session_messages`): one 19-byte definition with an id just under
/// `MAX_METHOD_ID` made the session size every per-method table to 16.7 M entries (about a
/// gigabyte once snapshots ran). Ids must be dense: that definition is refused, events naming
/// it are skipped, and the rest of the session goes on.
#[test]
fn fuzz_session_messages_one_huge_method_id_is_refused_not_allocated() {
    let server = start_server();
    let mut client = Client::connect(&server);
    client.handshake(hello("sparse"));
    let huge = MAX_METHOD_ID - 1;
    client.send(&AgentMessage::DefineMethods(vec![
        method(0, "p", "C", "fine"),
        method(huge, "p", "C", "far-away"),
        method(MAX_METHOD_ID_GAP, "p", "C", "just-within-the-gap"),
    ]));
    client.send(&batch(1, &[(1, huge, Enter), (2, huge, Exit)]));
    client.send(&batch(1, &[(3, 0, Enter), (4, 0, Exit)]));
    client.send(&AgentMessage::Goodbye { timestamp: 5 });
    client.close();
    let report = &wait_for_ended(&server, 1)[0];
    assert_eq!(report.status, SessionStatus::Ended(SessionEnd::Goodbye));
    let ids: Vec<u32> = report.definitions().map(|d| d.id).collect();
    assert_eq!(ids, vec![0, MAX_METHOD_ID_GAP], "the far id is refused");
    assert_eq!(report.stats.events, 2);
    assert_eq!(
        report.errors,
        vec![
            SessionError::MethodIdTooSparse {
                method_id: huge,
                defined: 1
            },
            SessionError::UndefinedMethod {
                method_id: huge,
                events: 2
            },
        ]
    );
}

#[test]
fn a_second_hello_is_ignored_with_an_error() {
    let server = start_server();
    let mut client = Client::connect(&server);
    client.handshake(hello("first"));
    client.send(&AgentMessage::Hello(hello("second")));
    client.send(&AgentMessage::Goodbye { timestamp: 1 });
    client.close();
    let report = &wait_for_ended(&server, 1)[0];
    assert_eq!(report.info.as_ref().expect("info").program, "first");
    assert!(matches!(report.errors[..], [SessionError::Unexpected(_)]));
}

#[test]
fn a_connection_reset_mid_frame_ends_the_session() {
    let server = start_server();
    let good = good_session(&server);
    let mut client = Client::connect(&server);
    client.handshake(hello("reset"));
    client.send(&AgentMessage::DefineMethods(vec![method(0, "p", "C", "m")]));
    let frame = frame_of(&encode_message(&batch(1, &[(1, 0, Enter), (2, 0, Exit)])));
    client.send_raw(&frame[..6]);
    std::thread::sleep(Duration::from_millis(50));
    // Linger 0: closing sends RST instead of FIN.
    socket2::SockRef::from(&client.stream)
        .set_linger(Some(Duration::ZERO))
        .expect("linger");
    drop(client);
    finish_good_session(good);
    let reports = wait_for_ended(&server, 2);
    assert_bystander_fine(&reports);
    let reset = reports
        .iter()
        .find(|r| r.info.as_ref().is_some_and(|i| i.program == "reset"))
        .expect("reset report");
    assert!(
        matches!(
            failure(reset),
            SessionError::Io(_) | SessionError::Protocol(ProtocolError::Truncated { .. })
        ),
        "{:?}",
        reset.status
    );
    assert_eq!(reset.stats.definitions, 1);
}

#[test]
fn a_connection_that_says_nothing_ends_quietly() {
    let server = start_server();
    let stream = TcpStream::connect(server.local_addr()).expect("connects");
    drop(stream);
    let report = &wait_for_ended(&server, 1)[0];
    assert_eq!(
        report.status,
        SessionStatus::Ended(SessionEnd::Disconnected)
    );
    assert!(report.info.is_none());
}

#[test]
fn bytes_after_goodbye_are_not_read() {
    let server = start_server();
    let mut client = Client::connect(&server);
    client.handshake(hello("chatty"));
    client.send(&AgentMessage::Goodbye { timestamp: 1 });
    let _ = client.stream.write_all(b"trailing garbage");
    client.close();
    let report = &wait_for_ended(&server, 1)[0];
    assert_eq!(report.status, SessionStatus::Ended(SessionEnd::Goodbye));
    assert!(report.errors.is_empty());
}
