//! Framing: every message travels as `u32` little-endian payload length, then the payload.
//!
//! [`FrameDecoder`] reads frames without doing I/O: it names the bytes to read next and takes
//! what was read, so the blocking [`read_frame`] here (agents, test clients) and the ingest
//! server's async reader share every rule: the length limit, truncation, a clean end between
//! frames.

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

/// What the bytes read so far make ([`FrameDecoder::advance`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decoded {
    /// More bytes are needed: read into [`FrameDecoder::unfilled`] again.
    NeedMore,
    /// A whole frame: its payload is in the caller's buffer; `frame_bytes` counts the header too.
    Frame { frame_bytes: u64 },
    /// The stream ended cleanly, between frames.
    End,
}

/// One frame at a time, without I/O: [`Self::unfilled`] is where the next bytes go (the rest of
/// the length header, then of the payload, which it sizes in the caller's buffer), and
/// [`Self::advance`] takes how many were read (0: the stream ended).
#[derive(Debug, Default)]
pub struct FrameDecoder {
    header: [u8; FRAME_HEADER_BYTES],
    /// Bytes of the current frame read so far, header included.
    filled: usize,
    /// The payload's length, once the header is whole.
    payload_len: Option<usize>,
}

impl FrameDecoder {
    /// Where the next bytes read go.
    pub fn unfilled<'a>(&'a mut self, payload: &'a mut [u8]) -> &'a mut [u8] {
        match self.payload_len {
            None => &mut self.header[self.filled..],
            Some(_) => &mut payload[self.filled - FRAME_HEADER_BYTES..],
        }
    }

    /// Takes `read` bytes written into [`Self::unfilled`]; the payload goes into `payload`
    /// (cleared and sized when the header is whole). After a frame, the decoder starts the next.
    pub fn advance(
        &mut self,
        read: usize,
        payload: &mut Vec<u8>,
    ) -> Result<Decoded, ProtocolError> {
        if read == 0 {
            let (filled, payload_len) = (self.filled, self.payload_len);
            *self = Self::default();
            return match payload_len {
                None if filled == 0 => Ok(Decoded::End),
                None => Err(ProtocolError::Truncated {
                    got_bytes: filled as u64,
                    expected_bytes: FRAME_HEADER_BYTES as u64,
                }),
                Some(len) => Err(ProtocolError::Truncated {
                    got_bytes: (filled - FRAME_HEADER_BYTES) as u64,
                    expected_bytes: len as u64,
                }),
            };
        }
        self.filled += read;
        let len = match self.payload_len {
            Some(len) => len,
            None if self.filled < FRAME_HEADER_BYTES => return Ok(Decoded::NeedMore),
            None => {
                let len = FrameHeader::parse(self.header)?.payload_len_bytes as usize;
                payload.clear();
                payload.resize(len, 0);
                self.payload_len = Some(len);
                len
            }
        };
        if self.filled < FRAME_HEADER_BYTES + len {
            return Ok(Decoded::NeedMore);
        }
        *self = Self::default();
        Ok(Decoded::Frame {
            frame_bytes: (FRAME_HEADER_BYTES + len) as u64,
        })
    }
}

/// Reads one frame's payload into `payload`. `Ok(false)` means a clean end of stream before
/// any byte of a new frame.
pub fn read_frame(input: &mut impl Read, payload: &mut Vec<u8>) -> Result<bool, ReadFrameError> {
    let mut decoder = FrameDecoder::default();
    loop {
        let read = match input.read(decoder.unfilled(payload)) {
            Ok(read) => read,
            Err(error) if error.kind() == io::ErrorKind::Interrupted => continue,
            Err(error) => return Err(error.into()),
        };
        match decoder.advance(read, payload)? {
            Decoded::NeedMore => {}
            Decoded::Frame { .. } => return Ok(true),
            Decoded::End => return Ok(false),
        }
    }
}

/// Reading a frame failed: the transport, or the bytes.
#[derive(Debug, thiserror::Error)]
pub enum ReadFrameError {
    #[error("i/o error: {0}")]
    Io(#[from] io::Error),
    #[error(transparent)]
    Protocol(#[from] ProtocolError),
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Frames come out whole however the bytes arrive; a cut frame is an error naming what it
    /// got, a stream that ends between frames a clean end.
    #[test]
    fn frames_come_out_whole_from_any_split() {
        let mut stream = frame_payload(b"hello").expect("frames");
        stream.extend(frame_payload(b"").expect("frames"));
        stream.extend(frame_payload(&[7; 300]).expect("frames"));
        for step in [1, 2, 3, 5, 64, 1000] {
            let mut decoder = FrameDecoder::default();
            let mut payload = Vec::new();
            let mut frames = Vec::new();
            let mut at = 0;
            loop {
                let into = decoder.unfilled(&mut payload);
                let read = into.len().min(step).min(stream.len() - at);
                into[..read].copy_from_slice(&stream[at..at + read]);
                at += read;
                match decoder.advance(read, &mut payload).expect("decodes") {
                    Decoded::NeedMore => {}
                    Decoded::Frame { frame_bytes } => frames.push((frame_bytes, payload.clone())),
                    Decoded::End => break,
                }
            }
            assert_eq!(
                frames,
                [(9, b"hello".to_vec()), (4, Vec::new()), (304, vec![7; 300])],
                "step {step}"
            );
        }
        let mut payload = Vec::new();
        let cut = &stream[..7];
        assert!(matches!(
            read_frame(&mut &cut[..], &mut payload),
            Err(ReadFrameError::Protocol(ProtocolError::Truncated {
                got_bytes: 3,
                expected_bytes: 5
            }))
        ));
        assert!(matches!(
            read_frame(&mut &stream[..2], &mut payload),
            Err(ReadFrameError::Protocol(ProtocolError::Truncated {
                got_bytes: 2,
                expected_bytes: 4
            }))
        ));
        let too_big = (MAX_FRAME_BYTES + 1).to_le_bytes();
        assert!(matches!(
            read_frame(&mut &too_big[..], &mut payload),
            Err(ReadFrameError::Protocol(
                ProtocolError::FrameTooLarge { .. }
            ))
        ));
        assert!(!read_frame(&mut &[][..], &mut payload).expect("a clean end"));
    }
}
