//! The `.hrec` format: round trips, every truncation, random corruption, bad headers.

use std::io::Cursor;

use highrise_record::{
    Completeness, RecordError, RecordedFrame, RecordingHeader, RecordingReader, RecordingWriter,
    HEADER_BYTES, INDEX_EVERY_FRAMES,
};
use proptest::prelude::*;

/// A wire frame with this payload.
fn frame(payload: &[u8]) -> Vec<u8> {
    let mut frame = (payload.len() as u32).to_le_bytes().to_vec();
    frame.extend_from_slice(payload);
    frame
}

/// Writes `frames` (arrival, payload); returns the file and the end offset of each frame's
/// record.
fn write(frames: &[(u64, Vec<u8>)], finish: bool) -> (Vec<u8>, Vec<u64>) {
    let mut writer =
        RecordingWriter::new(Vec::new(), &RecordingHeader::new(1_700_000_000_000_000_000))
            .expect("header");
    let mut ends = Vec::new();
    for (i, (arrival_ns, payload)) in frames.iter().enumerate() {
        writer
            .write_frame(*arrival_ns, &frame(payload), i as u64 * 10)
            .expect("frame");
        ends.push(writer.bytes());
    }
    let bytes = if finish {
        writer.finish().expect("finish")
    } else {
        // What a crash leaves: everything written so far, no footer.
        writer_into_inner(writer)
    };
    (bytes, ends)
}

fn writer_into_inner(writer: RecordingWriter<Vec<u8>>) -> Vec<u8> {
    // The writer has no into_inner (finish is the way out): finish, then cut the footer off.
    let frames_end = writer.bytes() as usize;
    let mut bytes = writer.finish().expect("finish");
    bytes.truncate(frames_end);
    bytes
}

fn read_all(bytes: &[u8]) -> Result<(Vec<RecordedFrame>, Completeness), RecordError> {
    let mut reader = RecordingReader::new(Cursor::new(bytes))?;
    let frames = reader.frames().collect::<Result<Vec<_>, _>>()?;
    Ok((frames, reader.completeness().clone()))
}

fn frames_strategy() -> impl Strategy<Value = Vec<(u64, Vec<u8>)>> {
    prop::collection::vec(
        (
            0u64..2_000_000_000,
            prop::collection::vec(any::<u8>(), 0..64),
        ),
        0..24,
    )
    .prop_map(|frames| {
        let mut arrival = 0u64;
        frames
            .into_iter()
            .map(|(step, payload)| {
                arrival += step;
                (arrival, payload)
            })
            .collect()
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn round_trip(frames in frames_strategy(), finish in any::<bool>()) {
        let (bytes, _) = write(&frames, finish);
        let mut reader = RecordingReader::new(Cursor::new(&bytes)).expect("opens");
        prop_assert_eq!(reader.frame_count(), frames.len() as u64);
        prop_assert_eq!(
            matches!(reader.completeness(), Completeness::Complete),
            finish
        );
        let read: Vec<RecordedFrame> = reader.frames().collect::<Result<_, _>>().expect("reads");
        prop_assert_eq!(read.len(), frames.len());
        for (got, (arrival_ns, payload)) in read.iter().zip(&frames) {
            prop_assert_eq!(got.arrival_ns, *arrival_ns);
            prop_assert_eq!(got.payload(), &payload[..]);
            prop_assert_eq!(&got.frame, &frame(payload));
        }
        // Every seek point starts at its frame number.
        let index = reader.index().to_vec();
        for entry in index {
            let rest: Vec<RecordedFrame> =
                reader.frames_from(&entry).collect::<Result<_, _>>().expect("reads");
            prop_assert_eq!(rest.len() as u64, frames.len() as u64 - entry.frame_number);
            if let Some(first) = rest.first() {
                prop_assert_eq!(first.arrival_ns, entry.arrival_ns);
            }
        }
    }

    #[test]
    fn every_truncation_keeps_the_whole_frames_before_it(frames in frames_strategy()) {
        let (bytes, ends) = write(&frames, true);
        for cut in 0..bytes.len() {
            let truncated = &bytes[..cut];
            match read_all(truncated) {
                Ok((read, completeness)) => {
                    let whole = ends.iter().filter(|end| **end <= cut as u64).count();
                    prop_assert!(cut as u64 >= HEADER_BYTES);
                    prop_assert_eq!(read.len(), whole, "cut at {}", cut);
                    for (got, (arrival_ns, payload)) in read.iter().zip(&frames) {
                        prop_assert_eq!(got.arrival_ns, *arrival_ns);
                        prop_assert_eq!(got.payload(), &payload[..]);
                    }
                    let footer_whole = whole == frames.len()
                        && matches!(completeness, Completeness::Complete);
                    let interrupted = matches!(completeness, Completeness::Interrupted { .. });
                    prop_assert!(footer_whole || interrupted);
                }
                Err(error) => {
                    prop_assert!(cut < HEADER_BYTES as usize, "cut {}: {}", cut, error);
                    let too_short = matches!(error, RecordError::TooShort { .. });
                    prop_assert!(too_short);
                }
            }
        }
    }

    #[test]
    fn random_corruption_never_panics(
        frames in frames_strategy(),
        flips in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..8),
        finish in any::<bool>(),
    ) {
        let (mut bytes, _) = write(&frames, finish);
        for (at, value) in flips {
            let at = at.index(bytes.len());
            bytes[at] ^= value.max(1);
        }
        if let Ok(mut reader) = RecordingReader::new(Cursor::new(&bytes)) {
            let _ = reader.frame_count();
            for frame in reader.frames() {
                if frame.is_err() {
                    break;
                }
            }
            let index = reader.index().to_vec();
            for entry in index.iter().take(3) {
                for frame in reader.frames_from(entry) {
                    if frame.is_err() {
                        break;
                    }
                }
            }
        }
    }
}

#[test]
fn an_index_entry_every_so_many_frames_and_every_second() {
    let many: Vec<(u64, Vec<u8>)> = (0..INDEX_EVERY_FRAMES * 2 + 1)
        .map(|i| (i, vec![1, 2, 3]))
        .collect();
    let (bytes, _) = write(&many, true);
    let reader = RecordingReader::new(Cursor::new(&bytes)).expect("opens");
    let frame_numbers: Vec<u64> = reader.index().iter().map(|e| e.frame_number).collect();
    assert_eq!(
        frame_numbers,
        vec![0, INDEX_EVERY_FRAMES, 2 * INDEX_EVERY_FRAMES]
    );

    let slow: Vec<(u64, Vec<u8>)> = (0..5).map(|i| (i * 600_000_000, vec![9])).collect();
    let (bytes, _) = write(&slow, true);
    let reader = RecordingReader::new(Cursor::new(&bytes)).expect("opens");
    let arrivals: Vec<u64> = reader.index().iter().map(|e| e.arrival_ns).collect();
    assert_eq!(arrivals, vec![0, 1_200_000_000, 2_400_000_000]);
    // Agent time of each entry is the latest reported before it; seeking by it finds it.
    assert_eq!(
        reader.entry_for_agent_time(25).map(|e| e.frame_number),
        Some(2)
    );
    assert_eq!(reader.last_agent_time_ns(), 40);
}

#[test]
fn an_interrupted_recording_rebuilds_its_index() {
    let many: Vec<(u64, Vec<u8>)> = (0..INDEX_EVERY_FRAMES + 10)
        .map(|i| (i, vec![7; 5]))
        .collect();
    let (complete, _) = write(&many, true);
    let (interrupted, _) = write(&many, false);
    let complete = RecordingReader::new(Cursor::new(&complete)).expect("opens");
    let interrupted = RecordingReader::new(Cursor::new(&interrupted)).expect("opens");
    assert_eq!(complete.index(), interrupted.index());
    assert_eq!(interrupted.frame_count(), INDEX_EVERY_FRAMES + 10);
    assert!(matches!(
        interrupted.completeness(),
        Completeness::Interrupted { reason, .. } if reason.contains("no footer")
    ));
}

#[test]
fn bad_files_give_clear_errors() {
    let (good, _) = write(&[(0, vec![1, 2, 3])], true);
    let error = |bytes: &[u8]| match RecordingReader::new(Cursor::new(bytes)) {
        Ok(_) => panic!("opened"),
        Err(error) => error,
    };
    // Not a recording at all.
    let e = error(b"GET / HTTP/1.1\r\nHost: example\r\n\r\n");
    assert!(matches!(e, RecordError::BadMagic { .. }), "{e}");
    assert!(e.to_string().contains("not a highrise recording"));
    assert!(matches!(error(b"PK"), RecordError::BadMagic { .. }));
    // Empty and short files.
    assert!(matches!(
        error(b""),
        RecordError::TooShort { file_bytes: 0, .. }
    ));
    assert!(matches!(error(&good[..10]), RecordError::TooShort { .. }));
    // A newer format version (checksum fixed up, as a newer writer would).
    let mut newer = good.clone();
    newer[8..12].copy_from_slice(&2u32.to_le_bytes());
    let sum = crc(&newer[..24]);
    newer[24..28].copy_from_slice(&sum.to_le_bytes());
    let e = error(&newer);
    assert!(matches!(
        e,
        RecordError::UnsupportedFormatVersion {
            found: 2,
            supported: 1
        }
    ));
    assert!(e.to_string().contains("upgrade highrise"), "{e}");
    // Another protocol version.
    let mut other_protocol = good.clone();
    other_protocol[12..16].copy_from_slice(&9u32.to_le_bytes());
    let sum = crc(&other_protocol[..24]);
    other_protocol[24..28].copy_from_slice(&sum.to_le_bytes());
    assert!(matches!(
        error(&other_protocol),
        RecordError::ProtocolVersion { found: 9, .. }
    ));
    // A damaged header.
    let mut damaged = good.clone();
    damaged[20] ^= 0xff;
    assert!(matches!(error(&damaged), RecordError::CorruptHeader));
    // A damaged frame in a finished file: the footer still opens it, reading names the spot.
    let mut damaged_frame = good.clone();
    let last_payload_byte = HEADER_BYTES as usize + 33 + 5 + 8 + 4 + 2;
    damaged_frame[last_payload_byte] ^= 0x40;
    let mut reader = RecordingReader::new(Cursor::new(&damaged_frame)).expect("footer ok");
    let e = reader.frames().find_map(Result::err).expect("an error");
    assert!(
        matches!(&e, RecordError::Corrupt { reason, .. } if reason.contains("checksum")),
        "{e}"
    );
}

/// CRC-32 (IEEE), as the format uses; written out so the test does not trust the crate.
fn crc(bytes: &[u8]) -> u32 {
    let mut crc = 0xffff_ffffu32;
    for &byte in bytes {
        crc ^= u32::from(byte);
        for _ in 0..8 {
            crc = if crc & 1 != 0 {
                (crc >> 1) ^ 0xedb8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}
