//! The session's worker thread: receives the reader's items, consumer commands and recording
//! controls, runs them through the [`SessionProcessor`], tees frames to an active recording and
//! publishes reports on every tick.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use crossbeam_channel::{select, tick, Receiver, Sender};
use highrise_protocol::Hello;

use super::processor::SessionProcessor;
use super::publisher::Publisher;
use super::recorder::{start_recording, tee_bytes, Recorder};
use crate::connection::ReaderItem;
use crate::session_report::{RecordingStatus, SessionEnd, SessionError, SessionId};
use crate::sink::SessionSink;

/// Where each session is recorded to when every session is (`highrise record`).
pub(crate) type RecordPlan = Arc<dyn Fn(SessionId, &Hello) -> PathBuf + Send + Sync>;

/// Requests to a session's worker that are not the sink's business.
#[derive(Debug)]
pub(crate) enum Control {
    StartRecording {
        path: PathBuf,
        reply: Sender<Result<(), crate::session_report::RecordingError>>,
    },
    StopRecording {
        reply: Sender<Option<RecordingStatus>>,
    },
}

/// Everything a worker thread needs.
pub(crate) struct WorkerSetup<S: SessionSink> {
    pub session_id: SessionId,
    pub peer: SocketAddr,
    pub items: Receiver<ReaderItem>,
    pub commands: Receiver<S::Command>,
    pub controls: Receiver<Control>,
    pub reports: crate::updates::ReportHub<S::Snapshot>,
    pub make_sink: crate::sink::SinkFactory<S>,
    pub publish_interval: Duration,
    pub shutting_down: Arc<AtomicBool>,
    /// Set: the reader hands over each frame's raw payload (only while recording).
    pub tee_raw: Arc<AtomicBool>,
    /// Record the whole session to the path this gives (`highrise record`).
    pub record_to: Option<RecordPlan>,
}

pub(crate) fn run_worker<S: SessionSink>(setup: WorkerSetup<S>) {
    let make_sink = Arc::clone(&setup.make_sink);
    let mut processor =
        SessionProcessor::new(setup.session_id, setup.peer, move |hello| make_sink(hello));
    let mut recorder: Option<Recorder> = None;
    let ticker = tick(setup.publish_interval);
    let mut publisher = Publisher::new(setup.reports.clone());
    publisher.publish(&mut processor.session, true);
    // The session's boundary: a panic anywhere in its processing (the sink, recording,
    // publishing) fails this session with the message; the recording is finished and the
    // final report goes out as for any end.
    let served = highrise_guard::catch(|| {
        serve(
            &setup,
            &ticker,
            &mut processor,
            &mut recorder,
            &mut publisher,
        );
    });
    if let Err(message) = served {
        // The loop itself is broken: the session ends here.
        setup.tee_raw.store(false, Ordering::Relaxed);
        processor.session.crash(message);
        processor.session.end(SessionEnd::Disconnected);
    }
    if let Some(active) = recorder.take() {
        if let Err(message) = highrise_guard::catch(|| active.finish(&mut processor.session)) {
            processor.session.crash(message);
        }
    }
    // An ended session takes no more commands or controls: closed before the final report
    // goes out, so a consumer that saw the end is told so when it sends one.
    drop(setup.commands);
    drop(setup.controls);
    publisher.publish_final(&mut processor.session);
}

/// The worker's loop until the session ends.
fn serve<S: SessionSink>(
    setup: &WorkerSetup<S>,
    ticker: &Receiver<std::time::Instant>,
    processor: &mut SessionProcessor<S>,
    recorder: &mut Option<Recorder>,
    publisher: &mut Publisher<S::Snapshot>,
) {
    loop {
        select! {
            recv(setup.items) -> item => {
                let Ok(item) = item else {
                    // The reader is gone without a word: only when the server shuts down.
                    let end = if setup.shutting_down.load(Ordering::Relaxed) {
                        SessionEnd::ServerShutdown
                    } else {
                        SessionEnd::Disconnected
                    };
                    processor.session.end(end);
                    break;
                };
                let opened_hello = match &item {
                    ReaderItem::Opened { hello, .. } => Some(hello.clone()),
                    _ => None,
                };
                let record_from_start = opened_hello.is_some() && setup.record_to.is_some();
                let arrived = item.arrived();
                let tee = if recorder.is_some() || record_from_start {
                    tee_bytes(&item)
                } else {
                    None
                };
                let ended = processor.handle(item);
                if let (Some(hello), Some(record_to)) = (opened_hello, setup.record_to.as_ref()) {
                    let path = record_to(setup.session_id, &hello);
                    let hello_frame = tee.zip(arrived);
                    let started = start_recording(
                        processor,
                        recorder,
                        path,
                        &setup.tee_raw,
                        hello_frame,
                    );
                    if let Err(error) = started {
                        setup.tee_raw.store(false, Ordering::Relaxed);
                        processor.session.record_error(SessionError::Recording(error.to_string()));
                    }
                } else if let (Some(active), Some(arrived)) = (recorder.as_mut(), arrived) {
                    let agent_time_ns = processor.session.stats.last_timestamp_ns;
                    active.write(tee.as_deref(), arrived, agent_time_ns, &mut processor.session);
                    if active.failed() {
                        setup.tee_raw.store(false, Ordering::Relaxed);
                        *recorder = None;
                    }
                }
                if ended {
                    break;
                }
            },
            recv(setup.commands) -> command => {
                if let Ok(command) = command {
                    processor.command(command);
                }
            },
            recv(setup.controls) -> control => match control {
                Ok(Control::StartRecording { path, reply }) => {
                    let result =
                        start_recording(processor, recorder, path, &setup.tee_raw, None);
                    let _ = reply.send(result);
                }
                Ok(Control::StopRecording { reply }) => {
                    setup.tee_raw.store(false, Ordering::Relaxed);
                    let status = recorder.take().map(|active| active.finish(&mut processor.session));
                    let _ = reply.send(status);
                }
                Err(_) => {}
            },
            recv(ticker) -> _ => {
                if let Some(active) = recorder.as_mut() {
                    // A killed recorder process loses at most one tick of frames.
                    active.flush(&mut processor.session);
                }
                publisher.publish(&mut processor.session, false);
            },
        }
    }
}
