//! Rewrites a recording with another compression, and says how large each is per event:
//! old (uncompressed) recordings become compressed ones, and real recordings measure the format.
//!
//! `cargo run --release -p highrise-record --example recompress -- IN.hrec OUT.hrec [LEVEL|none]`
//! (default level: `highrise_record::DEFAULT_ZSTD_LEVEL`).

use std::io::BufWriter;
use std::time::Instant;

use highrise_protocol::{decode_agent_message, AgentMessage};
use highrise_record::{Compression, RecordedFrame, RecordingReader, RecordingWriter};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(input), Some(output)) = (args.first(), args.get(1)) else {
        return Err("usage: recompress IN.hrec OUT.hrec [LEVEL|none]".into());
    };
    let compression = match args.get(2).map(String::as_str) {
        None => Compression::default(),
        Some("none") => Compression::None,
        Some(level) => Compression::Zstd {
            level: level.parse()?,
        },
    };
    let mut reader = RecordingReader::open(input)?;
    let index = reader.index().to_vec();
    let last_agent_time_ns = reader.last_agent_time_ns();
    let header = *reader.header();
    let in_bytes = reader.file_bytes();
    let mut writer = RecordingWriter::with_compression(
        BufWriter::with_capacity(1 << 20, std::fs::File::create(output)?),
        &header,
        compression,
    )?;
    let (mut frames, mut events, mut wire_bytes) = (0u64, 0u64, 0u64);
    let started = Instant::now();
    let mut cursor = reader.frames();
    let mut frame = RecordedFrame::default();
    let mut next_entry = index.iter().peekable();
    while cursor.next_into(&mut frame)?.is_some() {
        if let Ok(AgentMessage::Events(batch)) = decode_agent_message(frame.payload()) {
            events += u64::from(batch.event_count);
        }
        // Each index entry carries the agent time of the frames before it: give every frame
        // the next entry's, and the same seek points come out (by frames and arrival).
        while next_entry
            .next_if(|entry| entry.frame_number <= frames)
            .is_some()
        {}
        let agent_time_ns = next_entry
            .peek()
            .map_or(last_agent_time_ns, |entry| entry.agent_time_ns);
        writer.write_frame(frame.arrival_ns, &frame.frame, agent_time_ns)?;
        frames += 1;
        wire_bytes += frame.frame.len() as u64;
    }
    writer.finish()?;
    let elapsed_s = started.elapsed().as_secs_f64();
    let out_bytes = std::fs::metadata(output)?.len();
    let per_event = |bytes: u64| bytes as f64 / events.max(1) as f64;
    println!(
        "{frames} frames, {events} events, {wire_bytes} bytes of frames ({:.3} bytes/event)",
        per_event(wire_bytes)
    );
    println!(
        "in:  {input}: format {}, {in_bytes} bytes ({:.3} bytes/event)",
        header.format_version,
        per_event(in_bytes)
    );
    println!(
        "out: {output}: {compression:?}, {out_bytes} bytes ({:.3} bytes/event, {:.2}x smaller than the frames), rewritten in {elapsed_s:.2} s",
        per_event(out_bytes),
        wire_bytes as f64 / out_bytes.max(1) as f64
    );
    Ok(())
}
