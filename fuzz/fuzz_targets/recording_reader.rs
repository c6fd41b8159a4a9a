//! Bytes as a `.hrec` file (format 1, uncompressed, or 2, zstd blocks; whole, truncated or
//! damaged) opened with [`RecordingReader::new`] on an in-memory cursor, then read every way a
//! replay reads it: all frames in order, from each index entry (and the entry for a few
//! program times), and at positions it handed out, just past them and nowhere near them. Must
//! hold: nothing panics (a bad file is a `RecordError`), every frame read is one whole wire
//! frame (a length header that matches its payload), and no length field in the file makes
//! the reader allocate more than the format's bounds (the fuzz runs use `-malloc_limit_mb=64`).
//! Each input is read as is and again with its checksums made right, so mutations also
//! reach the records' contents.
#![no_main]

use std::io::Cursor;

use highrise_protocol::{FRAME_HEADER_BYTES, MAX_FRAME_BYTES};
use highrise_record::{RecordedFrame, RecordingReader};
use libfuzzer_sys::fuzz_target;

/// Frames read per pass at most (a small file cannot hold many more, but keep runs short).
const MAX_FRAMES: usize = 10_000;
/// Bytes of the file header (its checksum last).
const HEADER_BYTES: usize = highrise_record::HEADER_BYTES as usize;

fn check_frame(frame: &RecordedFrame) {
    let (header, payload) = frame
        .frame
        .split_first_chunk::<FRAME_HEADER_BYTES>()
        .expect("a recorded frame starts with its length header");
    let length = u32::from_le_bytes(*header);
    assert!(length <= MAX_FRAME_BYTES);
    assert_eq!(
        length as usize,
        payload.len(),
        "header and payload disagree"
    );
    assert_eq!(frame.payload(), payload);
}

/// `data` with the header's and each record's checksum made right (walking the records by
/// their length fields), so mutations reach what lies behind the checksums.
fn with_checksums_fixed(data: &[u8]) -> Vec<u8> {
    let mut fixed = data.to_vec();
    if fixed.len() < HEADER_BYTES {
        return fixed;
    }
    let crc = crc32fast::hash(&fixed[..HEADER_BYTES - 4]);
    fixed[HEADER_BYTES - 4..HEADER_BYTES].copy_from_slice(&crc.to_le_bytes());
    let mut at = HEADER_BYTES;
    while let Some(head) = fixed.get(at..at + 5) {
        let body_len = u32::from_le_bytes([head[1], head[2], head[3], head[4]]) as usize;
        let end = at + 5 + body_len;
        let Some(record) = fixed.get(at..end) else {
            break;
        };
        let crc = crc32fast::hash(record);
        let Some(slot) = fixed.get_mut(end..end + 4) else {
            break;
        };
        slot.copy_from_slice(&crc.to_le_bytes());
        at = end + 4;
    }
    fixed
}

fuzz_target!(|data: &[u8]| {
    read_every_way(data);
    let fixed = with_checksums_fixed(data);
    if fixed != data {
        read_every_way(&fixed);
    }
});

fn read_every_way(data: &[u8]) {
    let Ok(mut reader) = RecordingReader::new(Cursor::new(data)) else {
        return;
    };
    let _ = (
        reader.header(),
        reader.completeness(),
        reader.is_compressed(),
    );
    let _ = (
        reader.frame_count(),
        reader.last_arrival_ns(),
        reader.file_bytes(),
    );

    // Every frame from the start, keeping the positions a replay would keep.
    let mut frame = RecordedFrame::default();
    let mut positions = vec![reader.data_start()];
    let mut cursor = reader.frames();
    for _ in 0..MAX_FRAMES {
        match cursor.next_into(&mut frame) {
            Ok(Some(())) => {
                check_frame(&frame);
                positions.push(cursor.offset());
            }
            Ok(None) | Err(_) => break,
        }
    }
    // The iterator ends after its first error.
    let mut count = 0;
    for item in reader.frames().take(MAX_FRAMES) {
        count += 1;
        if let Ok(frame) = item {
            check_frame(&frame);
        }
    }
    assert!(count <= MAX_FRAMES);

    // Seeking: each seek point, and the one for a few program times.
    let index = reader.index().to_vec();
    let mut entries = index.clone();
    for time in [0, 1, u64::MAX]
        .into_iter()
        .chain(index.iter().map(|entry| entry.agent_time_ns))
    {
        entries.extend(reader.entry_for_agent_time(time));
        entries.extend(reader.entry_for_arrival(time));
    }
    for entry in entries.iter().take(64) {
        let mut cursor = reader.frames_from(entry);
        for _ in 0..4 {
            match cursor.next_into(&mut frame) {
                Ok(Some(())) => check_frame(&frame),
                Ok(None) | Err(_) => break,
            }
        }
    }

    // Positions handed out, positions just past them, and positions never handed out.
    let strays = [
        1,
        27,
        29,
        u64::from(u32::MAX),
        1 << 32,
        (1 << 32) | 1,
        u64::MAX,
    ];
    for position in positions
        .iter()
        .take(64)
        .flat_map(|&position| [position, position.wrapping_add(1)])
        .chain(strays)
    {
        if let Ok(Some(_)) = reader.read_frame_at(position, &mut frame) {
            check_frame(&frame);
        }
    }
}
