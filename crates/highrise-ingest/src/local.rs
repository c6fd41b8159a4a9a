//! Sessions fed from inside this process instead of a socket: a bridge that translates another
//! protocol (OTLP, `highrise-otlp`) into agent messages opens one per program it sees. They run
//! the same worker, sink, recording and reports as agent sessions; only the reader is replaced.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crossbeam_channel::{SendTimeoutError, Sender};
use highrise_protocol::{encode_message, AgentMessage, Hello, FRAME_HEADER_BYTES};

use crate::connection::ReaderItem;
use crate::session_report::SessionId;
use crate::sink::SessionSink;
use crate::spawner::SessionSpawner;

type Opener = dyn Fn(Hello, SocketAddr) -> Option<LocalSession> + Send + Sync;

/// Opens in-process sessions on an [`crate::IngestServer`] ([`crate::IngestServer::local_sessions`]).
/// Cheap to clone and `Send`, so a bridge thread can keep one.
#[derive(Clone)]
pub struct LocalSessions {
    open: Arc<Opener>,
}

impl std::fmt::Debug for LocalSessions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("LocalSessions")
    }
}

impl LocalSessions {
    pub(crate) fn new<S: SessionSink>(spawner: SessionSpawner<S>) -> Self {
        Self {
            open: Arc::new(move |hello, peer| {
                if spawner.shutting_down.load(Ordering::Relaxed) {
                    return None;
                }
                let spawned = spawner.spawn_local(peer)?;
                let mut session = LocalSession {
                    session_id: spawned.session_id,
                    items: spawned.items,
                    tee_raw: spawned.tee_raw,
                    closed: false,
                };
                let (_, frame_bytes) = encode_frame(&AgentMessage::Hello(hello.clone()));
                let opened = ReaderItem::Opened {
                    hello,
                    frame_bytes,
                    arrived: Some(Instant::now()),
                    raw: None,
                };
                session.push(opened).ok()?;
                Some(session)
            }),
        }
    }

    /// Opens a session that says `hello`, as if an agent at `peer` had connected. `None` when
    /// the server is shutting down or no worker thread could be started.
    pub fn open(&self, hello: Hello, peer: SocketAddr) -> Option<LocalSession> {
        (self.open)(hello, peer)
    }
}

/// The session's worker is gone (the server shut down), or did not take a message in time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the session no longer takes messages")]
pub struct SessionClosed;

/// How long [`LocalSession::send`] waits for room in the session's queue before giving up.
const SEND_TIMEOUT: Duration = Duration::from_secs(5);

/// One in-process session: messages in stream order, as an agent would send them after its
/// Hello. Dropping it before a `Goodbye` ends the session as disconnected.
#[derive(Debug)]
pub struct LocalSession {
    session_id: SessionId,
    items: Sender<ReaderItem>,
    tee_raw: Arc<AtomicBool>,
    closed: bool,
}

impl LocalSession {
    pub fn id(&self) -> SessionId {
        self.session_id
    }

    /// Hands `message` to the session's worker, waiting while its queue is full (at most a few
    /// seconds: the caller is pushed back, as TCP pushes an agent back). A `Goodbye` ends the
    /// session: its final report follows, and nothing more is taken.
    pub fn send(&mut self, message: AgentMessage) -> Result<(), SessionClosed> {
        if self.closed {
            return Err(SessionClosed);
        }
        let (encoded, frame_bytes) = encode_frame(&message);
        // A recording keeps the frame as "received": the encoding of what was handed over.
        let raw = self.tee_raw.load(Ordering::Relaxed).then_some(encoded);
        let goodbye = matches!(message, AgentMessage::Goodbye { .. });
        let pushed = self.push(ReaderItem::Message {
            message,
            frame_bytes,
            arrived: Some(Instant::now()),
            raw,
        });
        self.closed |= goodbye;
        pushed
    }

    fn push(&mut self, item: ReaderItem) -> Result<(), SessionClosed> {
        match self.items.send_timeout(item, SEND_TIMEOUT) {
            Ok(()) => Ok(()),
            Err(SendTimeoutError::Timeout(_)) | Err(SendTimeoutError::Disconnected(_)) => {
                self.closed = true;
                Err(SessionClosed)
            }
        }
    }
}

impl Drop for LocalSession {
    fn drop(&mut self) {
        if !self.closed {
            let _ = self.items.try_send(ReaderItem::Closed(None));
        }
    }
}

/// A message's encoding, and the bytes its frame would take on a socket (for the stats).
fn encode_frame(message: &AgentMessage) -> (Vec<u8>, u64) {
    let encoded = encode_message(message);
    let frame_bytes = (encoded.len() + FRAME_HEADER_BYTES) as u64;
    (encoded, frame_bytes)
}
