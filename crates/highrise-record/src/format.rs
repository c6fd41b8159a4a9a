//! The bytes of a `.hrec` file (see `agent-protocol/RECORDING.md`). All integers are fixed-width
//! little endian.
//!
//! ```text
//! file    := header record* [footer trailer]
//! header  := magic[8] format_version:u32 protocol_version:u32 created_unix_ns:u64 crc:u32
//! record  := kind:u8 body_len:u32 body[body_len] crc:u32      (crc over kind, body_len, body)
//! FRAME   (kind 1, v1) body := arrival_ns:u64 wire_frame     (u32 length + payload, as received)
//! INDEX   (kind 2) body := frame_number:u64 arrival_ns:u64 agent_time_ns:u64
//! FOOTER  (kind 3) body := frames:u64 last_arrival_ns:u64 last_agent_time_ns:u64
//!                          entries:u64 (offset:u64 frame_number:u64 arrival_ns:u64 agent_time_ns:u64)*
//! CHUNK   (kind 4, v2) body := frames:u32 raw_bytes:u32 last_arrival_ns:u64 zstd_bytes
//!                          (the block's chunks together: one zstd frame of FRAME bodies)
//! trailer := footer_offset:u64 "HRRECEND"
//! ```
//!
//! Version 1 stores each frame as a FRAME record. Version 2 (compressed, the default) stores the
//! frames between two INDEX records (a *block*) as one zstd frame, cut into CHUNK records at
//! every flush so an interrupted file loses at most what came after the last flush.

use highrise_protocol::{FRAME_HEADER_BYTES, MAX_FRAME_BYTES};

use crate::RecordError;

/// The first 8 bytes of every recording.
pub const MAGIC: [u8; 8] = *b"HRREC\r\n\x1a";
/// The last 8 bytes of a recording that was finished (after its footer offset).
pub const TRAILER_MAGIC: [u8; 8] = *b"HRRECEND";
/// The format version this crate writes by default (compressed blocks); it reads this one and
/// [`FORMAT_VERSION_UNCOMPRESSED`].
pub const FORMAT_VERSION: u32 = 2;
/// The first format: one uncompressed FRAME record per frame. Still read, and still written
/// with [`crate::Compression::None`].
pub const FORMAT_VERSION_UNCOMPRESSED: u32 = 1;
/// The zstd level compressed recordings are written at unless told otherwise.
pub const DEFAULT_ZSTD_LEVEL: i32 = 3;
/// A compressed block closes (and the next frame starts a new one behind an index entry) once
/// its frames hold this many bytes uncompressed (2 MiB, the window of zstd level 3), besides
/// the [`INDEX_EVERY_FRAMES`] / [`INDEX_EVERY_NS`] cadence. Bounds what a reader decodes to
/// reach a seek point and holds in memory.
pub const BLOCK_RAW_BYTES: u64 = 2 << 20;
/// Bytes of the file header.
pub const HEADER_BYTES: u64 = 28;
/// Bytes of the trailer (footer offset + trailer magic).
pub const TRAILER_BYTES: u64 = 16;
/// An index entry is written at least every this many frames…
pub const INDEX_EVERY_FRAMES: u64 = 4096;
/// …and at least every this many nanoseconds of arrival time (1 s).
pub const INDEX_EVERY_NS: u64 = 1_000_000_000;

pub(crate) const KIND_FRAME: u8 = 1;
pub(crate) const KIND_INDEX: u8 = 2;
pub(crate) const KIND_FOOTER: u8 = 3;
pub(crate) const KIND_CHUNK: u8 = 4;
/// kind + body_len.
pub(crate) const RECORD_HEAD_BYTES: u64 = 5;
pub(crate) const RECORD_CRC_BYTES: u64 = 4;
/// A frame record's body: arrival time, then the wire frame.
pub(crate) const FRAME_BODY_OVERHEAD: u64 = 8 + FRAME_HEADER_BYTES as u64;
pub(crate) const MAX_FRAME_BODY_BYTES: u64 = FRAME_BODY_OVERHEAD + MAX_FRAME_BYTES as u64;
pub(crate) const INDEX_BODY_BYTES: u64 = 24;
pub(crate) const FOOTER_FIXED_BYTES: u64 = 32;
pub(crate) const FOOTER_ENTRY_BYTES: u64 = 32;
/// An INDEX record, whole.
pub(crate) const INDEX_RECORD_BYTES: u64 = RECORD_HEAD_BYTES + INDEX_BODY_BYTES + RECORD_CRC_BYTES;
/// A CHUNK body before its zstd bytes: frames, raw_bytes, last_arrival_ns.
pub(crate) const CHUNK_FIXED_BYTES: u64 = 16;
/// Most bytes one block decodes to: just under [`BLOCK_RAW_BYTES`], then one more frame.
pub(crate) const MAX_BLOCK_RAW_BYTES: u64 = BLOCK_RAW_BYTES + MAX_FRAME_BODY_BYTES;
/// A chunk's zstd bytes never need more than twice what they decode to (zstd's bound is
/// raw + raw/256 + a few bytes per flush).
pub(crate) const MAX_CHUNK_BODY_BYTES: u64 = CHUNK_FIXED_BYTES + 2 * MAX_BLOCK_RAW_BYTES;
/// The zstd window the writer uses (2 MiB: as large as a block's usual content)…
pub(crate) const ZSTD_WINDOW_LOG: u32 = 21;
/// …and the largest a reader accepts (so no file makes the decoder allocate more).
pub(crate) const ZSTD_WINDOW_LOG_MAX: u32 = 22;

/// What a recording says about itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RecordingHeader {
    /// The `.hrec` format version: [`FORMAT_VERSION`] (compressed) or
    /// [`FORMAT_VERSION_UNCOMPRESSED`]. The writer sets it from its compression.
    pub format_version: u32,
    /// The agent protocol version of the recorded frames.
    pub protocol_version: u32,
    /// When the recording started, ns since the Unix epoch.
    pub created_unix_ns: u64,
}

impl RecordingHeader {
    /// A header for a recording of this build's protocol, created at `created_unix_ns`.
    pub fn new(created_unix_ns: u64) -> Self {
        Self {
            format_version: FORMAT_VERSION,
            protocol_version: highrise_protocol::PROTOCOL_VERSION,
            created_unix_ns,
        }
    }

    pub(crate) fn encode(&self) -> [u8; HEADER_BYTES as usize] {
        let mut bytes = [0u8; HEADER_BYTES as usize];
        bytes[0..8].copy_from_slice(&MAGIC);
        bytes[8..12].copy_from_slice(&self.format_version.to_le_bytes());
        bytes[12..16].copy_from_slice(&self.protocol_version.to_le_bytes());
        bytes[16..24].copy_from_slice(&self.created_unix_ns.to_le_bytes());
        let crc = crc32fast::hash(&bytes[0..24]);
        bytes[24..28].copy_from_slice(&crc.to_le_bytes());
        bytes
    }

    /// Checks magic, checksum and versions, in that order (so a foreign file is named as
    /// such before anything else).
    pub(crate) fn decode(bytes: &[u8; HEADER_BYTES as usize]) -> Result<Self, RecordError> {
        let mut magic = [0u8; 8];
        magic.copy_from_slice(&bytes[0..8]);
        if magic != MAGIC {
            return Err(RecordError::BadMagic { found: magic });
        }
        if crc32fast::hash(&bytes[0..24]) != u32_at(bytes, 24) {
            return Err(RecordError::CorruptHeader);
        }
        let header = Self {
            format_version: u32_at(bytes, 8),
            protocol_version: u32_at(bytes, 12),
            created_unix_ns: u64_at(bytes, 16),
        };
        if header.format_version != FORMAT_VERSION
            && header.format_version != FORMAT_VERSION_UNCOMPRESSED
        {
            return Err(RecordError::UnsupportedFormatVersion {
                found: header.format_version,
                supported: FORMAT_VERSION,
            });
        }
        // Version-1 recordings hold version-1 frames, which version 2 reads unchanged.
        let readable =
            highrise_protocol::MIN_PROTOCOL_VERSION..=highrise_protocol::PROTOCOL_VERSION;
        if !readable.contains(&header.protocol_version) {
            return Err(RecordError::ProtocolVersion {
                found: header.protocol_version,
                supported: highrise_protocol::PROTOCOL_VERSION,
            });
        }
        Ok(header)
    }
}

/// A seek point: reading from `offset` yields frame number `frame_number` onward. In a
/// compressed recording every seek point starts a block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IndexEntry {
    /// File offset of the index record; frames follow it.
    pub offset: u64,
    /// Frames recorded before this point.
    pub frame_number: u64,
    /// Arrival time of the first frame after this point, ns since the recording started.
    pub arrival_ns: u64,
    /// The session's latest agent timestamp (ns) before this point: the program time the
    /// frames after it continue from.
    pub agent_time_ns: u64,
}

pub(crate) fn u32_at(bytes: &[u8], at: usize) -> u32 {
    let mut word = [0u8; 4];
    if let Some(slice) = bytes.get(at..at + 4) {
        word.copy_from_slice(slice);
    }
    u32::from_le_bytes(word)
}

pub(crate) fn u64_at(bytes: &[u8], at: usize) -> u64 {
    let mut word = [0u8; 8];
    if let Some(slice) = bytes.get(at..at + 8) {
        word.copy_from_slice(slice);
    }
    u64::from_le_bytes(word)
}

/// The checksum of a record: over its kind, its length and its body.
pub(crate) fn record_crc(kind: u8, body: &[&[u8]]) -> u32 {
    let len: u64 = body.iter().map(|part| part.len() as u64).sum();
    let mut hasher = crc32fast::Hasher::new();
    hasher.update(&[kind]);
    hasher.update(&(len as u32).to_le_bytes());
    for part in body {
        hasher.update(part);
    }
    hasher.finalize()
}

/// Most body bytes a record of `kind` may have in a file of `format_version`; larger lengths
/// are corruption, and `None` is a kind that version does not have.
pub(crate) fn max_body_bytes(kind: u8, format_version: u32, file_bytes: u64) -> Option<u64> {
    let compressed = format_version != FORMAT_VERSION_UNCOMPRESSED;
    match kind {
        KIND_FRAME if !compressed => Some(MAX_FRAME_BODY_BYTES),
        KIND_CHUNK if compressed => Some(MAX_CHUNK_BODY_BYTES),
        KIND_INDEX => Some(INDEX_BODY_BYTES),
        KIND_FOOTER => Some(file_bytes),
        _ => None,
    }
}
