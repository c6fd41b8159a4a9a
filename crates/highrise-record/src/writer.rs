//! Writing recordings.

use std::io::Write;

use highrise_protocol::{FrameHeader, FRAME_HEADER_BYTES};
use zstd::stream::raw::{CParameter, Encoder, InBuffer, Operation, OutBuffer};

use crate::format::{
    record_crc, IndexEntry, RecordingHeader, BLOCK_RAW_BYTES, DEFAULT_ZSTD_LEVEL,
    FOOTER_ENTRY_BYTES, FORMAT_VERSION, FORMAT_VERSION_UNCOMPRESSED, HEADER_BYTES,
    INDEX_EVERY_FRAMES, INDEX_EVERY_NS, KIND_CHUNK, KIND_FOOTER, KIND_FRAME, KIND_INDEX,
    RECORD_CRC_BYTES, RECORD_HEAD_BYTES, TRAILER_MAGIC, ZSTD_WINDOW_LOG,
};
use crate::RecordError;

/// How a writer stores frames.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compression {
    /// Format version 1: one FRAME record per frame, as received (what highrise wrote before
    /// compression; about 0.1 % over the frames' own bytes).
    None,
    /// Format version 2: the frames of each block compressed as one zstd frame at this level
    /// (1 fastest … 19; the writer caps zstd's window at 2 MiB whatever the level).
    Zstd { level: i32 },
}

impl Default for Compression {
    /// zstd at [`DEFAULT_ZSTD_LEVEL`].
    fn default() -> Self {
        Self::Zstd {
            level: DEFAULT_ZSTD_LEVEL,
        }
    }
}

impl Compression {
    /// The format version a writer with this compression writes.
    pub fn format_version(self) -> u32 {
        match self {
            Self::None => FORMAT_VERSION_UNCOMPRESSED,
            Self::Zstd { .. } => FORMAT_VERSION,
        }
    }
}

/// Appends frames to a recording. Give it a buffered writer (`BufWriter<File>`): it issues a
/// few small writes per record.
///
/// An index record is written before the first frame and then every [`INDEX_EVERY_FRAMES`]
/// frames or [`INDEX_EVERY_NS`] of arrival time, whichever comes first (compressed: also once a
/// block holds [`BLOCK_RAW_BYTES`]); [`Self::finish`] repeats them all in the footer. If the
/// writer is dropped without `finish` (or the process dies), the file has no footer and readers
/// rebuild the index by scanning.
///
/// Compressed (the default), frames go through a zstd stream and reach the underlying writer as
/// CHUNK records only at [`Self::flush`] and when a block closes: call `flush` as often as you
/// are willing to lose frames in a crash (the ingest server does every publish tick).
pub struct RecordingWriter<W: Write> {
    out: W,
    position_bytes: u64,
    frames: u64,
    index: Vec<IndexEntry>,
    last_arrival_ns: u64,
    last_agent_time_ns: u64,
    frames_since_index: u64,
    last_index_arrival_ns: u64,
    zstd: Option<ZstdBlocks>,
}

/// The compressed writer's state: the open block's zstd stream and the chunk not yet written.
struct ZstdBlocks {
    level: i32,
    encoder: Encoder<'static>,
    /// zstd output of the open chunk, not yet written to `out`.
    compressed: Vec<u8>,
    chunk_frames: u32,
    chunk_raw_bytes: u64,
    chunk_last_arrival_ns: u64,
    /// Uncompressed bytes in the open block; `None`: no block is open.
    block_raw_bytes: Option<u64>,
}

impl<W: Write> std::fmt::Debug for RecordingWriter<W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RecordingWriter")
            .field("position_bytes", &self.position_bytes)
            .field("frames", &self.frames)
            .field("index_entries", &self.index.len())
            .field("last_arrival_ns", &self.last_arrival_ns)
            .field("zstd_level", &self.zstd.as_ref().map(|zstd| zstd.level))
            .finish_non_exhaustive()
    }
}

impl<W: Write> RecordingWriter<W> {
    /// Writes the header of a compressed recording ([`Compression::default`]).
    pub fn new(out: W, header: &RecordingHeader) -> Result<Self, RecordError> {
        Self::with_compression(out, header, Compression::default())
    }

    /// Writes the header; frames will be stored as `compression` says. The header's format
    /// version is the compression's.
    pub fn with_compression(
        mut out: W,
        header: &RecordingHeader,
        compression: Compression,
    ) -> Result<Self, RecordError> {
        let zstd = match compression {
            Compression::None => None,
            Compression::Zstd { level } => {
                let mut encoder = Encoder::new(level)?;
                encoder.set_parameter(CParameter::WindowLog(ZSTD_WINDOW_LOG))?;
                Some(ZstdBlocks {
                    level,
                    encoder,
                    compressed: Vec::new(),
                    chunk_frames: 0,
                    chunk_raw_bytes: 0,
                    chunk_last_arrival_ns: 0,
                    block_raw_bytes: None,
                })
            }
        };
        let header = RecordingHeader {
            format_version: compression.format_version(),
            ..*header
        };
        out.write_all(&header.encode())?;
        Ok(Self {
            out,
            position_bytes: HEADER_BYTES,
            frames: 0,
            index: Vec::new(),
            last_arrival_ns: 0,
            last_agent_time_ns: 0,
            frames_since_index: 0,
            last_index_arrival_ns: 0,
            zstd,
        })
    }

    /// Appends one wire frame (its 4-byte length header and payload, exactly as received).
    /// `arrival_ns` is when it arrived, ns since the recording started (raised to the previous
    /// frame's if it is earlier: arrival times never decrease); `agent_time_ns` is the
    /// session's latest agent timestamp after this frame, which the next index entry carries.
    pub fn write_frame(
        &mut self,
        arrival_ns: u64,
        frame: &[u8],
        agent_time_ns: u64,
    ) -> Result<(), RecordError> {
        check_frame(frame)?;
        self.append(arrival_ns, &[frame], agent_time_ns)
    }

    /// Like [`Self::write_frame`] for a frame given as its payload: the length header is
    /// written from the payload's length (as the agent sent it).
    pub fn write_payload(
        &mut self,
        arrival_ns: u64,
        payload: &[u8],
        agent_time_ns: u64,
    ) -> Result<(), RecordError> {
        let len = u32::try_from(payload.len())
            .ok()
            .filter(|len| *len <= highrise_protocol::MAX_FRAME_BYTES)
            .ok_or_else(|| RecordError::InvalidFrame {
                reason: format!("payload of {} bytes is over the frame limit", payload.len()),
            })?;
        self.append(arrival_ns, &[&len.to_le_bytes(), payload], agent_time_ns)
    }

    /// Appends one frame given as the parts of its wire bytes.
    fn append(
        &mut self,
        arrival_ns: u64,
        frame: &[&[u8]],
        agent_time_ns: u64,
    ) -> Result<(), RecordError> {
        let arrival_ns = arrival_ns.max(self.last_arrival_ns);
        let arrival = arrival_ns.to_le_bytes();
        if self.zstd.is_some() {
            self.block_if_due(arrival_ns)?;
            let raw_bytes = 8 + frame.iter().map(|part| part.len() as u64).sum::<u64>();
            if let Some(zstd) = self.zstd.as_mut() {
                zstd.compress(&arrival)?;
                for part in frame {
                    zstd.compress(part)?;
                }
                zstd.chunk_frames += 1;
                zstd.chunk_raw_bytes += raw_bytes;
                zstd.chunk_last_arrival_ns = arrival_ns;
                zstd.block_raw_bytes = Some(zstd.block_raw_bytes.unwrap_or(0) + raw_bytes);
            }
        } else {
            if self.index_due(arrival_ns) {
                self.write_index(arrival_ns)?;
            }
            let mut body: Vec<&[u8]> = Vec::with_capacity(1 + frame.len());
            body.push(&arrival);
            body.extend_from_slice(frame);
            self.write_record(KIND_FRAME, &body)?;
        }
        self.frames += 1;
        self.frames_since_index += 1;
        self.last_arrival_ns = arrival_ns;
        self.last_agent_time_ns = self.last_agent_time_ns.max(agent_time_ns);
        Ok(())
    }

    fn index_due(&self, arrival_ns: u64) -> bool {
        self.index.is_empty()
            || self.frames_since_index >= INDEX_EVERY_FRAMES
            || arrival_ns.saturating_sub(self.last_index_arrival_ns) >= INDEX_EVERY_NS
    }

    /// Compressed: closes the open block and opens the next (behind an index record) when an
    /// index entry is due or the block is full.
    fn block_if_due(&mut self, arrival_ns: u64) -> Result<(), RecordError> {
        let block_raw_bytes = self.zstd.as_ref().and_then(|zstd| zstd.block_raw_bytes);
        let full = block_raw_bytes.is_some_and(|bytes| bytes >= BLOCK_RAW_BYTES);
        if block_raw_bytes.is_some() && !full && !self.index_due(arrival_ns) {
            return Ok(());
        }
        self.close_block()?;
        self.write_index(arrival_ns)?;
        if let Some(zstd) = self.zstd.as_mut() {
            zstd.block_raw_bytes = Some(0);
        }
        Ok(())
    }

    /// Compressed: ends the open block's zstd frame and writes its last chunk.
    fn close_block(&mut self) -> Result<(), RecordError> {
        let Some(zstd) = self.zstd.as_mut() else {
            return Ok(());
        };
        if zstd.block_raw_bytes.take().is_none() {
            return Ok(());
        }
        if zstd.chunk_frames > 0 {
            zstd.end_frame()?;
            self.write_chunk()?;
        }
        if let Some(zstd) = self.zstd.as_mut() {
            // Also drops the frame's end when the block's frames all went out at a flush: a
            // reader never needs it (an interrupted file lacks it too).
            zstd.encoder.reinit()?;
            zstd.compressed.clear();
        }
        Ok(())
    }

    /// Writes the open chunk (the zstd output gathered since the last one) as a CHUNK record.
    fn write_chunk(&mut self) -> Result<(), RecordError> {
        let Some(mut zstd) = self.zstd.take() else {
            return Ok(());
        };
        let raw_bytes =
            u32::try_from(zstd.chunk_raw_bytes).map_err(|_| RecordError::InvalidFrame {
                reason: format!("a chunk of {} bytes is too large", zstd.chunk_raw_bytes),
            });
        let result = raw_bytes.and_then(|raw_bytes| {
            let mut head = [0u8; 16];
            head[0..4].copy_from_slice(&zstd.chunk_frames.to_le_bytes());
            head[4..8].copy_from_slice(&raw_bytes.to_le_bytes());
            head[8..16].copy_from_slice(&zstd.chunk_last_arrival_ns.to_le_bytes());
            self.write_record(KIND_CHUNK, &[&head, &zstd.compressed])
        });
        zstd.compressed.clear();
        zstd.chunk_frames = 0;
        zstd.chunk_raw_bytes = 0;
        self.zstd = Some(zstd);
        result
    }

    /// Frames written so far.
    pub fn frames(&self) -> u64 {
        self.frames
    }

    /// Bytes written so far (header and records). Compressed, frames since the last flush are
    /// not counted yet.
    pub fn bytes(&self) -> u64 {
        self.position_bytes
    }

    /// Makes every frame written so far readable from the file: compressed, flushes the zstd
    /// stream into a CHUNK record; then flushes the underlying writer (the file stays readable
    /// as an interrupted recording).
    pub fn flush(&mut self) -> Result<(), RecordError> {
        if let Some(zstd) = self.zstd.as_mut() {
            if zstd.chunk_frames > 0 {
                zstd.flush_frame()?;
                self.write_chunk()?;
            }
        }
        self.out.flush()?;
        Ok(())
    }

    /// Writes the footer index and trailer, flushes, and gives the writer back.
    pub fn finish(mut self) -> Result<W, RecordError> {
        self.close_block()?;
        let footer_offset = self.position_bytes;
        let mut body = Vec::with_capacity(32 + self.index.len() * FOOTER_ENTRY_BYTES as usize);
        body.extend_from_slice(&self.frames.to_le_bytes());
        body.extend_from_slice(&self.last_arrival_ns.to_le_bytes());
        body.extend_from_slice(&self.last_agent_time_ns.to_le_bytes());
        body.extend_from_slice(&(self.index.len() as u64).to_le_bytes());
        for entry in &self.index {
            body.extend_from_slice(&entry.offset.to_le_bytes());
            body.extend_from_slice(&entry.frame_number.to_le_bytes());
            body.extend_from_slice(&entry.arrival_ns.to_le_bytes());
            body.extend_from_slice(&entry.agent_time_ns.to_le_bytes());
        }
        self.write_record(KIND_FOOTER, &[&body])?;
        self.out.write_all(&footer_offset.to_le_bytes())?;
        self.out.write_all(&TRAILER_MAGIC)?;
        self.out.flush()?;
        Ok(self.out)
    }

    fn write_index(&mut self, arrival_ns: u64) -> Result<(), RecordError> {
        let entry = IndexEntry {
            offset: self.position_bytes,
            frame_number: self.frames,
            arrival_ns,
            agent_time_ns: self.last_agent_time_ns,
        };
        let mut body = [0u8; 24];
        body[0..8].copy_from_slice(&entry.frame_number.to_le_bytes());
        body[8..16].copy_from_slice(&entry.arrival_ns.to_le_bytes());
        body[16..24].copy_from_slice(&entry.agent_time_ns.to_le_bytes());
        self.write_record(KIND_INDEX, &[&body])?;
        self.index.push(entry);
        self.frames_since_index = 0;
        self.last_index_arrival_ns = arrival_ns;
        Ok(())
    }

    fn write_record(&mut self, kind: u8, body: &[&[u8]]) -> Result<(), RecordError> {
        let len: u64 = body.iter().map(|part| part.len() as u64).sum();
        let len32 = u32::try_from(len).map_err(|_| RecordError::InvalidFrame {
            reason: format!("record of {len} bytes is too large"),
        })?;
        self.out.write_all(&[kind])?;
        self.out.write_all(&len32.to_le_bytes())?;
        for part in body {
            self.out.write_all(part)?;
        }
        self.out.write_all(&record_crc(kind, body).to_le_bytes())?;
        self.position_bytes += RECORD_HEAD_BYTES + len + RECORD_CRC_BYTES;
        Ok(())
    }
}

/// Room made in the output before each zstd call (zstd's recommended output step).
const ZSTD_OUT_STEP: usize = 128 * 1024;

impl ZstdBlocks {
    /// Feeds `input` to the open block's zstd frame.
    fn compress(&mut self, input: &[u8]) -> Result<(), RecordError> {
        let mut input = InBuffer::around(input);
        while input.pos() < input.src.len() {
            reserve(&mut self.compressed);
            let filled = self.compressed.len();
            let mut output = OutBuffer::around_pos(&mut self.compressed, filled);
            self.encoder.run(&mut input, &mut output)?;
        }
        Ok(())
    }

    /// Ends a zstd block so that everything fed so far decodes from the output.
    fn flush_frame(&mut self) -> Result<(), RecordError> {
        loop {
            reserve(&mut self.compressed);
            let filled = self.compressed.len();
            let mut output = OutBuffer::around_pos(&mut self.compressed, filled);
            if self.encoder.flush(&mut output)? == 0 {
                return Ok(());
            }
        }
    }

    /// Ends the zstd frame.
    fn end_frame(&mut self) -> Result<(), RecordError> {
        loop {
            reserve(&mut self.compressed);
            let filled = self.compressed.len();
            let mut output = OutBuffer::around_pos(&mut self.compressed, filled);
            if self.encoder.finish(&mut output, true)? == 0 {
                return Ok(());
            }
        }
    }
}

fn reserve(buffer: &mut Vec<u8>) {
    if buffer.capacity() - buffer.len() < ZSTD_OUT_STEP / 2 {
        buffer.reserve(ZSTD_OUT_STEP);
    }
}

fn check_frame(frame: &[u8]) -> Result<(), RecordError> {
    let Some((header, payload)) = frame.split_first_chunk::<FRAME_HEADER_BYTES>() else {
        return Err(RecordError::InvalidFrame {
            reason: format!("{} bytes is shorter than a frame header", frame.len()),
        });
    };
    let header = FrameHeader::parse(*header).map_err(|error| RecordError::InvalidFrame {
        reason: error.to_string(),
    })?;
    if header.payload_len_bytes as usize != payload.len() {
        return Err(RecordError::InvalidFrame {
            reason: format!(
                "header says {} payload bytes, {} given",
                header.payload_len_bytes,
                payload.len()
            ),
        });
    }
    Ok(())
}
