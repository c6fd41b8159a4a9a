//! The reading side of a connection: a tokio task that turns socket bytes into decoded
//! messages for the session's worker. It checks the framing and the Hello (and answers it);
//! everything about the content is the worker's business.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crossbeam_channel::{Sender, TrySendError};
use highrise_protocol::{
    decode_agent_message, decode_hello, encode_frame, encode_message, peek_hello_header,
    AgentMessage, Decoded, FrameDecoder, Hello, ProtocolError, ViewerMessage, PROTOCOL_VERSION,
};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;
use tokio::sync::Notify;

use crate::session_report::{SessionError, SessionId};
use crate::token::check_token;

/// Who is connecting, and what their Hello must show for it.
#[derive(Debug)]
pub(crate) struct Handshake {
    pub peer: SocketAddr,
    /// The token this peer's Hello must carry; `None` for loopback peers or a server without
    /// a token.
    pub token: Option<Arc<str>>,
}

/// What the reader hands the worker, in stream order.
#[derive(Debug)]
pub(crate) enum ReaderItem {
    /// The accepted Hello; always the first item of a session that got that far.
    Opened {
        hello: Hello,
        frame_bytes: u64,
        arrived: Option<Instant>,
        raw: Option<Vec<u8>>,
    },
    /// A decoded message after the Hello.
    Message {
        message: AgentMessage,
        frame_bytes: u64,
        /// When the reader had read the frame (for recordings).
        arrived: Option<Instant>,
        /// The payload as received, kept only while the session is recorded.
        raw: Option<Vec<u8>>,
    },
    /// A frame whose payload could not be decoded; the framing is intact, so it is skipped.
    Skipped {
        error: ProtocolError,
        frame_bytes: u64,
        arrived: Option<Instant>,
        raw: Option<Vec<u8>>,
    },
    /// The stream is over: `None` for a close between frames, else why it broke.
    Closed(Option<SessionError>),
    /// The viewer closed the connection ([`crate::IngestServer::detach_session`]).
    Detached,
}

impl ReaderItem {
    /// When the frame arrived (live frames only).
    pub(crate) fn arrived(&self) -> Option<Instant> {
        match self {
            Self::Opened { arrived, .. }
            | Self::Message { arrived, .. }
            | Self::Skipped { arrived, .. } => *arrived,
            Self::Closed(_) | Self::Detached => None,
        }
    }
}

/// How long the reader waits between attempts when the worker's queue is full. While it
/// waits it does not read: TCP flow control then slows the agent down.
const QUEUE_FULL_BACKOFF: Duration = Duration::from_millis(1);

pub(crate) async fn read_connection(
    stream: TcpStream,
    session_id: SessionId,
    handshake: Handshake,
    items: Sender<ReaderItem>,
    tee_raw: Arc<AtomicBool>,
    detach: Arc<Notify>,
) {
    let (read_half, mut write_half) = stream.into_split();
    let mut reader = BufReader::with_capacity(256 * 1024, read_half);
    let mut payload = Vec::new();

    // The Hello: checked and answered here, so a foreign or mismatched peer is told at once.
    // The worker hears of the session before the agent does, so a consumer that reacts to the
    // Welcome already finds the session open.
    match read_frame(&mut reader, &mut payload).await {
        Ok(Some(frame_bytes)) => match check_first_hello(&payload, &handshake) {
            Ok((hello, had_token)) => {
                // A recording gets the Hello as received, less the token: a credential is no
                // part of the session and must not end up in files.
                let raw = tee_raw.load(Ordering::Relaxed).then(|| {
                    if had_token {
                        encode_message(&AgentMessage::Hello(hello.clone()))
                    } else {
                        std::mem::take(&mut payload)
                    }
                });
                let opened = ReaderItem::Opened {
                    hello,
                    frame_bytes,
                    arrived: Some(Instant::now()),
                    raw,
                };
                if !send(&items, opened).await {
                    return;
                }
                let welcome = ViewerMessage::Welcome {
                    protocol_version: PROTOCOL_VERSION,
                    session_id,
                };
                // The agent may ignore the answer or be gone already: not our failure.
                let _ = write_frame_async(&mut write_half, &welcome).await;
            }
            Err(error) => {
                if let SessionError::Unauthorized(_) = error {
                    tracing::warn!(
                        session_id,
                        peer = %handshake.peer,
                        "agent refused: {error}"
                    );
                }
                let reject = ViewerMessage::Reject {
                    protocol_version: PROTOCOL_VERSION,
                    reason: error.to_string(),
                };
                let _ = write_frame_async(&mut write_half, &reject).await;
                let _ = write_half.shutdown().await;
                send(&items, ReaderItem::Closed(Some(error))).await;
                // Closing with the agent's later frames unread would reset the connection, and
                // a reset can destroy the Reject before the agent reads it: discard what
                // arrives for a moment (the mirror of SPEC rule 8), so the agent learns why.
                drain_briefly(&mut reader).await;
                return;
            }
        },
        Ok(None) => {
            send(&items, ReaderItem::Closed(None)).await;
            return;
        }
        Err(error) => {
            send(&items, ReaderItem::Closed(Some(error))).await;
            return;
        }
    }

    loop {
        let read = tokio::select! {
            biased;
            () = detach.notified() => None,
            read = read_frame(&mut reader, &mut payload) => Some(read),
        };
        let Some(read) = read else {
            // Closing both halves: the agent's next write fails, its session ends, and an
            // attached agent takes itself out (a frame half read is dropped with the stream).
            let _ = write_half.shutdown().await;
            send(&items, ReaderItem::Detached).await;
            return;
        };
        let item = match read {
            Ok(Some(frame_bytes)) => match decode_agent_message(&payload) {
                Ok(message) => {
                    let goodbye = matches!(message, AgentMessage::Goodbye { .. });
                    // Only while recording: the payload moves out (the next read allocates).
                    let raw = tee_raw
                        .load(Ordering::Relaxed)
                        .then(|| std::mem::take(&mut payload));
                    let item = ReaderItem::Message {
                        message,
                        frame_bytes,
                        arrived: Some(Instant::now()),
                        raw,
                    };
                    if !send(&items, item).await {
                        return;
                    }
                    if goodbye {
                        // Nothing may follow a Goodbye; stop reading and let the worker end it.
                        return;
                    }
                    continue;
                }
                Err(error) => ReaderItem::Skipped {
                    error,
                    frame_bytes,
                    arrived: Some(Instant::now()),
                    raw: Some(payload.clone()),
                },
            },
            Ok(None) => ReaderItem::Closed(None),
            Err(error) => ReaderItem::Closed(Some(error)),
        };
        let closed = matches!(item, ReaderItem::Closed(_));
        if !send(&items, item).await || closed {
            return;
        }
    }
}

/// Checks a first frame: magic and version ([`peek_hello_header`]), then the whole Hello. A
/// token it carries is not looked at (replays; see [`check_first_hello`] for live peers).
pub(crate) fn check_hello(payload: &[u8]) -> Result<Hello, SessionError> {
    peek_hello_header(payload)?;
    Ok(decode_hello(payload)?.0)
}

/// Checks a live connection's first frame as [`check_hello`] does, and its token against what
/// `handshake` requires. Returns the Hello and whether it carried a token.
fn check_first_hello(payload: &[u8], handshake: &Handshake) -> Result<(Hello, bool), SessionError> {
    peek_hello_header(payload)?;
    let (hello, token) = decode_hello(payload)?;
    check_token(handshake.token.as_deref(), token.as_deref())?;
    Ok((hello, token.is_some()))
}

/// How long, and how many bytes at most, a rejected connection is read (and discarded) before
/// it is closed.
const REJECT_DRAIN: Duration = Duration::from_millis(500);
const REJECT_DRAIN_MAX_BYTES: usize = 1 << 20;

async fn drain_briefly<R: AsyncRead + Unpin>(reader: &mut R) {
    let mut scratch = [0u8; 8192];
    let mut drained = 0;
    let _ = tokio::time::timeout(REJECT_DRAIN, async {
        while drained < REJECT_DRAIN_MAX_BYTES {
            match reader.read(&mut scratch).await {
                Ok(0) | Err(_) => break,
                Ok(n) => drained += n,
            }
        }
    })
    .await;
}

/// Reads one frame into `payload` with the protocol's [`FrameDecoder`] (the rules the
/// blocking reader follows too). `Ok(None)`: clean end of stream between frames.
/// `Ok(Some(n))`: a frame of `n` bytes including its header.
async fn read_frame<R: AsyncRead + Unpin>(
    reader: &mut R,
    payload: &mut Vec<u8>,
) -> Result<Option<u64>, SessionError> {
    let mut decoder = FrameDecoder::default();
    loop {
        let read = match reader.read(decoder.unfilled(payload)).await {
            Ok(read) => read,
            Err(error) if error.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(error) => return Err(SessionError::io(&error)),
        };
        match decoder.advance(read, payload)? {
            Decoded::NeedMore => {}
            Decoded::Frame { frame_bytes } => return Ok(Some(frame_bytes)),
            Decoded::End => return Ok(None),
        }
    }
}

async fn write_frame_async(
    writer: &mut tokio::net::tcp::OwnedWriteHalf,
    message: &ViewerMessage,
) -> std::io::Result<()> {
    let frame = encode_frame(message).map_err(std::io::Error::other)?;
    writer.write_all(&frame).await
}

/// Hands an item to the worker, waiting (without reading the socket) while its queue is full.
/// Returns false when the worker is gone.
async fn send(items: &Sender<ReaderItem>, mut item: ReaderItem) -> bool {
    loop {
        match items.try_send(item) {
            Ok(()) => return true,
            Err(TrySendError::Disconnected(_)) => return false,
            Err(TrySendError::Full(returned)) => {
                item = returned;
                tokio::time::sleep(QUEUE_FULL_BACKOFF).await;
            }
        }
    }
}
