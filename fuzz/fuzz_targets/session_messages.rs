//! A session built from structured operations (via `arbitrary`) rather than raw bytes, so the
//! fuzzer reaches deep states quickly: a Hello, then well-formed-ish messages — definitions
//! (duplicates, conflicts, huge ids), thread starts and ends, event batches whose events nest,
//! mismatch, name undefined methods, go back in time or lie about their count, resyncs,
//! heartbeats, drop totals, version-2 class definitions, records with memory records and
//! memory drop totals, Goodbye — mixed with raw payloads, consumer commands (window,
//! exclusions) and reports, all through a [`SessionProcessor`] with the product's sink
//! ([`AggregateSink`]). Must hold: nothing panics; the session ends when the stream does.
#![no_main]

use std::net::{Ipv4Addr, SocketAddr};

use arbitrary::Arbitrary;
use highrise_ingest::{SessionProcessor, SessionStatus};
use highrise_aggregate_sink::{AggregateCommand, AggregateSink};
use highrise_protocol::{
    encode_hello, encode_message, AgentMessage, ClassDef, ClassKind, ClassRelation, EventBatch, EventKind, Hello,
    LiveClass, LiveObjects, MemoryAmount, MethodDef, RelationKind, PackedEventWriter, PackedRecordWriter, MAGIC, MAX_METHOD_ID,
    PROTOCOL_VERSION,
};
use libfuzzer_sys::fuzz_target;

#[derive(Debug, Arbitrary)]
struct Input {
    clock_unit_ns: u8,
    clock_zero_unix_ns: u64,
    program: String,
    token: String,
    ops: Vec<Op>,
}

#[derive(Debug, Arbitrary)]
enum Op {
    Define(Vec<Def>),
    ThreadStart {
        thread: u8,
        name: String,
        dt: i16,
    },
    ThreadEnd {
        thread: u8,
        dt: i16,
    },
    Events(Batch),
    /// Version 2: class definitions (same id rules as methods).
    DefineClasses(Vec<(Id, u8, u8)>),
    /// Version 2: enters, exits and memory records of one thread.
    Records(RecordBatch),
    MemoryDropped {
        allocations: u64,
        bytes: u64,
        frees: u64,
    },
    LiveObjects {
        thread: u8,
        dt: i16,
        heap: Option<u64>,
        classes: Vec<(Id, u64, u64)>,
    },
    ClassRelations(Vec<(Id, Id, u8, bool)>),
    Heartbeat {
        dt: i16,
    },
    Resync {
        thread: u8,
        dt: i16,
        stack: Vec<Id>,
    },
    Dropped {
        events: u64,
        batches: u64,
    },
    Goodbye {
        dt: i16,
    },
    /// A second Hello (the first is always sent).
    Hello,
    /// A payload as is.
    Raw(Vec<u8>),
    Command(Command),
    Report,
    /// A notice (its key may repeat, be too long, or be one key too many).
    Notice {
        key: String,
        text: String,
    },
}

/// A method id. Ingest refuses ids `MAX_METHOD_ID_GAP` or more above the methods defined so
/// far (before that rule, one far id sized every per-method table to 16.7 M entries).
#[derive(Debug, Arbitrary)]
enum Id {
    /// The ids a real agent uses: small, dense.
    Small(u8),
    /// A sparse id, within the gap ingest allows.
    Sparse(u16),
    /// Far below `MAX_METHOD_ID` but far above what was defined: refused as not dense.
    Far(u16),
    /// `MAX_METHOD_ID` and beyond: refused.
    TooLarge(u8),
}

impl Id {
    fn get(&self) -> u32 {
        match self {
            Id::Small(id) => u32::from(*id % 32),
            Id::Sparse(id) => u32::from(*id),
            Id::Far(id) => MAX_METHOD_ID - 1 - u32::from(*id),
            Id::TooLarge(id) => MAX_METHOD_ID.saturating_add(u32::from(*id).pow(4)),
        }
    }
}

#[derive(Debug, Arbitrary)]
struct Def {
    id: Id,
    package: u8,
    class: u8,
    method: u8,
    signature: Option<String>,
    line: Option<u32>,
}

#[derive(Debug, Arbitrary)]
struct Batch {
    thread: u8,
    dt: i16,
    events: Vec<(u16, Id, bool)>,
    /// Replaces the true event count.
    lie_count: Option<u32>,
    /// Cuts the packed bytes to this length.
    cut: Option<u8>,
}

#[derive(Debug, Arbitrary)]
struct RecordBatch {
    thread: u8,
    dt: i16,
    /// (delta, id, kind % 3: enter, exit, memory; count, bytes, free)
    records: Vec<(u16, Id, u8, u32, u64, bool)>,
    lie_count: Option<u32>,
    cut: Option<u8>,
}

#[derive(Debug, Arbitrary)]
enum Command {
    SetWindow(u64),
    ExcludeMethods(Vec<Id>),
    ExcludePackages(Vec<u8>),
}

/// A batch that lies about its count and/or is cut short, as asked.
fn tamper(mut batch: EventBatch, lie_count: Option<u32>, cut: Option<u8>) -> EventBatch {
    if let Some(count) = lie_count {
        batch.event_count = count;
    }
    if let Some(cut) = cut {
        batch.packed_events.truncate(usize::from(cut));
    }
    batch
}

const PACKAGES: [&str; 4] = ["", "main", "main.game", "lib"];
const NAMES: [&str; 4] = ["A", "B", "run", "Outer$Inner"];

fn package(index: u8) -> String {
    PACKAGES[usize::from(index) % PACKAGES.len()].to_owned()
}

fn name(index: u8) -> String {
    NAMES[usize::from(index) % NAMES.len()].to_owned()
}

/// The agent's clock: moves by `dt` ticks (backwards too).
fn tick(now: &mut u64, dt: i16) -> u64 {
    *now = now.saturating_add_signed(i64::from(dt) * 1_000);
    *now
}

fuzz_target!(|input: Input| {
    let peer = SocketAddr::from((Ipv4Addr::LOCALHOST, 40000));
    let mut processor = SessionProcessor::new(1, peer, AggregateSink::factory);
    let hello = Hello {
        magic: MAGIC,
        protocol_version: PROTOCOL_VERSION,
        agent: "fuzz".into(),
        program: input.program,
        version_label: String::new(),
        pid: 1,
        clock_unit_ns: u32::from(input.clock_unit_ns),
        clock_zero_unix_ns: input.clock_zero_unix_ns,
    };
    processor.feed_payload(&encode_hello(&hello, &input.token));
    let mut now = 1_000_000u64;
    for op in input.ops {
        let message = match op {
            Op::Define(defs) => AgentMessage::DefineMethods(
                defs.into_iter()
                    .map(|def| MethodDef {
                        id: def.id.get(),
                        package: package(def.package),
                        class: name(def.class),
                        method: name(def.method),
                        signature: def.signature,
                        file: None,
                        line: def.line,
                    })
                    .collect(),
            ),
            Op::ThreadStart { thread, name, dt } => AgentMessage::ThreadStart {
                thread_id: u64::from(thread % 8),
                name,
                timestamp: tick(&mut now, dt),
            },
            Op::ThreadEnd { thread, dt } => AgentMessage::ThreadEnd {
                thread_id: u64::from(thread % 8),
                timestamp: tick(&mut now, dt),
            },
            Op::Events(batch) => {
                let base = tick(&mut now, batch.dt);
                let mut writer = PackedEventWriter::new(u64::from(batch.thread % 8), base);
                for (dt, id, enter) in &batch.events {
                    now = now.saturating_add(u64::from(*dt));
                    let kind = if *enter {
                        EventKind::Enter
                    } else {
                        EventKind::Exit
                    };
                    writer.push(now, id.get(), kind);
                }
                AgentMessage::Events(tamper(writer.finish(), batch.lie_count, batch.cut))
            }
            Op::DefineClasses(classes) => AgentMessage::DefineClasses(
                classes
                    .iter()
                    .map(|(id, package_index, kind)| ClassDef {
                        id: id.get(),
                        package: package(*package_index),
                        name: name(*kind),
                        kind: match kind % 3 {
                            0 => ClassKind::Class,
                            1 => ClassKind::Array,
                            _ => ClassKind::Untyped,
                        },
                    })
                    .collect(),
            ),
            Op::Records(batch) => {
                let base = tick(&mut now, batch.dt);
                let mut writer = PackedRecordWriter::new(u64::from(batch.thread % 8), base);
                for (dt, id, kind, count, bytes, free) in &batch.records {
                    now = now.saturating_add(u64::from(*dt));
                    match kind % 3 {
                        0 => writer.push(now, id.get(), EventKind::Enter),
                        1 => writer.push(now, id.get(), EventKind::Exit),
                        _ => writer.push_memory(
                            now,
                            id.get(),
                            MemoryAmount {
                                count: u64::from(*count),
                                bytes: *bytes,
                                free: *free,
                            },
                        ),
                    }
                }
                AgentMessage::Records(tamper(writer.finish(), batch.lie_count, batch.cut))
            }
            Op::MemoryDropped {
                allocations,
                bytes,
                frees,
            } => AgentMessage::MemoryDropped {
                allocations_dropped: allocations,
                bytes_dropped: bytes,
                frees_dropped: frees,
            },
            Op::LiveObjects {
                thread,
                dt,
                heap,
                classes,
            } => AgentMessage::LiveObjects(LiveObjects {
                thread_id: u64::from(thread % 8),
                timestamp: tick(&mut now, dt),
                heap_live_bytes: heap,
                classes: classes
                    .iter()
                    .map(|(id, count, bytes)| LiveClass {
                        class_id: id.get(),
                        count: *count,
                        bytes: *bytes,
                    })
                    .collect(),
            }),
            Op::ClassRelations(relations) => AgentMessage::ClassRelations(
                relations
                    .iter()
                    .map(|(from, to, kind, many)| ClassRelation {
                        from_class: from.get(),
                        to_class: to.get(),
                        kind: match kind % 3 {
                            0 => RelationKind::Extends,
                            1 => RelationKind::Implements,
                            _ => RelationKind::Field,
                        },
                        field: format!("f{}", kind / 3),
                        many: *many,
                    })
                    .collect(),
            ),
            Op::Heartbeat { dt } => AgentMessage::Heartbeat {
                timestamp: tick(&mut now, dt),
            },
            Op::Resync { thread, dt, stack } => AgentMessage::Resync {
                thread_id: u64::from(thread % 8),
                timestamp: tick(&mut now, dt),
                stack: stack.iter().map(Id::get).collect(),
            },
            Op::Dropped { events, batches } => AgentMessage::Dropped {
                events_dropped: events,
                batches_dropped: batches,
            },
            Op::Goodbye { dt } => AgentMessage::Goodbye {
                timestamp: tick(&mut now, dt),
            },
            Op::Hello => AgentMessage::Hello(hello.clone()),
            Op::Notice { key, text } => AgentMessage::Notice { key, text },
            Op::Raw(payload) => {
                processor.feed_payload(&payload);
                continue;
            }
            Op::Command(command) => {
                processor.command(match command {
                    Command::SetWindow(window_ns) => AggregateCommand::SetWindow { window_ns },
                    Command::ExcludeMethods(ids) => {
                        AggregateCommand::ExcludeMethods(ids.iter().map(Id::get).collect())
                    }
                    Command::ExcludePackages(packages) => AggregateCommand::ExcludePackages(
                        packages.into_iter().map(package).collect(),
                    ),
                });
                continue;
            }
            Op::Report => {
                processor.report();
                continue;
            }
        };
        if processor.feed_payload(&encode_message(&message)) {
            break;
        }
    }
    processor.finish();
    let report = processor.report();
    assert!(matches!(report.status, SessionStatus::Ended(_)));
});
