//! `highrise replay --addr`: a recording sent to a running viewer as a new session.

use std::io::{Read, Write};
use std::net::{Shutdown, SocketAddr, TcpStream};
use std::path::Path;
use std::time::{Duration, Instant};

use highrise_protocol::{
    decode_hello, decode_viewer_message, encode_hello, frame_payload, read_frame, replay_agent,
    ViewerMessage,
};
use highrise_record::{RecordError, RecordedFrame};

/// Sending a recording failed.
#[derive(Debug, thiserror::Error)]
pub enum SendError {
    #[error("{}: {source}", path.display())]
    Recording {
        path: std::path::PathBuf,
        source: RecordError,
    },
    #[error("cannot reach the viewer at {addr}: {source}")]
    Connect {
        addr: SocketAddr,
        source: std::io::Error,
    },
    #[error("the viewer refused the session: {0}")]
    Rejected(String),
    #[error("the connection to the viewer failed: {0}")]
    Io(#[from] std::io::Error),
}

/// What was sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SendSummary {
    pub frames: u64,
    pub bytes: u64,
    /// The viewer's name for the session (from its Welcome), if it answered.
    pub session_id: Option<u64>,
}

/// Rewrites a recorded Hello frame's agent text as a replay of `path`'s file (left as it was
/// if it is no Hello: the viewer then refuses it, as it would the recording's bytes).
fn renamed_hello(frame: &mut Vec<u8>, path: &Path) {
    let Some(Ok((mut hello, _token))) = frame.get(4..).map(decode_hello) else {
        return;
    };
    let file = path.file_name().map_or_else(
        || path.display().to_string(),
        |name| name.to_string_lossy().into_owned(),
    );
    hello.agent = replay_agent(&file, &hello.agent);
    if let Ok(renamed) = frame_payload(&encode_hello(&hello, "")) {
        *frame = renamed;
    }
}

/// Sends the recording at `path` to the viewer at `addr` as one new session, frame by frame
/// at the recorded arrival pacing divided by `speed` (`f64::INFINITY`: as fast as the socket
/// takes them), then closes as the protocol asks (shut down, read to the end). Its Hello names
/// it a replay of the file ([`highrise_protocol::replay_agent`]), so the viewer and `serve`
/// list it as one, not as an attached program.
pub fn replay_to(path: &Path, addr: SocketAddr, speed: f64) -> Result<SendSummary, SendError> {
    let recording_error = |source| SendError::Recording {
        path: path.to_path_buf(),
        source,
    };
    let mut reader = highrise_import::open(path).map_err(recording_error)?;
    let mut stream =
        TcpStream::connect(addr).map_err(|source| SendError::Connect { addr, source })?;
    let _ = stream.set_nodelay(true);
    stream.set_read_timeout(Some(Duration::from_secs(5)))?;
    let speed = if speed.is_nan() || speed <= 0.0 {
        1.0
    } else {
        speed
    };
    let started = Instant::now();
    let mut summary = SendSummary {
        frames: 0,
        bytes: 0,
        session_id: None,
    };
    let mut first_arrival_ns = None;
    let mut frame = RecordedFrame::default();
    let mut frames = reader.frames();
    while frames
        .next_into(&mut frame)
        .map_err(recording_error)?
        .is_some()
    {
        let first = *first_arrival_ns.get_or_insert(frame.arrival_ns);
        if speed.is_finite() {
            let due =
                Duration::from_nanos(((frame.arrival_ns - first) as f64 / speed).min(1e18) as u64);
            if let Some(wait) = due.checked_sub(started.elapsed()) {
                std::thread::sleep(wait);
            }
        }
        if summary.frames == 0 {
            renamed_hello(&mut frame.frame, path);
        }
        stream.write_all(&frame.frame)?;
        summary.frames += 1;
        summary.bytes += frame.frame.len() as u64;
        if summary.frames == 1 {
            // The viewer answers the Hello at once: a Reject means stop here.
            let mut payload = Vec::new();
            if read_frame(&mut stream, &mut payload).unwrap_or(false) {
                match decode_viewer_message(&payload) {
                    Ok(ViewerMessage::Welcome { session_id, .. }) => {
                        summary.session_id = Some(session_id);
                    }
                    Ok(ViewerMessage::Reject { reason, .. }) => {
                        return Err(SendError::Rejected(reason))
                    }
                    Err(error) => return Err(SendError::Rejected(error.to_string())),
                }
            }
        }
    }
    let _ = stream.shutdown(Shutdown::Write);
    let mut rest = Vec::new();
    let _ = stream.read_to_end(&mut rest);
    Ok(summary)
}
