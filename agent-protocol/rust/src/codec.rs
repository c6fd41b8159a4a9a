//! bincode 2 (standard configuration) encoding and decoding of whole messages.

use bincode::config::{Configuration, Limit, LittleEndian, Varint};
use bincode::error::DecodeError;

use crate::{AgentMessage, ProtocolError, ViewerMessage, MAGIC, MAX_FRAME_BYTES};

/// Upper bound on the memory one decode may claim for containers. bincode checks every
/// length prefix against it before allocating, so a hostile length cannot exhaust memory.
const DECODE_LIMIT_BYTES: usize = 32 * MAX_FRAME_BYTES as usize;

type WireConfig = Configuration<LittleEndian, Varint, Limit<DECODE_LIMIT_BYTES>>;

fn wire_config() -> WireConfig {
    bincode::config::standard().with_limit::<DECODE_LIMIT_BYTES>()
}

/// Encodes a message (either direction) to its payload bytes, without the frame header.
pub fn encode_message<M: bincode::Encode>(message: &M) -> Vec<u8> {
    // Encoding into a Vec cannot fail for these types (no limit applies when encoding).
    bincode::encode_to_vec(message, bincode::config::standard()).unwrap_or_default()
}

fn decode_exact<M: bincode::Decode<()>>(payload: &[u8]) -> Result<M, ProtocolError> {
    match bincode::decode_from_slice::<M, _>(payload, wire_config()) {
        Ok((message, used)) if used == payload.len() => Ok(message),
        Ok((_, used)) => Err(ProtocolError::malformed(format!(
            "{} trailing bytes after the message",
            payload.len() - used
        ))),
        Err(DecodeError::UnexpectedVariant { found, .. }) => {
            Err(ProtocolError::UnknownTag { tag: found })
        }
        Err(other) => Err(ProtocolError::malformed(other.to_string())),
    }
}

/// Decodes one agent-to-viewer payload. The whole payload must be consumed.
pub fn decode_agent_message(payload: &[u8]) -> Result<AgentMessage, ProtocolError> {
    decode_exact(payload)
}

/// Decodes one viewer-to-agent payload. The whole payload must be consumed.
pub fn decode_viewer_message(payload: &[u8]) -> Result<ViewerMessage, ProtocolError> {
    decode_exact(payload)
}

/// The version-independent start of a Hello: tag 0, magic, protocol version.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HelloHeader {
    pub magic: [u8; 4],
    pub protocol_version: u32,
}

/// Reads only the tag, magic and version of a first message, so a receiver can reject a foreign
/// stream or an agent of another version with a precise error, whatever the rest of its Hello
/// looks like. Checks the magic and the version against [`crate::PROTOCOL_VERSION`].
pub fn peek_hello_header(payload: &[u8]) -> Result<HelloHeader, ProtocolError> {
    let mut cursor = payload;
    let tag = read_varint_u64(&mut cursor)?;
    if tag != 0 {
        return Err(ProtocolError::NotHello {
            tag: u32::try_from(tag).unwrap_or(u32::MAX),
        });
    }
    let (magic_bytes, rest) = cursor
        .split_first_chunk::<4>()
        .ok_or_else(|| ProtocolError::malformed("Hello shorter than its magic"))?;
    let magic = *magic_bytes;
    if magic != MAGIC {
        return Err(ProtocolError::BadMagic { found: magic });
    }
    cursor = rest;
    let version = read_varint_u64(&mut cursor)?;
    let protocol_version = u32::try_from(version)
        .map_err(|_| ProtocolError::malformed("protocol version does not fit u32"))?;
    if protocol_version != crate::PROTOCOL_VERSION {
        return Err(ProtocolError::VersionMismatch {
            agent_version: protocol_version,
            viewer_version: crate::PROTOCOL_VERSION,
        });
    }
    Ok(HelloHeader {
        magic,
        protocol_version,
    })
}

/// bincode's unsigned varint: < 251 is one byte; 251/252/253 prefix a u16/u32/u64 (LE).
fn read_varint_u64(cursor: &mut &[u8]) -> Result<u64, ProtocolError> {
    let (&first, rest) = cursor
        .split_first()
        .ok_or_else(|| ProtocolError::malformed("message ended inside a varint"))?;
    *cursor = rest;
    let width = match first {
        0..=250 => return Ok(u64::from(first)),
        251 => 2,
        252 => 4,
        253 => 8,
        _ => return Err(ProtocolError::malformed("varint too wide for u64")),
    };
    if cursor.len() < width {
        return Err(ProtocolError::malformed("message ended inside a varint"));
    }
    let mut bytes = [0u8; 8];
    bytes[..width].copy_from_slice(&cursor[..width]);
    *cursor = &cursor[width..];
    Ok(u64::from_le_bytes(bytes))
}
