//! Bytes as another tool's profile (folded stacks, speedscope, Chrome trace events, V8 CPU
//! profiles, pprof; see `highrise_import`; not JFR, whose reader, the `jfrs` crate,
//! allocates by sizes read from the file): detected by content, converted into a recording in memory, and
//! that recording read back frame by frame. Must hold: nothing panics (a bad profile is a
//! `RecordError`), and what a conversion writes is a recording the reader opens whole.
#![no_main]

use std::io::Cursor;

use highrise_import::{convert_bytes, ProfileFormat};
use highrise_record::{RecordedFrame, RecordingReader};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let head = &data[..data.len().min(4096)];
    // Each format on every input, not only the detected one: the parsers meet all shapes.
    let detected = ProfileFormat::detect(head);
    for format in [
        ProfileFormat::Folded,
        ProfileFormat::Speedscope,
        ProfileFormat::ChromeTrace,
        ProfileFormat::CpuProfile,
        ProfileFormat::Pprof,
    ] {
        let mut out = Vec::new();
        if convert_bytes(data, format, "fuzz", &mut out).is_err() {
            continue;
        }
        let mut reader = RecordingReader::new(Cursor::new(out))
            .expect("a converted profile is a recording the reader opens");
        let mut frames = reader.frames();
        let mut frame = RecordedFrame::default();
        while frames
            .next_into(&mut frame)
            .expect("a converted profile reads to its end")
            .is_some()
        {}
    }
    let _ = detected;
});
