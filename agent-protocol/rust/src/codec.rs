//! bincode 2 (standard configuration) encoding and decoding of whole messages.

use bincode::config::{Configuration, Limit, LittleEndian, Varint};
use bincode::decode_from_slice;
use bincode::error::DecodeError;

use crate::{AgentMessage, Hello, ProtocolError, ViewerMessage, MAGIC, MAX_FRAME_BYTES};

/// How much memory a decode may claim for containers, per byte of payload: bincode checks
/// every length prefix against its limit before allocating. 32 covers the largest legitimate
/// expansion (a `MethodDef` of a few encoded bytes is about 140 bytes in memory).
const DECODE_BYTES_PER_PAYLOAD_BYTE: usize = 32;

type WireConfig<const LIMIT: usize> = Configuration<LittleEndian, Varint, Limit<LIMIT>>;

fn wire_config<const LIMIT: usize>() -> WireConfig<LIMIT> {
    bincode::config::standard().with_limit::<LIMIT>()
}

/// Decodes `payload` with a limit that grows with its size (32 × the payload's size, rounded
/// up to 4 KiB, 64 KiB, 1 MiB or [`MAX_FRAME_BYTES`]), so a length prefix in a few bytes
/// cannot make the decoder allocate megabytes (bincode allocates what a prefix claims before
/// reading it). Returns the message and the bytes it used.
fn decode_limited<M: bincode::Decode<()>>(payload: &[u8]) -> Result<(M, usize), DecodeError> {
    const PER: usize = DECODE_BYTES_PER_PAYLOAD_BYTE;
    match payload.len() {
        len if len <= 4 << 10 => decode_from_slice(payload, wire_config::<{ PER * (4 << 10) }>()),
        len if len <= 64 << 10 => decode_from_slice(payload, wire_config::<{ PER * (64 << 10) }>()),
        len if len <= 1 << 20 => decode_from_slice(payload, wire_config::<{ PER * (1 << 20) }>()),
        _ => decode_from_slice(payload, wire_config::<{ PER * MAX_FRAME_BYTES as usize }>()),
    }
}

/// Encodes a message (either direction) to its payload bytes, without the frame header.
pub fn encode_message<M: bincode::Encode>(message: &M) -> Vec<u8> {
    // Encoding into a Vec cannot fail for these types (no limit applies when encoding).
    bincode::encode_to_vec(message, bincode::config::standard()).unwrap_or_default()
}

fn decode_exact<M: bincode::Decode<()>>(payload: &[u8]) -> Result<M, ProtocolError> {
    match decode_limited::<M>(payload) {
        Ok((message, used)) if used == payload.len() => Ok(message),
        Ok((_, used)) => Err(trailing_bytes(payload.len() - used)),
        Err(error) => Err(decode_failure(error)),
    }
}

fn trailing_bytes(count: usize) -> ProtocolError {
    ProtocolError::malformed(format!("{count} trailing bytes after the message"))
}

fn decode_failure(error: DecodeError) -> ProtocolError {
    match error {
        DecodeError::UnexpectedVariant { found, .. } => ProtocolError::UnknownTag { tag: found },
        DecodeError::LimitExceeded => {
            ProtocolError::malformed("a length prefix claims more than the payload can hold")
        }
        other => ProtocolError::malformed(other.to_string()),
    }
}

/// Decodes one agent-to-viewer payload. The whole payload must be consumed. A [`Hello`]'s
/// optional token is read and dropped: only the handshake ([`decode_hello`]) looks at it, so a
/// token never reaches anything that keeps messages (reports, recordings).
pub fn decode_agent_message(payload: &[u8]) -> Result<AgentMessage, ProtocolError> {
    decode_agent_message_and_token(payload).map(|(message, _)| message)
}

/// Decodes a first message the way a viewer's handshake does: the [`Hello`] and the token it
/// carries, `None` when it has none (absent or empty). Another message is
/// [`ProtocolError::NotHello`].
pub fn decode_hello(payload: &[u8]) -> Result<(Hello, Option<String>), ProtocolError> {
    match decode_agent_message_and_token(payload)? {
        (AgentMessage::Hello(hello), token) => Ok((hello, token)),
        (other, _) => Err(ProtocolError::NotHello {
            tag: agent_message_tag(&other),
        }),
    }
}

/// Encodes a [`Hello`] payload carrying `token` as its last field (SPEC.md, "Tokens"). An empty
/// token is written as no token at all: the bytes of `encode_message(&AgentMessage::Hello(..))`.
pub fn encode_hello(hello: &Hello, token: &str) -> Vec<u8> {
    let mut payload = encode_message(&AgentMessage::Hello(hello.clone()));
    if !token.is_empty() {
        payload.extend_from_slice(&encode_message(&token));
    }
    payload
}

/// A Hello may end after its fixed fields or carry one more, the token (a bincode `String`);
/// every other message must be consumed exactly.
fn decode_agent_message_and_token(
    payload: &[u8],
) -> Result<(AgentMessage, Option<String>), ProtocolError> {
    match decode_limited::<AgentMessage>(payload) {
        Ok((message, used)) if used == payload.len() => Ok((message, None)),
        Ok((AgentMessage::Hello(hello), used)) => {
            let token: String = decode_exact(&payload[used..])
                .map_err(|error| ProtocolError::malformed(format!("Hello's token: {error}")))?;
            Ok((
                AgentMessage::Hello(hello),
                Some(token).filter(|t| !t.is_empty()),
            ))
        }
        Ok((_, used)) => Err(trailing_bytes(payload.len() - used)),
        Err(error) => Err(decode_failure(error)),
    }
}

fn agent_message_tag(message: &AgentMessage) -> u32 {
    match message {
        AgentMessage::Hello(_) => 0,
        AgentMessage::DefineMethods(_) => 1,
        AgentMessage::ThreadStart { .. } => 2,
        AgentMessage::ThreadEnd { .. } => 3,
        AgentMessage::Events(_) => 4,
        AgentMessage::Heartbeat { .. } => 5,
        AgentMessage::Resync { .. } => 6,
        AgentMessage::Dropped { .. } => 7,
        AgentMessage::Goodbye { .. } => 8,
        AgentMessage::DefineClasses(_) => 9,
        AgentMessage::Records(_) => 10,
        AgentMessage::MemoryDropped { .. } => 11,
        AgentMessage::LiveObjects(_) => 12,
        AgentMessage::ClassRelations(_) => 13,
        AgentMessage::Measure(_) => 14,
        AgentMessage::Notice { .. } => 15,
    }
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
/// looks like. Checks the magic, and that the version is one this crate reads
/// ([`crate::MIN_PROTOCOL_VERSION`]`..=`[`crate::PROTOCOL_VERSION`]).
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
    if !(crate::MIN_PROTOCOL_VERSION..=crate::PROTOCOL_VERSION).contains(&protocol_version) {
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
