//! The golden byte files in `agent-protocol/golden/` are the protocol's contract: every agent
//! implementation must reproduce them byte for byte. This test checks that the Rust encoder does,
//! and that the decoder reads them back to the same values.
//!
//! To regenerate after an intentional protocol change (with a PROTOCOL_VERSION bump):
//! `HIGHRISE_BLESS=1 cargo test -p highrise-protocol --test golden`.

use std::path::PathBuf;

use highrise_protocol::{
    decode_agent_message, decode_events, decode_hello, decode_records, decode_viewer_message,
    encode_frame, encode_hello, frame_payload, peek_hello_header, AgentMessage, ClassDef,
    ClassKind, ClassRelation, EventKind, Hello, LiveClass, LiveObjects, Measure, MeasureMode,
    MemoryAmount, MethodDef, PackedEventWriter, PackedRecordWriter, ProtocolError, RelationKind,
    ViewerMessage, MAGIC, PROTOCOL_VERSION, REJECT_UNAUTHORIZED,
};

fn golden_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../golden")
}

/// The token of `hello_token.bin` (128 bits in hex, as `highrise` generates them).
const TOKEN: &str = "00112233445566778899aabbccddeeff";

/// How `hello_token.txt` shows its value: the Hello, then the token.
fn describe_hello_with_token(hello: &Hello, token: Option<&str>) -> String {
    format!(
        "{:#?}\n\ntoken: {token:?}",
        AgentMessage::Hello(hello.clone())
    )
}

fn hello() -> AgentMessage {
    AgentMessage::Hello(hello_fields())
}

fn hello_fields() -> Hello {
    Hello {
        magic: MAGIC,
        protocol_version: PROTOCOL_VERSION,
        agent: "highrise-golden 1.0".into(),
        program: "tetris".into(),
        version_label: "v1.0".into(),
        pid: 4242,
        clock_unit_ns: 1,
        clock_zero_unix_ns: 1_700_000_000_000_000_000,
    }
}

fn define_methods() -> AgentMessage {
    AgentMessage::DefineMethods(vec![
        MethodDef {
            id: 0,
            package: "main.game".into(),
            class: "Board".into(),
            method: "rotate".into(),
            signature: Some("(I)V".into()),
            file: Some("Board.java".into()),
            line: Some(42),
        },
        MethodDef {
            id: 300,
            package: "".into(),
            class: "Main".into(),
            method: "run".into(),
            signature: None,
            file: None,
            line: None,
        },
    ])
}

/// Thread 1: enter 0 @1000, enter 300 @1100, exit 300 @1227, exit 0 @21227 (delta 20000).
fn events() -> AgentMessage {
    let mut writer = PackedEventWriter::new(1, 1000);
    writer.push(1000, 0, EventKind::Enter);
    writer.push(1100, 300, EventKind::Enter);
    writer.push(1227, 300, EventKind::Exit);
    writer.push(21227, 0, EventKind::Exit);
    AgentMessage::Events(writer.finish())
}

fn define_classes() -> AgentMessage {
    AgentMessage::DefineClasses(vec![
        ClassDef {
            id: 1,
            package: "".into(),
            name: "(untyped)".into(),
            kind: ClassKind::Untyped,
        },
        ClassDef {
            id: 2,
            package: "main.game".into(),
            name: "Piece".into(),
            kind: ClassKind::Class,
        },
    ])
}

/// Thread 1: enter 0 @30000; 3 × Piece (class 2), 72 bytes, created by method 0; enter 300
/// @30100; 2 untyped blocks (class 1), 4096 bytes, freed by method 300 @30227; exit 300; exit 0
/// @50227 (delta 20000).
fn records() -> AgentMessage {
    let mut writer = PackedRecordWriter::new(1, 30_000);
    writer.push(30_000, 0, EventKind::Enter);
    writer.push_memory(30_000, 2, PIECES);
    writer.push(30_100, 300, EventKind::Enter);
    writer.push_memory(30_227, 1, FREED);
    writer.push(30_227, 300, EventKind::Exit);
    writer.push(50_227, 0, EventKind::Exit);
    AgentMessage::Records(writer.finish())
}

const PIECES: MemoryAmount = MemoryAmount {
    count: 3,
    bytes: 72,
    free: false,
};

const FREED: MemoryAmount = MemoryAmount {
    count: 2,
    bytes: 4096,
    free: true,
};

/// Every golden file: name, the whole frame (header and payload), and what it holds.
fn cases() -> Vec<(&'static str, Vec<u8>, String)> {
    let agent = |name: &'static str, message: AgentMessage| {
        (
            name,
            encode_frame(&message).expect("fits a frame"),
            format!("{message:#?}"),
        )
    };
    let viewer = |name: &'static str, message: ViewerMessage| {
        (
            name,
            encode_frame(&message).expect("fits a frame"),
            format!("{message:#?}"),
        )
    };
    vec![
        agent("hello", hello()),
        (
            "hello_token",
            frame_payload(&encode_hello(&hello_fields(), TOKEN)).expect("fits a frame"),
            describe_hello_with_token(&hello_fields(), Some(TOKEN)),
        ),
        agent("define_methods", define_methods()),
        agent(
            "thread_start",
            AgentMessage::ThreadStart {
                thread_id: 1,
                name: "main".into(),
                timestamp: 900,
            },
        ),
        agent("define_classes", define_classes()),
        agent("events", events()),
        agent("records", records()),
        agent("heartbeat", AgentMessage::Heartbeat { timestamp: 70_000 }),
        agent(
            "resync",
            AgentMessage::Resync {
                thread_id: 1,
                timestamp: 80_000,
                stack: vec![0, 300],
            },
        ),
        agent(
            "dropped",
            AgentMessage::Dropped {
                events_dropped: 1_000_000,
                batches_dropped: 3,
            },
        ),
        agent(
            "memory_dropped",
            AgentMessage::MemoryDropped {
                allocations_dropped: 5000,
                bytes_dropped: 120_000,
                frees_dropped: 0,
            },
        ),
        agent(
            "live_objects",
            AgentMessage::LiveObjects(LiveObjects {
                thread_id: 1,
                timestamp: 85_000,
                heap_live_bytes: Some(1_048_576),
                classes: vec![
                    LiveClass {
                        class_id: 0,
                        count: 3,
                        bytes: 72,
                    },
                    LiveClass {
                        class_id: 2,
                        count: 0,
                        bytes: 0,
                    },
                ],
            }),
        ),
        agent(
            "class_relations",
            AgentMessage::ClassRelations(vec![
                ClassRelation {
                    from_class: 2,
                    to_class: 2,
                    kind: RelationKind::Field,
                    field: "next".into(),
                    many: false,
                },
                ClassRelation {
                    from_class: 2,
                    to_class: 1,
                    kind: RelationKind::Extends,
                    field: String::new(),
                    many: false,
                },
                ClassRelation {
                    from_class: 2,
                    to_class: 2,
                    kind: RelationKind::Field,
                    field: "rotations".into(),
                    many: true,
                },
            ]),
        ),
        agent(
            "measure",
            AgentMessage::Measure(Measure {
                mode: MeasureMode::Sampled,
                sample_period_us: 10_000,
                sampled_methods: 0,
            }),
        ),
        agent(
            "notice",
            AgentMessage::Notice {
                key: "not-instrumented".into(),
                text: "2 classes not instrumented: big/Huge (method too large)".into(),
            },
        ),
        agent(
            "thread_end",
            AgentMessage::ThreadEnd {
                thread_id: 1,
                timestamp: 90_000,
            },
        ),
        agent("goodbye", AgentMessage::Goodbye { timestamp: 100_000 }),
        viewer(
            "welcome",
            ViewerMessage::Welcome {
                protocol_version: PROTOCOL_VERSION,
                session_id: 7,
            },
        ),
        viewer(
            "reject",
            ViewerMessage::Reject {
                protocol_version: PROTOCOL_VERSION,
                reason: "bad magic".into(),
            },
        ),
        viewer(
            "reject_token",
            ViewerMessage::Reject {
                protocol_version: PROTOCOL_VERSION,
                reason: format!("{REJECT_UNAUTHORIZED} no token"),
            },
        ),
    ]
}

fn hex(bytes: &[u8]) -> String {
    bytes
        .chunks(16)
        .map(|row| {
            row.iter()
                .map(|b| format!("{b:02x}"))
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The viewer's answers.
fn is_viewer(name: &str) -> bool {
    matches!(name, "welcome" | "reject" | "reject_token")
}

/// Files that are not part of `session.bin` (the answers, the Hello with a token: the
/// session starts with the plain one, the measure: the golden session is exact, and the notice).
fn is_aside(name: &str) -> bool {
    is_viewer(name) || name == "hello_token" || name == "measure" || name == "notice"
}

#[test]
fn rust_encoder_reproduces_every_golden_file() {
    let bless = std::env::var_os("HIGHRISE_BLESS").is_some();
    let mut session = Vec::new();
    for (name, frame, description) in cases() {
        let payload = &frame[4..];
        if !is_aside(name) {
            session.extend_from_slice(&frame);
        }
        let bin_path = golden_dir().join(format!("{name}.bin"));
        let txt_path = golden_dir().join(format!("{name}.txt"));
        let text = format!(
            "{name}.bin: one frame (4-byte little-endian length {}, then the payload)\n\n\
             value:\n{description}\n\nframe bytes (hex):\n{}\n",
            payload.len(),
            hex(&frame)
        );
        if bless {
            std::fs::write(&bin_path, &frame).unwrap();
            std::fs::write(&txt_path, text).unwrap();
        } else {
            let golden =
                std::fs::read(&bin_path).unwrap_or_else(|e| panic!("{}: {e}", bin_path.display()));
            assert_eq!(golden, frame, "{name}.bin differs from the Rust encoding");
            let golden_text = std::fs::read_to_string(&txt_path).unwrap();
            assert_eq!(golden_text, text, "{name}.txt is stale");
        }
    }
    let session_path = golden_dir().join("session.bin");
    if bless {
        std::fs::write(&session_path, &session).unwrap();
    } else {
        assert_eq!(std::fs::read(&session_path).unwrap(), session);
    }
}

#[test]
fn decoder_reads_golden_files_back() {
    for (name, _, description) in cases() {
        let frame = std::fs::read(golden_dir().join(format!("{name}.bin"))).unwrap();
        let len = u32::from_le_bytes(frame[..4].try_into().unwrap()) as usize;
        assert_eq!(len, frame.len() - 4);
        let decoded = if name == "hello_token" {
            let (hello, token) = decode_hello(&frame[4..]).unwrap();
            describe_hello_with_token(&hello, token.as_deref())
        } else if is_viewer(name) {
            format!("{:#?}", decode_viewer_message(&frame[4..]).unwrap())
        } else {
            format!("{:#?}", decode_agent_message(&frame[4..]).unwrap())
        };
        assert_eq!(decoded, description, "{name}");
    }
}

#[test]
fn golden_events_decode_to_the_documented_events() {
    let AgentMessage::Events(batch) = events() else {
        unreachable!()
    };
    let mut decoded = Vec::new();
    decode_events(&batch, 1, &mut decoded).unwrap();
    let seen: Vec<_> = decoded
        .iter()
        .map(|e| (e.timestamp_ns, e.method_id, e.kind))
        .collect();
    assert_eq!(
        seen,
        vec![
            (1000, 0, EventKind::Enter),
            (1100, 300, EventKind::Enter),
            (1227, 300, EventKind::Exit),
            (21227, 0, EventKind::Exit),
        ]
    );
}

#[test]
fn golden_records_decode_to_the_documented_records() {
    let AgentMessage::Records(batch) = records() else {
        unreachable!()
    };
    let (mut decoded, mut amounts) = (Vec::new(), Vec::new());
    decode_records(&batch, 1, &mut decoded, &mut amounts).unwrap();
    let seen: Vec<_> = decoded
        .iter()
        .map(|e| (e.timestamp_ns, e.method_id, e.kind))
        .collect();
    assert_eq!(
        seen,
        vec![
            (30_000, 0, EventKind::Enter),
            (30_000, 2, EventKind::Memory),
            (30_100, 300, EventKind::Enter),
            (30_227, 1, EventKind::Memory),
            (30_227, 300, EventKind::Exit),
            (50_227, 0, EventKind::Exit),
        ]
    );
    assert_eq!(amounts, vec![PIECES, FREED]);
    // SPEC.md's worked example, byte for byte.
    let frame = std::fs::read(golden_dir().join("records.bin")).unwrap();
    assert_eq!(
        hex(&frame[4..]).replace('\n', " "),
        "0a 01 fb 30 75 06 15 00 00 0a 00 06 48 b0 09 64 06 7f 05 80 20 b1 09 00 01 a0 9c 01"
    );
}

/// A version-1 session (the golden session before version 2, kept as it was) is still read:
/// its Hello passes the handshake and every frame decodes.
#[test]
fn a_version_1_session_is_still_accepted() {
    let bytes = std::fs::read(golden_dir().join("v1/session.bin")).unwrap();
    let mut rest = &bytes[..];
    let mut messages = Vec::new();
    while !rest.is_empty() {
        let len = u32::from_le_bytes(rest[..4].try_into().unwrap()) as usize;
        let payload = &rest[4..4 + len];
        if messages.is_empty() {
            assert_eq!(peek_hello_header(payload).unwrap().protocol_version, 1);
        }
        messages.push(decode_agent_message(payload).unwrap());
        rest = &rest[4 + len..];
    }
    // hello, define_methods, thread_start, events, heartbeat, resync, dropped, thread_end,
    // goodbye
    assert_eq!(messages.len(), 9);
    assert!(matches!(
        messages[0],
        AgentMessage::Hello(Hello {
            protocol_version: 1,
            ..
        })
    ));
    assert!(matches!(messages[3], AgentMessage::Events(_)));
}

#[test]
fn a_version_3_agent_is_refused_with_both_versions_named() {
    let mut hello = hello_fields();
    hello.protocol_version = PROTOCOL_VERSION + 1;
    let payload = encode_hello(&hello, "");
    match peek_hello_header(&payload) {
        Err(ProtocolError::VersionMismatch {
            agent_version,
            viewer_version,
        }) => assert_eq!((agent_version, viewer_version), (3, 2)),
        other => panic!("{other:?}"),
    }
    hello.protocol_version = 0;
    assert!(peek_hello_header(&encode_hello(&hello, "")).is_err());
}

#[test]
fn a_hello_with_a_token_is_the_plain_hello_then_the_token() {
    let plain = std::fs::read(golden_dir().join("hello.bin")).unwrap();
    let with_token = std::fs::read(golden_dir().join("hello_token.bin")).unwrap();
    let mut expected = plain[4..].to_vec();
    expected.push(TOKEN.len() as u8);
    expected.extend_from_slice(TOKEN.as_bytes());
    assert_eq!(&with_token[4..], &expected[..]);
    // Without the handshake's eyes the token is invisible: the same message as the plain one.
    assert_eq!(
        decode_agent_message(&with_token[4..]).unwrap(),
        decode_agent_message(&plain[4..]).unwrap()
    );
    assert_eq!(decode_hello(&plain[4..]).unwrap().1, None);
    // An empty token is no token, byte for byte.
    assert_eq!(encode_hello(&hello_fields(), ""), plain[4..].to_vec());
}
