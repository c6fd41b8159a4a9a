//! In-process replay sessions: a recording fed through [`SessionProcessor`] on its own thread
//! at the recorded pacing × speed, publishing reports like a live session. Controlled through
//! a [`ReplayHandle`] (pause, resume, speed, seek).

use std::fs::File;
use std::io::BufReader;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crossbeam_channel::{bounded, Receiver, RecvTimeoutError, Sender};
use highrise_record::{RecordError, RecordedFrame, RecordingReader};

use crate::session::{Publisher, SessionProcessor};
use crate::session_report::{SessionEnd, SessionId};
use crate::sink::SessionSink;
use crate::sink::SinkFactory;
use crate::spawner::{lock, CommandSenders, SessionHandle};

/// Slowest and fastest replay speeds (factors of the recorded pacing).
pub const MIN_REPLAY_SPEED: f64 = 0.01;
pub const MAX_REPLAY_SPEED: f64 = 1000.0;

/// Opening a replay failed.
#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    #[error("cannot read the recording {}: {source}", path.display())]
    Open { path: PathBuf, source: RecordError },
    #[error("cannot start the replay thread: {0}")]
    Thread(std::io::Error),
}

/// Where a replay is.
#[derive(Debug, Clone, PartialEq)]
pub struct ReplayProgress {
    /// Program time reached (the session's latest agent timestamp), ns.
    pub program_time_ns: u64,
    /// Program time at the end of the recording, ns (a lower bound for an interrupted file).
    pub end_program_time_ns: u64,
    /// Arrival time of the last frame applied, ns since the recording started.
    pub arrival_ns: u64,
    /// Arrival time of the recording's last frame.
    pub end_arrival_ns: u64,
    pub paused: bool,
    pub speed: f64,
    /// The whole recording has been replayed (or the replay was stopped).
    pub finished: bool,
}

enum ReplayControl {
    Pause,
    Resume,
    SetSpeed(f64),
    SeekTo(u64),
    Stop,
}

/// Controls one replay session. Dropping the handle lets the replay run to its end; the
/// server's shutdown stops it.
#[derive(Debug)]
pub struct ReplayHandle {
    session_id: SessionId,
    path: PathBuf,
    controls: Sender<ReplayControl>,
    progress: Arc<Mutex<ReplayProgress>>,
    thread: Option<JoinHandle<()>>,
}

impl std::fmt::Debug for ReplayControl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ReplayControl")
    }
}

impl ReplayHandle {
    /// The replay's session id (its reports carry it).
    pub fn session_id(&self) -> SessionId {
        self.session_id
    }

    /// The recording being replayed.
    pub fn path(&self) -> &std::path::Path {
        &self.path
    }

    /// Stops feeding frames (reports keep coming, unchanged) until [`Self::resume`].
    pub fn pause(&self) {
        let _ = self.controls.send(ReplayControl::Pause);
    }

    /// Continues at the recorded pacing × speed from where it paused.
    pub fn resume(&self) {
        let _ = self.controls.send(ReplayControl::Resume);
    }

    /// Changes the speed (clamped to [`MIN_REPLAY_SPEED`]..=[`MAX_REPLAY_SPEED`];
    /// `f64::INFINITY` is as fast as possible).
    pub fn set_speed(&self, speed: f64) {
        let _ = self.controls.send(ReplayControl::SetSpeed(speed));
    }

    /// Moves to program time `program_time_ns` (an agent timestamp, ns): forward by applying
    /// frames at full speed, backward by rebuilding the session (a fresh sink) from the start
    /// at full speed. The session stops right after the first frame that reaches that time.
    /// After a backward seek the report's definitions may be fewer than before (the same
    /// ones, in the same order, up to that point).
    pub fn seek_to(&self, program_time_ns: u64) {
        let _ = self.controls.send(ReplayControl::SeekTo(program_time_ns));
    }

    /// Ends the replay session now (its last report says `Disconnected`).
    pub fn stop(&self) {
        let _ = self.controls.send(ReplayControl::Stop);
    }

    /// Where the replay is.
    pub fn progress(&self) -> ReplayProgress {
        lock(&self.progress).clone()
    }

    /// Waits for the replay to finish (after its last frame, or [`Self::stop`]).
    pub fn join(mut self) {
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

pub(crate) struct ReplaySetup<S: SessionSink> {
    pub session_id: SessionId,
    pub path: PathBuf,
    pub speed: f64,
    pub make_sink: SinkFactory<S>,
    pub reports: crate::updates::ReportHub<S::Snapshot>,
    pub sessions: CommandSenders<S::Command>,
    pub publish_interval: Duration,
    pub shutting_down: Arc<AtomicBool>,
}

/// The reader [`spawn`] takes: a recording file opened by [`RecordingReader::open`] (or a
/// profile converted by `highrise_import::open`).
pub type ReplayReader = RecordingReader<BufReader<File>>;

/// Opens the recording at `path` for [`spawn`].
pub(crate) fn open(path: &std::path::Path) -> Result<ReplayReader, ReplayError> {
    RecordingReader::open(path).map_err(|source| ReplayError::Open {
        path: path.to_path_buf(),
        source,
    })
}

pub(crate) fn spawn<S: SessionSink>(
    setup: ReplaySetup<S>,
    reader: ReplayReader,
) -> Result<ReplayHandle, ReplayError> {
    let speed = clamp_speed(setup.speed);
    let progress = Arc::new(Mutex::new(ReplayProgress {
        program_time_ns: 0,
        end_program_time_ns: reader.last_agent_time_ns(),
        arrival_ns: 0,
        end_arrival_ns: reader.last_arrival_ns(),
        paused: false,
        speed,
        finished: false,
    }));
    let (control_tx, control_rx) = bounded(64);
    let (command_tx, command_rx) = bounded(64);
    lock(&setup.sessions).insert(
        setup.session_id,
        SessionHandle {
            commands: command_tx,
            controls: None,
            detach: None,
        },
    );
    let session_id = setup.session_id;
    let path = setup.path.clone();
    let thread_progress = Arc::clone(&progress);
    let sessions = Arc::clone(&setup.sessions);
    let thread = std::thread::Builder::new()
        .name(format!("highrise-replay-{session_id}"))
        .spawn(move || {
            let offset = reader.data_start();
            let mut replay = Replay {
                reader,
                processor: new_processor(&setup),
                setup,
                offset,
                pending: None,
                last_applied_arrival_ns: 0,
                anchor: None,
                speed,
                paused: false,
                stopped: false,
                progress: thread_progress,
                commands: command_rx,
            };
            replay.run(&control_rx);
            lock(&replay.setup.sessions).remove(&session_id);
        });
    let thread = match thread {
        Ok(thread) => thread,
        Err(error) => {
            lock(&sessions).remove(&session_id);
            return Err(ReplayError::Thread(error));
        }
    };
    Ok(ReplayHandle {
        session_id,
        path,
        controls: control_tx,
        progress,
        thread: Some(thread),
    })
}

fn clamp_speed(speed: f64) -> f64 {
    if speed.is_nan() {
        1.0
    } else if speed == f64::INFINITY {
        f64::INFINITY
    } else {
        speed.clamp(MIN_REPLAY_SPEED, MAX_REPLAY_SPEED)
    }
}

fn new_processor<S: SessionSink>(setup: &ReplaySetup<S>) -> SessionProcessor<S> {
    let make_sink = Arc::clone(&setup.make_sink);
    SessionProcessor::for_replay(setup.session_id, setup.path.clone(), move |hello| {
        make_sink(hello)
    })
}

struct Replay<S: SessionSink> {
    reader: ReplayReader,
    processor: SessionProcessor<S>,
    setup: ReplaySetup<S>,
    /// File offset of the next frame to read.
    offset: u64,
    /// A frame read but not yet due.
    pending: Option<RecordedFrame>,
    last_applied_arrival_ns: u64,
    /// Wall time at which the frame of `last_applied_arrival_ns` counts as applied; frames
    /// are due `(arrival - last_applied_arrival) / speed` after it.
    anchor: Option<Instant>,
    speed: f64,
    paused: bool,
    stopped: bool,
    progress: Arc<Mutex<ReplayProgress>>,
    commands: Receiver<S::Command>,
}

impl<S: SessionSink> Replay<S> {
    fn run(&mut self, controls: &Receiver<ReplayControl>) {
        let mut publisher = Publisher::new(self.setup.reports.clone());
        publisher.publish(&mut self.processor.session, true);
        let mut last_publish = Instant::now();
        loop {
            if self.setup.shutting_down.load(Ordering::Relaxed) {
                self.processor.end(SessionEnd::ServerShutdown);
                break;
            }
            while let Ok(command) = self.commands.try_recv() {
                self.processor.command(command);
            }
            while let Ok(control) = controls.try_recv() {
                self.control(control);
            }
            if self.stopped {
                self.processor.end(SessionEnd::Disconnected);
                break;
            }
            if last_publish.elapsed() >= self.setup.publish_interval {
                publisher.publish(&mut self.processor.session, false);
                self.update_progress(false);
                last_publish = Instant::now();
            }
            if self.paused {
                self.wait(controls, self.setup.publish_interval);
                continue;
            }
            let Some(frame) = self.next_frame() else {
                self.processor.finish();
                break;
            };
            let now = Instant::now();
            let due = self.due(frame.arrival_ns, now);
            if due > now {
                self.pending = Some(frame);
                self.wait(controls, (due - now).min(self.setup.publish_interval));
                continue;
            }
            if self.apply(&frame) {
                break;
            }
        }
        self.update_progress(true);
        publisher.publish_final(&mut self.processor.session);
    }

    /// Blocks for up to `timeout` on the controls, handling one if it comes.
    fn wait(&mut self, controls: &Receiver<ReplayControl>, timeout: Duration) {
        match controls.recv_timeout(timeout) {
            Ok(control) => self.control(control),
            Err(RecvTimeoutError::Timeout | RecvTimeoutError::Disconnected) => {
                if timeout.is_zero() {
                    std::thread::yield_now();
                }
            }
        }
    }

    fn control(&mut self, control: ReplayControl) {
        match control {
            ReplayControl::Pause => self.paused = true,
            ReplayControl::Resume => {
                self.paused = false;
                self.anchor = None;
            }
            ReplayControl::SetSpeed(speed) => {
                self.speed = clamp_speed(speed);
                self.anchor = None;
            }
            ReplayControl::SeekTo(program_time_ns) => self.seek_to(program_time_ns),
            ReplayControl::Stop => self.stopped = true,
        }
        self.update_progress(false);
    }

    /// When the frame that arrived at `arrival_ns` is due.
    fn due(&mut self, arrival_ns: u64, now: Instant) -> Instant {
        let anchor = *self.anchor.get_or_insert(now);
        if self.speed == f64::INFINITY {
            return anchor;
        }
        let delta_ns = arrival_ns.saturating_sub(self.last_applied_arrival_ns) as f64 / self.speed;
        anchor + Duration::from_nanos(delta_ns.min(u64::MAX as f64 / 2.0) as u64)
    }

    fn next_frame(&mut self) -> Option<RecordedFrame> {
        if let Some(frame) = self.pending.take() {
            return Some(frame);
        }
        let mut frame = RecordedFrame::default();
        match self.reader.read_frame_at(self.offset, &mut frame) {
            Ok(Some(next_offset)) => {
                self.offset = next_offset;
                Some(frame)
            }
            Ok(None) => None,
            Err(error) => {
                // A damaged record ends the replay like a broken stream ends a session.
                tracing::warn!(%error, "replay stopped at a damaged record");
                self.processor
                    .end(SessionEnd::Failed(crate::SessionError::Io(
                        error.to_string(),
                    )));
                None
            }
        }
    }

    /// Applies one frame; true when the session has ended.
    fn apply(&mut self, frame: &RecordedFrame) -> bool {
        let ended = self.processor.feed_frame(&frame.frame);
        if let Some(anchor) = self.anchor.as_mut() {
            if self.speed.is_finite() {
                let delta_ns = frame
                    .arrival_ns
                    .saturating_sub(self.last_applied_arrival_ns)
                    as f64
                    / self.speed;
                *anchor += Duration::from_nanos(delta_ns as u64);
            }
        }
        self.last_applied_arrival_ns = frame.arrival_ns;
        ended
    }

    fn seek_to(&mut self, program_time_ns: u64) {
        if program_time_ns < self.processor.last_timestamp_ns() {
            // Backward: a fresh session from the start.
            self.processor = new_processor(&self.setup);
            self.offset = self.reader.data_start();
            self.pending = None;
            self.last_applied_arrival_ns = 0;
        }
        while self.processor.last_timestamp_ns() < program_time_ns {
            let Some(frame) = self.next_frame() else {
                break;
            };
            if self.apply(&frame) {
                break;
            }
        }
        self.anchor = None;
        self.processor.session.mark_dirty();
    }

    fn update_progress(&self, finished: bool) {
        let mut progress = lock(&self.progress);
        progress.program_time_ns = self.processor.last_timestamp_ns();
        progress.arrival_ns = self.last_applied_arrival_ns;
        progress.paused = self.paused;
        progress.speed = self.speed;
        progress.finished = finished || self.processor.is_ended();
    }
}
