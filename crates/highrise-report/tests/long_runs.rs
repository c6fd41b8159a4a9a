//! A run of hours is sampled more sparsely (about `MAX_SAMPLES` aggregator samples) and reads
//! the same as a short run of the same program.

use highrise_protocol::{encode_frame, AgentMessage, EventKind::*};
use highrise_record::{RecordingHeader, RecordingWriter};
use highrise_testkit::messages::{batch, hello, method};

const S: u64 = 1_000_000_000;

/// `Main.run` throughout; `Main.work` on top of it for 10 s of every 40 s, for `cycles` cycles.
fn write_run(path: &std::path::Path, cycles: u64) {
    let end_ns = cycles * 40 * S;
    // Each message with its agent time (which the recording's index keeps).
    let mut messages = vec![
        (0, AgentMessage::Hello(hello("test", "long"))),
        (
            0,
            AgentMessage::DefineMethods(vec![
                method(0, "app", "Main", "run"),
                method(1, "app", "Main", "work"),
            ]),
        ),
        (0, batch(1, &[(0, 0, Enter)])),
    ];
    // As an agent does: each event sent soon after it happened, a heartbeat every second.
    for second in 1..cycles * 40 {
        let at_ns = second * S;
        match second % 40 {
            15 => messages.push((at_ns, batch(1, &[(at_ns, 1, Enter)]))),
            25 => messages.push((at_ns, batch(1, &[(at_ns, 1, Exit)]))),
            _ => messages.push((at_ns, AgentMessage::Heartbeat { timestamp: at_ns })),
        }
    }
    messages.push((end_ns, batch(1, &[(end_ns, 0, Exit)])));
    messages.push((end_ns, AgentMessage::Goodbye { timestamp: end_ns }));
    let file = std::fs::File::create(path).expect("creates");
    let mut writer = RecordingWriter::new(file, &RecordingHeader::new(0)).expect("header");
    for (agent_time_ns, message) in &messages {
        let frame = encode_frame(message).expect("encodes");
        writer
            .write_frame(*agent_time_ns, &frame, *agent_time_ns)
            .expect("writes");
    }
    writer.finish().expect("finishes");
}

#[test]
fn a_run_of_hours_is_sampled_sparsely_and_reads_as_a_short_one() {
    assert_eq!(
        highrise_report::sample_interval_ns(10 * 60 * S),
        100_000_000
    );
    assert_eq!(highrise_report::sample_interval_ns(3_600 * S), 100_000_000);
    assert_eq!(
        highrise_report::sample_interval_ns(2 * 3_600 * S),
        200_000_000
    );
    assert_eq!(highrise_report::sample_interval_ns(10 * 3_600 * S), S);
    assert_eq!(
        highrise_report::sample_interval_ns(1_000 * 3_600 * S),
        3 * S
    );

    let dir = tempfile::tempdir().expect("tempdir");
    let short = dir.path().join("short.hrec");
    let long = dir.path().join("long.hrec");
    write_run(&short, 30); // 20 minutes
    write_run(&long, 900); // 10 hours
    let short = highrise_report::summarize(&short).expect("summarizes");
    let long = highrise_report::summarize(&long).expect("summarizes");
    assert_eq!(
        short.sample_interval_ns,
        highrise_report::SAMPLE_INTERVAL_NS
    );
    assert_eq!(long.sample_interval_ns, S);
    assert!(
        (35_000..=36_100).contains(&long.samples),
        "{} samples",
        long.samples
    );
    for run in [&short, &long] {
        let work = run.method("app.Main.work").expect("work");
        let main = run.method("app.Main.run").expect("run");
        assert!((work.run_share_pct - 25.0).abs() < 0.5, "{work:?}");
        assert!((main.run_share_pct - 75.0).abs() < 0.5, "{main:?}");
        assert!((work.mean_elevation_pct - 25.0).abs() < 0.5, "{work:?}");
        assert!(work.max_elevation_pct > 99.9, "{work:?}");
        assert_eq!(work.calls, run.duration_ns / (40 * S));
    }
    let table = highrise_report::render_summary(&long);
    assert!(table.contains("samples (every 1000 ms)"), "{table}");
    assert!(!highrise_report::render_summary(&short).contains("(every"));
}
