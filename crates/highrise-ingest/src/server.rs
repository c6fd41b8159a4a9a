//! The listener: accepts connections and starts a reader task and a worker thread for each.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crossbeam_channel::{bounded, Sender};
use highrise_protocol::Hello;
use tokio::net::TcpListener;
use tokio::runtime::Runtime;

use crate::config::IngestConfig;
use crate::connection::{read_connection, Handshake, ReaderItem};
use crate::local::LocalSessions;
use crate::replay::{ReplayError, ReplayHandle};
use crate::session::{run_worker, Control, RecordPlan, WorkerSetup};
use crate::session_report::{RecordingStatus, SessionError, SessionId};
use crate::sink::SessionSink;
use crate::token::token_for_peer;
use crate::updates::{ReportHub, Updates};

/// Commands waiting to reach a session's worker, at most this many at once.
const COMMAND_QUEUE_CAPACITY: usize = 64;

/// How long [`IngestServer::start_recording`] and [`IngestServer::stop_recording`] wait for
/// the session's worker to answer.
const CONTROL_REPLY_TIMEOUT: Duration = Duration::from_secs(5);

/// Builds a session's sink from its Hello.
pub(crate) type SinkFactory<S> = Arc<dyn Fn(&Hello) -> S + Send + Sync>;

/// Starting or stopping a session's recording failed. The session itself is never affected.
#[derive(Debug, thiserror::Error)]
pub enum RecordingError {
    #[error("no live session {0}")]
    NoSuchSession(SessionId),
    #[error("the session is already being recorded to {}", path.display())]
    AlreadyRecording { path: PathBuf },
    #[error("the session has not said Hello yet; nothing to record")]
    NotOpen,
    #[error("cannot create the recording {}: {source}", path.display())]
    Create {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot write the recording: {0}")]
    Write(String),
    #[error("the session did not answer in time")]
    Timeout,
}

/// Starting the server failed.
#[derive(Debug, thiserror::Error)]
pub enum IngestError {
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        addr: SocketAddr,
        source: std::io::Error,
    },
    #[error("cannot start the ingest runtime: {0}")]
    Runtime(std::io::Error),
}

/// How the server reaches a session's worker.
pub(crate) struct SessionHandle<C> {
    pub commands: Sender<C>,
    /// `None` for replays (they have their own controls).
    pub controls: Option<Sender<Control>>,
    /// Closes a live connection ([`IngestServer::detach_session`]); `None` for sessions fed
    /// from inside the process.
    pub detach: Option<Arc<tokio::sync::Notify>>,
}

pub(crate) type CommandSenders<C> = Arc<Mutex<HashMap<SessionId, SessionHandle<C>>>>;

/// A running ingest server. Dropping it (or [`IngestServer::shutdown`]) stops listening and
/// ends every session with [`crate::SessionEnd::ServerShutdown`].
pub struct IngestServer<S: SessionSink> {
    local_addr: SocketAddr,
    updates: Updates<S::Snapshot>,
    /// What every session shares (sinks, consumers, command queues, ids, the shutdown flag).
    spawner: SessionSpawner<S>,
    runtime: Option<Runtime>,
}

impl<S: SessionSink> std::fmt::Debug for IngestServer<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("IngestServer")
            .field("local_addr", &self.local_addr)
            .finish_non_exhaustive()
    }
}

impl<S: SessionSink> IngestServer<S> {
    /// Binds `config.listen_addr` (port 0 picks a free port) and starts accepting agents.
    /// `make_sink` builds each session's sink from its Hello.
    pub fn start<F>(config: IngestConfig, make_sink: F) -> Result<Self, IngestError>
    where
        F: Fn(&Hello) -> S + Send + Sync + 'static,
    {
        let std_listener = std::net::TcpListener::bind(config.listen_addr).map_err(|source| {
            IngestError::Bind {
                addr: config.listen_addr,
                source,
            }
        })?;
        let local_addr = std_listener
            .local_addr()
            .map_err(|source| IngestError::Bind {
                addr: config.listen_addr,
                source,
            })?;
        std_listener
            .set_nonblocking(true)
            .map_err(|source| IngestError::Bind {
                addr: config.listen_addr,
                source,
            })?;
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("highrise-ingest")
            .enable_io()
            .enable_time()
            .build()
            .map_err(IngestError::Runtime)?;
        let listener = {
            let _entered = runtime.enter();
            TcpListener::from_std(std_listener).map_err(|source| IngestError::Bind {
                addr: config.listen_addr,
                source,
            })?
        };
        let (hub, updates) = ReportHub::new();
        let record_to = config.record_sessions_to.clone().map(|target| {
            let plan: RecordPlan = Arc::new(move |session_id, hello| {
                crate::config::recording_path(&target, session_id, hello)
            });
            plan
        });
        let spawner = SessionSpawner {
            make_sink: Arc::new(make_sink),
            reports: hub,
            commands: Arc::default(),
            shutting_down: Arc::new(AtomicBool::new(false)),
            next_session_id: Arc::new(AtomicU64::new(1)),
            publish_interval: config.publish_interval,
            frame_queue_capacity: config.frame_queue_capacity.max(1),
            record_to,
        };
        let server_token: Option<Arc<str>> = config.token.as_deref().map(Arc::from);
        runtime.spawn(accept_loop(listener, server_token, spawner.clone()));
        tracing::info!(%local_addr, "ingest listening");
        Ok(Self {
            local_addr,
            updates,
            spawner,
            runtime: Some(runtime),
        })
    }

    /// The address actually bound.
    pub fn local_addr(&self) -> SocketAddr {
        self.local_addr
    }

    /// Session reports, newest state of each session as it changes: each session's first
    /// and last report (ended status) exactly once, the ones between coalesced (latest wins).
    /// Subscribed when the server started, so no session is missed.
    pub fn updates(&self) -> &Updates<S::Snapshot> {
        &self.updates
    }

    /// Another consumer's own mailbox, receiving every report published from now on (sessions
    /// already connected show up with their next report).
    pub fn subscribe(&self) -> Updates<S::Snapshot> {
        self.spawner.reports.subscribe()
    }

    /// Opens sessions fed from inside this process rather than a socket (see [`LocalSessions`]);
    /// they share this server's sinks, consumers, recording and commands.
    pub fn local_sessions(&self) -> LocalSessions {
        LocalSessions::new(self.spawner.clone())
    }

    /// Sends a command to a live session's sink. False if the session is gone or its command
    /// queue is full.
    pub fn send_command(&self, session_id: SessionId, command: S::Command) -> bool {
        let senders = match self.spawner.commands.lock() {
            Ok(senders) => senders,
            Err(poisoned) => poisoned.into_inner(),
        };
        senders
            .get(&session_id)
            .is_some_and(|handle| handle.commands.try_send(command).is_ok())
    }

    /// Closes a live agent's connection (the panel's Detach): the session ends as
    /// [`crate::SessionEnd::Detached`], and the agent, finding its connection gone, takes
    /// itself out of the program (an attached JVM's agent restores its classes and stops its
    /// sampler; the Python agent removes its hooks or sampler). False if the session is not a
    /// live connection.
    pub fn detach_session(&self, session_id: SessionId) -> bool {
        let senders = lock(&self.spawner.commands);
        let Some(detach) = senders
            .get(&session_id)
            .and_then(|handle| handle.detach.as_ref())
        else {
            return false;
        };
        detach.notify_one();
        true
    }

    /// Starts recording a live session to `path` (created or truncated), possibly in the
    /// middle of the session: the file then starts with frames synthesized from the
    /// session's state (see `agent-protocol/RECORDING.md`), and every later frame follows
    /// with its arrival time. Progress and errors appear in the session's reports
    /// (`stats.recording`); an I/O error stops the recording, never the session.
    pub fn start_recording(
        &self,
        session_id: SessionId,
        path: impl Into<PathBuf>,
    ) -> Result<(), RecordingError> {
        let (reply, answer) = bounded(1);
        self.control(
            session_id,
            Control::StartRecording {
                path: path.into(),
                reply,
            },
        )?;
        answer
            .recv_timeout(CONTROL_REPLY_TIMEOUT)
            .map_err(|_| RecordingError::Timeout)?
    }

    /// Stops a session's recording and finishes the file (footer index). Returns its final
    /// status, or `Ok(None)` if the session was not being recorded.
    pub fn stop_recording(
        &self,
        session_id: SessionId,
    ) -> Result<Option<RecordingStatus>, RecordingError> {
        let (reply, answer) = bounded(1);
        self.control(session_id, Control::StopRecording { reply })?;
        answer
            .recv_timeout(CONTROL_REPLY_TIMEOUT)
            .map_err(|_| RecordingError::Timeout)
    }

    fn control(&self, session_id: SessionId, control: Control) -> Result<(), RecordingError> {
        let senders = lock(&self.spawner.commands);
        let sender = senders
            .get(&session_id)
            .and_then(|handle| handle.controls.as_ref())
            .ok_or(RecordingError::NoSuchSession(session_id))?;
        sender
            .send_timeout(control, CONTROL_REPLY_TIMEOUT)
            .map_err(|_| RecordingError::NoSuchSession(session_id))
    }

    /// Opens a recording as a new session of this server, replayed at its recorded pacing ×
    /// `speed` on its own thread through the same session logic and sink as live sessions.
    /// Its reports arrive on [`Self::updates`] like any session's (their
    /// `stats.source` is [`crate::SessionSource::Replay`]); [`Self::send_command`] reaches its
    /// sink. Control it with the returned handle (pause, speed, seek).
    pub fn open_replay(
        &self,
        path: impl AsRef<Path>,
        speed: f64,
    ) -> Result<ReplayHandle, ReplayError> {
        let reader = crate::replay::open(path.as_ref())?;
        self.open_replay_reader(path, reader, speed)
    }

    /// [`Self::open_replay`] of a recording already opened (`RecordingReader::open`, which
    /// converts another tool's profile first: a caller may do that on a thread of its own).
    pub fn open_replay_reader(
        &self,
        path: impl AsRef<Path>,
        reader: crate::replay::ReplayReader,
        speed: f64,
    ) -> Result<ReplayHandle, ReplayError> {
        let session_id = self.spawner.next_session_id.fetch_add(1, Ordering::Relaxed);
        crate::replay::spawn(
            crate::replay::ReplaySetup {
                session_id,
                path: path.as_ref().to_path_buf(),
                speed,
                make_sink: Arc::clone(&self.spawner.make_sink),
                reports: self.spawner.reports.clone(),
                sessions: Arc::clone(&self.spawner.commands),
                publish_interval: self.spawner.publish_interval,
                shutting_down: Arc::clone(&self.spawner.shutting_down),
            },
            reader,
        )
    }

    /// Stops listening and ends all sessions.
    pub fn shutdown(mut self) {
        self.stop();
    }

    fn stop(&mut self) {
        self.spawner.shutting_down.store(true, Ordering::Relaxed);
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}

impl<S: SessionSink> Drop for IngestServer<S> {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Starts sessions: registers a session's command queues and runs its worker thread. Shared by
/// the accept loop and [`crate::LocalSessions`].
pub(crate) struct SessionSpawner<S: SessionSink> {
    make_sink: SinkFactory<S>,
    reports: ReportHub<S::Snapshot>,
    commands: CommandSenders<S::Command>,
    pub(crate) shutting_down: Arc<AtomicBool>,
    next_session_id: Arc<AtomicU64>,
    publish_interval: Duration,
    frame_queue_capacity: usize,
    record_to: Option<RecordPlan>,
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
    /// Notified to close the connection ([`IngestServer::detach_session`]).
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

async fn accept_loop<S>(
    listener: TcpListener,
    server_token: Option<Arc<str>>,
    spawner: SessionSpawner<S>,
) where
    S: SessionSink,
{
    loop {
        let (stream, peer) = match listener.accept().await {
            Ok(accepted) => accepted,
            Err(error) => {
                // Per-connection accept failures (e.g. the peer reset before accept, or the
                // process is out of descriptors) must not stop the listener.
                tracing::warn!(%error, "accept failed");
                tokio::time::sleep(Duration::from_millis(10)).await;
                continue;
            }
        };
        let _ = stream.set_nodelay(true);
        let Some(session) = spawner.spawn(peer) else {
            // Closing the connection tells the agent; it retries later.
            continue;
        };
        tracing::debug!(session_id = session.session_id, %peer, "session accepted");
        let handshake = Handshake {
            peer,
            token: token_for_peer(server_token.as_ref(), peer),
        };
        let items = session.items.clone();
        let reader = tokio::spawn(read_connection(
            stream,
            session.session_id,
            handshake,
            session.items,
            session.tee_raw,
            session.detach,
        ));
        // The reader's boundary: a panic in it (caught by tokio) fails its session with the
        // message instead of reading as a disconnection.
        tokio::spawn(async move {
            if let Err(error) = reader.await {
                if error.is_panic() {
                    let message = crate::guard::panic_message(error.into_panic().as_ref());
                    let failed = ReaderItem::Closed(Some(SessionError::Crashed(format!(
                        "{message} (in the connection's reader)"
                    ))));
                    tokio::task::spawn_blocking(move || {
                        let _ = items.send(failed);
                    });
                }
            }
        });
    }
}

pub(crate) fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    match mutex.lock() {
        Ok(guard) => guard,
        Err(poisoned) => poisoned.into_inner(),
    }
}
