//! Recording size and speed on the realistic stream (8 threads, 2,000 methods, 4096-event
//! batches, `highrise_testkit::synthetic`): bytes per event uncompressed (format 1) and
//! compressed (format 2) at zstd levels 1 and 3, then criterion timings of writing and reading
//! the whole recording. Frames "arrive" at 25 M events/s and the writer is flushed every 50 ms
//! of that arrival time, as the ingest server flushes every publish tick.
//!
//! `cargo bench -p highrise-record --bench compression`

use std::io::Cursor;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use highrise_protocol::{encode_frame, AgentMessage};
use highrise_record::{
    Compression, RecordedFrame, RecordingHeader, RecordingReader, RecordingWriter,
};
use highrise_testkit::messages::{hello, method};
use highrise_testkit::synthetic::{realistic_batches, StreamShape};

const SHAPE: StreamShape = StreamShape::REALISTIC;
const EVENTS: usize = 2_000_000;
const EVENTS_PER_S: u64 = 25_000_000;
const FLUSH_EVERY_NS: u64 = 50_000_000;

const CASES: [(&str, Compression); 3] = [
    ("uncompressed", Compression::None),
    ("zstd-1", Compression::Zstd { level: 1 }),
    ("zstd-3", Compression::Zstd { level: 3 }),
];

/// The session's wire frames, each with its arrival (ns), and its event count.
fn stream() -> (Vec<(u64, Vec<u8>)>, u64) {
    let mut messages = vec![
        AgentMessage::Hello(hello("compression-bench", "bench")),
        AgentMessage::DefineMethods(
            (0..SHAPE.methods)
                .map(|id| {
                    let (package, class) = (format!("p{}", id % 17), format!("C{}", id % 301));
                    method(id, &package, &class, &format!("m{id}"))
                })
                .collect(),
        ),
    ];
    let batches = realistic_batches(&SHAPE, EVENTS, 11);
    let events = batches.iter().map(|b| u64::from(b.event_count)).sum();
    messages.extend(batches.into_iter().map(AgentMessage::Events));
    let mut seen = 0u64;
    let frames = messages
        .iter()
        .map(|message| {
            if let AgentMessage::Events(batch) = message {
                seen += u64::from(batch.event_count);
            }
            let arrival_ns = seen * 1_000_000_000 / EVENTS_PER_S;
            (arrival_ns, encode_frame(message).expect("encodes"))
        })
        .collect();
    (frames, events)
}

fn record(frames: &[(u64, Vec<u8>)], compression: Compression) -> Vec<u8> {
    let mut writer =
        RecordingWriter::with_compression(Vec::new(), &RecordingHeader::new(0), compression)
            .expect("header");
    let mut next_flush_ns = FLUSH_EVERY_NS;
    for (arrival_ns, frame) in frames {
        if *arrival_ns >= next_flush_ns {
            writer.flush().expect("flush");
            next_flush_ns = arrival_ns + FLUSH_EVERY_NS;
        }
        writer.write_frame(*arrival_ns, frame, 0).expect("writes");
    }
    writer.finish().expect("finishes")
}

fn read(recording: &[u8]) -> u64 {
    let mut reader = RecordingReader::new(Cursor::new(recording)).expect("opens");
    let mut cursor = reader.frames();
    let mut frame = RecordedFrame::default();
    let mut bytes = 0u64;
    while cursor.next_into(&mut frame).expect("reads").is_some() {
        bytes += frame.frame.len() as u64;
    }
    bytes
}

fn compression(c: &mut Criterion) {
    let (frames, events) = stream();
    let wire_bytes: u64 = frames.iter().map(|(_, frame)| frame.len() as u64).sum();
    println!(
        "stream: {events} events, {wire_bytes} bytes of frames ({:.3} bytes/event)",
        wire_bytes as f64 / events as f64
    );
    for (name, compression) in CASES {
        let recording = record(&frames, compression);
        assert_eq!(read(&recording), wire_bytes);
        println!(
            "{name}: {} bytes ({:.3} bytes/event, {:.2}x smaller than the frames)",
            recording.len(),
            recording.len() as f64 / events as f64,
            wire_bytes as f64 / recording.len() as f64
        );
    }
    let mut group = c.benchmark_group("recording");
    group.throughput(Throughput::Bytes(wire_bytes));
    group.sample_size(10);
    for (name, compression) in CASES {
        group.bench_function(format!("write/{name}"), |b| {
            b.iter(|| record(&frames, compression))
        });
        let recording = record(&frames, compression);
        group.bench_function(format!("read/{name}"), |b| b.iter(|| read(&recording)));
    }
    group.finish();
}

criterion_group!(benches, compression);
criterion_main!(benches);
