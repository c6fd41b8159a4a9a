//! A panic in one session's processing (here: its sink, as a bug in the aggregator would) is
//! caught at the session's boundary, against a real listener on a real socket: that session
//! ends failed with the message, what it counted stays in its final report, its recording is
//! finished and readable, and a session beside it goes on untouched.

mod support;

use std::sync::Arc;

use highrise_ingest::{SessionEnd, SessionError, SessionSink, SessionStatus};
use highrise_protocol::{AgentMessage, Event, EventKind, Hello, MethodDef};
use highrise_record::RecordingReader;
use highrise_testkit::messages::{batch, method};
use highrise_testkit::server::{start, test_config, wait_for_ended, Client};
use support::{hello, Recorded, RecordingSink};

use EventKind::{Enter, Exit};

/// A [`RecordingSink`] that panics on the first event of method 13 (or, `in_snapshot`, when
/// asked for its snapshot after seeing it).
struct Fragile {
    inner: RecordingSink,
    in_snapshot: bool,
    armed: bool,
}

impl SessionSink for Fragile {
    type Snapshot = Arc<Recorded>;
    type Command = String;
    fn define_methods(&mut self, definitions: &[MethodDef]) {
        self.inner.define_methods(definitions);
    }
    fn thread_started(&mut self, thread_id: u64, name: &str, timestamp_ns: u64) {
        self.inner.thread_started(thread_id, name, timestamp_ns);
    }
    fn thread_ended(&mut self, thread_id: u64, timestamp_ns: u64) {
        self.inner.thread_ended(thread_id, timestamp_ns);
    }
    fn events(&mut self, thread_id: u64, events: &[Event]) {
        if events.iter().any(|event| event.method_id == 13) {
            if self.in_snapshot {
                self.armed = true;
            } else {
                let slots: Vec<u32> = Vec::new();
                // An index out of bounds, as the PairMap bug gave.
                let _ = slots[events[0].method_id as usize];
            }
        }
        self.inner.events(thread_id, events);
    }
    fn resync(&mut self, thread_id: u64, timestamp_ns: u64, stack: &[u32]) {
        self.inner.resync(thread_id, timestamp_ns, stack);
    }
    fn heartbeat(&mut self, timestamp_ns: u64) {
        self.inner.heartbeat(timestamp_ns);
    }
    fn command(&mut self, command: String) {
        self.inner.command(command);
    }
    fn snapshot(&mut self) -> Arc<Recorded> {
        assert!(!self.armed, "snapshot of a broken state");
        self.inner.snapshot()
    }
}

fn fragile_server(in_snapshot: bool) -> highrise_ingest::IngestServer<Fragile> {
    start(test_config(), move |_hello: &Hello| Fragile {
        inner: RecordingSink::default(),
        in_snapshot,
        armed: false,
    })
}

fn definitions() -> AgentMessage {
    AgentMessage::DefineMethods(vec![method(0, "p", "C", "ok"), method(13, "p", "C", "bad")])
}

#[test]
fn a_panicking_sink_fails_its_session_and_the_one_beside_it_goes_on() {
    for in_snapshot in [false, true] {
        let server = fragile_server(in_snapshot);
        let mut bystander = Client::connect(&server);
        bystander.handshake(hello("bystander"));
        bystander.send(&definitions());
        bystander.send(&batch(1, &[(10, 0, Enter), (20, 0, Exit)]));

        let mut victim = Client::connect(&server);
        victim.handshake(hello("victim"));
        victim.send(&definitions());
        victim.send(&batch(1, &[(10, 0, Enter), (20, 0, Exit)]));
        victim.send(&batch(1, &[(30, 13, Enter), (40, 13, Exit)]));
        // Whatever follows is not read: the session is over.
        let _ = std::io::Write::write_all(
            &mut victim.stream,
            &highrise_testkit::messages::frames(&[AgentMessage::Goodbye { timestamp: 50 }]),
        );
        victim.close();

        bystander.send(&batch(1, &[(30, 0, Enter), (40, 0, Exit)]));
        bystander.send(&AgentMessage::Goodbye { timestamp: 50 });
        bystander.close();

        let reports = wait_for_ended(&server, 2);
        let victim = reports
            .iter()
            .find(|r| r.info.as_ref().is_some_and(|i| i.program == "victim"))
            .expect("victim's report");
        let message = victim.crash().expect("the victim crashed");
        if in_snapshot {
            assert!(message.contains("snapshot of a broken state"), "{message}");
        } else {
            assert!(message.contains("index out of bounds"), "{message}");
            // What the sink had before the crash is still published.
            let recorded = victim.sink.as_ref().expect("last snapshot");
            assert_eq!(recorded.events[&1].len(), 2);
        }
        assert!(message.contains("crash.rs:"), "{message}");
        assert!(
            victim.errors.iter().any(SessionError::is_crash),
            "{:?}",
            victim.errors
        );
        // The stream was still read to its Goodbye (the agent is not cut off, so it does not
        // reconnect into a new crash), and the session ended failed with the crash.
        assert_eq!(victim.stats.events, 4);
        assert!(matches!(
            &victim.status,
            SessionStatus::Ended(SessionEnd::Failed(SessionError::Crashed(_)))
        ));
        let bystander = reports
            .iter()
            .find(|r| r.info.as_ref().is_some_and(|i| i.program == "bystander"))
            .expect("bystander's report");
        assert_eq!(bystander.status, SessionStatus::Ended(SessionEnd::Goodbye));
        assert_eq!(bystander.stats.events, 4);
        assert!(bystander.errors.is_empty());
    }
}

#[test]
fn a_crashed_session_finishes_its_recording() {
    let dir = std::env::temp_dir().join(format!("highrise-ingest-crash-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("dir");
    let config = highrise_ingest::IngestConfig {
        record_sessions_to: Some(dir.clone()),
        ..test_config()
    };
    let server = start(config, |_hello: &Hello| Fragile {
        inner: RecordingSink::default(),
        in_snapshot: false,
        armed: false,
    });
    let mut victim = Client::connect(&server);
    victim.handshake(hello("victim"));
    victim.send(&definitions());
    victim.send(&batch(1, &[(10, 0, Enter), (20, 0, Exit)]));
    victim.send(&batch(1, &[(30, 13, Enter), (40, 13, Exit)]));
    victim.close();
    let reports = wait_for_ended(&server, 1);
    assert!(reports[0].crash().is_some(), "{:?}", reports[0].status);
    let recording = reports[0]
        .stats
        .recording
        .as_ref()
        .expect("recorded")
        .clone();
    assert_eq!(
        recording.state,
        highrise_ingest::RecordingState::Finished,
        "{recording:?}"
    );
    // The file is whole (footer written): every frame up to the one that crashed.
    let mut reader = RecordingReader::open(&recording.path).expect("opens");
    assert!(matches!(
        reader.completeness(),
        highrise_record::Completeness::Complete
    ));
    let frames = reader.frames().count();
    assert!(frames >= 4, "{frames} frames");
    let _ = std::fs::remove_dir_all(&dir);
}
