//! Recordings made from other tools' profiles, exported again (`highrise_record::export`) and
//! checked against what each format's own readers make of them.

use std::path::Path;

use highrise_import::{convert_bytes, ProfileFormat};
use highrise_protocol::{AgentMessage, ClassDef, MemoryAmount, MethodDef};
use highrise_record::export::{export, ExportFormat};
use highrise_record::pprof;

/// A recording in a temp file, made from a Chrome trace (exact) or folded stacks (sampled).
fn recording(name: &str, format: ProfileFormat, profile: &str) -> std::path::PathBuf {
    let path = std::env::temp_dir().join(format!(
        "highrise-export-{}-{name}.hrec",
        std::process::id()
    ));
    let mut out = Vec::new();
    convert_bytes(profile.as_bytes(), format, name, &mut out).expect("converts");
    std::fs::write(&path, out).expect("writes");
    path
}

/// Two threads: on `main`, `app.Game.run` 0..20 µs calls `app.Board.step` twice (2..5 and
/// 10..14 µs); on `worker`, `app.Io.read` 0..8 µs.
const TRACE: &str = r#"{"traceEvents":[
    {"ph":"M","pid":1,"tid":1,"name":"thread_name","args":{"name":"main"}},
    {"ph":"M","pid":1,"tid":2,"name":"thread_name","args":{"name":"worker"}},
    {"ph":"X","pid":1,"tid":1,"ts":100,"dur":20,"name":"app.Game.run"},
    {"ph":"X","pid":1,"tid":1,"ts":102,"dur":3,"name":"app.Board.step"},
    {"ph":"X","pid":1,"tid":1,"ts":110,"dur":4,"name":"app.Board.step"},
    {"ph":"X","pid":1,"tid":2,"ts":100,"dur":8,"name":"app.Io.read"}]}"#;

fn exported(path: &Path, format: ExportFormat) -> Vec<u8> {
    let mut out = Vec::new();
    let reader = highrise_import::open(path).expect("opens");
    export(reader, format, &mut out).expect("exports");
    out
}

#[test]
fn an_exact_session_exports_its_time_and_calls_to_pprof() {
    let path = recording("exact-pprof", ProfileFormat::ChromeTrace, TRACE);
    let profile = pprof::decode(&exported(&path, ExportFormat::Pprof)).expect("pprof");
    let text = |i: i64| profile.string_table[i as usize].as_str();
    let types: Vec<(&str, &str)> = profile
        .sample_type
        .iter()
        .map(|t| (text(t.r#type), text(t.unit)))
        .collect();
    assert_eq!(types, [("wall", "nanoseconds"), ("calls", "count")]);
    let name_of_location = |id: u64| {
        let location = profile
            .location
            .iter()
            .find(|l| l.id == id)
            .expect("location");
        let function = profile
            .function
            .iter()
            .find(|f| f.id == location.line[0].function_id)
            .expect("function");
        text(function.name).to_owned()
    };
    let mut samples: Vec<(String, Vec<i64>, String)> = profile
        .sample
        .iter()
        .map(|s| {
            let stack: Vec<String> = s.location_id.iter().map(|&l| name_of_location(l)).collect();
            (
                stack.join("<"),
                s.value.clone(),
                text(s.label[0].str).to_owned(),
            )
        })
        .collect();
    samples.sort();
    assert_eq!(
        samples,
        [
            (
                "app.Board.step<app.Game.run".to_owned(),
                vec![7_000, 2],
                "main".to_owned()
            ),
            (
                "app.Game.run".to_owned(),
                vec![13_000, 1],
                "main".to_owned()
            ),
            (
                "app.Io.read".to_owned(),
                vec![8_000, 1],
                "worker".to_owned()
            ),
        ]
    );
    let _ = std::fs::remove_file(path);
}

#[test]
fn collapsed_speedscope_and_chrome_exports_hold_the_same_calls() {
    let path = recording("exact-text", ProfileFormat::ChromeTrace, TRACE);
    let collapsed = String::from_utf8(exported(&path, ExportFormat::Collapsed)).expect("utf-8");
    assert_eq!(
        collapsed.lines().collect::<Vec<_>>(),
        [
            "thread (main);app.Game.run 13",
            "thread (main);app.Game.run;app.Board.step 7",
            "thread (worker);app.Io.read 8",
        ]
    );
    let speedscope: serde_json::Value =
        serde_json::from_slice(&exported(&path, ExportFormat::Speedscope)).expect("json");
    let main = &speedscope["profiles"][0];
    assert_eq!(main["type"], "evented");
    assert_eq!(main["name"], "main");
    let opens = main["events"]
        .as_array()
        .expect("events")
        .iter()
        .filter(|e| e["type"] == "O")
        .count();
    assert_eq!(opens, 3, "run and two steps");
    // The Chrome export read back by the importer: the same calls, as exact events.
    let chrome = exported(&path, ExportFormat::Chrome);
    let again =
        std::env::temp_dir().join(format!("highrise-export-{}-again.json", std::process::id()));
    std::fs::write(&again, &chrome).expect("writes");
    let back = exported(&again, ExportFormat::Collapsed);
    assert_eq!(String::from_utf8(back).expect("utf-8"), collapsed);
    let _ = std::fs::remove_file(path);
    let _ = std::fs::remove_file(again);
}

#[test]
fn a_sampled_session_exports_its_samples() {
    let path = recording("sampled", ProfileFormat::Folded, "a.B.c;a.B.d 3\na.B.c 1\n");
    let collapsed = String::from_utf8(exported(&path, ExportFormat::Collapsed)).expect("utf-8");
    assert_eq!(collapsed, "a.B.c 1\na.B.c;a.B.d 3\n");
    let speedscope: serde_json::Value =
        serde_json::from_slice(&exported(&path, ExportFormat::Speedscope)).expect("json");
    let profile = &speedscope["profiles"][0];
    assert_eq!(profile["type"], "sampled");
    assert_eq!(profile["samples"].as_array().map(Vec::len), Some(4));
    let profile = pprof::decode(&exported(&path, ExportFormat::Pprof)).expect("pprof");
    let mut counts: Vec<i64> = profile.sample.iter().map(|s| s.value[0]).collect();
    counts.sort_unstable();
    assert_eq!(counts, [1, 3]);
    assert_eq!(profile.period, highrise_import::FOLDED_PERIOD_NS as i64);
    let _ = std::fs::remove_file(path);
}

/// An exact session whose `app.Game.run` makes 3 `app.Piece` (48 B) and calls
/// `app.Board.step`, which makes one `int[]` of 1000 B and frees 2 `app.Piece` (32 B).
fn recording_with_memory(name: &str) -> std::path::PathBuf {
    use highrise_protocol::{
        encode_frame, ClassKind, EventKind, Hello, PackedRecordWriter, MAGIC, PROTOCOL_VERSION,
    };
    let path = std::env::temp_dir().join(format!(
        "highrise-export-{}-{name}.hrec",
        std::process::id()
    ));
    let file = std::fs::File::create(&path).expect("creates");
    let mut writer =
        highrise_record::RecordingWriter::new(file, &highrise_record::RecordingHeader::new(0))
            .expect("writer");
    let method = |id: u32, class: &str, method: &str| MethodDef {
        id,
        package: "app".into(),
        class: class.into(),
        method: method.into(),
        signature: None,
        file: None,
        line: None,
    };
    let class = |id: u32, package: &str, name: &str, kind: ClassKind| ClassDef {
        id,
        package: package.into(),
        name: name.into(),
        kind,
    };
    let amount = |count: u64, bytes: u64, free: bool| MemoryAmount { count, bytes, free };
    let mut records = PackedRecordWriter::new(1, 1_000);
    records.push(1_000, 0, EventKind::Enter);
    records.push_memory(1_500, 0, amount(3, 48, false));
    records.push(2_000, 1, EventKind::Enter);
    records.push_memory(2_500, 1, amount(1, 1_000, false));
    records.push_memory(2_600, 0, amount(2, 32, true));
    records.push(3_000, 1, EventKind::Exit);
    records.push(5_000, 0, EventKind::Exit);
    let messages = [
        AgentMessage::Hello(Hello {
            magic: MAGIC,
            protocol_version: PROTOCOL_VERSION,
            agent: "test".into(),
            program: "game".into(),
            version_label: String::new(),
            pid: 1,
            clock_unit_ns: 1,
            clock_zero_unix_ns: 0,
        }),
        AgentMessage::DefineMethods(vec![method(0, "Game", "run"), method(1, "Board", "step")]),
        AgentMessage::DefineClasses(vec![
            class(0, "app", "Piece", ClassKind::Class),
            class(1, "", "int[]", ClassKind::Array),
        ]),
        AgentMessage::ThreadStart {
            thread_id: 1,
            name: "main".into(),
            timestamp: 1_000,
        },
        AgentMessage::Records(records.finish()),
        AgentMessage::Goodbye { timestamp: 5_000 },
    ];
    for message in &messages {
        let frame = encode_frame(message).expect("encodes");
        writer.write_frame(0, &frame, 0).expect("writes");
    }
    writer.finish().expect("finishes");
    path
}

#[test]
fn pprof_and_speedscope_exports_carry_what_each_stack_allocated_and_freed() {
    let path = recording_with_memory("memory");
    let profile = pprof::decode(&exported(&path, ExportFormat::Pprof)).expect("pprof");
    let text = |i: i64| profile.string_table[i as usize].as_str();
    let types: Vec<&str> = profile.sample_type.iter().map(|t| text(t.r#type)).collect();
    assert_eq!(
        types,
        [
            "wall",
            "calls",
            "alloc_objects",
            "alloc_space",
            "free_objects",
            "free_space"
        ]
    );
    assert_eq!(text(profile.default_sample_type), "wall");
    let function_of = |location: u64| {
        let id = profile
            .location
            .iter()
            .find(|l| l.id == location)
            .expect("location")
            .line[0]
            .function_id;
        text(
            profile
                .function
                .iter()
                .find(|f| f.id == id)
                .expect("function")
                .name,
        )
    };
    let mut samples: Vec<(String, String, Vec<i64>)> = profile
        .sample
        .iter()
        .map(|s| {
            let stack: Vec<&str> = s.location_id.iter().map(|&l| function_of(l)).collect();
            let class = s
                .label
                .iter()
                .find(|l| text(l.key) == "class")
                .map_or("", |l| text(l.str));
            (stack.join("<"), class.to_owned(), s.value.clone())
        })
        .collect();
    samples.sort();
    assert_eq!(
        samples,
        [
            (
                "app.Board.step<app.Game.run".into(),
                String::new(),
                vec![1_000, 1, 0, 0, 0, 0]
            ),
            (
                "app.Board.step<app.Game.run".into(),
                "app.Piece".into(),
                vec![0, 0, 0, 0, 2, 32]
            ),
            (
                "app.Board.step<app.Game.run".into(),
                "int[]".into(),
                vec![0, 0, 1, 1_000, 0, 0]
            ),
            (
                "app.Game.run".into(),
                String::new(),
                vec![3_000, 1, 0, 0, 0, 0]
            ),
            (
                "app.Game.run".into(),
                "app.Piece".into(),
                vec![0, 0, 3, 48, 0, 0]
            ),
        ]
    );
    // speedscope: the time as before, and the bytes made by stack and class.
    let speedscope: serde_json::Value =
        serde_json::from_slice(&exported(&path, ExportFormat::Speedscope)).expect("json");
    let frames = speedscope["shared"]["frames"].as_array().expect("frames");
    let allocated = &speedscope["profiles"][1];
    assert_eq!(allocated["name"], "main: allocated bytes");
    assert_eq!(allocated["unit"], "bytes");
    let mut stacks: Vec<(String, u64)> = allocated["samples"]
        .as_array()
        .expect("samples")
        .iter()
        .zip(allocated["weights"].as_array().expect("weights"))
        .map(|(sample, weight)| {
            let names: Vec<&str> = sample
                .as_array()
                .expect("a stack")
                .iter()
                .map(|i| {
                    frames[i.as_u64().expect("index") as usize]["name"]
                        .as_str()
                        .expect("name")
                })
                .collect();
            (names.join(";"), weight.as_u64().expect("weight"))
        })
        .collect();
    stacks.sort();
    assert_eq!(
        stacks,
        [
            ("app.Game.run;app.Board.step;int[]".into(), 1_000),
            ("app.Game.run;app.Piece".into(), 48),
        ]
    );
    let _ = std::fs::remove_file(path);
}
