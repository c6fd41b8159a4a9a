//! Agent messages as tests write them: a Hello that passes the handshake, method definitions,
//! event batches from triples, and messages as wire frames.

use highrise_protocol::{
    write_frame, AgentMessage, EventKind, Hello, MethodDef, PackedEventWriter, MAGIC,
    PROTOCOL_VERSION,
};

/// A Hello the server accepts (this build's magic and protocol version) from `agent` running
/// `program`: no version label, pid 0, nanosecond clock starting at the Unix epoch. Set other
/// fields with struct update syntax: `Hello { pid: 7, ..hello("agent", "program") }`.
pub fn hello(agent: &str, program: &str) -> Hello {
    Hello {
        magic: MAGIC,
        protocol_version: PROTOCOL_VERSION,
        agent: agent.into(),
        program: program.into(),
        version_label: String::new(),
        pid: 0,
        clock_unit_ns: 1,
        clock_zero_unix_ns: 0,
    }
}

/// The definition of method `id`, `package.class.name`, without signature, file or line.
pub fn method(id: u32, package: &str, class: &str, name: &str) -> MethodDef {
    MethodDef {
        id,
        package: package.into(),
        class: class.into(),
        method: name.into(),
        signature: None,
        file: None,
        line: None,
    }
}

/// A batch for `thread_id` from (timestamp, method, kind) triples.
pub fn batch(thread_id: u64, events: &[(u64, u32, EventKind)]) -> AgentMessage {
    let base = events.first().map_or(0, |e| e.0);
    let mut writer = PackedEventWriter::new(thread_id, base);
    for &(timestamp, method_id, kind) in events {
        writer.push(timestamp, method_id, kind);
    }
    AgentMessage::Events(writer.finish())
}

/// `messages` as wire frames, back to back, as an agent writes them to the socket.
pub fn frames(messages: &[AgentMessage]) -> Vec<u8> {
    let mut bytes = Vec::new();
    for message in messages {
        write_frame(&mut bytes, message).expect("encodes");
    }
    bytes
}
