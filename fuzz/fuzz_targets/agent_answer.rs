//! Bytes as the viewer's answer to the Rust agent's Hello, read by the agent's own code
//! (`highrise_agent::__fuzz::read_answer`: one frame, then a `Welcome` or a `Reject`). Must
//! hold: nothing panics; a session id comes back only for a whole frame holding exactly a
//! `Welcome` (checked against the protocol crate's decoder), and the agent reads no byte
//! past the answer's frame.
#![no_main]

use std::io::Cursor;

use highrise_protocol::{decode_viewer_message, ViewerMessage, FRAME_HEADER_BYTES};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut input = Cursor::new(data);
    let answer = highrise_agent::__fuzz::read_answer(&mut input);
    let Ok(session_id) = answer else {
        return;
    };
    let consumed = input.position() as usize;
    let (header, payload) = data[..consumed]
        .split_first_chunk::<FRAME_HEADER_BYTES>()
        .expect("a Welcome came from a whole frame");
    assert_eq!(u32::from_le_bytes(*header) as usize, payload.len());
    assert!(matches!(
        decode_viewer_message(payload),
        Ok(ViewerMessage::Welcome { session_id: id, .. }) if id == session_id
    ));
});
