//! The golden byte files in `agent-protocol/golden/` are the protocol's contract: every agent
//! implementation must reproduce them byte for byte. This test checks that the Rust encoder does,
//! and that the decoder reads them back to the same values.
//!
//! To regenerate after an intentional protocol change (with a PROTOCOL_VERSION bump):
//! `HIGHRISE_BLESS=1 cargo test -p highrise-protocol --test golden`.

use std::path::PathBuf;

use highrise_protocol::{
    decode_agent_message, decode_events, decode_hello, decode_viewer_message, encode_frame,
    encode_hello, frame_payload, AgentMessage, EventKind, Hello, MethodDef, PackedEventWriter,
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
        agent("events", events()),
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

/// Files that are not part of `session.bin` (the answers, and the Hello with a token: the
/// session starts with the plain one).
fn is_aside(name: &str) -> bool {
    is_viewer(name) || name == "hello_token"
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
