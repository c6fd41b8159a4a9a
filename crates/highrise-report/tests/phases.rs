//! `highrise classes` on a recording with known contents: phase runs cut at the outermost call
//! of the phase method on each thread (recursion and other threads kept apart), objects created,
//! freed and live per class, the run's basis pool at each exit, and the whole run without a
//! phase. Then `predict` on two such recordings, and phase names that match several methods (a
//! Python mark `phase("parse")` around the program's own function `parse`).

use std::path::Path;

use highrise_protocol::{
    encode_frame, AgentMessage, ClassDef, ClassKind, EventKind::*, MemoryAmount, MethodDef,
    PackedRecordWriter,
};
use highrise_record::{RecordingHeader, RecordingWriter};
use highrise_report::phases::{class_table, PhaseChoice, WHOLE_RUN};
use highrise_report::predict::{predict, DataSet};
use highrise_report::ReportError;
use highrise_testkit::messages::{hello, method};

const TOKEN: u32 = 0;
const CALL: u32 = 1;

fn class(id: u32, name: &str) -> ClassDef {
    ClassDef {
        id,
        package: "lang".into(),
        name: name.into(),
        kind: ClassKind::Class,
    }
}

fn made(count: u64, size: u64) -> MemoryAmount {
    MemoryAmount {
        count,
        bytes: count * size,
        free: false,
    }
}

fn freed(count: u64, size: u64) -> MemoryAmount {
    MemoryAmount {
        count,
        bytes: count * size,
        free: true,
    }
}

/// Methods: 0 main, 1 Parser.parse, 2 Lexer.next, 3 an overload of Parser.parse. `calls` Call
/// objects and `3 · calls` tokens per parse, on thread 1 twice (the second with a recursive parse
/// inside and a free) and on thread 2 once (with the overload inside); thread 1 also makes
/// objects outside any phase.
fn write(path: &Path, calls: u64) {
    let mut one = PackedRecordWriter::new(1, 0);
    one.push(0, 0, Enter);
    one.push_memory(1, TOKEN, made(5, 40)); // in main, outside the phase
    one.push(2, 1, Enter); // parse #0
    one.push(3, 2, Enter);
    one.push_memory(4, TOKEN, made(3 * calls, 40)); // in a callee: counts
    one.push(5, 2, Exit);
    one.push_memory(6, CALL, made(calls, 64));
    one.push(7, 1, Exit);
    one.push(10, 1, Enter); // parse #2 (thread 2's starts at 8)
    one.push(11, 1, Enter); // recursive: the same run
    one.push_memory(12, TOKEN, made(3 * calls, 48));
    one.push_memory(13, CALL, made(calls, 64));
    one.push_memory(14, TOKEN, freed(2, 40));
    one.push(15, 1, Exit);
    one.push(16, 0, Exit); // main returns: the parse run ends with it
    let mut two = PackedRecordWriter::new(2, 8);
    two.push(8, 1, Enter); // parse #1
    two.push(8, 3, Enter); // an overload of parse inside it: the same run
    two.push_memory(9, CALL, made(calls, 64));
    two.push(9, 3, Exit);
    two.push_memory(9, TOKEN, made(3 * calls, 40));
    two.push(9, 1, Exit);
    let messages = [
        AgentMessage::Hello(hello("test", "lang")),
        AgentMessage::DefineMethods(vec![
            method(0, "lang", "Main", "main"),
            method(1, "lang", "Parser", "parse"),
            method(2, "lang", "Lexer", "next"),
            MethodDef {
                signature: Some("(Reader)".into()),
                ..method(3, "lang", "Parser", "parse")
            },
        ]),
        AgentMessage::DefineClasses(vec![class(TOKEN, "Token"), class(CALL, "Call")]),
        AgentMessage::Records(two.finish()),
        AgentMessage::Records(one.finish()),
        AgentMessage::Goodbye { timestamp: 20 },
    ];
    write_messages(path, &messages);
}

#[test]
fn phase_runs_count_their_threads_objects_and_the_pool_at_their_exit() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("lang.hrec");
    write(&path, 10);
    let table = class_table(&path, &["Parser.parse".into(), "Nope.never".into()]).expect("reads");
    assert_eq!(table.unknown_phases, vec!["Nope.never".to_string()]);
    assert!(table.frees_known);
    assert_eq!((table.events_dropped, table.allocations_dropped), (0, 0));
    assert_eq!(table.phases.len(), 3);
    let starts: Vec<(u64, u64, u32)> = table
        .phases
        .iter()
        .map(|run| (run.thread_id, run.start_ns, run.index))
        .collect();
    // Thread 2's batch came first on the wire; runs are ordered by start.
    assert_eq!(starts, vec![(1, 2, 0), (2, 8, 1), (1, 10, 2)]);
    for run in &table.phases {
        assert_eq!(run.phase, "lang.Parser.parse");
        assert!(!run.unfinished);
    }
    let first = &table.phases[0];
    assert_eq!(first.end_ns, 7);
    let token = first.class("Token").expect("tokens");
    assert_eq!((token.created, token.created_bytes), (30, 1200));
    assert_eq!(token.live_at_exit, Some(30));
    assert_eq!(first.class("lang.Call").expect("calls").created, 10);
    // The pool at its exit: thread 1's 5 + 30 tokens and 10 calls so far, and thread 2's 30
    // and 10, whose batch arrived first (between threads, arrival order).
    assert_eq!(first.created_by_exit["lang.Token"], 65);
    assert_eq!(first.created_by_exit["lang.Call"], 20);
    let second = &table.phases[1];
    assert_eq!(second.class("Token").expect("tokens").created, 30);
    assert_eq!(second.created_by_exit["lang.Call"], 10);
    // The recursive call stays in one run, which ends when main's exit closes it.
    let third = &table.phases[2];
    assert_eq!(third.end_ns, 16);
    let token = third.class("Token").expect("tokens");
    assert_eq!(
        (token.created, token.freed, token.live_at_exit),
        (30, 2, Some(28))
    );
    assert_eq!(token.mean_size_bytes, 48.0);
    assert_eq!(third.created_by_exit["lang.Call"], 30);

    // Without a phase: the whole run is one.
    let whole = class_table(&path, &[]).expect("reads");
    assert_eq!(whole.phases.len(), 1);
    assert_eq!(whole.phases[0].phase, WHOLE_RUN);
    let token = whole.phases[0].class("lang.Token").expect("tokens");
    assert_eq!((token.created, token.freed), (95, 2));
    assert_eq!(token.max_size_bytes, 48.0);
    assert!((token.mean_size_bytes - (65.0 * 40.0 + 30.0 * 48.0) / 95.0).abs() < 1e-9);
}

#[test]
fn predict_scales_the_phase_runs_of_two_recordings() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut data_sets = Vec::new();
    for calls in [10u64, 20] {
        let path = dir.path().join(format!("lang-{calls}.hrec"));
        write(&path, calls);
        let table = class_table(&path, &["parse".into()]).expect("reads");
        data_sets.extend(
            table
                .phases
                .iter()
                .map(|run| DataSet::from_run(&table, run)),
        );
    }
    assert_eq!(data_sets.len(), 6);
    let prediction = predict(&data_sets, "Call", 100).expect("predicts");
    assert_eq!(prediction.basis, "lang.Call");
    // Each run's basis count is the calls made by its exit (in arrival order): 2c, c, 3c for
    // c = 10 and 20.
    let bases: Vec<u64> = prediction.data_sets.iter().map(|d| d.basis_count).collect();
    assert_eq!(bases, vec![20, 10, 30, 40, 20, 60]);
    // Calls per basis object: 1/2, 1, 1/3 in each recording (mean 11/18, max 1).
    let call = prediction
        .classes
        .iter()
        .find(|c| c.class == "lang.Call")
        .expect("calls");
    assert!((call.mean_ratio - 11.0 / 18.0).abs() < 1e-12);
    assert_eq!(call.max_ratio, 1.0);
    assert!((call.average_bytes - 100.0 * 11.0 / 18.0 * 64.0).abs() < 1e-9);
}

/// Writes `messages` as a recording, one frame each.
fn write_messages(path: &Path, messages: &[AgentMessage]) {
    let file = std::fs::File::create(path).expect("creates");
    let mut writer = RecordingWriter::new(file, &RecordingHeader::new(0)).expect("header");
    for (n, message) in messages.iter().enumerate() {
        let frame = encode_frame(message).expect("encodes");
        writer.write_frame(n as u64, &frame, 20).expect("writes");
    }
    writer.finish().expect("finishes");
}

/// Writes a recording of one thread's `records` with `methods` defined (classes Token and
/// Call).
fn write_records(path: &Path, methods: Vec<MethodDef>, records: PackedRecordWriter) {
    let messages = [
        AgentMessage::Hello(hello("test", "app")),
        AgentMessage::DefineMethods(methods),
        AgentMessage::DefineClasses(vec![class(TOKEN, "Token"), class(CALL, "Call")]),
        AgentMessage::Records(records.finish()),
        AgentMessage::Goodbye { timestamp: 20 },
    ];
    write_messages(path, &messages);
}

const MAIN: u32 = 0;
const MARK: u32 = 1;
const PARSE_FUNCTION: u32 = 2;
const MARK_NAME: &str = "highrise.phase.parse";
const FUNCTION_NAME: &str = "app.main.parse";

/// A Python program that marks `with highrise_agent.phase("parse"):` around a call of its own
/// function `parse` (`app.main.parse`), which makes `calls` Call objects and `2 · calls`
/// tokens; main makes 5 tokens before the mark.
fn write_marked(path: &Path, calls: u64) {
    let mut one = PackedRecordWriter::new(1, 0);
    one.push(0, MAIN, Enter);
    one.push_memory(1, TOKEN, made(5, 40));
    one.push(2, MARK, Enter);
    one.push(3, PARSE_FUNCTION, Enter);
    one.push_memory(4, CALL, made(calls, 64));
    one.push_memory(5, TOKEN, made(2 * calls, 40));
    one.push(6, PARSE_FUNCTION, Exit);
    one.push(7, MARK, Exit);
    one.push(8, MAIN, Exit);
    write_records(
        path,
        vec![
            method(MAIN, "app", "main", "<module>"),
            method(MARK, "highrise", "phase", "parse"),
            method(PARSE_FUNCTION, "app", "main", "parse"),
        ],
        one,
    );
}

/// The bug this guards against: `--phase parse` matched both the mark and the function, so each
/// recording gave two data sets (6 from 3 runs). Now the name is the mark, once per run.
#[test]
fn phase_named_like_a_function_counts_each_run_once() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut data_sets = Vec::new();
    for calls in [10u64, 20, 30] {
        let path = dir.path().join(format!("marked-{calls}.hrec"));
        write_marked(&path, calls);
        let table = class_table(&path, &["parse".into()]).expect("reads");
        assert_eq!(table.phases.len(), 1, "{:?}", table.phases);
        data_sets.extend(
            table
                .phases
                .iter()
                .map(|run| DataSet::from_run(&table, run)),
        );
    }
    assert_eq!(data_sets.len(), 3);
    let prediction = predict(&data_sets, "Call", 100).expect("predicts");
    assert_eq!(prediction.data_sets.len(), 3);
    let bases: Vec<u64> = prediction.data_sets.iter().map(|d| d.basis_count).collect();
    assert_eq!(bases, vec![10, 20, 30]);
    // Two tokens per call, and each run's objects counted once: 200 tokens at N = 100.
    let token = prediction
        .classes
        .iter()
        .find(|c| c.class == "lang.Token")
        .expect("tokens");
    assert_eq!(token.mean_ratio, 2.0);
}

#[test]
fn a_phase_mark_is_preferred_over_a_same_named_function() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("marked.hrec");
    write_marked(&path, 10);
    let table = class_table(&path, &["parse".into()]).expect("reads");
    assert!(table.unknown_phases.is_empty());
    assert_eq!(table.phases.len(), 1);
    let run = &table.phases[0];
    assert_eq!((run.phase.as_str(), run.index), (MARK_NAME, 0));
    assert_eq!((run.start_ns, run.end_ns), (2, 7));
    assert_eq!(run.class("Call").expect("calls").created, 10);
    assert_eq!(run.class("Token").expect("tokens").created, 20);
    let choice = PhaseChoice {
        asked: "parse".into(),
        method: MARK_NAME.into(),
        mark: true,
        also_matching: vec![FUNCTION_NAME.into()],
    };
    assert_eq!(table.phase_choices, vec![choice.clone()]);
    assert_eq!(
        choice.note().expect("a note"),
        "phase \"parse\": using the mark highrise.phase.parse; app.main.parse also matches \
         — name it in full to use it"
    );
}

#[test]
fn a_full_name_selects_exactly_that_method() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("marked.hrec");
    write_marked(&path, 10);
    // The function, by its full name: its one run, no note.
    let table = class_table(&path, &[FUNCTION_NAME.into()]).expect("reads");
    assert_eq!(table.phases.len(), 1);
    assert_eq!(table.phases[0].phase, FUNCTION_NAME);
    assert_eq!((table.phases[0].start_ns, table.phases[0].end_ns), (3, 6));
    assert_eq!(table.phase_choices.len(), 1);
    assert_eq!(table.phase_choices[0].note(), None);
    // The mark by its full name and by `phase.parse` (which only the mark's name ends with).
    for asked in [MARK_NAME, "phase.parse"] {
        let table = class_table(&path, &[asked.into()]).expect("reads");
        let phases: Vec<&str> = table.phases.iter().map(|run| run.phase.as_str()).collect();
        assert_eq!(phases, vec![MARK_NAME], "{asked}");
        assert_eq!(table.phase_choices[0].note(), None);
    }
    // A full name that is also the tail of a longer one selects itself.
    let path = dir.path().join("nested-names.hrec");
    let mut one = PackedRecordWriter::new(1, 0);
    one.push(0, 0, Enter);
    one.push_memory(1, CALL, made(1, 64));
    one.push(2, 0, Exit);
    one.push(3, 1, Enter);
    one.push_memory(4, CALL, made(2, 64));
    one.push(5, 1, Exit);
    write_records(
        &path,
        vec![
            method(0, "lang", "Parser", "parse"),
            method(1, "vendored.lang", "Parser", "parse"),
        ],
        one,
    );
    let table = class_table(&path, &["lang.Parser.parse".into()]).expect("reads");
    assert_eq!(table.phases.len(), 1);
    assert_eq!(table.phases[0].phase, "lang.Parser.parse");
    assert_eq!(table.phases[0].class("Call").expect("calls").created, 1);
    assert!(matches!(
        class_table(&path, &["Parser.parse".into()]),
        Err(ReportError::AmbiguousPhase { .. })
    ));
}

#[test]
fn a_name_matching_two_functions_is_an_error_naming_them() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("two-parses.hrec");
    let mut one = PackedRecordWriter::new(1, 0);
    one.push(0, 0, Enter);
    one.push(1, 1, Enter); // a Lexer.parse inside Parser.parse
    one.push_memory(2, CALL, made(3, 64));
    one.push(3, 1, Exit);
    one.push(4, 0, Exit);
    write_records(
        &path,
        vec![
            method(0, "app", "Parser", "parse"),
            method(1, "app", "Lexer", "parse"),
            // Defined, never called: not a candidate.
            method(2, "app", "Config", "parse"),
        ],
        one,
    );
    let error = class_table(&path, &["parse".into()]).expect_err("ambiguous");
    match &error {
        ReportError::AmbiguousPhase {
            phase, candidates, ..
        } => {
            assert_eq!(phase, "parse");
            assert_eq!(
                candidates,
                &vec![
                    "app.Lexer.parse".to_string(),
                    "app.Parser.parse".to_string()
                ]
            );
        }
        other => panic!("not ambiguous: {other:?}"),
    }
    let message = error.to_string();
    assert!(
        message.contains("app.Lexer.parse, app.Parser.parse") && message.contains("in full"),
        "{message}"
    );
    // Named in full, each is its own phase; the uncalled one matches alone, with no runs.
    let table = class_table(&path, &["Parser.parse".into()]).expect("reads");
    assert_eq!(table.phases.len(), 1);
    assert_eq!(table.phases[0].phase, "app.Parser.parse");
    let table = class_table(&path, &["Config.parse".into()]).expect("reads");
    assert!(table.phases.is_empty() && table.unknown_phases.is_empty());
}
