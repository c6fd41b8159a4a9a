//! Inputs the fuzz targets (`fuzz/`) found, each a test named after its target and what the
//! input did. The bug: bincode allocates what a length prefix claims before reading it, and
//! the claim was checked against one fixed 128 MiB limit, so a 25-byte answer made the agent
//! allocate 128 MiB. The limit now grows with the payload (32 bytes per payload byte, by steps).
//!
//! The largest single allocation of the calling thread is tracked by a wrapping allocator.
#![allow(unsafe_code)] // the tracking allocator below

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use highrise_protocol::{decode_agent_message, decode_viewer_message, ProtocolError};

struct Tracking;

thread_local! {
    static LARGEST_BYTES: Cell<usize> = const { Cell::new(0) };
}

fn note(size: usize) {
    let _ = LARGEST_BYTES.try_with(|largest| largest.set(largest.get().max(size)));
}

// SAFETY: every call goes to the system allocator unchanged; only the size is noted.
unsafe impl GlobalAlloc for Tracking {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note(layout.size());
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        note(layout.size());
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        note(new_size);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Tracking = Tracking;

/// The largest allocation `run` makes on this thread.
fn largest_allocation<T>(run: impl FnOnce() -> T) -> (T, usize) {
    LARGEST_BYTES.with(|largest| largest.set(0));
    let result = run();
    (result, LARGEST_BYTES.with(Cell::get))
}

fn assert_refused_as_claiming_too_much(result: Result<impl std::fmt::Debug, ProtocolError>) {
    match result {
        Err(ProtocolError::Malformed { detail }) => assert!(
            detail.contains("claims more than the payload can hold"),
            "{detail}"
        ),
        other => panic!("expected a refusal of the length prefix, got {other:?}"),
    }
}

/// `fuzz/artifacts/agent_answer/oom-e2e07dc554dbfa4d033d191b96ca661db867eb44`: a Reject whose
/// reason claims 134,217,587 bytes (a u64 varint) in a 25-byte frame.
#[test]
fn fuzz_agent_answer_reject_reason_claims_128_mib() {
    let frame: [u8; 29] = [
        0x19, 0x00, 0x00, 0x00, // frame header: 25 bytes
        0x01, 0x01, // Reject, protocol version 1
        0xfd, 0x73, 0xff, 0xff, 0x07, 0x00, 0x00, 0x00, 0x00, // reason: 134,217,587 bytes
        0x02, 0x00, 0x72, 0x00, 0x01, 0x01, 0x16, 0x75, 0x6e, 0x9d, 0x75, 0x74, 0x01, 0x00,
    ];
    let (result, largest) = largest_allocation(|| decode_viewer_message(&frame[4..]));
    assert_refused_as_claiming_too_much(result);
    assert!(largest < 1 << 20, "decoding allocated {largest} bytes");
}

/// The same claim on the ingest side: an event batch whose packed events claim 100 MiB in a
/// 15-byte payload.
#[test]
fn fuzz_agent_answer_same_claim_in_an_agent_message() {
    let payload = [
        0x04, // Events
        0x01, 0x00, 0x00, // thread 1, base timestamp 0, 0 events
        0xfc, 0x00, 0x00, 0x40, 0x06, // packed events: 104,857,600 bytes (u32 varint)
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    ];
    let (result, largest) = largest_allocation(|| decode_agent_message(&payload));
    assert_refused_as_claiming_too_much(result);
    assert!(largest < 1 << 20, "decoding allocated {largest} bytes");
}
