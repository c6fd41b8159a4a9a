//! The record button and the "open recording" box against a real ingest server.

use std::time::Duration;

use bevy::prelude::*;
use highrise_viewer::viewer::sessions::{accept_report, Sessions};

use crate::support::*;

/// What the panel's record button and "open recording" box do, against a real ingest server:
/// a live session (a real socket) is recorded mid-session, then opened as a replayed session
/// that reports the same methods through the same aggregator.
#[test]
fn the_record_button_records_a_live_session_and_the_recording_replays() {
    use highrise_ingest::{RecordingState, SessionSource};
    use highrise_protocol::{AgentMessage, EventKind, PackedEventWriter};
    use highrise_viewer::viewer::recording::Recorder;

    let ingest = live_ingest();
    let dir = std::env::temp_dir().join(format!("highrise-record-button-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let mut recorder = Recorder::new(dir.clone());
    let mut sessions = Sessions::default();
    // Waits for reports until `done` holds for some session, folding them into `sessions`.
    let wait_for = |sessions: &mut Sessions, done: &dyn Fn(&Sessions) -> bool| {
        let deadline = std::time::Instant::now() + Duration::from_secs(20);
        while !done(sessions) {
            assert!(std::time::Instant::now() < deadline, "timed out");
            if let Ok(report) = ingest.0.updates().recv_timeout(Duration::from_millis(50)) {
                accept_report(sessions, report);
            }
        }
    };

    let mut agent = TestAgent::connect(ingest.0.local_addr());
    agent.send(AgentMessage::DefineMethods(tetris()));
    // `Game.run` on thread 1 from t = 0, calling `Board.rotate` for the first half second.
    let batch = |from_ns: u64| {
        let mut events = PackedEventWriter::new(1, from_ns);
        if from_ns == 0 {
            events.push(0, 0, EventKind::Enter);
            events.push(1_000, 1, EventKind::Enter);
            events.push(500_000_000, 1, EventKind::Exit);
        } else {
            events.push(from_ns, 1, EventKind::Enter);
            events.push(from_ns + 400_000_000, 1, EventKind::Exit);
        }
        AgentMessage::Events(events.finish())
    };
    agent.send(batch(0));
    wait_for(&mut sessions, &|s| {
        s.by_id.values().any(|v| {
            v.definitions_seen == 3 && v.snapshot().is_some_and(|snap| snap.method(1).calls == 1)
        })
    });
    let live_id = *sessions.by_id.keys().next().expect("live session");

    // Record mid-session, as the button does.
    recorder.start(&ingest, live_id, &sessions.by_id[&live_id]);
    assert!(
        recorder
            .message
            .as_deref()
            .is_some_and(|m| m.starts_with("recording to")),
        "{:?}",
        recorder.message
    );
    // A recording started mid-session holds no history before its start: compare a window
    // (3 s) that lies wholly after it.
    agent.send(batch(3_000_000_000));
    agent.send(AgentMessage::Heartbeat {
        timestamp: 5_000_000_000,
    });
    wait_for(&mut sessions, &|s| {
        s.by_id[&live_id]
            .report
            .stats
            .recording
            .as_ref()
            .is_some_and(|r| r.frames >= 4)
            && s.by_id[&live_id].report.stats.last_timestamp_ns >= 5_000_000_000
    });
    recorder.stop(&ingest, live_id);
    let saved = recorder.message.clone().unwrap_or_default();
    assert!(saved.starts_with("saved "), "{saved}");
    wait_for(&mut sessions, &|s| {
        s.by_id[&live_id]
            .report
            .stats
            .recording
            .as_ref()
            .is_some_and(|r| r.state == RecordingState::Finished)
    });
    let path = sessions.by_id[&live_id]
        .report
        .stats
        .recording
        .as_ref()
        .map(|r| r.path.clone())
        .expect("recording path");
    assert!(path.starts_with(&dir), "{}", path.display());
    let live_snapshot = sessions.by_id[&live_id]
        .snapshot()
        .cloned()
        .expect("snapshot");
    drop(agent);

    // A broken file is a message, not a crash.
    let broken = dir.join("broken.hrec");
    std::fs::write(&broken, b"not a recording").expect("write");
    recorder.open(&ingest, &broken, 1.0);
    assert!(recorder.replays.is_empty());
    assert!(
        recorder
            .message
            .as_deref()
            .is_some_and(|m| m.contains("broken.hrec")),
        "{:?}",
        recorder.message
    );

    // Replay it as fast as possible: same methods, same statistics at the same program time.
    recorder.open(&ingest, &path, f64::INFINITY);
    let replay_id = *recorder.replays.keys().next().expect("replay opened");
    wait_for(&mut sessions, &|s| {
        s.by_id.get(&replay_id).is_some_and(|v| {
            v.report.stats.last_timestamp_ns >= 5_000_000_000 && v.definitions_seen == 3
        })
    });
    let replay = &sessions.by_id[&replay_id];
    assert_eq!(
        replay.report.stats.source,
        SessionSource::Replay { path: path.clone() }
    );
    let names: Vec<_> = replay
        .report
        .definitions()
        .map(|d| d.method.clone())
        .collect();
    assert_eq!(names, ["run", "rotate", "draw"]);
    let replayed = replay.snapshot().expect("replay snapshot");
    assert_eq!(replayed.now_ns, live_snapshot.now_ns);
    // `run` is still open on thread 1: the top of its stack for everything but `rotate`.
    assert_eq!(
        replayed.method(0).thread_count,
        live_snapshot.method(0).thread_count
    );
    assert!((replayed.method(0).elevation - live_snapshot.method(0).elevation).abs() < 1e-6);
    assert!((replayed.method(1).elevation - live_snapshot.method(1).elevation).abs() < 1e-6);
    assert!((live_snapshot.method(1).elevation - 0.4 / 3.0).abs() < 0.01);
    // The session list names it as a replay (file, position), not as an attached program.
    let progress = recorder.replays[&replay_id].progress();
    let line = highrise_viewer::viewer::ui::replay_line(
        &replay.title(),
        &path,
        Some(progress.clone()),
        false,
    );
    let file = path.file_name().expect("file").to_string_lossy();
    assert!(line.contains(&format!("replay of {file} · ")), "{line}");
    assert!(
        !line.contains("pid") && !line.contains("connected"),
        "{line}"
    );
    let end_s = progress.end_program_time_ns as f64 / 1e9;
    assert!(line.contains(&format!("/ {end_s:.1} s")), "{line}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Another tool's profile opens on a thread of its own: `open` returns at once with a message,
/// the session starts once the conversion is done, and a profile that cannot be read is a
/// message naming it, nothing else.
#[test]
fn a_profile_converts_off_the_window_thread_and_then_replays() {
    use highrise_viewer::viewer::recording::Recorder;

    let ingest = live_ingest();
    let dir = tempfile::tempdir().expect("tempdir");
    let mut recorder = Recorder::new(dir.path().to_owned());
    let folded = dir.path().join("run.folded");
    std::fs::write(
        &folded,
        "main;app.Board.rotate 30\nmain;app.Board.draw 10\n",
    )
    .expect("write");
    recorder.open(&ingest, &folded, f64::INFINITY);
    let message = recorder.message.clone().unwrap_or_default();
    assert!(
        message.contains("run.folded") && message.contains("converting a folded stacks profile"),
        "{message}"
    );
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    while recorder.converting() > 0 {
        assert!(std::time::Instant::now() < deadline, "timed out");
        std::thread::sleep(Duration::from_millis(10));
        recorder.poll_opening(&ingest);
    }
    let replay_id = *recorder.replays.keys().next().expect("replay opened");
    let mut sessions = Sessions::default();
    while sessions
        .by_id
        .get(&replay_id)
        .is_none_or(|view| view.definitions_seen < 2)
    {
        assert!(std::time::Instant::now() < deadline, "timed out");
        if let Ok(report) = ingest.0.updates().recv_timeout(Duration::from_millis(50)) {
            accept_report(&mut sessions, report);
        }
    }
    let names: Vec<_> = sessions.by_id[&replay_id]
        .report
        .definitions()
        .map(|d| d.method.clone())
        .collect();
    assert!(names.contains(&"rotate".to_owned()), "{names:?}");

    // A speedscope file cut short: detected, converted on its thread, refused with its name.
    let broken = dir.path().join("cut.speedscope.json");
    std::fs::write(
        &broken,
        r#"{"$schema":"https://www.speedscope.app/file-format-schema.json","shared":{"frames":[{"na"#,
    )
    .expect("write");
    recorder.open(&ingest, &broken, 1.0);
    while recorder.converting() > 0 {
        assert!(std::time::Instant::now() < deadline, "timed out");
        std::thread::sleep(Duration::from_millis(10));
        recorder.poll_opening(&ingest);
    }
    assert_eq!(recorder.replays.len(), 1, "no session for the broken file");
    let message = recorder.message.clone().unwrap_or_default();
    assert!(message.contains("cut.speedscope.json"), "{message}");
}
