//! `highrise-record`: the `.hrec` recording format — an agent's frames exactly as the viewer
//! received them, each with its arrival time, plus an index so a reader can seek. Written
//! compressed by default (zstd, one zstd frame per index block, so seeking still works); the
//! first, uncompressed version is still read (and written on request). Pure: no I/O runtime, no
//! engine; it reads and writes any `std::io` stream.
//!
//! The byte-level description is `agent-protocol/RECORDING.md`. Where to start:
//!
//! - [`RecordingWriter`]: [`RecordingWriter::new`] writes the header,
//!   [`RecordingWriter::write_frame`] appends one frame, [`RecordingWriter::finish`] writes the
//!   footer index. A writer dropped without `finish` (a crash) leaves a file that is still
//!   readable up to its last whole frame (compressed: up to its last [`RecordingWriter::flush`]).
//!   [`RecordingWriter::with_compression`] picks the zstd level, or [`Compression::None`].
//! - [`RecordingReader`]: [`RecordingReader::open`] checks the header, loads the footer index
//!   (or rebuilds it by scanning an interrupted file), then [`RecordingReader::frames`] /
//!   [`RecordingReader::frames_from`] read frames back.
//!
//! - [`export`]: recordings written as pprof, speedscope, collapsed stacks or Chrome traces.
//! - [`pprof`]: pprof's messages, read and written.
//!
//! Other tools' profiles are opened as recordings by `highrise-import` (`highrise_import::open`
//! opens any file highrise reads); this crate reads and writes `.hrec` only.
//!
//! Recording and replay of live sessions (`highrise-ingest`) and the headless report
//! (`highrise-report`) are built on these two types.

mod error;
pub mod export;
mod format;
pub mod pprof;
mod reader;
mod writer;

pub use error::RecordError;
pub use format::{
    IndexEntry, RecordingHeader, BLOCK_RAW_BYTES, DEFAULT_ZSTD_LEVEL, FORMAT_VERSION,
    FORMAT_VERSION_UNCOMPRESSED, HEADER_BYTES, INDEX_EVERY_FRAMES, INDEX_EVERY_NS, MAGIC,
    TRAILER_BYTES, TRAILER_MAGIC,
};
pub use reader::{Completeness, FrameCursor, RecordedFrame, RecordingReader};
pub use writer::{Compression, RecordingWriter};

/// The conventional file extension of recordings.
pub const EXTENSION: &str = "hrec";
