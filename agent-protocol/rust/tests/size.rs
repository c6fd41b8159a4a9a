//! Wire size of a realistic stream (nested calls, 8 threads): the goal is ≤ 4 bytes per event,
//! counting frame headers and batch headers, not only the packed events.

use highrise_protocol::{encode_message, AgentMessage, FRAME_HEADER_BYTES};
use highrise_testkit::synthetic::{realistic_batches, StreamShape};

#[test]
fn realistic_stream_is_at_most_four_bytes_per_event() {
    let batches = realistic_batches(&StreamShape::REALISTIC, 1_000_000, 42);
    let events: usize = batches.iter().map(|b| b.event_count as usize).sum();
    let wire_bytes: usize = batches
        .into_iter()
        .map(|b| FRAME_HEADER_BYTES + encode_message(&AgentMessage::Events(b)).len())
        .sum();
    let bytes_per_event = wire_bytes as f64 / events as f64;
    println!("{events} events, {wire_bytes} bytes on the wire, {bytes_per_event:.3} bytes/event");
    assert!(bytes_per_event <= 4.0, "{bytes_per_event} bytes per event");
}
