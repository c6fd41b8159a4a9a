//! The committed golden recordings replay to the committed numbers (`synthetic.report.json`),
//! and bad files give clear errors. Two goldens of the same synthetic session:
//!
//! - `synthetic.hrec`: format version 1 (uncompressed), as highrise wrote before recordings
//!   were compressed. It stays byte for byte as committed: it proves old files stay readable.
//! - `synthetic-compressed.hrec`: format version 2 (zstd blocks), what highrise writes now.
//!
//! `HIGHRISE_BLESS=1` re-records the compressed golden from a synthetic agent over a real
//! socket and rewrites the numbers. `HIGHRISE_BLESS_OLD=1` (only when a protocol change makes
//! the old golden unreadable) rewrites `synthetic.hrec` in version 1 from the compressed one.

use std::path::{Path, PathBuf};
use std::time::Duration;

use highrise_ingest::{IngestConfig, NullSink};
use highrise_protocol::{AgentMessage, EventKind, Hello, PackedEventWriter};
use highrise_record::{Compression, RecordedFrame, RecordingReader, RecordingWriter};
use highrise_testkit::messages::{hello, method};
use highrise_testkit::server::{start, wait_for_end, Client, LOOPBACK_ANY_PORT};

fn golden_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../assets/recordings")
}

/// Two threads of a deterministic little program, 2 s of program time.
fn synthetic_session() -> Vec<AgentMessage> {
    let names = [
        ("shop.web", "Router", "dispatch"),
        ("shop.web", "Router", "render"),
        ("shop.db", "Pool", "query"),
        ("shop.db", "Pool", "commit"),
        ("shop.core", "Cart", "total"),
        ("shop.core", "Pricing", "quote"),
    ];
    let definitions = names
        .iter()
        .enumerate()
        .map(|(id, (package, class, name))| method(id as u32, package, class, name))
        .collect();
    let mut messages = vec![
        AgentMessage::Hello(Hello {
            version_label: "golden".into(),
            pid: 7,
            clock_unit_ns: 1_000,
            clock_zero_unix_ns: 1_700_000_000_000_000_000,
            ..hello("golden-synthetic", "shop")
        }),
        AgentMessage::DefineMethods(definitions),
        AgentMessage::ThreadStart {
            thread_id: 1,
            name: "main".into(),
            timestamp: 0,
        },
        AgentMessage::ThreadStart {
            thread_id: 2,
            name: "worker".into(),
            timestamp: 0,
        },
    ];
    // Each request (10 ms of µs ticks): dispatch → query (3 ms) → quote (thread 2: 5 ms).
    for slice in 0..20u64 {
        let base = slice * 100_000;
        let mut main = PackedEventWriter::new(1, base);
        let mut worker = PackedEventWriter::new(2, base);
        for request in 0..10u64 {
            let t = base + request * 10_000;
            main.push(t, 0, EventKind::Enter);
            main.push(t + 500, 2, EventKind::Enter);
            main.push(t + 3_500, 2, EventKind::Exit);
            main.push(t + 4_000, 1, EventKind::Enter);
            main.push(t + 4_000 + 200 * (slice % 5), 1, EventKind::Exit);
            main.push(t + 6_000, 0, EventKind::Exit);
            worker.push(t, 4, EventKind::Enter);
            worker.push(t + 1_000, 5, EventKind::Enter);
            worker.push(t + 6_000, 5, EventKind::Exit);
            worker.push(t + 6_500, 4, EventKind::Exit);
        }
        messages.push(AgentMessage::Events(main.finish()));
        messages.push(AgentMessage::Events(worker.finish()));
        messages.push(AgentMessage::Heartbeat {
            timestamp: base + 100_000,
        });
    }
    messages.push(AgentMessage::ThreadEnd {
        thread_id: 2,
        timestamp: 2_000_000,
    });
    messages.push(AgentMessage::Goodbye {
        timestamp: 2_000_000,
    });
    messages
}

fn bless(path: &Path) {
    let server = start(
        IngestConfig {
            listen_addr: LOOPBACK_ANY_PORT,
            record_sessions_to: Some(path.to_path_buf()),
            ..IngestConfig::default()
        },
        NullSink::factory,
    );
    let mut agent = Client::connect(&server);
    for message in synthetic_session() {
        agent.send(&message);
        std::thread::sleep(Duration::from_millis(2));
    }
    wait_for_end(&server);
}

/// Rewrites `to` in format version 1 with the frames (and seek points) of recording `from`.
fn transcode_to_version_1(from: &Path, to: &Path) {
    let mut reader = RecordingReader::open(from).expect("opens");
    let index = reader.index().to_vec();
    let last_agent_time_ns = reader.last_agent_time_ns();
    let frames: Vec<RecordedFrame> = reader.frames().collect::<Result<_, _>>().expect("reads");
    let file = std::fs::File::create(to).expect("creates");
    let mut writer = RecordingWriter::with_compression(
        std::io::BufWriter::new(file),
        reader.header(),
        Compression::None,
    )
    .expect("header");
    for (n, frame) in frames.iter().enumerate() {
        // The agent time an index entry carries is the latest before it: give each frame the
        // next entry's, and the same entries come out.
        let agent_time_ns = index
            .iter()
            .find(|entry| entry.frame_number > n as u64)
            .map_or(last_agent_time_ns, |entry| entry.agent_time_ns);
        writer
            .write_frame(frame.arrival_ns, &frame.frame, agent_time_ns)
            .expect("writes");
    }
    writer.finish().expect("finishes");
}

/// The summary as JSON, named `synthetic.hrec` whichever golden it is of.
fn summary_json(path: &Path) -> String {
    let mut summary = highrise_report::summarize(path).expect("summarizes");
    summary.path = PathBuf::from("synthetic.hrec");
    serde_json::to_string_pretty(&summary).expect("serializes") + "\n"
}

fn format_version(path: &Path) -> u32 {
    RecordingReader::open(path)
        .expect("opens")
        .header()
        .format_version
}

fn payloads(path: &Path) -> Vec<Vec<u8>> {
    let mut reader = RecordingReader::open(path).expect("opens");
    reader
        .frames()
        .map(|frame| frame.expect("reads").payload().to_vec())
        .collect()
}

#[test]
fn the_golden_recording_replays_to_known_numbers() {
    let dir = golden_dir();
    let recording = dir.join("synthetic.hrec");
    let compressed = dir.join("synthetic-compressed.hrec");
    let expected = dir.join("synthetic.report.json");
    if std::env::var_os("HIGHRISE_BLESS").is_some() {
        bless(&compressed);
        std::fs::write(&expected, summary_json(&compressed)).expect("writes");
    }
    if std::env::var_os("HIGHRISE_BLESS_OLD").is_some() {
        transcode_to_version_1(&compressed, &recording);
    }
    // The old golden is an old file; the new one is compressed and smaller.
    assert_eq!(format_version(&recording), 1);
    assert_eq!(format_version(&compressed), highrise_record::FORMAT_VERSION);
    let old_bytes = std::fs::metadata(&recording).expect("golden exists").len();
    let new_bytes = std::fs::metadata(&compressed).expect("golden exists").len();
    assert!(old_bytes < 200 * 1024);
    assert!(
        new_bytes < old_bytes / 2,
        "{new_bytes} vs {old_bytes} bytes"
    );
    // Both hold the same session, and replay to the same numbers.
    assert_eq!(payloads(&recording), payloads(&compressed));
    let expected = std::fs::read_to_string(&expected).expect("expected numbers");
    assert_eq!(summary_json(&recording), expected);
    assert_eq!(summary_json(&compressed), expected);
    // The numbers themselves, for readers: Pricing.quote is on top of thread 2 half the
    // time (5 ms of every 10 ms), Pool.query 30 % of thread 1. The run (2 s) is shorter than
    // the 3 s window, which is cut at 0: elevation at program time t is share × t / 3 s, so
    // the max (t = 2 s) is 2/3 of the share and the mean over samples at 0.1, 0.2, … 2.0 s is
    // share × 1.05 / 3.
    let summary = highrise_report::summarize(&recording).expect("summarizes");
    let quote = summary.method("shop.core.Pricing.quote").expect("quote");
    assert_eq!(quote.calls, 200);
    assert_eq!(quote.max_elevation_pct, 33.3333);
    assert_eq!(quote.mean_elevation_pct, 17.5);
    // The share of the run is the share itself, whatever the window: 5 ms of every 10 ms.
    assert_eq!(quote.run_share_pct, 50.0);
    let query = summary.method("shop.db.Pool.query").expect("query");
    assert_eq!(query.max_elevation_pct, 20.0);
    assert_eq!(query.mean_elevation_pct, 10.5);
    assert_eq!(query.run_share_pct, 30.0);
    assert_eq!(summary.samples, 20);
    assert_eq!(summary.max_threads, 2);
    assert_eq!(summary.end, "goodbye");
    assert_eq!(summary.methods[0].name, "shop.core.Pricing.quote");
}

#[test]
fn interrupted_and_bad_recordings() {
    for name in ["synthetic.hrec", "synthetic-compressed.hrec"] {
        interrupted_and_bad(name);
    }
}

fn interrupted_and_bad(name: &str) {
    let golden = std::fs::read(golden_dir().join(name)).expect("golden");
    let dir = tempfile::tempdir().expect("tempdir");
    // Cut inside the last record before the footer (the Goodbye frame, or the last compressed
    // chunk): summarized up to the last whole frame (chunk), and says so.
    let footer_offset = u64::from_le_bytes(
        golden[golden.len() - 16..golden.len() - 8]
            .try_into()
            .expect("8 bytes"),
    ) as usize;
    let cut = dir.path().join("cut.hrec");
    std::fs::write(&cut, &golden[..footer_offset - 10]).expect("writes");
    let summary = highrise_report::summarize(&cut).expect("an interrupted file still reads");
    assert!(summary.interrupted.is_some());
    assert_eq!(summary.end, "disconnected");
    assert!(
        summary
            .method("shop.core.Pricing.quote")
            .expect("quote")
            .calls
            > 0
    );
    // Not a recording.
    let text = dir.path().join("text.hrec");
    std::fs::write(&text, "hello world, not a recording").expect("writes");
    let error = highrise_report::summarize(&text).expect_err("refused");
    assert!(
        error.to_string().contains("not a highrise recording"),
        "{error}"
    );
    // A damaged frame (or compressed chunk) in a finished file.
    let mut damaged = golden.clone();
    damaged[200] ^= 0x55;
    let damaged_path = dir.path().join("damaged.hrec");
    std::fs::write(&damaged_path, &damaged).expect("writes");
    let error = highrise_report::summarize(&damaged_path).expect_err("refused");
    assert!(
        error.to_string().contains("corrupt recording at byte"),
        "{error}"
    );
}
