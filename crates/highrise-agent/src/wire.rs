//! What the agent puts on the wire: its Hello, method definitions, and the translation of a
//! thread's drained ring records into `Events` batches and `Resync`s.
//!
//! Pure functions of their inputs (the clock conversion is passed in), so the golden-file
//! tests drive exactly the code the sender runs.

use highrise_protocol::{
    encode_hello, frame_payload, AgentMessage, ClassDef, ClassKind, EventKind, Hello, MemoryAmount,
    MethodDef, PackedEventWriter, PackedRecordWriter, ProtocolError, MAGIC,
};

use crate::alloc::UNTYPED_CLASS;
use crate::callsite::MethodInfo;
use crate::thread::{
    unpack_memory, Shadow, EVENT_WITH_MEMORY, MARK_MEMORY, MARK_RESYNC, MEMORY_FREED, MEMORY_SHORT,
    SHORT_COUNT_LIMIT,
};

/// How the agent names itself in its Hello.
pub(crate) const AGENT_NAME: &str = concat!("highrise-agent-rust ", env!("CARGO_PKG_VERSION"));

/// The first message: timestamps are nanoseconds (`clock_unit_ns` 1) since `zero_unix_ns`.
pub(crate) fn hello(
    agent: &str,
    program: &str,
    version_label: &str,
    pid: u32,
    zero_unix_ns: u64,
) -> Hello {
    Hello {
        magic: MAGIC,
        protocol_version: highrise_protocol::PROTOCOL_VERSION,
        agent: agent.to_string(),
        program: program.to_string(),
        version_label: version_label.to_string(),
        pid,
        clock_unit_ns: 1,
        clock_zero_unix_ns: zero_unix_ns,
    }
}

/// The Hello as one frame, ending with `token` when there is one (empty: none; SPEC.md
/// "Tokens").
pub(crate) fn hello_frame(hello: &Hello, token: &str) -> Result<Vec<u8>, ProtocolError> {
    frame_payload(&encode_hello(hello, token))
}

/// The protocol definition of a registered method.
pub(crate) fn method_def(id: u32, info: &MethodInfo) -> MethodDef {
    MethodDef {
        id,
        package: info.package(),
        class: info.class_name().to_string(),
        method: info.method.to_string(),
        signature: info.signature.map(str::to_string),
        file: info.file.map(str::to_string),
        line: info.line,
    }
}

/// The one class of the Rust agent's memory records: Rust allocations carry no type.
pub(crate) fn untyped_class() -> ClassDef {
    ClassDef {
        id: UNTYPED_CLASS,
        package: String::new(),
        name: "(untyped)".into(),
        kind: ClassKind::Untyped,
    }
}

/// The class definition of a type named with [`crate::alloc_as`]: its path up to the last
/// `::` (outside generic arguments) as the package, dot-separated; the rest as the name.
pub(crate) fn typed_class(id: u32, type_name: &str) -> ClassDef {
    let path_end = type_name.find('<').unwrap_or(type_name.len());
    let (package, name) = match type_name[..path_end].rfind("::") {
        Some(at) => (&type_name[..at], &type_name[at + 2..]),
        None => ("", type_name),
    };
    ClassDef {
        id,
        package: package.replace("::", "."),
        name: name.to_string(),
        kind: if type_name.starts_with('[') {
            ClassKind::Array
        } else {
            ClassKind::Class
        },
    }
}

/// The batch being built: `Records` when the drain holds memory records, else `Events`
/// (the version 1 layout, which every viewer reads).
enum Batch {
    Events(PackedEventWriter),
    Records(PackedRecordWriter),
}

impl Batch {
    fn len(&self) -> usize {
        match self {
            Batch::Events(writer) => writer.len(),
            Batch::Records(writer) => writer.len(),
        }
    }

    fn finish(self) -> AgentMessage {
        match self {
            Batch::Events(writer) => AgentMessage::Events(writer.finish()),
            Batch::Records(writer) => AgentMessage::Records(writer.finish()),
        }
    }
}

/// Enters and exits, and memory records, among drained ring records (resync blocks
/// skipped): `(events, memory records)`.
fn count_records(records: &[(u64, u64)]) -> (u64, u64) {
    let (mut events, mut memory, mut index) = (0u64, 0u64, 0usize);
    while let Some(&(_, word)) = records.get(index) {
        index += if word & MARK_RESYNC != 0 {
            1 + ((word >> 24) & 0xff_ffff) as usize + (word & 0xff_ffff) as usize
        } else if word & MARK_MEMORY != 0 {
            memory += 1;
            if word & MEMORY_SHORT != 0 {
                1
            } else {
                2
            }
        } else {
            events += 1;
            if word & EVENT_WITH_MEMORY != 0 {
                memory += 1;
            }
            1
        };
    }
    (events, memory)
}

/// Enters and exits among drained ring records.
pub(crate) fn count_events(records: &[(u64, u64)]) -> u64 {
    count_records(records).0
}

/// Applies an exit to a replayed stack the way the viewer does: the top frame closes; an exit
/// of a frame further down closes it and everything above it; an unknown exit is ignored.
fn apply_exit(stack: &mut Vec<u32>, method_id: u32) {
    if stack.last() == Some(&method_id) {
        stack.pop();
    } else if let Some(position) = stack.iter().rposition(|&id| id == method_id) {
        stack.truncate(position);
    }
}

/// The memory records among `amounts` (`(count, bytes, freed)`; those with objects) into the
/// drain's batch, a `Records` one started if there is none; returns the batch. Inlined: as a
/// call the sender's drain loop got slow enough to cost the recording thread ≈ 2 ns per
/// allocating frame in `benches/alloc.rs`.
#[inline(always)]
fn push_memory_records(
    writer: &mut Option<Batch>,
    thread_id: u64,
    timestamp: u64,
    class_id: u32,
    amounts: [(u64, u64, bool); 2],
) -> &mut Batch {
    let batch =
        writer.get_or_insert_with(|| Batch::Records(PackedRecordWriter::new(thread_id, timestamp)));
    if let Batch::Records(records_writer) = batch {
        for (count, bytes, free) in amounts {
            if count > 0 {
                records_writer.push_memory(
                    timestamp,
                    class_id,
                    MemoryAmount { count, bytes, free },
                );
            }
        }
    }
    batch
}

/// Translates one drain of a thread's ring (`(raw clock, word)` records, see
/// [`crate::thread`]) into messages: `Events` batches of at most `max_batch_events`, and a
/// `Resync` wherever the thread had dropped events. Keeps `shadow` (the thread's stack as the
/// viewer will know it) up to date. Returns the number of events encoded.
pub(crate) fn encode_records(
    thread_id: u64,
    records: &[(u64, u64)],
    to_ns: impl Fn(u64) -> u64,
    shadow: &mut Shadow,
    max_batch_events: usize,
    emit: &mut impl FnMut(AgentMessage),
) -> u64 {
    let max_batch_events = max_batch_events.max(1);
    let mut writer: Option<Batch> = None;
    // A drain with memory records is sent as `Records` batches, one without as `Events`.
    let with_memory = count_records(records).1 > 0;
    let mut events = 0u64;
    let mut index = 0;
    while index < records.len() {
        let (raw, word) = records[index];
        index += 1;
        let timestamp = to_ns(raw).max(shadow.last_ns);
        if word & MARK_RESYNC != 0 {
            if let Some(full) = writer.take() {
                emit(full.finish());
            }
            let exits = ((word >> 24) & 0xff_ffff) as usize;
            let enters = (word & 0xff_ffff) as usize;
            let ids = records.get(index..index + exits + enters).unwrap_or(&[]);
            index += exits + enters;
            let (exit_ids, enter_ids) = ids.split_at(exits.min(ids.len()));
            for &(_, method_id) in exit_ids {
                apply_exit(&mut shadow.stack, method_id as u32);
            }
            shadow
                .stack
                .extend(enter_ids.iter().map(|&(_, method_id)| method_id as u32));
            shadow.last_ns = timestamp;
            emit(AgentMessage::Resync {
                thread_id,
                timestamp,
                stack: shadow.stack.clone(),
            });
            continue;
        }
        if word & MARK_MEMORY != 0 {
            let (timestamp, class_id, amounts) = if word & MEMORY_SHORT != 0 {
                // One slot, its clock the next slot's (the event written with it).
                let timestamp = records
                    .get(index)
                    .map_or(shadow.last_ns, |&(next_raw, _)| to_ns(next_raw))
                    .max(shadow.last_ns);
                let count = |shift: u32| (word >> shift) & (SHORT_COUNT_LIMIT - 1);
                let amounts = [
                    (count(24), raw >> 32, false),
                    (count(42), raw & 0xffff_ffff, true),
                ];
                (timestamp, (word & 0xff_ffff) as u32, amounts)
            } else {
                let Some(&(count, bytes)) = records.get(index) else {
                    break;
                };
                index += 1;
                let free = word & MEMORY_FREED != 0;
                let amounts = [(count, bytes, free), (0, 0, !free)];
                (timestamp, (word & 0xffff_ffff) as u32, amounts)
            };
            let batch = push_memory_records(&mut writer, thread_id, timestamp, class_id, amounts);
            shadow.last_ns = timestamp;
            if batch.len() >= max_batch_events {
                if let Some(full) = writer.take() {
                    emit(full.finish());
                }
            }
            continue;
        }
        let (word, counts) = unpack_memory(word);
        if counts != [0; 4] {
            // The frame's counts rode in its event: they come just before it.
            let [allocations, bytes, frees, freed_bytes] = counts;
            let amounts = [(allocations, bytes, false), (frees, freed_bytes, true)];
            push_memory_records(&mut writer, thread_id, timestamp, UNTYPED_CLASS, amounts);
        }
        let method_id = (word >> 1) as u32;
        let kind = if word & 1 == 0 {
            shadow.stack.push(method_id);
            EventKind::Enter
        } else {
            apply_exit(&mut shadow.stack, method_id);
            EventKind::Exit
        };
        let batch = writer.get_or_insert_with(|| {
            if with_memory {
                Batch::Records(PackedRecordWriter::new(thread_id, timestamp))
            } else {
                Batch::Events(PackedEventWriter::new(thread_id, timestamp))
            }
        });
        match batch {
            Batch::Events(events_writer) => events_writer.push(timestamp, method_id, kind),
            Batch::Records(records_writer) => records_writer.push(timestamp, method_id, kind),
        }
        shadow.last_ns = timestamp;
        events += 1;
        if batch.len() >= max_batch_events {
            if let Some(full) = writer.take() {
                emit(full.finish());
            }
        }
    }
    if let Some(rest) = writer.take() {
        emit(rest.finish());
    }
    events
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use highrise_protocol::{encode_frame, ViewerMessage};

    use super::*;

    fn golden(name: &str) -> Vec<u8> {
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../../agent-protocol/golden")
            .join(format!("{name}.bin"));
        std::fs::read(&path).unwrap_or_else(|error| panic!("{}: {error}", path.display()))
    }

    fn frame(message: &AgentMessage) -> Vec<u8> {
        encode_frame(message).expect("encodes")
    }

    fn enter(raw: u64, id: u64) -> (u64, u64) {
        (raw, id << 1)
    }

    fn exit(raw: u64, id: u64) -> (u64, u64) {
        (raw, id << 1 | 1)
    }

    /// The golden session, built by the agent's own encoder from the values in
    /// `agent-protocol/golden/*.txt`.
    fn golden_session() -> Vec<(&'static str, AgentMessage)> {
        let board_rotate = MethodInfo {
            module_path: "main::game",
            class: Some("Board"),
            method: "rotate",
            signature: Some("(I)V"),
            file: Some("Board.java"),
            line: Some(42),
        };
        let main_run = MethodInfo {
            module_path: "",
            class: Some("Main"),
            method: "run",
            signature: None,
            file: None,
            line: None,
        };
        let mut events = Vec::new();
        let mut shadow = Shadow::default();
        let records = [
            enter(1000, 0),
            enter(1100, 300),
            exit(1227, 300),
            exit(21227, 0),
        ];
        let count = encode_records(1, &records, |raw| raw, &mut shadow, 4096, &mut |m| {
            events.push(m)
        });
        assert_eq!(count, 4);
        assert_eq!(events.len(), 1);
        assert!(shadow.stack.is_empty());
        vec![
            ("hello", AgentMessage::Hello(golden_hello())),
            (
                "define_methods",
                AgentMessage::DefineMethods(vec![
                    method_def(0, &board_rotate),
                    method_def(300, &main_run),
                ]),
            ),
            (
                "thread_start",
                AgentMessage::ThreadStart {
                    thread_id: 1,
                    name: "main".into(),
                    timestamp: 900,
                },
            ),
            (
                "define_classes",
                AgentMessage::DefineClasses(vec![
                    ClassDef {
                        id: 1,
                        ..untyped_class()
                    },
                    ClassDef {
                        id: 2,
                        package: "main.game".into(),
                        name: "Piece".into(),
                        kind: ClassKind::Class,
                    },
                ]),
            ),
            ("events", events.remove(0)),
            ("records", golden_records()),
            ("heartbeat", AgentMessage::Heartbeat { timestamp: 70_000 }),
            ("resync", resync_from_a_drop_block()),
            (
                "dropped",
                AgentMessage::Dropped {
                    events_dropped: 1_000_000,
                    batches_dropped: 3,
                },
            ),
            (
                "memory_dropped",
                AgentMessage::MemoryDropped {
                    allocations_dropped: 5000,
                    bytes_dropped: 120_000,
                    frees_dropped: 0,
                },
            ),
            // Not sent by this agent (its allocator counts frees, so live objects are exact
            // without snapshots); here so the session is whole.
            (
                "live_objects",
                AgentMessage::LiveObjects(highrise_protocol::LiveObjects {
                    thread_id: 1,
                    timestamp: 85_000,
                    heap_live_bytes: Some(1_048_576),
                    classes: vec![
                        highrise_protocol::LiveClass {
                            class_id: 0,
                            count: 3,
                            bytes: 72,
                        },
                        highrise_protocol::LiveClass {
                            class_id: 2,
                            count: 0,
                            bytes: 0,
                        },
                    ],
                }),
            ),
            // Not sent by this agent: Rust has no runtime reflection to read a class diagram
            // from (README "Memory"); here so the session is whole.
            (
                "class_relations",
                AgentMessage::ClassRelations(
                    [(2, "next", false), (1, "", false), (2, "rotations", true)]
                        .into_iter()
                        .map(|(to_class, field, many)| highrise_protocol::ClassRelation {
                            from_class: 2,
                            to_class,
                            kind: if field.is_empty() {
                                highrise_protocol::RelationKind::Extends
                            } else {
                                highrise_protocol::RelationKind::Field
                            },
                            field: field.into(),
                            many,
                        })
                        .collect(),
                ),
            ),
            (
                "thread_end",
                AgentMessage::ThreadEnd {
                    thread_id: 1,
                    timestamp: 90_000,
                },
            ),
            ("goodbye", AgentMessage::Goodbye { timestamp: 100_000 }),
        ]
    }

    /// golden/records.bin from ring words: memory records between the thread's events.
    fn golden_records() -> AgentMessage {
        let memory = |raw: u64, class: u64, freed: bool, count: u64, bytes: u64| {
            let flag = if freed { MEMORY_FREED } else { 0 };
            [(raw, MARK_MEMORY | flag | class), (count, bytes)]
        };
        let mut records = vec![enter(30_000, 0)];
        records.extend(memory(30_000, 2, false, 3, 72));
        records.push(enter(30_100, 300));
        records.extend(memory(30_227, 1, true, 2, 4096));
        records.extend([exit(30_227, 300), exit(50_227, 0)]);
        let mut shadow = Shadow::default();
        let mut out = Vec::new();
        let count = encode_records(1, &records, |raw| raw, &mut shadow, 4096, &mut |m| {
            out.push(m)
        });
        assert_eq!(count, 4, "memory records are not events");
        assert_eq!(count_records(&records), (4, 2));
        assert_eq!(out.len(), 1);
        assert!(shadow.stack.is_empty());
        out.remove(0)
    }

    /// A one-slot record (creations and frees, the next event's clock) encodes as the two
    /// two-slot records it stands for, at that event's time; at the end of a drain it takes
    /// the thread's last time.
    #[test]
    fn short_memory_records_are_the_two_records_they_stand_for() {
        let long = |raw: u64, class: u64, freed: bool, count: u64, bytes: u64| {
            let flag = if freed { MEMORY_FREED } else { 0 };
            [(raw, MARK_MEMORY | flag | class), (count, bytes)]
        };
        let short = |class: u64, count: u64, bytes: u64, frees: u64, freed_bytes: u64| {
            let word = MARK_MEMORY | MEMORY_SHORT | frees << 42 | count << 24 | class;
            (bytes << 32 | freed_bytes, word)
        };
        let mut expected = vec![enter(30_000, 0)];
        expected.extend(long(30_100, 5, false, 3, 72));
        expected.extend(long(30_100, 5, true, 1, 24));
        expected.push(enter(30_100, 300));
        expected.extend(long(30_227, 0, true, 2, 4096));
        expected.push(exit(30_227, 300));
        expected.extend(long(30_300, 0, false, 1, 32));
        expected.extend(long(30_300, 0, true, 7, 16_383));
        expected.push(enter(30_300, 9));
        expected.extend(long(30_400, 0, false, 7, 16_383));
        expected.push(exit(30_400, 9));
        expected.extend(long(30_400, 1, false, 262_143, 4_294_967_295));
        let mut given = vec![enter(30_000, 0)];
        given.push(short(5, 3, 72, 1, 24));
        given.push(enter(30_100, 300));
        given.push(short(0, 0, 0, 2, 4096));
        given.push(exit(30_227, 300));
        let packed = |raw_word: (u64, u64), counts: [u64; 4]| {
            let bits = crate::thread::pack_memory(counts).expect("fits");
            (raw_word.0, raw_word.1 | bits)
        };
        given.push(packed(enter(30_300, 9), [1, 32, 7, 16_383]));
        given.push(packed(exit(30_400, 9), [7, 16_383, 0, 0]));
        given.push(short(1, 262_143, 4_294_967_295, 0, 0));
        let encode = |records: &[(u64, u64)]| {
            let mut shadow = Shadow::default();
            let mut out = Vec::new();
            let events = encode_records(7, records, |raw| raw, &mut shadow, 4096, &mut |m| {
                out.push(frame(&m))
            });
            (events, out, shadow.stack)
        };
        assert_eq!(encode(&given), encode(&expected));
        assert_eq!(count_records(&given).0, 5);
    }

    /// Counts packed into an event word come back whole, and only those that fit are packed.
    #[test]
    fn packed_counts_round_trip() {
        use crate::thread::{pack_memory, unpack_memory};
        for counts in [
            [0, 0, 0, 0],
            [1, 32, 1, 32],
            [7, 16_383, 7, 16_383],
            [3, 0, 0, 9],
        ] {
            let word = ((1 << 24) - 1) << 1 | 1;
            let packed = word | pack_memory(counts).expect("fits");
            assert_eq!(unpack_memory(packed), (word, counts));
        }
        for too_large in [
            [8, 1, 0, 0],
            [1, 16_384, 0, 0],
            [0, 0, 8, 1],
            [0, 0, 1, 16_384],
        ] {
            assert_eq!(pack_memory(too_large), None);
        }
        assert_eq!(unpack_memory(42), (42, [0; 4]));
    }

    fn golden_hello() -> Hello {
        hello(
            "highrise-golden 1.0",
            "tetris",
            "v1.0",
            4242,
            1_700_000_000_000_000_000,
        )
    }

    #[test]
    fn the_hello_frame_carries_the_token_as_the_golden_file_shows() {
        assert_eq!(
            hello_frame(&golden_hello(), "").expect("encodes"),
            golden("hello"),
            "no token: the plain Hello"
        );
        assert_eq!(
            hello_frame(&golden_hello(), "00112233445566778899aabbccddeeff").expect("encodes"),
            golden("hello_token")
        );
        let mut payload = Vec::new();
        highrise_protocol::read_frame(&mut golden("reject_token").as_slice(), &mut payload)
            .expect("frame");
        assert!(matches!(
            highrise_protocol::decode_viewer_message(&payload).expect("decodes"),
            ViewerMessage::Reject { reason, .. } if reason.starts_with(highrise_protocol::REJECT_UNAUTHORIZED)
        ));
    }

    /// golden/resync.bin through the drop path: thread 1 was inside 0 when it lost events
    /// that exited nothing and entered 300; its resync block arrives at 80 000.
    fn resync_from_a_drop_block() -> AgentMessage {
        let mut shadow = Shadow {
            stack: vec![0],
            last_ns: 21_227,
        };
        let records = [(80_000, MARK_RESYNC | 1), (80_000, 300)];
        let mut out = Vec::new();
        encode_records(1, &records, |raw| raw, &mut shadow, 4096, &mut |m| {
            out.push(m)
        });
        assert_eq!(out.len(), 1);
        assert_eq!(shadow.stack, vec![0, 300]);
        out.remove(0)
    }

    #[test]
    fn every_golden_frame_is_reproduced_byte_for_byte() {
        let mut session = Vec::new();
        for (name, message) in golden_session() {
            let bytes = frame(&message);
            assert_eq!(bytes, golden(name), "{name}.bin differs");
            session.extend_from_slice(&bytes);
        }
        assert_eq!(session, golden("session"), "session.bin differs");
        // The viewer's answers decode to what their .txt files show.
        let mut payload = Vec::new();
        let welcome = golden("welcome");
        highrise_protocol::read_frame(&mut welcome.as_slice(), &mut payload).expect("frame");
        assert_eq!(
            highrise_protocol::decode_viewer_message(&payload).expect("decodes"),
            ViewerMessage::Welcome {
                protocol_version: 2,
                session_id: 7
            }
        );
    }

    #[test]
    fn typed_classes_are_named_like_the_other_agents_classes() {
        let class = typed_class(3, "shapes::factory::Circle");
        assert_eq!(
            (class.package.as_str(), class.name.as_str()),
            ("shapes.factory", "Circle")
        );
        let generic = typed_class(4, "alloc::vec::Vec<shapes::factory::Circle>");
        assert_eq!(generic.package, "alloc.vec");
        assert_eq!(generic.name, "Vec<shapes::factory::Circle>");
        assert_eq!(typed_class(5, "u8").package, "");
        assert_eq!(typed_class(6, "[u8]").kind, ClassKind::Array);
    }

    #[test]
    fn batches_are_cut_at_the_limit_and_keep_time_order() {
        let records: Vec<_> = (0..10u64)
            .flat_map(|i| [enter(100 + 10 * i, 1), exit(105 + 10 * i, 1)])
            .collect();
        let mut shadow = Shadow::default();
        let mut out = Vec::new();
        let count = encode_records(3, &records, |raw| raw * 2, &mut shadow, 8, &mut |m| {
            out.push(m)
        });
        assert_eq!(count, 20);
        let sizes: Vec<u32> = out
            .iter()
            .map(|m| match m {
                AgentMessage::Events(batch) => batch.event_count,
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(sizes, vec![8, 8, 4]);
        let mut decoded = Vec::new();
        for message in &out {
            if let AgentMessage::Events(batch) = message {
                highrise_protocol::decode_events(batch, 1, &mut decoded).expect("decodes");
            }
        }
        let times: Vec<u64> = decoded.iter().map(|e| e.timestamp_ns).collect();
        let expected: Vec<u64> = records.iter().map(|r| r.0 * 2).collect();
        assert_eq!(times, expected);
        assert_eq!(shadow.last_ns, 390);
    }

    #[test]
    fn a_resync_block_splits_the_batch_and_carries_the_whole_stack() {
        // Inside 1 and 2; the thread lost events that closed 2 and entered 4 then 5.
        let records = [
            enter(10, 1),
            enter(20, 2),
            (30, MARK_RESYNC | 1 << 24 | 2),
            (30, 2),
            (30, 4),
            (30, 5),
            exit(40, 5),
        ];
        let mut shadow = Shadow::default();
        let mut out = Vec::new();
        encode_records(9, &records, |raw| raw, &mut shadow, 100, &mut |m| {
            out.push(m)
        });
        assert_eq!(out.len(), 3);
        assert!(matches!(&out[0], AgentMessage::Events(b) if b.event_count == 2));
        assert_eq!(
            out[1],
            AgentMessage::Resync {
                thread_id: 9,
                timestamp: 30,
                stack: vec![1, 4, 5]
            }
        );
        assert!(matches!(&out[2], AgentMessage::Events(b) if b.event_count == 1));
        assert_eq!(shadow.stack, vec![1, 4]);
    }
}
