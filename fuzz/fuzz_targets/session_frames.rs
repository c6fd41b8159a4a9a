//! Bytes off the socket, framed exactly as the ingest reader frames them (a 4-byte length
//! header, then that many payload bytes; a bad header or a short frame ends the stream), fed
//! to a [`SessionProcessor`] with the product's sink ([`AggregateSink`]), reports taken along
//! the way and at the end. Must hold: nothing panics whatever the bytes (errors are fine), the
//! session has ended once the stream is over, and its counters agree with what was fed.
#![no_main]

use std::net::{Ipv4Addr, SocketAddr};

use highrise_ingest::{SessionProcessor, SessionStatus};
use highrise_aggregate_sink::{AggregateSink};
use highrise_protocol::{FrameHeader, FRAME_HEADER_BYTES};
use libfuzzer_sys::fuzz_target;

/// A report every this many frames, besides the last one (reports snapshot the aggregator).
const REPORT_EVERY_FRAMES: usize = 16;

fuzz_target!(|data: &[u8]| {
    let peer = SocketAddr::from((Ipv4Addr::LOCALHOST, 40000));
    let mut processor = SessionProcessor::new(1, peer, AggregateSink::factory);
    let mut rest = data;
    let mut frames = 0usize;
    loop {
        if rest.is_empty() {
            // A clean end between frames: the connection closed.
            processor.finish();
            break;
        }
        // The reader reads a header, then (if the header is valid) its payload; whatever it
        // got when the stream ends or the header is refused is what `feed_frame` sees.
        let frame_len = match rest.first_chunk::<FRAME_HEADER_BYTES>() {
            Some(header) => match FrameHeader::parse(*header) {
                Ok(header) => {
                    (FRAME_HEADER_BYTES + header.payload_len_bytes as usize).min(rest.len())
                }
                Err(_) => rest.len(),
            },
            None => rest.len(),
        };
        let (frame, after) = rest.split_at(frame_len);
        rest = after;
        frames += 1;
        let ended = processor.feed_frame(frame);
        assert_eq!(ended, processor.is_ended());
        if frames % REPORT_EVERY_FRAMES == 0 {
            processor.report();
        }
        if ended {
            break;
        }
    }
    assert!(
        processor.is_ended(),
        "the stream is over, the session must be"
    );
    let report = processor.report();
    assert!(matches!(report.status, SessionStatus::Ended(_)));
    assert!(report.stats.frames <= frames as u64);
    assert!(report.stats.bytes <= data.len() as u64);
});
