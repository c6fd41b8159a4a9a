//! Recordings written out for other tools: [`export`] reads a recording (opened by
//! [`RecordingReader::open`](crate::RecordingReader::open), or another tool's profile opened by
//! `highrise_import::open`) and writes it as
//!
//! - **pprof** (gzipped `profile.proto`): one sample per thread and stack. An exact session's
//!   values are `wall`/`nanoseconds` (time with that stack on top) and `calls`/`count` (how many
//!   times the stack's innermost method was entered with that stack); a sampled one's
//!   `samples`/`count` and `wall`/`nanoseconds` (samples × the time each lasted). The thread is
//!   the label `thread`. Memory records add `alloc_objects`/`alloc_space` (and
//!   `free_objects`/`free_space` where frees were counted), as Go's heap profiles name them: one
//!   sample per thread, stack and class, the class as the label `class`. `wall` is the default
//!   type.
//! - **speedscope** JSON: a profile per thread; exact sessions as `evented` (every enter and exit
//!   at its time), sampled ones as `sampled` (each sample weighted by the time it lasted). Memory
//!   records add a `sampled` profile per thread, "NAME: allocated bytes" (objects where bytes were
//!   not measured): each stack with the class made as its innermost frame.
//! - **collapsed** stacks (`a;b;c N`): an exact session's N is microseconds on top, a sampled
//!   one's the count of samples; with several threads each stack starts with `thread (NAME)`, as
//!   py-spy writes it. Time only: the format holds one value per stack.
//! - **Chrome trace events** JSON: begin/end (`B`/`E`) events per thread, from every enter and
//!   exit (exact) or from the change between successive samples (sampled: a flame chart of the
//!   samples), with the threads' names as metadata. Time only.
//!
//! A method is named `package.Class.method` (`package.function` outside classes). Where to start: [`export`], then [`Timeline`] (a
//! recording as each thread's stack changes), which every writer replays.

use std::io::{Read, Seek, Write};

use crate::{RecordError, RecordingReader};

mod chrome;
mod collapsed;
mod pprof;
mod speedscope;
mod timeline;

use chrome::write_chrome;
use collapsed::write_collapsed;
use pprof::write_pprof;
use speedscope::write_speedscope;
pub use timeline::{ThreadLine, Timeline};

/// A format [`export`] writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExportFormat {
    Pprof,
    Speedscope,
    Collapsed,
    Chrome,
}

impl ExportFormat {
    /// The file extension an export of this format gets (`pb.gz`, `speedscope.json`, …).
    pub fn extension(self) -> &'static str {
        match self {
            ExportFormat::Pprof => "pb.gz",
            ExportFormat::Speedscope => "speedscope.json",
            ExportFormat::Collapsed => "collapsed.txt",
            ExportFormat::Chrome => "trace.json",
        }
    }
}

impl std::str::FromStr for ExportFormat {
    type Err = String;

    fn from_str(name: &str) -> Result<Self, String> {
        match name {
            "pprof" => Ok(ExportFormat::Pprof),
            "speedscope" => Ok(ExportFormat::Speedscope),
            "collapsed" | "folded" => Ok(ExportFormat::Collapsed),
            "chrome" | "perfetto" => Ok(ExportFormat::Chrome),
            other => Err(format!(
                "{other:?} is not an export format: pprof, speedscope, collapsed or chrome"
            )),
        }
    }
}

/// Writes the recording `reader` reads as `format` into `out`.
pub fn export<R: Read + Seek>(
    reader: RecordingReader<R>,
    format: ExportFormat,
    out: impl Write,
) -> Result<(), RecordError> {
    let timeline = Timeline::read(reader)?;
    match format {
        ExportFormat::Pprof => write_pprof(&timeline, out),
        ExportFormat::Speedscope => write_speedscope(&timeline, out),
        ExportFormat::Collapsed => write_collapsed(&timeline, out),
        ExportFormat::Chrome => write_chrome(&timeline, out),
    }
}

#[cfg(test)]
mod tests {
    use super::ExportFormat;

    #[test]
    fn export_formats_parse_by_name() {
        assert_eq!("pprof".parse(), Ok(ExportFormat::Pprof));
        assert_eq!("folded".parse(), Ok(ExportFormat::Collapsed));
        assert!("svg".parse::<ExportFormat>().is_err());
    }
}
