//! Writing recordings.

use std::io::Write;

use highrise_protocol::{FrameHeader, FRAME_HEADER_BYTES};

use crate::format::{
    record_crc, IndexEntry, RecordingHeader, FOOTER_ENTRY_BYTES, HEADER_BYTES, INDEX_EVERY_FRAMES,
    INDEX_EVERY_NS, KIND_FOOTER, KIND_FRAME, KIND_INDEX, RECORD_CRC_BYTES, RECORD_HEAD_BYTES,
    TRAILER_MAGIC,
};
use crate::RecordError;

/// Appends frames to a recording. Give it a buffered writer (`BufWriter<File>`): it issues a
/// few small writes per frame.
///
/// An index record is written before the first frame and then every [`INDEX_EVERY_FRAMES`]
/// frames or [`INDEX_EVERY_NS`] of arrival time, whichever comes first; [`Self::finish`]
/// repeats them all in the footer. If the writer is dropped without `finish` (or the process
/// dies), the file has no footer and readers rebuild the index by scanning.
#[derive(Debug)]
pub struct RecordingWriter<W: Write> {
    out: W,
    position_bytes: u64,
    frames: u64,
    index: Vec<IndexEntry>,
    last_arrival_ns: u64,
    last_agent_time_ns: u64,
    frames_since_index: u64,
    last_index_arrival_ns: u64,
}

impl<W: Write> RecordingWriter<W> {
    /// Writes the header.
    pub fn new(mut out: W, header: &RecordingHeader) -> Result<Self, RecordError> {
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
        let arrival_ns = arrival_ns.max(self.last_arrival_ns);
        self.index_if_due(arrival_ns)?;
        let arrival = arrival_ns.to_le_bytes();
        self.write_record(KIND_FRAME, &[&arrival, frame])?;
        self.frame_written(arrival_ns, agent_time_ns);
        Ok(())
    }

    fn index_if_due(&mut self, arrival_ns: u64) -> Result<(), RecordError> {
        if self.index.is_empty()
            || self.frames_since_index >= INDEX_EVERY_FRAMES
            || arrival_ns.saturating_sub(self.last_index_arrival_ns) >= INDEX_EVERY_NS
        {
            self.write_index(arrival_ns)?;
        }
        Ok(())
    }

    fn frame_written(&mut self, arrival_ns: u64, agent_time_ns: u64) {
        self.frames += 1;
        self.frames_since_index += 1;
        self.last_arrival_ns = arrival_ns;
        self.last_agent_time_ns = self.last_agent_time_ns.max(agent_time_ns);
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
        let arrival_ns = arrival_ns.max(self.last_arrival_ns);
        self.index_if_due(arrival_ns)?;
        let arrival = arrival_ns.to_le_bytes();
        let header = len.to_le_bytes();
        self.write_record(KIND_FRAME, &[&arrival, &header, payload])?;
        self.frame_written(arrival_ns, agent_time_ns);
        Ok(())
    }

    /// Frames written so far.
    pub fn frames(&self) -> u64 {
        self.frames
    }

    /// Bytes written so far (header and records).
    pub fn bytes(&self) -> u64 {
        self.position_bytes
    }

    /// Flushes the underlying writer (the file stays readable as an interrupted recording).
    pub fn flush(&mut self) -> Result<(), RecordError> {
        self.out.flush()?;
        Ok(())
    }

    /// Writes the footer index and trailer, flushes, and gives the writer back.
    pub fn finish(mut self) -> Result<W, RecordError> {
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
