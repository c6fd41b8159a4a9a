//! A converted recording's frames, encoded on the converting thread and written by a thread of
//! its own ([`write_frames`]).

use std::io::Write;

use highrise_protocol::{encode_frame, AgentMessage, Hello, MAGIC, PROTOCOL_VERSION};
use highrise_record::{RecordError, RecordingHeader, RecordingWriter};

use crate::format::invalid;

/// Appends `message` to the recording, arrived and stamped at `at` (ns).
pub(crate) fn send(
    frames: &mut Frames,
    at: u64,
    message: &AgentMessage,
) -> Result<(), RecordError> {
    let frame = encode_frame(message).map_err(|e| invalid(format!("encoding: {e}")))?;
    frames.push(at, &frame)
}

/// Frames encoded back to back, each with its time and where it ends.
#[derive(Default)]
pub(crate) struct FrameBatch {
    bytes: Vec<u8>,
    ends: Vec<(u64, usize)>,
}

/// A converted recording's frames: encoded on the converting thread, handed in batches to a
/// writer thread that compresses and writes them on the other core (zstd took a third of a
/// 1 GB file's conversion on one thread).
pub(crate) struct Frames {
    batch: FrameBatch,
    full: std::sync::mpsc::SyncSender<FrameBatch>,
    empty: std::sync::mpsc::Receiver<FrameBatch>,
    /// The writer thread stopped (its error is the conversion's).
    writer_gone: bool,
}

/// A batch goes to the writer once this many bytes are encoded.
pub(crate) const FRAME_BATCH_BYTES: usize = 1 << 20;

impl Frames {
    fn push(&mut self, at: u64, frame: &[u8]) -> Result<(), RecordError> {
        self.batch.bytes.extend_from_slice(frame);
        self.batch.ends.push((at, self.batch.bytes.len()));
        if self.batch.bytes.len() >= FRAME_BATCH_BYTES {
            self.hand_over()?;
        }
        Ok(())
    }

    fn hand_over(&mut self) -> Result<(), RecordError> {
        let next = self.empty.try_recv().unwrap_or_default();
        let batch = std::mem::replace(&mut self.batch, next);
        if self.full.send(batch).is_err() {
            self.writer_gone = true;
            return Err(invalid("the recording's writer stopped"));
        }
        Ok(())
    }
}

/// Writes a recording into `out` that opens with the Hello of a session of `program` imported
/// from `producer`'s file, then `produce`'s frames, through a writer thread ([`Frames`]).
pub(crate) fn write_frames<W: Write + Send>(
    out: W,
    producer: &str,
    program: &str,
    produce: impl FnOnce(&mut Frames) -> Result<(), RecordError>,
) -> Result<(), RecordError> {
    use std::sync::mpsc::{channel, sync_channel};
    let (full, batches) = sync_channel::<FrameBatch>(2);
    let (give_back, empty) = channel::<FrameBatch>();
    std::thread::scope(|scope| {
        let writer = std::thread::Builder::new()
            .name("highrise-import-write".into())
            .spawn_scoped(scope, move || -> Result<(), RecordError> {
                let mut writer = begin(out, producer, program)?;
                for mut batch in batches {
                    let mut start = 0;
                    for &(at, end) in &batch.ends {
                        writer.write_frame(at, &batch.bytes[start..end], at)?;
                        start = end;
                    }
                    batch.bytes.clear();
                    batch.ends.clear();
                    let _ = give_back.send(batch);
                }
                writer.finish()?;
                Ok(())
            })?;
        let mut frames = Frames {
            batch: FrameBatch::default(),
            full,
            empty,
            writer_gone: false,
        };
        let produced = produce(&mut frames).and_then(|()| frames.hand_over());
        let writer_gone = frames.writer_gone;
        drop(frames); // the writer's last batch: it finishes the recording
        let written = writer
            .join()
            .unwrap_or_else(|_| Err(invalid("the recording's writer failed (a bug in highrise)")));
        match produced {
            // The writer's own error says why.
            Err(_) if writer_gone => written,
            Err(error) => Err(error),
            Ok(()) => written,
        }
    })
}

/// A recording into `out` that opens with the Hello of a session of `program` imported from
/// `producer`'s file.
pub(crate) fn begin<W: Write>(
    out: W,
    producer: &str,
    program: &str,
) -> Result<RecordingWriter<W>, RecordError> {
    // zstd's fastest level: a converted file is mostly opened once (`highrise report FILE`
    // converts into a temporary recording), and level 3 took a third of a 1 GB file's time.
    let mut writer = RecordingWriter::with_compression(
        out,
        &RecordingHeader::new(0),
        highrise_record::Compression::Zstd { level: 1 },
    )?;
    let hello = encode_frame(&AgentMessage::Hello(Hello {
        magic: MAGIC,
        protocol_version: PROTOCOL_VERSION,
        agent: format!("highrise import ({producer})"),
        program: program.to_owned(),
        version_label: String::new(),
        pid: 0,
        clock_unit_ns: 1,
        clock_zero_unix_ns: 0,
    }))
    .map_err(|e| invalid(format!("encoding: {e}")))?;
    writer.write_frame(0, &hello, 0)?;
    Ok(writer)
}
