//! The `.hrec` format, both versions (1: uncompressed, 2: zstd blocks): round trips, seeking,
//! every truncation, random corruption, bad headers.

use std::io::Cursor;

use highrise_record::{
    Completeness, Compression, RecordError, RecordedFrame, RecordingHeader, RecordingReader,
    RecordingWriter, FORMAT_VERSION, FORMAT_VERSION_UNCOMPRESSED, HEADER_BYTES, INDEX_EVERY_FRAMES,
};
use proptest::prelude::*;

const ZSTD: Compression = Compression::Zstd { level: 3 };
const BOTH: [Compression; 2] = [Compression::None, ZSTD];

/// A wire frame with this payload.
fn frame(payload: &[u8]) -> Vec<u8> {
    let mut frame = (payload.len() as u32).to_le_bytes().to_vec();
    frame.extend_from_slice(payload);
    frame
}

/// Writes `frames` (arrival, payload), flushing after each frame whose index is in
/// `flush_after` (what the ingest server does every publish tick); `finish`: write the footer,
/// else leave what a crash leaves.
fn write_with(
    frames: &[(u64, Vec<u8>)],
    finish: bool,
    compression: Compression,
    flush_after: impl Fn(usize) -> bool,
) -> Vec<u8> {
    let mut writer = RecordingWriter::with_compression(
        Vec::new(),
        &RecordingHeader::new(1_700_000_000_000_000_000),
        compression,
    )
    .expect("header");
    for (i, (arrival_ns, payload)) in frames.iter().enumerate() {
        writer
            .write_frame(*arrival_ns, &frame(payload), i as u64 * 10)
            .expect("frame");
        if flush_after(i) {
            writer.flush().expect("flush");
        }
    }
    if finish {
        writer.finish().expect("finish")
    } else {
        // What a crash leaves: everything flushed so far, no footer. (The writer has no
        // into_inner: finish, then cut the footer and the last block's unflushed rest off.)
        writer.flush().expect("flush");
        let flushed = writer.bytes() as usize;
        let mut bytes = writer.finish().expect("finish");
        bytes.truncate(flushed);
        bytes
    }
}

fn write(frames: &[(u64, Vec<u8>)], finish: bool, compression: Compression) -> Vec<u8> {
    write_with(frames, finish, compression, |i| i % 3 == 2)
}

/// The records of a file as the spec describes them, walked without the crate: for each whole
/// record, where it ends and how many frames the file holds up to there.
fn record_ends(bytes: &[u8]) -> Vec<(usize, u64)> {
    let mut ends = Vec::new();
    let (mut at, mut frames) = (HEADER_BYTES as usize, 0u64);
    while at + 5 <= bytes.len() {
        let kind = bytes[at];
        let len = u32::from_le_bytes(bytes[at + 1..at + 5].try_into().expect("4 bytes")) as usize;
        let end = at + 5 + len + 4;
        if end > bytes.len() || kind == 3 {
            break;
        }
        match kind {
            1 => frames += 1,
            4 => {
                frames += u64::from(u32::from_le_bytes(
                    bytes[at + 5..at + 9].try_into().expect("4"),
                ))
            }
            _ => {}
        }
        ends.push((end, frames));
        at = end;
    }
    ends
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

fn compression_strategy() -> impl Strategy<Value = Compression> {
    prop::sample::select(BOTH.to_vec())
}

/// Recomputes every record's checksum (so corruption reaches the decoder, not the CRC check).
fn fix_checksums(bytes: &mut [u8]) {
    let mut at = HEADER_BYTES as usize;
    while at + 5 <= bytes.len() {
        let len = u32::from_le_bytes(bytes[at + 1..at + 5].try_into().expect("4 bytes")) as usize;
        let end = at + 5 + len + 4;
        if end > bytes.len() {
            break;
        }
        let sum = crc(&bytes[at..end - 4]);
        bytes[end - 4..end].copy_from_slice(&sum.to_le_bytes());
        at = end;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn round_trip(
        frames in frames_strategy(),
        finish in any::<bool>(),
        compression in compression_strategy(),
    ) {
        let bytes = write(&frames, finish, compression);
        let mut reader = RecordingReader::new(Cursor::new(&bytes)).expect("opens");
        prop_assert_eq!(reader.header().format_version, compression.format_version());
        prop_assert_eq!(reader.is_compressed(), compression != Compression::None);
        prop_assert_eq!(reader.frame_count(), frames.len() as u64);
        prop_assert_eq!(
            matches!(reader.completeness(), Completeness::Complete),
            finish
        );
        if let Some((last, _)) = frames.last() {
            prop_assert_eq!(reader.last_arrival_ns(), *last);
        }
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
    fn every_truncation_keeps_the_whole_frames_before_it(
        frames in frames_strategy(),
        compression in compression_strategy(),
    ) {
        let bytes = write(&frames, true, compression);
        let ends = record_ends(&bytes);
        for cut in 0..bytes.len() {
            let truncated = &bytes[..cut];
            match read_all(truncated) {
                Ok((read, completeness)) => {
                    // Compressed: the frames of every whole chunk (each ends at a flush).
                    let whole = ends
                        .iter()
                        .take_while(|(end, _)| *end <= cut)
                        .last()
                        .map_or(0, |(_, frames)| *frames) as usize;
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
        compression in compression_strategy(),
        checksums_fixed in any::<bool>(),
    ) {
        let mut bytes = write(&frames, finish, compression);
        for (at, value) in flips {
            let at = at.index(bytes.len());
            bytes[at] ^= value.max(1);
        }
        if checksums_fixed {
            fix_checksums(&mut bytes);
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
    for compression in BOTH {
        let many: Vec<(u64, Vec<u8>)> = (0..INDEX_EVERY_FRAMES * 2 + 1)
            .map(|i| (i, vec![1, 2, 3]))
            .collect();
        let bytes = write(&many, true, compression);
        let reader = RecordingReader::new(Cursor::new(&bytes)).expect("opens");
        let frame_numbers: Vec<u64> = reader.index().iter().map(|e| e.frame_number).collect();
        assert_eq!(
            frame_numbers,
            vec![0, INDEX_EVERY_FRAMES, 2 * INDEX_EVERY_FRAMES]
        );

        let slow: Vec<(u64, Vec<u8>)> = (0..5).map(|i| (i * 600_000_000, vec![9])).collect();
        let bytes = write(&slow, true, compression);
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
}

#[test]
fn a_compressed_block_closes_at_two_mebibytes() {
    // 1 KiB frames in one burst: a block every ~2 MiB of frames, not every 4096 frames.
    let frames: Vec<(u64, Vec<u8>)> = (0..5_000u64)
        .map(|i| (i, (0..1024).map(|b| (b * 7 + i) as u8).collect()))
        .collect();
    let bytes = write_with(&frames, true, ZSTD, |_| false);
    let mut reader = RecordingReader::new(Cursor::new(&bytes)).expect("opens");
    let numbers: Vec<u64> = reader.index().iter().map(|e| e.frame_number).collect();
    let per_block = highrise_record::BLOCK_RAW_BYTES.div_ceil(8 + 4 + 1024);
    assert_eq!(numbers, vec![0, per_block, 2 * per_block]);
    assert_eq!(reader.frames().count(), frames.len());
}

#[test]
fn an_interrupted_recording_rebuilds_its_index() {
    for compression in BOTH {
        let many: Vec<(u64, Vec<u8>)> = (0..INDEX_EVERY_FRAMES + 10)
            .map(|i| (i, vec![7; 5]))
            .collect();
        let complete = write(&many, true, compression);
        let interrupted = write(&many, false, compression);
        let complete = RecordingReader::new(Cursor::new(&complete)).expect("opens");
        let mut interrupted = RecordingReader::new(Cursor::new(&interrupted)).expect("opens");
        assert_eq!(complete.index(), interrupted.index());
        assert_eq!(interrupted.frame_count(), INDEX_EVERY_FRAMES + 10);
        assert_eq!(interrupted.last_arrival_ns(), INDEX_EVERY_FRAMES + 9);
        assert!(matches!(
            interrupted.completeness(),
            Completeness::Interrupted { reason, .. } if reason.contains("no footer")
        ));
        assert_eq!(interrupted.frames().count() as u64, INDEX_EVERY_FRAMES + 10);
    }
}

/// Several blocks (a second apart) of several chunks (a flush every 3 frames); returns the file
/// and its frames.
fn blocks_and_chunks() -> (Vec<u8>, Vec<(u64, Vec<u8>)>) {
    let frames: Vec<(u64, Vec<u8>)> = (0..40u64)
        .map(|i| {
            (
                i * 150_000_000,
                format!("frame {i} of the test").into_bytes(),
            )
        })
        .collect();
    (write(&frames, true, ZSTD), frames)
}

#[test]
fn a_truncated_compressed_file_reads_to_its_last_whole_chunk() {
    let (bytes, frames) = blocks_and_chunks();
    let reader = RecordingReader::new(Cursor::new(&bytes)).expect("opens");
    assert!(reader.index().len() >= 5, "{:?}", reader.index());
    let last_entry = *reader.index().last().expect("blocks");
    let last_block = last_entry.offset as usize;
    let ends = record_ends(&bytes);
    // Every cut inside the last block (and through the footer): every frame of every whole
    // chunk before the cut, nothing else, and the index rebuilt.
    for cut in last_block..bytes.len() {
        let (read, completeness) = read_all(&bytes[..cut]).expect("reads");
        let whole = ends
            .iter()
            .take_while(|(end, _)| *end <= cut)
            .last()
            .map_or(0, |(_, frames)| *frames) as usize;
        assert_eq!(read.len(), whole, "cut at {cut}");
        // Every earlier block is whole.
        assert!(whole as u64 >= last_entry.frame_number, "cut at {cut}");
        for (got, (arrival_ns, payload)) in read.iter().zip(&frames) {
            assert_eq!(got.arrival_ns, *arrival_ns);
            assert_eq!(got.payload(), &payload[..]);
        }
        if whole < frames.len() {
            assert!(matches!(completeness, Completeness::Interrupted { .. }));
        }
        let reader = RecordingReader::new(Cursor::new(&bytes[..cut])).expect("opens");
        assert_eq!(reader.frame_count(), whole as u64, "cut at {cut}");
    }
}

#[test]
fn seeking_into_compressed_blocks() {
    let (bytes, frames) = blocks_and_chunks();
    let mut reader = RecordingReader::new(Cursor::new(&bytes)).expect("opens");
    // Positions handed out while reading are good later, in any order (the replay's pause and
    // seek keep them): read all, remember each frame's position, then read them back reversed.
    let mut positions = Vec::new();
    let mut position = reader.data_start();
    let mut frame = RecordedFrame::default();
    while let Some(next) = reader.read_frame_at(position, &mut frame).expect("reads") {
        positions.push(position);
        position = next;
    }
    assert_eq!(positions.len(), frames.len());
    for (n, position) in positions.iter().enumerate().rev() {
        reader.read_frame_at(*position, &mut frame).expect("reads");
        assert_eq!(frame.payload(), &frames[n].1[..], "frame {n}");
        assert_eq!(frame.arrival_ns, frames[n].0);
    }
    // By program time and arrival: the block holding it, decoded from its start.
    let entry = reader.entry_for_arrival(2_000_000_000).expect("entry");
    assert!(entry.frame_number > 0);
    let first = reader
        .frames_from(&entry)
        .next()
        .expect("a frame")
        .expect("reads");
    assert_eq!(first.arrival_ns, entry.arrival_ns);
    assert_eq!(first.payload(), &frames[entry.frame_number as usize].1[..]);
    let entry = reader.entry_for_agent_time(205).expect("entry");
    let rest = reader.frames_from(&entry).count() as u64;
    assert_eq!(rest, frames.len() as u64 - entry.frame_number);
}

#[test]
fn the_uncompressed_version_is_still_written_and_read() {
    let (compressed, frames) = blocks_and_chunks();
    let plain = write(&frames, true, Compression::None);
    assert_eq!(
        u32::from_le_bytes(plain[8..12].try_into().expect("4")),
        FORMAT_VERSION_UNCOMPRESSED
    );
    assert_eq!(
        u32::from_le_bytes(compressed[8..12].try_into().expect("4")),
        FORMAT_VERSION
    );
    let (plain_frames, _) = read_all(&plain).expect("reads");
    let (compressed_frames, _) = read_all(&compressed).expect("reads");
    assert_eq!(plain_frames, compressed_frames);
    // The same seek points, at different offsets.
    let plain = RecordingReader::new(Cursor::new(&plain)).expect("opens");
    let compressed = RecordingReader::new(Cursor::new(&compressed)).expect("opens");
    let points = |reader: &RecordingReader<Cursor<&Vec<u8>>>| {
        reader
            .index()
            .iter()
            .map(|e| (e.frame_number, e.arrival_ns, e.agent_time_ns))
            .collect::<Vec<_>>()
    };
    assert_eq!(points(&plain), points(&compressed));
}

/// Where the first chunk's zstd bytes start, and its record's range.
fn first_chunk(bytes: &[u8]) -> (usize, usize) {
    let chunk = HEADER_BYTES as usize + 33;
    assert_eq!(bytes[chunk], 4, "a chunk after the first index record");
    let len = u32::from_le_bytes(bytes[chunk + 1..chunk + 5].try_into().expect("4")) as usize;
    (chunk, chunk + 5 + len + 4)
}

#[test]
fn a_damaged_compressed_block_is_a_clear_error() {
    let (good, frames) = blocks_and_chunks();
    let (chunk, chunk_end) = first_chunk(&good);
    let expect_corrupt = |bytes: &[u8], what: &str| {
        let mut reader = RecordingReader::new(Cursor::new(bytes)).expect("footer ok");
        let read: Vec<_> = reader.frames().collect();
        let error = read
            .iter()
            .find_map(|frame| frame.as_ref().err())
            .unwrap_or_else(|| panic!("{what}: no error"));
        assert!(
            matches!(error, RecordError::Corrupt { offset, .. } if *offset == chunk as u64),
            "{what}: {error}"
        );
        assert!(
            error.to_string().contains("corrupt recording at byte"),
            "{error}"
        );
        error.to_string()
    };
    // A flipped bit: the checksum says so.
    let mut flipped = good.clone();
    flipped[chunk_end - 8] ^= 0x10;
    let error = expect_corrupt(&flipped, "flipped");
    assert!(error.contains("checksum mismatch"), "{error}");
    // Damaged zstd bytes under a good checksum (a writer bug, or a crafted file): zstd or the
    // frame checks refuse it, and nothing panics or allocates beyond the block limit.
    for at in chunk + 5 + 16..chunk_end - 4 {
        for value in [0x01, 0x80, 0xff] {
            let mut damaged = good.clone();
            damaged[at] ^= value;
            fix_checksums(&mut damaged);
            if let Ok(mut reader) = RecordingReader::new(Cursor::new(&damaged)) {
                for frame in reader.frames() {
                    if frame.is_err() {
                        break;
                    }
                }
            }
        }
    }
    let mut garbage = good.clone();
    for byte in &mut garbage[chunk + 5 + 16..chunk_end - 4] {
        *byte = 0xa5;
    }
    fix_checksums(&mut garbage);
    let error = expect_corrupt(&garbage, "garbage");
    assert!(error.contains("zstd"), "{error}");
    // A chunk header that lies about its frames.
    let mut lying = good.clone();
    lying[chunk + 5] += 1;
    fix_checksums(&mut lying);
    let error = expect_corrupt(&lying, "lying");
    assert!(error.contains("frames"), "{error}");
    // The damaged block's frames before the bad chunk are read; the next block reads again.
    let mut reader = RecordingReader::new(Cursor::new(&garbage)).expect("opens");
    let second = reader.index()[1];
    let rest: Vec<RecordedFrame> = reader
        .frames_from(&second)
        .collect::<Result<_, _>>()
        .expect("the next block is intact");
    assert_eq!(rest.len(), frames.len() - second.frame_number as usize);
}

#[test]
fn bad_files_give_clear_errors() {
    for compression in BOTH {
        let good = write(&[(0, vec![1, 2, 3])], true, compression);
        let error = |bytes: &[u8]| match RecordingReader::new(Cursor::new(bytes)) {
            Ok(_) => panic!("opened"),
            Err(error) => error,
        };
        // Not a recording at all.
        let e = error(b"GET / HTTP/1.1\r\nHost: example\r\n\r\n");
        assert!(matches!(e, RecordError::BadMagic { .. }), "{e}");
        // Says what the file is not, how it starts, and what highrise opens.
        let said = e.to_string();
        assert!(said.contains("not a highrise recording"), "{said}");
        assert!(said.contains("it starts with \"GET / HT\""), "{said}");
        assert!(
            said.contains("highrise opens its own recordings (.hrec)") && said.contains("JFR"),
            "{said}"
        );
        assert!(matches!(error(b"PK"), RecordError::BadMagic { .. }));
        // Empty and short files.
        assert!(matches!(
            error(b""),
            RecordError::TooShort { file_bytes: 0, .. }
        ));
        assert!(matches!(error(&good[..10]), RecordError::TooShort { .. }));
        // A newer format version (checksum fixed up, as a newer writer would).
        let mut newer = good.clone();
        newer[8..12].copy_from_slice(&3u32.to_le_bytes());
        let sum = crc(&newer[..24]);
        newer[24..28].copy_from_slice(&sum.to_le_bytes());
        let e = error(&newer);
        assert!(matches!(
            e,
            RecordError::UnsupportedFormatVersion {
                found: 3,
                supported: 2
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
        // A damaged frame in a finished file: the footer still opens it, reading names the
        // spot.
        let mut damaged_frame = good.clone();
        let last_data_byte = HEADER_BYTES as usize + 33 + 5 + 8 + 4 + 2;
        damaged_frame[last_data_byte] ^= 0x40;
        let mut reader = RecordingReader::new(Cursor::new(&damaged_frame)).expect("footer ok");
        let e = reader.frames().find_map(Result::err).expect("an error");
        assert!(
            matches!(&e, RecordError::Corrupt { reason, .. } if reason.contains("checksum")),
            "{e}"
        );
    }
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
