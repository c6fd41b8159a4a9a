//! The listener: accepts connections and starts a reader task and a worker thread for each.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use crossbeam_channel::{bounded, Receiver, Sender};
use highrise_protocol::Hello;
use tokio::net::TcpListener;
use tokio::runtime::Runtime;

use crate::config::IngestConfig;
use crate::connection::read_connection;
use crate::report::{SessionId, SessionReport};
use crate::session::{run_worker, WorkerSetup};
use crate::sink::SessionSink;

/// Commands waiting to reach a session's worker, at most this many at once.
const COMMAND_QUEUE_CAPACITY: usize = 64;

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

type CommandSenders<C> = Arc<Mutex<HashMap<SessionId, Sender<C>>>>;

/// A running ingest server. Dropping it (or [`IngestServer::shutdown`]) stops listening and
/// ends every session with [`crate::SessionEnd::ServerShutdown`].
pub struct IngestServer<S: SessionSink> {
    local_addr: SocketAddr,
    reports: Receiver<SessionReport<S::Snapshot>>,
    commands: CommandSenders<S::Command>,
    shutting_down: Arc<AtomicBool>,
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
        let (report_tx, reports) = bounded(config.report_channel_capacity.max(1));
        let commands: CommandSenders<S::Command> = Arc::default();
        let shutting_down = Arc::new(AtomicBool::new(false));
        runtime.spawn(accept_loop(
            listener,
            config,
            Arc::new(make_sink),
            report_tx,
            Arc::clone(&commands),
            Arc::clone(&shutting_down),
        ));
        tracing::info!(%local_addr, "ingest listening");
        Ok(Self {
            local_addr,
            reports,
            commands,
            shutting_down,
            runtime: Some(runtime),
        })
    }

    /// The address actually bound.
    pub fn local_addr(&self) -> SocketAddr {
        self.local_addr
    }

    /// Session reports, newest state of each session as it changes. A session's last report
    /// has an ended status.
    pub fn updates(&self) -> &Receiver<SessionReport<S::Snapshot>> {
        &self.reports
    }

    /// Sends a command to a live session's sink. False if the session is gone or its command
    /// queue is full.
    pub fn send_command(&self, session_id: SessionId, command: S::Command) -> bool {
        let senders = match self.commands.lock() {
            Ok(senders) => senders,
            Err(poisoned) => poisoned.into_inner(),
        };
        senders
            .get(&session_id)
            .is_some_and(|sender| sender.try_send(command).is_ok())
    }

    /// Stops listening and ends all sessions.
    pub fn shutdown(mut self) {
        self.stop();
    }

    fn stop(&mut self) {
        self.shutting_down.store(true, Ordering::Relaxed);
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

async fn accept_loop<S, F>(
    listener: TcpListener,
    config: IngestConfig,
    make_sink: Arc<F>,
    reports: Sender<SessionReport<S::Snapshot>>,
    commands: CommandSenders<S::Command>,
    shutting_down: Arc<AtomicBool>,
) where
    S: SessionSink,
    F: Fn(&Hello) -> S + Send + Sync + 'static,
{
    let next_session_id = AtomicU64::new(1);
    loop {
        let (stream, peer) = match listener.accept().await {
            Ok(accepted) => accepted,
            Err(error) => {
                // Per-connection accept failures (e.g. the peer reset before accept, or the
                // process is out of descriptors) must not stop the listener.
                tracing::warn!(%error, "accept failed");
                tokio::time::sleep(std::time::Duration::from_millis(10)).await;
                continue;
            }
        };
        let _ = stream.set_nodelay(true);
        let session_id = next_session_id.fetch_add(1, Ordering::Relaxed);
        let (item_tx, item_rx) = bounded(config.frame_queue_capacity.max(1));
        let (command_tx, command_rx) = bounded(COMMAND_QUEUE_CAPACITY);
        lock(&commands).insert(session_id, command_tx);
        let setup = WorkerSetup::<S, F> {
            session_id,
            peer,
            items: item_rx,
            commands: command_rx,
            reports: reports.clone(),
            make_sink: Arc::clone(&make_sink),
            publish_interval: config.publish_interval,
            shutting_down: Arc::clone(&shutting_down),
        };
        let worker_commands = Arc::clone(&commands);
        let spawned = std::thread::Builder::new()
            .name(format!("highrise-session-{session_id}"))
            .spawn(move || {
                run_worker(setup);
                lock(&worker_commands).remove(&session_id);
            });
        if let Err(error) = spawned {
            tracing::error!(%error, session_id, "cannot start a session worker; closing the connection");
            lock(&commands).remove(&session_id);
            continue;
        }
        tracing::debug!(session_id, %peer, "session accepted");
        tokio::spawn(read_connection(stream, session_id, item_tx));
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    match mutex.lock() {
        Ok(guard) => guard,
        Err(poisoned) => poisoned.into_inner(),
    }
}
