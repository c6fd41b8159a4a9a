//! Protocol version 2 through the real listener and the product's sink: class definitions,
//! records with memory records, memory drop totals, and what bad version-2 input does; and a
//! version-1 agent (the golden version-1 session, byte for byte) still welcomed.

use std::path::PathBuf;

use highrise_aggregate::OUTSIDE_METHODS;
use highrise_aggregate_sink::AggregateSink;
use highrise_ingest::{IngestServer, SessionError};
use highrise_protocol::{
    AgentMessage, ClassDef, ClassKind, EventBatch, EventKind, MemoryAmount, PackedRecordWriter,
    ViewerMessage,
};
use highrise_testkit::messages::{hello, method};
use highrise_testkit::server::{start, test_config, wait_for_end, Client};

fn server() -> IngestServer<AggregateSink> {
    start(test_config(), AggregateSink::factory)
}

fn class(id: u32, package: &str, name: &str) -> ClassDef {
    ClassDef {
        id,
        package: package.into(),
        name: name.into(),
        kind: ClassKind::Class,
    }
}

fn made(count: u64, bytes: u64) -> MemoryAmount {
    MemoryAmount {
        count,
        bytes,
        free: false,
    }
}

#[test]
fn memory_records_reach_the_aggregator_attributed_to_their_frames() {
    let server = server();
    let mut client = Client::connect(&server);
    assert!(matches!(
        client.handshake(hello("test 2", "shapes")),
        ViewerMessage::Welcome {
            protocol_version: 2,
            ..
        }
    ));
    let mut writer = PackedRecordWriter::new(1, 0);
    writer.push(0, 0, EventKind::Enter);
    writer.push_memory(10, 0, made(1, 16)); // Canvas in main
    writer.push(20, 1, EventKind::Enter);
    writer.push_memory(30, 1, made(15, 15 * 32)); // Circles in create
    writer.push_memory(30, 2, made(8, 8 * 40)); // Boxes in create
    writer.push(40, 1, EventKind::Exit);
    writer.push(50, 0, EventKind::Exit);
    writer.push_memory(60, 0, made(2, 32)); // after main returned: outside
    client.send_all(&[
        AgentMessage::DefineMethods(vec![
            method(0, "shapes", "Main", "main"),
            method(1, "shapes", "ShapeFactory", "create"),
        ]),
        AgentMessage::DefineClasses(vec![
            class(0, "shapes", "Canvas"),
            class(1, "shapes", "Circle"),
            class(2, "shapes", "Box"),
        ]),
        AgentMessage::Records(writer.finish()),
        AgentMessage::MemoryDropped {
            allocations_dropped: 7,
            bytes_dropped: 70,
            frees_dropped: 0,
        },
        AgentMessage::Goodbye { timestamp: 100 },
    ]);
    client.close();
    let report = wait_for_end(&server);
    assert!(report.errors.is_empty(), "{:?}", report.errors);
    assert_eq!(report.stats.memory_records, 4);
    assert_eq!(report.stats.allocations, 26);
    assert_eq!(report.stats.events, 4);
    assert_eq!(report.stats.class_definitions, 3);
    assert_eq!(report.stats.agent_allocations_dropped, 7);
    let names: Vec<String> = report.classes().map(ClassDef::display_name).collect();
    assert_eq!(names, ["shapes.Canvas", "shapes.Circle", "shapes.Box"]);
    let snapshot = report.sink.expect("aggregated");
    let memory = &snapshot.memory;
    assert_eq!(memory.method(1).total.count, 23);
    assert_eq!(memory.method(1).total.bytes, 15 * 32 + 8 * 40);
    assert_eq!(memory.method(0).total.count, 1);
    assert_eq!(memory.method(OUTSIDE_METHODS).total.count, 2);
    let created_by_create: Vec<(u32, u64)> = memory
        .classes_of(1)
        .iter()
        .map(|entry| (entry.class_id, entry.amount.count))
        .collect();
    assert_eq!(created_by_create, [(1, 15), (2, 8)]);
    assert_eq!(memory.dropped.allocations, 7);
    assert_eq!(snapshot.method(1).calls, 1);
    server.shutdown();
}

#[test]
fn bad_version_2_input_skips_what_it_must_and_says_so() {
    let server = server();
    let mut client = Client::connect(&server);
    client.handshake(hello("test 2", "bad"));
    let mut writer = PackedRecordWriter::new(1, 0);
    writer.push(0, 0, EventKind::Enter);
    writer.push_memory(1, 5, made(3, 3)); // class 5 never defined: skipped
    writer.push_memory(2, 0, made(1, 8)); // kept
    writer.push(3, 0, EventKind::Exit);
    let reserved = EventBatch {
        thread_id: 1,
        base_timestamp: 10,
        event_count: 1,
        packed_events: vec![0x03, 0x00], // kind 3
    };
    client.send_all(&[
        AgentMessage::DefineMethods(vec![method(0, "app", "Main", "main")]),
        AgentMessage::DefineClasses(vec![
            class(0, "app", "Thing"),
            class(0, "app", "Other"),           // conflicting: first kept
            class(1 << 24, "app", "Huge"),      // too large
            class((1 << 24) - 1, "app", "Far"), // not dense
        ]),
        AgentMessage::Records(writer.finish()),
        AgentMessage::Records(reserved),
        AgentMessage::MemoryDropped {
            allocations_dropped: 9,
            bytes_dropped: 90,
            frees_dropped: 1,
        },
        AgentMessage::MemoryDropped {
            allocations_dropped: 4,
            bytes_dropped: 40,
            frees_dropped: 0,
        },
        AgentMessage::Goodbye { timestamp: 100 },
    ]);
    client.close();
    let report = wait_for_end(&server);
    let errors: Vec<String> = report.errors.iter().map(ToString::to_string).collect();
    assert!(
        report.errors.iter().any(|e| matches!(
            e,
            SessionError::UndefinedClass {
                class_id: 5,
                records: 1
            }
        )),
        "{errors:?}"
    );
    let class_refusals = report
        .errors
        .iter()
        .filter(|e| matches!(e, SessionError::BadClassDefinition { .. }))
        .count();
    assert_eq!(class_refusals, 3, "{errors:?}");
    assert!(
        errors.iter().any(|e| e.contains("reserved record kind 3")),
        "{errors:?}"
    );
    assert_eq!(report.stats.memory_records, 1);
    assert_eq!(
        report.stats.agent_allocations_dropped, 9,
        "lower totals ignored"
    );
    let names: Vec<String> = report.classes().map(ClassDef::display_name).collect();
    assert_eq!(names, ["app.Thing"]);
    let snapshot = report.sink.expect("aggregated");
    assert_eq!(snapshot.memory.method(0).total.count, 1);
    assert_eq!(snapshot.memory.dropped.frees, 1);
    server.shutdown();
}

#[test]
fn a_version_1_agent_is_still_welcomed_and_aggregated() {
    let golden = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../agent-protocol/golden/v1/session.bin");
    let session = std::fs::read(&golden).expect("golden v1 session");
    let server = server();
    let mut client = Client::connect(&server);
    let hello_len = u32::from_le_bytes(session[..4].try_into().unwrap()) as usize;
    client.send_raw(&session[..4 + hello_len]);
    assert!(matches!(
        client.read_answer(),
        ViewerMessage::Welcome { .. }
    ));
    client.send_raw(&session[4 + hello_len..]);
    client.close();
    let report = wait_for_end(&server);
    assert!(report.errors.is_empty(), "{:?}", report.errors);
    assert_eq!(report.stats.events, 4);
    assert_eq!(report.stats.memory_records, 0);
    let snapshot = report.sink.expect("aggregated");
    assert!(snapshot.memory.is_empty());
    assert_eq!(snapshot.method(300).calls, 1);
    server.shutdown();
}

/// The viewer's sink keeps the calling-context tree and its last snapshot carries the whole
/// tree, even for a session shorter than the tree's publishing interval (the session's end
/// publishes it); the default sink carries none.
#[test]
fn the_viewers_sink_publishes_the_context_tree_at_the_sessions_end() {
    let session = || {
        let mut writer = PackedRecordWriter::new(1, 0);
        writer.push(0, 0, EventKind::Enter);
        for call in 0..3u64 {
            writer.push(10 + call * 10, 1, EventKind::Enter);
            writer.push_memory(12 + call * 10, 0, made(5, 5 * 32)); // Circles
            writer.push(15 + call * 10, 1, EventKind::Exit);
        }
        writer.push(50, 0, EventKind::Exit);
        vec![
            AgentMessage::DefineMethods(vec![
                method(0, "shapes", "Main", "main"),
                method(1, "shapes", "ShapeFactory", "create"),
            ]),
            AgentMessage::DefineClasses(vec![class(0, "shapes", "Circle")]),
            AgentMessage::Records(writer.finish()),
            AgentMessage::Goodbye { timestamp: 100 },
        ]
    };
    let run = |factory: fn(&highrise_protocol::Hello) -> AggregateSink| {
        let server = start(test_config(), factory);
        let mut client = Client::connect(&server);
        client.handshake(hello("test 2", "shapes"));
        client.send_all(&session());
        client.close();
        let report = wait_for_end(&server);
        server.shutdown();
        report.sink.expect("aggregated")
    };
    let with = run(AggregateSink::factory_with_contexts);
    let tree = with
        .contexts
        .as_deref()
        .expect("the viewer's sink keeps the tree");
    // Root, main, main → create.
    let shape: Vec<(u32, u16, u64, u64)> = tree
        .nodes
        .iter()
        .map(|node| (node.method_id, node.depth, node.calls, node.time_ns))
        .collect();
    assert_eq!(shape, [(u32::MAX, 0, 0, 0), (0, 1, 1, 50), (1, 2, 3, 15)]);
    let direct: Vec<(u32, u64, u64)> = tree
        .direct(2)
        .iter()
        .map(|(class_id, amount)| (*class_id, amount.count, amount.bytes))
        .collect();
    assert_eq!(direct, [(0, 15, 15 * 32)]);
    // And who called whom: main → create, three times.
    let edges = with.edges.as_deref().expect("edges with the tree");
    let edges: Vec<(u32, u32, u64)> = edges
        .edges
        .iter()
        .map(|edge| (edge.caller, edge.callee, edge.calls))
        .collect();
    assert_eq!(edges, [(0, 1, 3)]);
    let without = run(AggregateSink::factory);
    assert!(without.contexts.is_none() && without.edges.is_none());
}

/// Class relations (tag 13) through the real listener: each kept once, in the session's
/// reports; one naming an undefined class is skipped with an error and the rest stay.
#[test]
fn class_relations_are_kept_once_and_undefined_classes_refused() {
    use highrise_protocol::{ClassRelation, RelationKind};
    let relation = |from_class, to_class, kind, field: &str, many| ClassRelation {
        from_class,
        to_class,
        kind,
        field: field.into(),
        many,
    };
    let server = server();
    let mut client = Client::connect(&server);
    client.handshake(hello("test 2", "ui"));
    client.send_all(&[
        AgentMessage::DefineClasses(vec![
            class(0, "ui", "Panel"),
            class(1, "ui", "Item"),
            class(2, "ui", "Widget"),
        ]),
        AgentMessage::ClassRelations(vec![
            relation(0, 1, RelationKind::Field, "items", true),
            relation(1, 2, RelationKind::Extends, "", false),
            relation(0, 7, RelationKind::Field, "ghost", false),
        ]),
        AgentMessage::ClassRelations(vec![
            relation(0, 1, RelationKind::Field, "items", true),
            relation(0, 0, RelationKind::Field, "parent", false),
        ]),
        AgentMessage::Goodbye { timestamp: 10 },
    ]);
    client.close();
    let report = wait_for_end(&server);
    server.shutdown();
    let kept: Vec<(u32, u32, &str)> = report
        .relations()
        .map(|r| (r.from_class, r.to_class, r.field.as_str()))
        .collect();
    assert_eq!(kept, [(0, 1, "items"), (1, 2, ""), (0, 0, "parent")]);
    assert!(
        report
            .errors
            .iter()
            .any(|error| matches!(error, SessionError::UndefinedClass { class_id: 7, .. })),
        "{:?}",
        report.errors
    );
}
