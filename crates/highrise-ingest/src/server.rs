//! The listener: accepts connections and starts a reader task and a worker thread for each.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use crossbeam_channel::bounded;
use highrise_protocol::Hello;
use tokio::net::TcpListener;
use tokio::runtime::Runtime;

use crate::config::IngestConfig;
use crate::connection::{read_connection, Handshake, ReaderItem};
use crate::local::LocalSessions;
use crate::replay::{ReplayError, ReplayHandle};
use crate::session::{Control, RecordPlan};
use crate::session_report::{RecordingError, RecordingStatus, SessionError, SessionId};
use crate::sink::SessionSink;
use crate::spawner::{lock, SessionSpawner};
use crate::token::token_for_peer;
use crate::updates::{ReportHub, Updates};

/// How long [`IngestServer::start_recording`] and [`IngestServer::stop_recording`] wait for
/// the session's worker to answer.
const CONTROL_REPLY_TIMEOUT: Duration = Duration::from_secs(5);

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

    /// [`Self::open_replay`] of a recording already opened: `highrise_import::open` opens
    /// another tool's profile too, converting it first (a caller may do that on a thread of its
    /// own).
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
                    let message = highrise_guard::panic_message(error.into_panic().as_ref());
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
