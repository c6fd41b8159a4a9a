//! Property tests: everything encodes and decodes back; no byte string makes the decoder panic.

use highrise_protocol::{
    decode_agent_message, decode_events, decode_hello, encode_hello, encode_message,
    peek_hello_header, AgentMessage, EventBatch, EventKind, FrameHeader, Hello, MethodDef,
    PackedEventWriter, MAGIC, PROTOCOL_VERSION,
};
use proptest::prelude::*;

fn method_def() -> impl Strategy<Value = MethodDef> {
    (
        0u32..(1 << 24),
        "[a-z.]{0,20}",
        "\\PC{0,12}",
        "\\PC{0,12}",
        proptest::option::of("\\PC{0,12}"),
        proptest::option::of("[a-z/]{0,12}"),
        proptest::option::of(any::<u32>()),
    )
        .prop_map(
            |(id, package, class, method, signature, file, line)| MethodDef {
                id,
                package,
                class,
                method,
                signature,
                file,
                line,
            },
        )
}

fn agent_message() -> impl Strategy<Value = AgentMessage> {
    prop_oneof![
        proptest::collection::vec(method_def(), 0..8).prop_map(AgentMessage::DefineMethods),
        (any::<u64>(), "\\PC{0,16}", any::<u64>()).prop_map(|(thread_id, name, timestamp)| {
            AgentMessage::ThreadStart {
                thread_id,
                name,
                timestamp,
            }
        }),
        (any::<u64>(), any::<u64>()).prop_map(|(thread_id, timestamp)| AgentMessage::ThreadEnd {
            thread_id,
            timestamp
        }),
        any::<u64>().prop_map(|timestamp| AgentMessage::Heartbeat { timestamp }),
        (
            any::<u64>(),
            any::<u64>(),
            proptest::collection::vec(any::<u32>(), 0..20)
        )
            .prop_map(|(thread_id, timestamp, stack)| AgentMessage::Resync {
                thread_id,
                timestamp,
                stack
            }),
        (any::<u64>(), any::<u64>()).prop_map(|(events_dropped, batches_dropped)| {
            AgentMessage::Dropped {
                events_dropped,
                batches_dropped,
            }
        }),
        any::<u64>().prop_map(|timestamp| AgentMessage::Goodbye { timestamp }),
    ]
}

fn hello() -> impl Strategy<Value = Hello> {
    (
        "\\PC{0,16}",
        "\\PC{0,16}",
        "\\PC{0,8}",
        any::<u32>(),
        any::<u32>(),
        any::<u64>(),
    )
        .prop_map(
            |(agent, program, version_label, pid, clock_unit_ns, clock_zero_unix_ns)| Hello {
                magic: MAGIC,
                protocol_version: PROTOCOL_VERSION,
                agent,
                program,
                version_label,
                pid,
                clock_unit_ns,
                clock_zero_unix_ns,
            },
        )
}

proptest! {
    /// A Hello with or without a token decodes back to the same Hello and token (an empty
    /// token reads as none), and a token never shows in the message itself.
    #[test]
    fn hellos_with_tokens_round_trip(hello in hello(), token in "\\PC{0,40}") {
        let bytes = encode_hello(&hello, &token);
        let expected_token = Some(token.clone()).filter(|t| !t.is_empty());
        prop_assert_eq!(decode_hello(&bytes).unwrap(), (hello.clone(), expected_token));
        prop_assert_eq!(decode_agent_message(&bytes).unwrap(), AgentMessage::Hello(hello));
    }

    #[test]
    fn messages_round_trip(message in agent_message()) {
        let bytes = encode_message(&message);
        prop_assert_eq!(decode_agent_message(&bytes).unwrap(), message);
    }

    #[test]
    fn packed_events_round_trip(
        base in 0u64..(1 << 50),
        steps in proptest::collection::vec((0u64..(1 << 40), any::<u32>(), any::<bool>()), 0..200),
    ) {
        let mut writer = PackedEventWriter::new(3, base);
        let mut expected = Vec::new();
        let mut now = base;
        for (delta, method_id, exit) in steps {
            now += delta;
            let kind = if exit { EventKind::Exit } else { EventKind::Enter };
            writer.push(now, method_id, kind);
            expected.push((now, method_id, kind));
        }
        let batch = writer.finish();
        let mut decoded = Vec::new();
        decode_events(&batch, 1, &mut decoded).unwrap();
        let decoded: Vec<_> = decoded.iter().map(|e| (e.timestamp_ns, e.method_id, e.kind)).collect();
        prop_assert_eq!(decoded, expected);
    }

    /// The fuzz target: arbitrary bytes through every decoding entry point never panic, and a
    /// frame header never admits more than the maximum.
    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
        if let Ok(AgentMessage::Events(batch)) = decode_agent_message(&bytes) {
            let mut out = Vec::new();
            let _ = decode_events(&batch, 1, &mut out);
        }
        let _ = peek_hello_header(&bytes);
        if bytes.len() >= 4 {
            if let Ok(header) = FrameHeader::parse([bytes[0], bytes[1], bytes[2], bytes[3]]) {
                prop_assert!(header.payload_len_bytes <= highrise_protocol::MAX_FRAME_BYTES);
            }
        }
        let batch = EventBatch { thread_id: 0, base_timestamp: u64::MAX - 10, event_count: (bytes.len() / 2) as u32, packed_events: bytes };
        let mut out = Vec::new();
        let _ = decode_events(&batch, u32::MAX, &mut out);
    }

    /// Mutating a valid message (flip, truncate, extend) yields an error or a value, never a panic.
    #[test]
    fn mutated_messages_never_panic(
        message in agent_message(),
        flip_at in any::<prop::sample::Index>(),
        flip_to in any::<u8>(),
        cut in any::<prop::sample::Index>(),
    ) {
        let mut bytes = encode_message(&message);
        if !bytes.is_empty() {
            let at = flip_at.index(bytes.len());
            bytes[at] = flip_to;
            let _ = decode_agent_message(&bytes);
            let len = cut.index(bytes.len());
            let _ = decode_agent_message(&bytes[..len]);
        }
    }
}

#[test]
fn huge_length_prefixes_inside_messages_are_refused_without_allocating() {
    // Tag 1 (DefineMethods) followed by a u64 varint claiming 2^60 definitions.
    let mut bytes = vec![1u8, 253];
    bytes.extend_from_slice(&(1u64 << 60).to_le_bytes());
    assert!(decode_agent_message(&bytes).is_err());
}

#[test]
fn only_a_hello_may_carry_more_than_its_fields_and_only_a_string() {
    let hello = Hello {
        magic: MAGIC,
        protocol_version: PROTOCOL_VERSION,
        agent: "a".into(),
        program: "p".into(),
        version_label: String::new(),
        pid: 1,
        clock_unit_ns: 1,
        clock_zero_unix_ns: 0,
    };
    // Not a string after the Hello: a length claiming more bytes than follow.
    let mut bytes = encode_message(&AgentMessage::Hello(hello.clone()));
    bytes.extend_from_slice(&[9, b'x']);
    assert!(decode_hello(&bytes).is_err());
    // A token, then more.
    let mut bytes = encode_hello(&hello, "secret");
    bytes.push(0);
    assert!(decode_agent_message(&bytes).is_err());
    // Another message with a string after it is still trailing bytes.
    let mut bytes = encode_message(&AgentMessage::Heartbeat { timestamp: 1 });
    bytes.extend_from_slice(&[1, b'x']);
    assert!(decode_agent_message(&bytes).is_err());
    // The handshake names a first message that is not a Hello.
    let bytes = encode_message(&AgentMessage::Heartbeat { timestamp: 1 });
    assert_eq!(
        decode_hello(&bytes).unwrap_err(),
        highrise_protocol::ProtocolError::NotHello { tag: 5 }
    );
}
