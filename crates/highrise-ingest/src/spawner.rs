//! Starting sessions: the [`SessionSpawner`] registers a session's command queues and runs its
//! worker thread, for the accept loop (`server.rs`), in-process sessions (`local.rs`) and the
//! handles replays (`replay.rs`) share.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crossbeam_channel::{bounded, Sender};

use crate::connection::ReaderItem;
use crate::session::{run_worker, Control, RecordPlan, WorkerSetup};
use crate::session_report::SessionId;
use crate::sink::{SessionSink, SinkFactory};
use crate::updates::ReportHub;

/// Commands waiting to reach a session's worker, at most this many at once.
pub(crate) const COMMAND_QUEUE_CAPACITY: usize = 64;

/// How the server reaches a session's worker.
pub(crate) struct SessionHandle<C> {
    pub commands: Sender<C>,
    /// `None` for replays (they have their own controls).
    pub controls: Option<Sender<Control>>,
    /// Closes a live connection ([`crate::IngestServer::detach_session`]); `None` for sessions fed
    /// from inside the process.
    pub detach: Option<Arc<tokio::sync::Notify>>,
}

pub(crate) type CommandSenders<C> = Arc<Mutex<HashMap<SessionId, SessionHandle<C>>>>;

/// Starts sessions: registers a session's command queues and runs its worker thread. Shared by
/// the accept loop and [`crate::LocalSessions`].
pub(crate) struct SessionSpawner<S: SessionSink> {
    pub(crate) make_sink: SinkFactory<S>,
    pub(crate) reports: ReportHub<S::Snapshot>,
    pub(crate) commands: CommandSenders<S::Command>,
    pub(crate) shutting_down: Arc<AtomicBool>,
    pub(crate) next_session_id: Arc<AtomicU64>,
    pub(crate) publish_interval: Duration,
    pub(crate) frame_queue_capacity: usize,
    pub(crate) record_to: Option<RecordPlan>,
}

impl<S: SessionSink> Clone for SessionSpawner<S> {
    fn clone(&self) -> Self {
        Self {
            make_sink: Arc::clone(&self.make_sink),
            reports: self.reports.clone(),
            commands: Arc::clone(&self.commands),
            shutting_down: Arc::clone(&self.shutting_down),
            next_session_id: Arc::clone(&self.next_session_id),
            publish_interval: self.publish_interval,
            frame_queue_capacity: self.frame_queue_capacity,
            record_to: self.record_to.clone(),
        }
    }
}

/// What feeds a started session's worker.
pub(crate) struct SpawnedSession {
    pub session_id: SessionId,
    pub items: Sender<ReaderItem>,
    /// Set while the session is recorded: the feeder hands over each frame's raw payload.
    pub tee_raw: Arc<AtomicBool>,
    /// Notified to close the connection ([`crate::IngestServer::detach_session`]).
    pub detach: Arc<tokio::sync::Notify>,
}

impl<S: SessionSink> SessionSpawner<S> {
    /// Starts a session fed from inside this process: no connection to detach.
    pub(crate) fn spawn_local(&self, peer: SocketAddr) -> Option<SpawnedSession> {
        let spawned = self.spawn(peer)?;
        if let Some(handle) = lock(&self.commands).get_mut(&spawned.session_id) {
            handle.detach = None;
        }
        Some(spawned)
    }

    /// Starts a session's worker; `None` if no thread could be started.
    pub(crate) fn spawn(&self, peer: SocketAddr) -> Option<SpawnedSession> {
        let session_id = self.next_session_id.fetch_add(1, Ordering::Relaxed);
        let (item_tx, item_rx) = bounded(self.frame_queue_capacity);
        let (command_tx, command_rx) = bounded(COMMAND_QUEUE_CAPACITY);
        let (control_tx, control_rx) = bounded(COMMAND_QUEUE_CAPACITY);
        let detach = Arc::new(tokio::sync::Notify::new());
        lock(&self.commands).insert(
            session_id,
            SessionHandle {
                commands: command_tx,
                controls: Some(control_tx),
                detach: Some(Arc::clone(&detach)),
            },
        );
        let tee_raw = Arc::new(AtomicBool::new(self.record_to.is_some()));
        let setup = WorkerSetup::<S> {
            session_id,
            peer,
            items: item_rx,
            commands: command_rx,
            controls: control_rx,
            reports: self.reports.clone(),
            make_sink: Arc::clone(&self.make_sink),
            publish_interval: self.publish_interval,
            shutting_down: Arc::clone(&self.shutting_down),
            tee_raw: Arc::clone(&tee_raw),
            record_to: self.record_to.clone(),
        };
        let worker_commands = Arc::clone(&self.commands);
        let spawned = std::thread::Builder::new()
            .name(format!("highrise-session-{session_id}"))
            .spawn(move || {
                run_worker(setup);
                lock(&worker_commands).remove(&session_id);
            });
        if let Err(error) = spawned {
            tracing::error!(%error, session_id, "cannot start a session worker");
            lock(&self.commands).remove(&session_id);
            return None;
        }
        Some(SpawnedSession {
            session_id,
            items: item_tx,
            tee_raw,
            detach,
        })
    }
}

/// Locks `mutex`, whether or not a thread panicked holding it.
pub(crate) fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    match mutex.lock() {
        Ok(guard) => guard,
        Err(poisoned) => poisoned.into_inner(),
    }
}
