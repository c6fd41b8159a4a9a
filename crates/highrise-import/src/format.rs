//! The formats highrise imports, where a profile is read from, and the error of one that
//! cannot be read.

use std::path::Path;

use highrise_record::RecordError;

/// A format this crate opens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProfileFormat {
    /// `frame;frame COUNT` lines.
    Folded,
    /// speedscope's JSON file format.
    Speedscope,
    /// Chrome's trace event format (JSON).
    ChromeTrace,
    /// V8's CPU profile (JSON: `nodes`, `samples`, `timeDeltas`).
    CpuProfile,
    /// pprof's `profile.proto`, gzipped or not.
    Pprof,
    /// A JFR recording (Java Flight Recorder).
    Jfr,
}

/// Where a profile is read from.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Input<'a> {
    /// A file, read as a stream where the format allows (it need not fit in memory).
    File(&'a Path),
    /// A profile held in memory.
    Bytes(&'a [u8]),
}

impl Input<'_> {
    /// The whole profile in memory.
    pub fn bytes(&self) -> Result<std::borrow::Cow<'_, [u8]>, RecordError> {
        Ok(match self {
            Input::File(path) => std::fs::read(path)?.into(),
            Input::Bytes(bytes) => (*bytes).into(),
        })
    }

    /// The profile as a buffered stream.
    pub fn stream(&self) -> Result<Box<dyn std::io::BufRead + Send + '_>, RecordError> {
        Ok(match self {
            Input::File(path) => Box::new(std::io::BufReader::with_capacity(
                1 << 20,
                std::fs::File::open(path)?,
            )),
            Input::Bytes(bytes) => Box::new(*bytes),
        })
    }
}

/// A file's first bytes as text, leading white space skipped (what the JSON formats look at).
pub(crate) fn text_start(start: &[u8]) -> std::borrow::Cow<'_, str> {
    match String::from_utf8_lossy(start) {
        std::borrow::Cow::Borrowed(text) => text.trim_start().into(),
        std::borrow::Cow::Owned(text) => text.trim_start().to_owned().into(),
    }
}

impl ProfileFormat {
    /// The format's name as users know it ("speedscope", "jfr", …).
    pub fn name(self) -> &'static str {
        match self {
            ProfileFormat::Folded => "folded stacks",
            ProfileFormat::Speedscope => "speedscope",
            ProfileFormat::ChromeTrace => "chrome trace",
            ProfileFormat::CpuProfile => "v8 cpu profile",
            ProfileFormat::Pprof => "pprof",
            ProfileFormat::Jfr => "jfr",
        }
    }
}

/// An error about a profile that could not be read.
pub(crate) fn invalid(reason: impl Into<String>) -> RecordError {
    RecordError::InvalidProfile {
        reason: reason.into(),
    }
}
