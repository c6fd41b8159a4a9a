//! `highrise-import`: profiles written by other tools, opened as recordings. [`open`] opens any
//! file highrise reads: a recording as it is, else one of these, detected by content and
//! converted into a session's frames (a `Measure` saying "sampled", the methods, then each sample as the thread's whole
//! stack at its time, as the agents' sampled modes send them), so `report`, `replay` and the
//! window open it like any recording.
//!
//! - **Folded (collapsed) stacks**: `frame;frame;frame COUNT` lines, outermost frame first, as
//!   `py-spy record --format raw`, async-profiler's `collapsed` output, the `stackcollapse-*`
//!   scripts and `perf script | stackcollapse-perf.pl` write them. A first frame `thread (…)`
//!   or `process …` names the thread. Counts carry no time: each thread's samples are spread
//!   evenly over the profile (every stack at its share in every window), one per
//!   [`FOLDED_PERIOD_NS`].
//! - **speedscope JSON** (`$schema` …/file-format-schema.json), one thread a profile. Sampled
//!   profiles (py-spy's `--format speedscope`, rbspy): samples in order, each lasting its
//!   weight when the unit is a time, else one [`FOLDED_PERIOD_NS`] per unit of weight. Evented
//!   profiles: each frame opened and closed at its time, as calls; pyinstrument's are its
//!   samples merged into a timeline, so its sessions say "sampled" and count no calls.
//! - **pprof** (`profile.proto`, gzipped or not; [`highrise_record::pprof`]): each sample's stack with its
//!   time (`cpu`, `wall`) in samples of the profile's period, or its sample count, spread evenly
//!   as folded stacks are; a `thread` label names the thread. Allocation values (Go's heap
//!   profile: `alloc_objects`/`alloc_space`, else `inuse_*`) become memory records of an untyped
//!   class, made by each stack's innermost frame, spread like the samples.
//! - **JFR** (Java Flight Recorder, read with the `jfrs` crate): each `jdk.ExecutionSample` and
//!   `jdk.NativeMethodSample` is its thread's stack at its time; each
//!   `jdk.ObjectAllocationSample` a memory record at its time: one object of its class, its
//!   weight in bytes (the allocation the sample stands for).
//!
//! An allocation is written as its thread's stack at that instant, the memory record, then the
//! thread's sampled stack again: it takes no time, so elevations are the samples' alone.
//!
//! - **V8 CPU profiles** (`.cpuprofile` JSON: Node's `--cpu-prof`, Chrome DevTools): the call
//!   tree's nodes and each sample's node with its time delta; `(idle)` is a thread on nothing,
//!   `(program)` and `(garbage collector)` stand in the package `v8`.
//! - **Chrome trace events** (JSON: an array of events or `{"traceEvents": [...]}`, as Perfetto,
//!   `chrome://tracing`, viztracer and many tools write): complete (`X`) and begin/end (`B`/`E`)
//!   events per `pid`/`tid` become exact enter and exit events, so calls are counted; thread
//!   names come from the `thread_name` metadata.
//!
//! Frame names become package, class and method as the agents name them: a Python frame with a
//! file (`Shape.area` in `…/site-packages/pkg/mod.py`) is `pkg.mod` · `Shape` · `area`; a Go
//! function (a `.go` file) splits at its import path, `main.(*Shape).Area` is `main` · `Shape` ·
//! `Area`; a dotted or `::` name (`java/util/HashMap.get_[j]`, `core::fmt::write`) splits at its
//! last two separators; a bare name (`malloc`) stands in the package `native`, and an unnamed
//! address under its library's (`native.libc`).
//!
//! Where to start: [`open`] (any file), [`convert`] / [`convert_bytes`] (a profile into a
//! recording), `importer.rs` (the trait each format's `loader_*.rs` implements) and
//! `registry.rs` (every format's importer, in the order formats are detected). Profiles become recordings through
//! `profile.rs` (samples) or `trace.rs` (exact calls), written by `frames.rs` on a thread of its
//! own; `naming.rs` turns frame names into package, class and method, for OTLP profiles too.

use std::fs::File;
use std::io::{BufReader, Write};
use std::path::{Path, PathBuf};

use highrise_record::{RecordError, RecordingReader};

mod format;
mod frames;
mod importer;
mod json_array;
mod loader_chrome;
mod loader_folded;
mod loader_jfr;
mod loader_pprof;
mod loader_speedscope;
mod loader_v8;
pub mod naming;
mod profile;
mod registry;
#[cfg(test)]
mod tests;
mod trace;

use format::Input;
pub use format::ProfileFormat;
pub use profile::{FOLDED_MAX_SAMPLES, FOLDED_PERIOD_NS};

/// Opens any file highrise reads: a recording as it is; another tool's profile
/// ([`ProfileFormat::of_file`]) converted first into a temporary recording, whose name is
/// removed once it is open (the reader holds it).
pub fn open(path: impl AsRef<Path>) -> Result<RecordingReader<BufReader<File>>, RecordError> {
    let path = path.as_ref();
    match ProfileFormat::of_file(path)? {
        Some(format) => open_profile(path, format),
        None => RecordingReader::open(path),
    }
}

/// Opens the profile at `path`, of `format` ([`ProfileFormat::of_file`]), converted into a
/// temporary recording whose name is removed once it is open (the reader holds it).
pub fn open_profile(
    path: &Path,
    format: ProfileFormat,
) -> Result<RecordingReader<BufReader<File>>, RecordError> {
    let converted = converted_path(path, format);
    let written = File::create(&converted)
        .map_err(RecordError::from)
        .and_then(|out| convert(path, format, std::io::BufWriter::new(out)));
    // Opened (or failed), the converted file needs no name: it goes with the reader.
    let opened = written.and_then(|()| Ok(File::open(&converted)?));
    let _ = std::fs::remove_file(&converted);
    RecordingReader::from_file(opened?)
}

/// Converts a profile held in memory (of `format`) into a recording written to `out`, as the
/// program `program`.
pub fn convert_bytes(
    bytes: &[u8],
    format: ProfileFormat,
    program: &str,
    out: impl Write + Send,
) -> Result<(), RecordError> {
    format
        .importer()
        .read(Input::Bytes(bytes))?
        .write(program, out)
}

/// Converts the profile at `path` (of `format`) into a recording written to `out`; the
/// session's program is the file's name. The file is read as a stream where its format allows:
/// it need not fit in memory.
pub fn convert(
    path: &Path,
    format: ProfileFormat,
    out: impl Write + Send,
) -> Result<(), RecordError> {
    let program = path
        .file_stem()
        .map_or_else(|| "profile".into(), |s| s.to_string_lossy().into_owned());
    format
        .importer()
        .read(Input::File(path))?
        .write(&program, out)
}

/// Where [`open_profile`] puts a converted profile (it opens it and removes the name at once).
fn converted_path(path: &Path, format: ProfileFormat) -> PathBuf {
    let stem = path
        .file_name()
        .map_or_else(|| "profile".into(), |s| s.to_string_lossy().into_owned());
    std::env::temp_dir().join(format!(
        "highrise-import-{}-{}-{stem}.hrec",
        std::process::id(),
        format.name().replace(' ', "-"),
    ))
}
