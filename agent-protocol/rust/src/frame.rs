//! Framing: every message travels as `u32` little-endian payload length, then the payload.
//!
//! The synchronous helpers here serve agents and test clients that use `std::io`; the ingest
//! server reads frames asynchronously but validates headers with the same [`FrameHeader`].

use std::io::{self, Read, Write};

use crate::ProtocolError;

/// Bytes in a frame header (the length prefix).
pub const FRAME_HEADER_BYTES: usize = 4;

/// The largest payload a frame may carry (4 MiB). Agents split larger batches.
pub const MAX_FRAME_BYTES: u32 = 4 * 1024 * 1024;

/// A validated frame header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FrameHeader {
    pub payload_len_bytes: u32,
}

impl FrameHeader {
    /// Parses a length prefix, refusing lengths over [`MAX_FRAME_BYTES`].
    pub fn parse(bytes: [u8; FRAME_HEADER_BYTES]) -> Result<Self, ProtocolError> {
        let payload_len_bytes = u32::from_le_bytes(bytes);
        if payload_len_bytes > MAX_FRAME_BYTES {
            return Err(ProtocolError::FrameTooLarge {
                length_bytes: u64::from(payload_len_bytes),
                max_bytes: u64::from(MAX_FRAME_BYTES),
            });
        }
        Ok(Self { payload_len_bytes })
    }
}

/// Encodes `message` as one whole frame: the length header, then the payload.
pub fn encode_frame<M: bincode::Encode>(message: &M) -> Result<Vec<u8>, ProtocolError> {
    frame_payload(&crate::encode_message(message))
}

/// Puts an already encoded payload (e.g. [`crate::encode_hello`]'s) in a frame: the length
/// header, then the payload.
pub fn frame_payload(payload: &[u8]) -> Result<Vec<u8>, ProtocolError> {
    let len = u32::try_from(payload.len())
        .ok()
        .filter(|len| *len <= MAX_FRAME_BYTES)
        .ok_or(ProtocolError::FrameTooLarge {
            length_bytes: payload.len() as u64,
            max_bytes: u64::from(MAX_FRAME_BYTES),
        })?;
    let mut frame = Vec::with_capacity(FRAME_HEADER_BYTES + payload.len());
    frame.extend_from_slice(&len.to_le_bytes());
    frame.extend_from_slice(payload);
    Ok(frame)
}

/// Encodes `message` and writes it as one frame (header + payload in a single `write_all`).
pub fn write_frame<M: bincode::Encode>(out: &mut impl Write, message: &M) -> io::Result<()> {
    let frame = encode_frame(message)
        .map_err(|error| io::Error::new(io::ErrorKind::InvalidInput, error))?;
    out.write_all(&frame)
}

/// Reads one frame's payload into `payload`. `Ok(false)` means a clean end of stream before
/// any byte of a new frame.
pub fn read_frame(input: &mut impl Read, payload: &mut Vec<u8>) -> Result<bool, ReadFrameError> {
    let mut header = [0u8; FRAME_HEADER_BYTES];
    let got = read_up_to(input, &mut header)?;
    if got == 0 {
        return Ok(false);
    }
    if got < FRAME_HEADER_BYTES {
        return Err(ProtocolError::Truncated {
            got_bytes: got as u64,
            expected_bytes: FRAME_HEADER_BYTES as u64,
        }
        .into());
    }
    let header = FrameHeader::parse(header)?;
    payload.clear();
    payload.resize(header.payload_len_bytes as usize, 0);
    let got = read_up_to(input, payload)?;
    if got < payload.len() {
        return Err(ProtocolError::Truncated {
            got_bytes: got as u64,
            expected_bytes: u64::from(header.payload_len_bytes),
        }
        .into());
    }
    Ok(true)
}

fn read_up_to(input: &mut impl Read, buf: &mut [u8]) -> io::Result<usize> {
    let mut filled = 0;
    while filled < buf.len() {
        match input.read(&mut buf[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(filled)
}

/// Reading a frame failed: the transport, or the bytes.
#[derive(Debug, thiserror::Error)]
pub enum ReadFrameError {
    #[error("i/o error: {0}")]
    Io(#[from] io::Error),
    #[error(transparent)]
    Protocol(#[from] ProtocolError),
}
