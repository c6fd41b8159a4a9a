//! The [`Importer`] each `loader_*.rs` implements, and what it reads ([`Imported`]), written
//! the same way for every format (the registry that picks an importer is `registry.rs`).

use std::io::Write;

use highrise_record::RecordError;

use crate::format::Input;
use crate::profile::{write_recording, Profile};
use crate::trace::{write_trace, Trace};

/// One format another tool writes, read into a recording.
pub(crate) trait Importer: Sync {
    /// Whether a file that starts with `start` (its first 4 KiB, or all of a shorter file) is
    /// in this format. Asked in the registry's order: the first that says yes reads the file.
    fn detects(&self, start: &[u8]) -> bool;

    /// Reads `input`: samples, or every call.
    fn read(&self, input: Input<'_>) -> Result<Imported, RecordError>;
}

/// What an [`Importer`] read, written as a recording by [`Imported::write`].
pub(crate) enum Imported {
    /// A sampling profile.
    Samples(Box<Profile>),
    /// Every call (a trace).
    Calls(Trace),
}

impl Imported {
    /// Writes what was read as a recording of a session of `program` into `out`.
    pub(crate) fn write(self, program: &str, out: impl Write + Send) -> Result<(), RecordError> {
        match self {
            Imported::Samples(profile) => write_recording(&profile, program, out),
            Imported::Calls(trace) => write_trace(trace, program, out),
        }
    }
}
