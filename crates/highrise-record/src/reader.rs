//! Reading recordings.

use std::fs::File;
use std::io::{BufReader, Read, Seek, SeekFrom};
use std::path::Path;

use highrise_protocol::FRAME_HEADER_BYTES;

use crate::format::{
    max_body_bytes, record_crc, u32_at, u64_at, IndexEntry, RecordingHeader, FOOTER_ENTRY_BYTES,
    FOOTER_FIXED_BYTES, FRAME_BODY_OVERHEAD, HEADER_BYTES, INDEX_BODY_BYTES, KIND_FOOTER,
    KIND_FRAME, KIND_INDEX, RECORD_CRC_BYTES, RECORD_HEAD_BYTES, TRAILER_BYTES, TRAILER_MAGIC,
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
/// an interrupted file), frames on demand.
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
}

/// What one step through the records found.
enum Step {
    Record { kind: u8, next_offset: u64 },
    End,
    Truncated(String),
}

impl RecordingReader<BufReader<File>> {
    /// Opens a recording file.
    pub fn open(path: impl AsRef<Path>) -> Result<Self, RecordError> {
        let file = File::open(path)?;
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

    /// All frames from the start.
    pub fn frames(&mut self) -> FrameCursor<'_, R> {
        FrameCursor {
            reader: self,
            offset: HEADER_BYTES,
            done: false,
        }
    }

    /// Frames from a seek point on.
    pub fn frames_from(&mut self, entry: &IndexEntry) -> FrameCursor<'_, R> {
        let offset = entry.offset.clamp(HEADER_BYTES, self.data_end);
        FrameCursor {
            reader: self,
            offset,
            done: false,
        }
    }

    /// Reads the frame at or after file offset `offset` (index records are skipped) into
    /// `frame`, reusing its buffer. Returns the offset of the record after it, or `None` at the
    /// end of the readable data. [`FrameCursor`] is this in a loop; a replay that pauses and
    /// seeks keeps the offset itself.
    pub fn read_frame_at(
        &mut self,
        mut offset: u64,
        frame: &mut RecordedFrame,
    ) -> Result<Option<u64>, RecordError> {
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

    /// File offset of the first record after the header.
    pub fn data_start(&self) -> u64 {
        HEADER_BYTES
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
        let Some(max_body) = max_body_bytes(kind, self.file_bytes) else {
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
