//! A recording of a program whose agent dropped events: the report says how many and what
//! share, and marks (`≈` in the table, `approximate` in JSON) the methods of the thread that
//! lost events, not those of the thread that lost nothing.

use highrise_protocol::{encode_frame, AgentMessage, EventKind::*};
use highrise_record::{RecordingHeader, RecordingWriter};
use highrise_testkit::messages::{batch, hello, method};

const MS: u64 = 1_000_000;

#[test]
fn the_report_shows_the_drops_and_marks_the_estimated_methods() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("lossy.hrec");
    let messages = [
        AgentMessage::Hello(hello("test", "lossy")),
        AgentMessage::DefineMethods(vec![
            method(0, "app", "Main", "run"),
            method(1, "app", "Main", "work"),
            method(2, "app", "Side", "idle"),
        ]),
        batch(1, &[(0, 0, Enter), (10 * MS, 1, Enter)]),
        batch(2, &[(0, 2, Enter), (500 * MS, 2, Exit)]),
        // Thread 1 lost 300 events; at 1 s its stack is run alone.
        AgentMessage::Dropped {
            events_dropped: 300,
            batches_dropped: 1,
        },
        AgentMessage::Resync {
            thread_id: 1,
            timestamp: 1_000 * MS,
            stack: vec![0],
        },
        batch(1, &[(1_200 * MS, 1, Enter), (1_300 * MS, 1, Exit)]),
        AgentMessage::Goodbye {
            timestamp: 1_500 * MS,
        },
    ];
    let file = std::fs::File::create(&path).expect("creates");
    let mut writer = RecordingWriter::new(file, &RecordingHeader::new(0)).expect("header");
    for (n, message) in messages.iter().enumerate() {
        let frame = encode_frame(message).expect("encodes");
        writer
            .write_frame(n as u64 * MS, &frame, 1_500 * MS)
            .expect("writes");
    }
    writer.finish().expect("finishes");

    let summary = highrise_report::summarize(&path).expect("summarizes");
    assert_eq!(summary.events_dropped, 300);
    assert_eq!(summary.events, 6);
    assert!((summary.dropped_pct - 100.0 * 300.0 / 306.0).abs() < 1e-3);
    let approximate = |name: &str| summary.method(name).expect(name).approximate;
    assert!(approximate("app.Main.run"));
    assert!(approximate("app.Main.work"));
    assert!(!approximate("app.Side.idle"), "thread 2 lost nothing");

    let table = highrise_report::render_summary(&summary);
    assert!(
        table.contains("the agent dropped 300 events (98.04 % of the program's)"),
        "{table}"
    );
    assert!(table.contains("≈ app.Main.work"), "{table}");
    assert!(!table.contains("≈ app.Side.idle"), "{table}");
}
