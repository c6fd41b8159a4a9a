//! Recording live sessions over a real socket, and replaying them through the same session
//! logic: a replay and the live run it recorded give identical aggregator snapshots at the
//! same program times.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use highrise_aggregate::{AggregatorConfig, MethodStats};
use highrise_aggregate_sink::{AggregateCommand, AggregateSink};
use highrise_ingest::{
    IngestConfig, IngestServer, RecordingState, SessionEnd, SessionError, SessionProcessor,
    SessionReport, SessionSink, SessionSource, SessionStatus,
};
use highrise_protocol::{AgentMessage, Event, EventKind, Hello, MethodDef, PackedEventWriter};
use highrise_record::{Completeness, RecordingReader};
use highrise_testkit::messages::{hello, method};
use highrise_testkit::server::{start as start_server, test_config, wait_for_report, Client};

const SLICE_NS: u64 = 100_000_000;
const THREADS: u64 = 3;
const METHODS: u32 = 12;

/// (program time, snapshot methods) taken at each heartbeat.
type Taken = Arc<Mutex<Vec<(u64, Vec<MethodStats>)>>>;

/// The product's sink, plus a snapshot at every heartbeat (the test's checkpoints).
struct CheckpointSink {
    inner: AggregateSink,
    taken: Taken,
}

impl SessionSink for CheckpointSink {
    type Snapshot = <AggregateSink as SessionSink>::Snapshot;
    type Command = AggregateCommand;
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
        self.inner.events(thread_id, events);
    }
    fn resync(&mut self, thread_id: u64, timestamp_ns: u64, stack: &[u32]) {
        self.inner.resync(thread_id, timestamp_ns, stack);
    }
    fn heartbeat(&mut self, timestamp_ns: u64) {
        self.inner.heartbeat(timestamp_ns);
        let snapshot = self.inner.aggregator_mut().snapshot();
        self.taken
            .lock()
            .expect("lock")
            .push((timestamp_ns, snapshot.methods));
    }
    fn command(&mut self, command: AggregateCommand) {
        self.inner.command(command);
    }
    fn snapshot(&mut self) -> Self::Snapshot {
        self.inner.snapshot()
    }
    fn open_stacks(&self) -> Vec<(u64, Vec<u32>)> {
        self.inner.open_stacks()
    }
}

fn checkpoint_sink(taken: &Taken) -> impl Fn(&Hello) -> CheckpointSink + Send + Sync + 'static {
    let taken = Arc::clone(taken);
    move |_hello| CheckpointSink {
        inner: AggregateSink::new(AggregatorConfig::default()),
        taken: Arc::clone(&taken),
    }
}

fn start(record_to: Option<PathBuf>, taken: &Taken) -> IngestServer<CheckpointSink> {
    start_server(
        IngestConfig {
            publish_interval: Duration::from_millis(5),
            record_sessions_to: record_to,
            ..test_config()
        },
        checkpoint_sink(taken),
    )
}

/// A deterministic synthetic program: nested calls on a few threads, a heartbeat at the end
/// of every 100 ms slice of program time.
struct Program {
    rng: u64,
    stacks: Vec<Vec<u32>>,
    now_ns: Vec<u64>,
}

impl Program {
    fn new() -> Self {
        Self {
            rng: 0x9e37_79b9_7f4a_7c15,
            stacks: vec![Vec::new(); THREADS as usize],
            now_ns: vec![0; THREADS as usize],
        }
    }

    fn next(&mut self) -> u64 {
        self.rng ^= self.rng << 13;
        self.rng ^= self.rng >> 7;
        self.rng ^= self.rng << 17;
        self.rng
    }

    fn opening() -> Vec<AgentMessage> {
        let definitions = (0..METHODS)
            .map(|id| {
                let package = format!("app.{}", ["web", "db", "core"][id as usize % 3]);
                method(id, &package, &format!("C{}", id / 3), &format!("m{id}"))
            })
            .collect();
        let mut messages = vec![
            AgentMessage::Hello(Hello {
                version_label: "v1".into(),
                pid: 42,
                ..hello("recording-test", "synthetic")
            }),
            AgentMessage::DefineMethods(definitions),
        ];
        for thread_id in 0..THREADS {
            messages.push(AgentMessage::ThreadStart {
                thread_id,
                name: format!("worker-{thread_id}"),
                timestamp: 0,
            });
        }
        messages
    }

    /// One slice of program time: a batch per thread, then the heartbeat at its end.
    fn slice(&mut self, index: u64) -> Vec<AgentMessage> {
        let end_ns = (index + 1) * SLICE_NS;
        let mut messages = Vec::new();
        for thread in 0..THREADS as usize {
            let mut writer = PackedEventWriter::new(thread as u64, self.now_ns[thread]);
            loop {
                let step = 20_000 + self.next() % 3_000_000;
                if self.now_ns[thread] + step >= end_ns {
                    break;
                }
                self.now_ns[thread] += step;
                let depth = self.stacks[thread].len();
                let enter = depth == 0 || (depth < 6 && self.next() % 3 != 0);
                if enter {
                    let method = (self.next() % u64::from(METHODS)) as u32;
                    self.stacks[thread].push(method);
                    writer.push(self.now_ns[thread], method, EventKind::Enter);
                } else if let Some(method) = self.stacks[thread].pop() {
                    writer.push(self.now_ns[thread], method, EventKind::Exit);
                }
            }
            let batch = writer.finish();
            if batch.event_count > 0 {
                messages.push(AgentMessage::Events(batch));
            }
        }
        messages.push(AgentMessage::Heartbeat { timestamp: end_ns });
        messages
    }
}

/// Says Goodbye at `timestamp` and closes the connection cleanly.
fn goodbye(mut agent: Client, timestamp: u64) {
    agent.send(&AgentMessage::Goodbye { timestamp });
    agent.close();
}

type Report = SessionReport<<AggregateSink as SessionSink>::Snapshot>;

/// Replays a recording synchronously through the session logic; returns the checkpoints and
/// the final report.
fn replay(path: &Path) -> (Vec<(u64, Vec<MethodStats>)>, Report) {
    let taken = Taken::default();
    let make = checkpoint_sink(&taken);
    let mut processor =
        SessionProcessor::for_replay(1, path.to_path_buf(), move |hello| make(hello));
    let mut reader = RecordingReader::open(path).expect("opens");
    for frame in reader.frames() {
        if processor.feed_frame(&frame.expect("frame").frame) {
            break;
        }
    }
    processor.finish();
    let report = processor.report();
    let taken = taken.lock().expect("lock").clone();
    (taken, report)
}

#[test]
fn a_recorded_session_replays_to_identical_snapshots() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("run.hrec");
    let live = Taken::default();
    let server = start(Some(path.clone()), &live);
    let mut agent = Client::connect(&server);
    let mut program = Program::new();
    agent.send_all(&Program::opening());
    for slice in 0..40 {
        agent.send_all(&program.slice(slice));
    }
    goodbye(agent, 40 * SLICE_NS);
    let last = wait_for_report(&server, |report| report.is_ended());
    assert_eq!(
        last.stats.events_per_s, 0.0,
        "an ended session reads 0 events/s"
    );
    assert_eq!(last.status, SessionStatus::Ended(SessionEnd::Goodbye));
    assert!(last.errors.is_empty(), "{:?}", last.errors);
    let recording = last.stats.recording.clone().expect("recorded");
    assert_eq!(recording.path, path);
    assert_eq!(recording.state, RecordingState::Finished);
    assert_eq!(recording.frames, last.stats.frames);

    let reader = RecordingReader::open(&path).expect("opens");
    assert_eq!(reader.completeness(), &Completeness::Complete);
    assert_eq!(reader.frame_count(), last.stats.frames);
    assert_eq!(reader.last_agent_time_ns(), 40 * SLICE_NS);
    // The index maps program time to places in the file.
    let entry = reader
        .entry_for_agent_time(u64::MAX)
        .expect("an index entry");
    assert!(entry.agent_time_ns <= 40 * SLICE_NS);

    let (replayed, report) = replay(&path);
    let live = live.lock().expect("lock").clone();
    assert_eq!(
        live.len(),
        41,
        "a checkpoint per slice and the goodbye's heartbeat"
    );
    assert_eq!(replayed.len(), live.len());
    for ((live_ns, live_methods), (replay_ns, replay_methods)) in live.iter().zip(&replayed) {
        assert_eq!(live_ns, replay_ns);
        assert_eq!(live_methods, replay_methods, "snapshot at {live_ns} ns");
    }
    assert!(live
        .iter()
        .any(|(_, methods)| methods.iter().any(|m| m.elevation > 0.1)));
    // Same bookkeeping, and the replay says what it is.
    let mut live_stats = last.stats.clone();
    let mut replay_stats = report.stats.clone();
    assert_eq!(
        replay_stats.source,
        SessionSource::Replay { path: path.clone() }
    );
    for stats in [&mut live_stats, &mut replay_stats] {
        stats.events_per_s = 0.0;
        stats.source = SessionSource::Live;
        stats.recording = None;
    }
    assert_eq!(live_stats, replay_stats);
    assert_eq!(
        last.definitions().collect::<Vec<_>>(),
        report.definitions().collect::<Vec<_>>()
    );
    assert_eq!(last.threads, report.threads);
    assert_eq!(report.status, SessionStatus::Ended(SessionEnd::Goodbye));

    // The same file as an in-process replay session of a server: pause, seek, speed.
    let viewer = start(None, &Taken::default());
    let handle = viewer.open_replay(&path, 1.0).expect("opens");
    handle.pause();
    handle.seek_to(25 * SLICE_NS);
    let at = wait_for_report(&viewer, |r| {
        r.session_id == handle.session_id() && r.stats.last_timestamp_ns >= 25 * SLICE_NS
    });
    assert!(
        at.stats.last_timestamp_ns < 26 * SLICE_NS,
        "{}",
        at.stats.last_timestamp_ns
    );
    assert_eq!(
        at.stats.source,
        SessionSource::Replay { path: path.clone() }
    );
    let progress = handle.progress();
    assert!(progress.paused && !progress.finished);
    assert_eq!(progress.end_program_time_ns, 40 * SLICE_NS);
    // Backward: rebuilt from the start.
    handle.seek_to(10 * SLICE_NS);
    let back = wait_for_report(&viewer, |r| r.stats.last_timestamp_ns < 25 * SLICE_NS);
    assert!(back.stats.last_timestamp_ns >= 10 * SLICE_NS);
    assert!(back.stats.last_timestamp_ns < 11 * SLICE_NS);
    assert!(back.stats.events < at.stats.events);
    handle.set_speed(f64::INFINITY);
    handle.resume();
    let end = wait_for_report(&viewer, |r| r.is_ended());
    assert_eq!(end.status, SessionStatus::Ended(SessionEnd::Goodbye));
    // The tail read at full speed is no rate to show once the replay has ended.
    assert_eq!(
        end.stats.events_per_s, 0.0,
        "an ended replay reads 0 events/s"
    );
    assert_eq!(end.stats.events, last.stats.events);
    let end_snapshot = end.sink.as_ref().expect("aggregated");
    assert_eq!(end_snapshot.methods, live.last().expect("checkpoint").1);
    handle.join();
}

#[test]
fn a_recording_started_mid_session_stands_on_its_own() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("mid.hrec");
    let live = Taken::default();
    let server = start(None, &live);
    let mut agent = Client::connect(&server);
    let mut program = Program::new();
    agent.send_all(&Program::opening());
    for slice in 0..20 {
        agent.send_all(&program.slice(slice));
    }
    let report = wait_for_report(&server, |r| r.stats.last_timestamp_ns >= 20 * SLICE_NS);
    let session_id = report.session_id;
    server.start_recording(session_id, &path).expect("starts");
    assert!(matches!(
        server.start_recording(session_id, &path),
        Err(highrise_ingest::RecordingError::AlreadyRecording { .. })
    ));
    for slice in 20..70 {
        agent.send_all(&program.slice(slice));
    }
    // Stop explicitly mid-way, then the session goes on unrecorded.
    let _ = wait_for_report(&server, |r| r.stats.last_timestamp_ns >= 70 * SLICE_NS);
    let status = server
        .stop_recording(session_id)
        .expect("answers")
        .expect("was recording");
    assert_eq!(status.state, RecordingState::Finished);
    agent.send_all(&program.slice(70));
    goodbye(agent, 71 * SLICE_NS);
    let last = wait_for_report(&server, |r| r.is_ended());
    assert!(last.errors.is_empty(), "{:?}", last.errors);

    let (replayed, report) = replay(&path);
    assert!(report.errors.is_empty(), "{:?}", report.errors);
    // Self-contained: every definition and thread, although they were sent before it began.
    assert_eq!(report.stats.definitions, u64::from(METHODS));
    assert_eq!(report.threads.len(), THREADS as usize);
    assert_eq!(
        report.status,
        SessionStatus::Ended(SessionEnd::Disconnected)
    );
    // From one window (3 s) plus a bucket after the start on, the snapshots are the live ones.
    let live = live.lock().expect("lock").clone();
    let comparable: Vec<&(u64, Vec<MethodStats>)> = replayed
        .iter()
        .filter(|(at, _)| *at >= 20 * SLICE_NS + 3_100_000_000)
        .collect();
    assert!(comparable.len() >= 15, "{}", comparable.len());
    for (at, methods) in comparable {
        let (_, live_methods) = live
            .iter()
            .find(|(live_at, _)| live_at == at)
            .expect("the live run has this checkpoint");
        // Exact but for f32 rounding: the replay's (method, thread) pairs sit in other slots,
        // so per-thread sums are added in another order.
        assert_eq!(live_methods.len(), methods.len());
        for (id, (live, replayed)) in live_methods.iter().zip(methods).enumerate() {
            let close = |a: f32, b: f32| (a - b).abs() <= 1e-5 * a.abs().max(1e-3);
            assert_eq!(
                (live.calls, live.thread_count),
                (replayed.calls, replayed.thread_count),
                "method {id} at {at} ns"
            );
            assert!(
                close(live.elevation, replayed.elevation)
                    && close(live.inclusive_elevation, replayed.inclusive_elevation)
                    && close(live.summed_elevation, replayed.summed_elevation),
                "method {id} at {at} ns: {live:?} vs {replayed:?}"
            );
        }
    }
}

#[test]
fn a_failing_disk_stops_the_recording_never_the_session() {
    let full = Path::new("/dev/full");
    if !full.exists() {
        return;
    }
    let live = Taken::default();
    let server = start(None, &live);
    let mut agent = Client::connect(&server);
    let mut program = Program::new();
    agent.send_all(&Program::opening());
    agent.send_all(&program.slice(0));
    let report = wait_for_report(&server, |r| r.stats.last_timestamp_ns >= SLICE_NS);
    server
        .start_recording(report.session_id, full)
        .expect("opens");
    for slice in 1..10 {
        agent.send_all(&program.slice(slice));
    }
    // The first flush fails: the recording stops itself and says why in the reports.
    let failed = wait_for_report(&server, |r| {
        r.stats.last_timestamp_ns >= 10 * SLICE_NS
            && r.stats
                .recording
                .as_ref()
                .is_some_and(|status| matches!(status.state, RecordingState::Failed(_)))
    });
    assert_eq!(failed.status, SessionStatus::Connected);
    // Stopping it now finds nothing left to stop (or, if asked before the worker noticed,
    // the failed status).
    match server.stop_recording(report.session_id).expect("answers") {
        None => {}
        Some(status) => assert!(
            matches!(status.state, RecordingState::Failed(_)),
            "{status:?}"
        ),
    }
    agent.send_all(&program.slice(10));
    goodbye(agent, 11 * SLICE_NS);
    let last = wait_for_report(&server, |r| r.is_ended());
    assert_eq!(last.status, SessionStatus::Ended(SessionEnd::Goodbye));
    assert_eq!(last.stats.last_timestamp_ns, 11 * SLICE_NS);
    assert!(last
        .errors
        .iter()
        .any(|e| matches!(e, SessionError::Recording(_))));
    // Once the server has let go of the ended session, there is nothing left to stop (until
    // then, nothing is being recorded).
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        match server.stop_recording(last.session_id) {
            Err(highrise_ingest::RecordingError::NoSuchSession(_)) => break,
            Ok(None) | Err(highrise_ingest::RecordingError::Timeout) => {
                assert!(Instant::now() < deadline, "session never released");
                std::thread::sleep(Duration::from_millis(20));
            }
            other => panic!("an ended session's recording: {other:?}"),
        }
    }
}

#[test]
fn bad_recordings_are_refused_with_a_clear_error() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("not.hrec");
    std::fs::write(&path, b"this is not a recording at all, just text").expect("writes");
    let server = start(None, &Taken::default());
    let error = server.open_replay(&path, 1.0).expect_err("refused");
    assert!(
        error.to_string().contains("not a highrise recording"),
        "{error}"
    );
    let missing = server
        .open_replay(dir.path().join("missing.hrec"), 1.0)
        .expect_err("refused");
    assert!(missing.to_string().contains("missing.hrec"), "{missing}");
}
