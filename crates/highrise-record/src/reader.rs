//! Reading recordings.

use std::fs::File;
use std::io::{BufReader, Read, Seek, SeekFrom};
use std::path::Path;

use highrise_protocol::{FRAME_HEADER_BYTES, MAX_FRAME_BYTES};
use zstd::stream::raw::{DParameter, Decoder, InBuffer, Operation, OutBuffer};

use crate::format::{
    max_body_bytes, record_crc, u32_at, u64_at, IndexEntry, RecordingHeader, CHUNK_FIXED_BYTES,
    FOOTER_ENTRY_BYTES, FOOTER_FIXED_BYTES, FORMAT_VERSION_UNCOMPRESSED, FRAME_BODY_OVERHEAD,
    HEADER_BYTES, INDEX_BODY_BYTES, INDEX_RECORD_BYTES, KIND_CHUNK, KIND_FOOTER, KIND_FRAME,
    KIND_INDEX, MAX_BLOCK_RAW_BYTES, RECORD_CRC_BYTES, RECORD_HEAD_BYTES, TRAILER_BYTES,
    TRAILER_MAGIC, ZSTD_WINDOW_LOG_MAX,
};
use crate::RecordError;

/// Whether the recording was finished properly.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Completeness {
    /// The footer index and trailer are present.
    Complete,
    /// No (valid) footer: the recording was interrupted (a crash, a full disk) or damaged.
    /// Everything before `readable_bytes` is whole and checked; the rest is ignored.
    Interrupted {
        readable_bytes: u64,
        file_bytes: u64,
        /// Why reading stopped there (e.g. "the file ends inside a record").
        reason: String,
    },
}

/// One recorded frame.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RecordedFrame {
    /// When the frame arrived, ns since the recording started.
    pub arrival_ns: u64,
    /// The wire frame as received: the 4-byte length header, then the payload.
    pub frame: Vec<u8>,
}

impl RecordedFrame {
    /// The frame's payload (one encoded agent message).
    pub fn payload(&self) -> &[u8] {
        self.frame.get(FRAME_HEADER_BYTES..).unwrap_or_default()
    }
}

/// Reads a recording: header checked at open, index from the footer (or rebuilt by scanning
/// an interrupted file), frames on demand. Reads both format versions: uncompressed (1) and
/// compressed (2), where a block is decoded whole when a frame of it is first read.
///
/// Frame *positions* ([`Self::data_start`], [`Self::read_frame_at`], [`FrameCursor::offset`])
/// are file offsets in an uncompressed recording and `block << 32 | offset in the decoded
/// block` in a compressed one: keep them, do not compute them.
#[derive(Debug)]
pub struct RecordingReader<R> {
    input: R,
    /// Where `input` currently is (so sequential reads never seek a buffered reader).
    input_position: u64,
    header: RecordingHeader,
    file_bytes: u64,
    /// Records are read up to here (the footer's offset, or the end of the last whole record).
    data_end: u64,
    index: Vec<IndexEntry>,
    frames: u64,
    last_arrival_ns: u64,
    last_agent_time_ns: u64,
    completeness: Completeness,
    /// Compressed recordings: the decoder and the block decoded last.
    blocks: Option<Blocks>,
}

/// A compressed recording's decoding state.
struct Blocks {
    decoder: Decoder<'static>,
    /// Which block `decoded` holds.
    cached: Option<usize>,
    /// The cached block's frames, as FRAME bodies (arrival, wire frame) back to back.
    decoded: Vec<u8>,
    /// Where decoding the cached block stopped early (a damaged chunk): its offset and why.
    /// Its frames before that point are served, then this error.
    damaged: Option<(u64, String)>,
    /// Scratch for record bodies.
    chunk: Vec<u8>,
}

impl std::fmt::Debug for Blocks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Blocks")
            .field("cached", &self.cached)
            .field("decoded_bytes", &self.decoded.len())
            .field("damaged", &self.damaged)
            .finish_non_exhaustive()
    }
}

/// What one step through the records found.
enum Step {
    Record { kind: u8, next_offset: u64 },
    End,
    Truncated(String),
}

impl RecordingReader<BufReader<File>> {
    /// Opens a recording file (`highrise_import::open` opens other tools' profiles too).
    pub fn open(path: impl AsRef<Path>) -> Result<Self, RecordError> {
        Self::from_file(File::open(path.as_ref())?)
    }

    /// Reads the recording in an open file (buffered for the reader's block reads).
    pub fn from_file(file: File) -> Result<Self, RecordError> {
        Self::new(BufReader::with_capacity(256 * 1024, file))
    }
}

impl<R: Read + Seek> RecordingReader<R> {
    /// Reads the header and the index of a recording in `input`.
    pub fn new(mut input: R) -> Result<Self, RecordError> {
        let file_bytes = input.seek(SeekFrom::End(0))?;
        if file_bytes < HEADER_BYTES {
            // A foreign file shorter than our header is still named by its magic if it can be.
            input.seek(SeekFrom::Start(0))?;
            let mut start = Vec::new();
            input.by_ref().take(8).read_to_end(&mut start)?;
            let mut found = [0u8; 8];
            found[..start.len()].copy_from_slice(&start);
            if !crate::MAGIC.starts_with(&start) {
                return Err(RecordError::BadMagic { found });
            }
            return Err(RecordError::TooShort {
                file_bytes,
                header_bytes: HEADER_BYTES,
            });
        }
        input.seek(SeekFrom::Start(0))?;
        let mut header_bytes = [0u8; HEADER_BYTES as usize];
        input.read_exact(&mut header_bytes)?;
        let header = RecordingHeader::decode(&header_bytes)?;
        let blocks = if header.format_version == FORMAT_VERSION_UNCOMPRESSED {
            None
        } else {
            let mut decoder = Decoder::new()?;
            decoder.set_parameter(DParameter::WindowLogMax(ZSTD_WINDOW_LOG_MAX))?;
            Some(Blocks {
                decoder,
                cached: None,
                decoded: Vec::new(),
                damaged: None,
                chunk: Vec::new(),
            })
        };
        let mut reader = Self {
            input,
            input_position: HEADER_BYTES,
            header,
            file_bytes,
            data_end: file_bytes,
            index: Vec::new(),
            frames: 0,
            last_arrival_ns: 0,
            last_agent_time_ns: 0,
            completeness: Completeness::Complete,
            blocks,
        };
        if !reader.load_footer()? {
            reader.scan()?;
        }
        Ok(reader)
    }

    /// The file header.
    pub fn header(&self) -> &RecordingHeader {
        &self.header
    }

    /// Whether the file was finished, or where reading stops.
    pub fn completeness(&self) -> &Completeness {
        &self.completeness
    }

    /// Seek points, in file order.
    pub fn index(&self) -> &[IndexEntry] {
        &self.index
    }

    /// Whole frames in the readable part of the file.
    pub fn frame_count(&self) -> u64 {
        self.frames
    }

    /// Arrival time of the last readable frame, ns since the recording started.
    pub fn last_arrival_ns(&self) -> u64 {
        self.last_arrival_ns
    }

    /// The session's latest agent timestamp at the end of the recording (from the footer);
    /// for an interrupted file, that of the last index entry (a lower bound).
    pub fn last_agent_time_ns(&self) -> u64 {
        self.last_agent_time_ns
    }

    /// Size of the file in bytes.
    pub fn file_bytes(&self) -> u64 {
        self.file_bytes
    }

    /// The last seek point at or before program time `agent_time_ns` (the first one if none
    /// is): reading from it and applying frames reaches that time soonest.
    pub fn entry_for_agent_time(&self, agent_time_ns: u64) -> Option<IndexEntry> {
        let after = self
            .index
            .partition_point(|entry| entry.agent_time_ns <= agent_time_ns);
        self.index.get(after.saturating_sub(1)).copied()
    }

    /// The last seek point at or before arrival time `arrival_ns`.
    pub fn entry_for_arrival(&self, arrival_ns: u64) -> Option<IndexEntry> {
        let after = self
            .index
            .partition_point(|entry| entry.arrival_ns <= arrival_ns);
        self.index.get(after.saturating_sub(1)).copied()
    }

    /// Whether frames are stored compressed (format version 2).
    pub fn is_compressed(&self) -> bool {
        self.blocks.is_some()
    }

    /// All frames from the start.
    pub fn frames(&mut self) -> FrameCursor<'_, R> {
        FrameCursor {
            offset: self.data_start(),
            reader: self,
            done: false,
        }
    }

    /// Frames from a seek point on.
    pub fn frames_from(&mut self, entry: &IndexEntry) -> FrameCursor<'_, R> {
        let offset = if self.blocks.is_some() {
            // The block that starts at the entry (or the last one before it).
            let block = self
                .index
                .partition_point(|known| known.offset <= entry.offset)
                .saturating_sub(1);
            (block as u64) << 32
        } else {
            entry.offset.clamp(HEADER_BYTES, self.data_end)
        };
        FrameCursor {
            reader: self,
            offset,
            done: false,
        }
    }

    /// Reads the frame at or after position `offset` (index records are skipped) into
    /// `frame`, reusing its buffer. Returns the position of the frame after it, or `None` at
    /// the end of the readable data. [`FrameCursor`] is this in a loop; a replay that pauses
    /// and seeks keeps the position itself.
    pub fn read_frame_at(
        &mut self,
        mut offset: u64,
        frame: &mut RecordedFrame,
    ) -> Result<Option<u64>, RecordError> {
        if self.blocks.is_some() {
            return self.read_compressed_frame_at(offset, frame);
        }
        offset = offset.max(HEADER_BYTES);
        loop {
            match self.step(offset, self.data_end, &mut frame.frame)? {
                Step::Record { kind, next_offset } => {
                    offset = next_offset;
                    if kind == KIND_FRAME {
                        frame.arrival_ns = u64_at(&frame.frame, 0);
                        frame.frame.drain(..8);
                        return Ok(Some(offset));
                    }
                }
                Step::End | Step::Truncated(_) => return Ok(None),
            }
        }
    }

    /// Position of the first frame.
    pub fn data_start(&self) -> u64 {
        if self.blocks.is_some() {
            0
        } else {
            HEADER_BYTES
        }
    }

    /// [`Self::read_frame_at`] in a compressed recording: `position` is `block << 32 | offset
    /// in the decoded block`.
    fn read_compressed_frame_at(
        &mut self,
        position: u64,
        frame: &mut RecordedFrame,
    ) -> Result<Option<u64>, RecordError> {
        let mut block = usize::try_from(position >> 32).unwrap_or(usize::MAX);
        let mut within = (position & 0xffff_ffff) as usize;
        loop {
            if block >= self.index.len() {
                return Ok(None);
            }
            self.decode_block(block)?;
            let Some(blocks) = self.blocks.as_ref() else {
                return Ok(None);
            };
            if let Some((arrival_ns, frame_bytes)) = frame_in(&blocks.decoded, within) {
                frame.arrival_ns = arrival_ns;
                frame.frame.clear();
                frame.frame.extend_from_slice(frame_bytes);
                let next =
                    within + FRAME_BODY_OVERHEAD as usize + frame_bytes.len() - FRAME_HEADER_BYTES;
                return Ok(Some(((block as u64) << 32) | next as u64));
            }
            if within < blocks.decoded.len() {
                // Not a position this reader handed out (decoded blocks hold whole frames).
                return Err(RecordError::corrupt(
                    self.index[block].offset,
                    format!("no frame at position {within} of the block"),
                ));
            }
            if let Some((offset, reason)) = blocks.damaged.clone() {
                return Err(RecordError::corrupt(offset, reason));
            }
            block += 1;
            within = 0;
        }
    }

    /// Decodes block `block` (index entry `block` up to the next one) into the cache, unless it
    /// is there. A damaged chunk stops decoding there and is kept as the block's error;
    /// only I/O errors return.
    fn decode_block(&mut self, block: usize) -> Result<(), RecordError> {
        let Some(mut blocks) = self.blocks.take() else {
            return Ok(());
        };
        if blocks.cached == Some(block) {
            self.blocks = Some(blocks);
            return Ok(());
        }
        blocks.cached = None;
        blocks.decoded.clear();
        blocks.damaged = None;
        let result = self.decode_block_into(block, &mut blocks);
        blocks.cached = Some(block);
        match result {
            Ok(()) => {}
            Err(RecordError::Io(error)) => {
                blocks.cached = None;
                blocks.decoded.clear();
                self.blocks = Some(blocks);
                return Err(RecordError::Io(error));
            }
            Err(RecordError::Corrupt { offset, reason }) => blocks.damaged = Some((offset, reason)),
            Err(other) => {
                blocks.damaged = Some((self.index[block].offset, other.to_string()));
            }
        }
        self.blocks = Some(blocks);
        Ok(())
    }

    fn decode_block_into(&mut self, block: usize, blocks: &mut Blocks) -> Result<(), RecordError> {
        let start = self.index[block].offset;
        let end = self
            .index
            .get(block + 1)
            .map_or(self.data_end, |next| next.offset)
            .min(self.data_end);
        match self.step(start, end, &mut blocks.chunk)? {
            Step::Record {
                kind: KIND_INDEX, ..
            } => {}
            _ => {
                return Err(RecordError::corrupt(
                    start,
                    "no index record where a block starts",
                ))
            }
        }
        blocks.decoder.reinit()?;
        let mut offset = start + INDEX_RECORD_BYTES;
        while offset < end {
            let next_offset = match self.step(offset, end, &mut blocks.chunk)? {
                Step::Record {
                    kind: KIND_CHUNK,
                    next_offset,
                } => next_offset,
                Step::Record { kind, .. } => {
                    return Err(RecordError::corrupt(
                        offset,
                        format!("a record of kind {kind} inside a compressed block"),
                    ))
                }
                Step::End => break,
                Step::Truncated(reason) => return Err(RecordError::corrupt(offset, reason)),
            };
            let before = blocks.decoded.len();
            if let Err(reason) = decode_chunk(blocks) {
                blocks.decoded.truncate(before);
                return Err(RecordError::corrupt(offset, reason));
            }
            offset = next_offset;
        }
        Ok(())
    }

    /// Reads the footer through the trailer. False (and nothing changed) when there is no
    /// valid footer: the caller scans instead.
    fn load_footer(&mut self) -> Result<bool, RecordError> {
        if self.file_bytes < HEADER_BYTES + TRAILER_BYTES {
            return Ok(false);
        }
        let trailer_at = self.file_bytes - TRAILER_BYTES;
        let mut trailer = [0u8; TRAILER_BYTES as usize];
        self.read_at(trailer_at, &mut trailer)?;
        if trailer[8..16] != TRAILER_MAGIC {
            return Ok(false);
        }
        let footer_offset = u64_at(&trailer, 0);
        if footer_offset < HEADER_BYTES || footer_offset >= trailer_at {
            return Ok(false);
        }
        let mut body = Vec::new();
        match self.step(footer_offset, trailer_at, &mut body) {
            Ok(Step::Record { kind, next_offset })
                if kind == KIND_FOOTER && next_offset == trailer_at => {}
            _ => return Ok(false),
        }
        if (body.len() as u64) < FOOTER_FIXED_BYTES {
            return Ok(false);
        }
        let entries = u64_at(&body, 24);
        if Some(body.len() as u64)
            != entries
                .checked_mul(FOOTER_ENTRY_BYTES)
                .and_then(|bytes| bytes.checked_add(FOOTER_FIXED_BYTES))
        {
            return Ok(false);
        }
        let index: Vec<IndexEntry> = body[FOOTER_FIXED_BYTES as usize..]
            .chunks_exact(FOOTER_ENTRY_BYTES as usize)
            .map(|entry| IndexEntry {
                offset: u64_at(entry, 0),
                frame_number: u64_at(entry, 8),
                arrival_ns: u64_at(entry, 16),
                agent_time_ns: u64_at(entry, 24),
            })
            .collect();
        if index
            .iter()
            .any(|entry| entry.offset < HEADER_BYTES || entry.offset >= footer_offset)
        {
            return Ok(false);
        }
        if self.blocks.is_some() {
            // Blocks run from one entry to the next: the first right after the header, in
            // file order, and none without an entry.
            let starts_right = index
                .first()
                .map_or(footer_offset == HEADER_BYTES, |first| {
                    first.offset == HEADER_BYTES
                });
            let ordered = index
                .windows(2)
                .all(|pair| pair[0].offset + INDEX_RECORD_BYTES <= pair[1].offset);
            if !starts_right || !ordered {
                return Ok(false);
            }
        }
        self.frames = u64_at(&body, 0);
        self.last_arrival_ns = u64_at(&body, 8);
        self.last_agent_time_ns = u64_at(&body, 16);
        self.index = index;
        self.data_end = footer_offset;
        self.completeness = Completeness::Complete;
        Ok(true)
    }

    /// Walks every record, rebuilding the index; stops at the first incomplete or damaged one.
    fn scan(&mut self) -> Result<(), RecordError> {
        let mut offset = HEADER_BYTES;
        let mut body = Vec::new();
        let stop_reason = loop {
            match self.step(offset, self.file_bytes, &mut body) {
                Ok(Step::End) => break None,
                Ok(Step::Truncated(reason)) => break Some(reason),
                Ok(Step::Record { kind, next_offset }) => {
                    match kind {
                        KIND_FRAME => {
                            self.frames += 1;
                            self.last_arrival_ns = u64_at(&body, 0);
                        }
                        KIND_CHUNK => {
                            if self.index.is_empty() {
                                break Some(
                                    RecordError::corrupt(offset, "a chunk before any index record")
                                        .to_string(),
                                );
                            }
                            self.frames += u64::from(u32_at(&body, 0));
                            self.last_arrival_ns = u64_at(&body, 8);
                        }
                        KIND_INDEX => {
                            let entry = IndexEntry {
                                offset,
                                frame_number: u64_at(&body, 0),
                                arrival_ns: u64_at(&body, 8),
                                agent_time_ns: u64_at(&body, 16),
                            };
                            self.last_agent_time_ns = entry.agent_time_ns;
                            self.index.push(entry);
                        }
                        _ => {
                            // A whole footer whose trailer is missing: the data is complete.
                            self.data_end = offset;
                            self.completeness = Completeness::Complete;
                            if body.len() as u64 >= FOOTER_FIXED_BYTES {
                                self.last_agent_time_ns =
                                    self.last_agent_time_ns.max(u64_at(&body, 16));
                            }
                            return Ok(());
                        }
                    }
                    offset = next_offset;
                }
                Err(RecordError::Io(error)) => return Err(RecordError::Io(error)),
                Err(error) => break Some(error.to_string()),
            }
        };
        self.data_end = offset;
        self.completeness = Completeness::Interrupted {
            readable_bytes: offset,
            file_bytes: self.file_bytes,
            reason: stop_reason
                .unwrap_or_else(|| "no footer (the recording was not finished)".into()),
        };
        Ok(())
    }

    /// Reads the record at `offset` (which must end by `limit`) into `body`, checking it.
    fn step(&mut self, offset: u64, limit: u64, body: &mut Vec<u8>) -> Result<Step, RecordError> {
        if offset >= limit {
            return Ok(Step::End);
        }
        let available = limit - offset;
        if available < RECORD_HEAD_BYTES {
            return Ok(Step::Truncated(format!(
                "the file ends inside a record header at byte {offset}"
            )));
        }
        let mut head = [0u8; RECORD_HEAD_BYTES as usize];
        self.read_at(offset, &mut head)?;
        let kind = head[0];
        let body_bytes = u64::from(u32_at(&head, 1));
        let Some(max_body) = max_body_bytes(kind, self.header.format_version, self.file_bytes)
        else {
            return Err(RecordError::corrupt(
                offset,
                format!("unknown record kind {kind}"),
            ));
        };
        if body_bytes > max_body {
            return Err(RecordError::corrupt(
                offset,
                format!("record of kind {kind} claims {body_bytes} bytes (at most {max_body})"),
            ));
        }
        let record_bytes = RECORD_HEAD_BYTES + body_bytes + RECORD_CRC_BYTES;
        if record_bytes > available {
            return Ok(Step::Truncated(format!(
                "the file ends inside a record at byte {offset} ({record_bytes} bytes, {available} left)"
            )));
        }
        body.clear();
        body.resize(body_bytes as usize, 0);
        self.read_exact(body)?;
        let mut crc = [0u8; 4];
        self.read_exact(&mut crc)?;
        if record_crc(kind, &[body]) != u32::from_le_bytes(crc) {
            return Err(RecordError::corrupt(offset, "checksum mismatch"));
        }
        let well_formed = match kind {
            KIND_FRAME => {
                body_bytes >= FRAME_BODY_OVERHEAD
                    && u64::from(u32_at(body, 8)) == body_bytes - FRAME_BODY_OVERHEAD
            }
            KIND_INDEX => body_bytes == INDEX_BODY_BYTES,
            KIND_CHUNK => {
                body_bytes >= CHUNK_FIXED_BYTES && {
                    let (frames, raw_bytes) =
                        (u64::from(u32_at(body, 0)), u64::from(u32_at(body, 4)));
                    frames > 0
                        && raw_bytes <= MAX_BLOCK_RAW_BYTES
                        && raw_bytes >= frames * FRAME_BODY_OVERHEAD
                }
            }
            _ => true,
        };
        if !well_formed {
            return Err(RecordError::corrupt(
                offset,
                format!("malformed record of kind {kind}"),
            ));
        }
        Ok(Step::Record {
            kind,
            next_offset: offset + record_bytes,
        })
    }

    fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> Result<(), RecordError> {
        if offset != self.input_position {
            self.input.seek(SeekFrom::Start(offset))?;
            self.input_position = offset;
        }
        self.read_exact(buf)
    }

    fn read_exact(&mut self, buf: &mut [u8]) -> Result<(), RecordError> {
        self.input.read_exact(buf)?;
        self.input_position += buf.len() as u64;
        Ok(())
    }
}

/// The frame at `at` of a decoded block: its arrival and wire bytes, if a whole one is there.
fn frame_in(decoded: &[u8], at: usize) -> Option<(u64, &[u8])> {
    let head = decoded.get(at..at + FRAME_BODY_OVERHEAD as usize)?;
    let arrival_ns = u64_at(head, 0);
    let payload_len = u32_at(head, 8);
    if payload_len > MAX_FRAME_BYTES {
        return None;
    }
    let frame_start = at + 8;
    let frame_end = frame_start + FRAME_HEADER_BYTES + payload_len as usize;
    Some((arrival_ns, decoded.get(frame_start..frame_end)?))
}

/// Decodes the chunk in `blocks.chunk` (a checked CHUNK body) onto `blocks.decoded`, checking
/// that it yields exactly its whole frames. `Err`: why not.
fn decode_chunk(blocks: &mut Blocks) -> Result<(), String> {
    let Blocks {
        decoder,
        decoded,
        chunk,
        ..
    } = blocks;
    let frames = u32_at(chunk, 0);
    let raw_bytes = u32_at(chunk, 4) as usize;
    let last_arrival_ns = u64_at(chunk, 8);
    let start = decoded.len();
    let target = start + raw_bytes;
    if target as u64 > MAX_BLOCK_RAW_BYTES {
        return Err(format!(
            "the block decodes to more than {MAX_BLOCK_RAW_BYTES} bytes"
        ));
    }
    // One byte of room beyond the promised size shows a chunk that decodes to more; zstd
    // never writes past the buffer's capacity, so nothing grows beyond the block's limit.
    decoded.reserve_exact(raw_bytes + 1);
    let mut input = InBuffer::around(&chunk[CHUNK_FIXED_BYTES as usize..]);
    loop {
        let (input_before, output_before) = (input.pos(), decoded.len());
        let mut output = OutBuffer::around_pos(decoded, output_before);
        decoder
            .run(&mut input, &mut output)
            .map_err(|error| format!("zstd: {error}"))?;
        if decoded.len() > target {
            return Err(format!(
                "the chunk decodes to more than its {raw_bytes} bytes"
            ));
        }
        let progressed = input.pos() != input_before || decoded.len() != output_before;
        let drained = input.pos() == input.src.len() && decoded.len() < decoded.capacity();
        if drained || !progressed {
            break;
        }
    }
    if decoded.len() != target {
        return Err(format!(
            "the chunk decodes to {} bytes, not its {raw_bytes}",
            decoded.len() - start
        ));
    }
    let mut at = start;
    let mut count = 0u32;
    let mut last_arrival = None;
    while at < target {
        let Some((arrival_ns, frame)) = frame_in(decoded, at) else {
            return Err("the chunk ends inside a frame".into());
        };
        at += FRAME_BODY_OVERHEAD as usize + frame.len() - FRAME_HEADER_BYTES;
        count += 1;
        last_arrival = Some(arrival_ns);
    }
    if at != target || count != frames || last_arrival != Some(last_arrival_ns) {
        return Err(format!(
            "the chunk holds {count} frames, its header says {frames}"
        ));
    }
    Ok(())
}

/// Reads frames in file order; index records are skipped. Also an [`Iterator`] of
/// `Result<RecordedFrame, RecordError>` that ends after the first error.
#[derive(Debug)]
pub struct FrameCursor<'a, R> {
    reader: &'a mut RecordingReader<R>,
    offset: u64,
    done: bool,
}

impl<R: Read + Seek> FrameCursor<'_, R> {
    /// The next frame into `frame` (its buffer reused); `Ok(None)` at the end of the readable
    /// data, and after an error.
    pub fn next_into(&mut self, frame: &mut RecordedFrame) -> Result<Option<()>, RecordError> {
        if self.done {
            return Ok(None);
        }
        match self.reader.read_frame_at(self.offset, frame) {
            Ok(Some(next_offset)) => {
                self.offset = next_offset;
                Ok(Some(()))
            }
            Ok(None) => {
                self.done = true;
                Ok(None)
            }
            Err(error) => {
                self.done = true;
                Err(error)
            }
        }
    }

    /// File offset of the next record.
    pub fn offset(&self) -> u64 {
        self.offset
    }
}

impl<R: Read + Seek> Iterator for FrameCursor<'_, R> {
    type Item = Result<RecordedFrame, RecordError>;

    fn next(&mut self) -> Option<Self::Item> {
        let mut frame = RecordedFrame {
            arrival_ns: 0,
            frame: Vec::new(),
        };
        match self.next_into(&mut frame) {
            Ok(Some(())) => Some(Ok(frame)),
            Ok(None) => None,
            Err(error) => Some(Err(error)),
        }
    }
}
