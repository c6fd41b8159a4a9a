//! The importers' unit tests: naming, each format's parser, detection.

use crate::format::*;
use crate::loader_chrome::*;
use crate::loader_folded::*;
use crate::loader_pprof::*;
use crate::loader_speedscope::*;
use crate::loader_v8::*;
use crate::naming::*;
use crate::profile::*;
use crate::trace::write_trace;

#[test]
fn names_become_package_class_and_method() {
    let py = |name, file| frame_method(name, Some(file));
    assert_eq!(
        py("Shape.area", "/tmp/work/work.py"),
        ("work".into(), "Shape".into(), "area".into())
    );
    assert_eq!(
        py(
            "__cacheit.<locals>.func_wrapper.<locals>.wrapper",
            "sympy/core/cache.py"
        ),
        (
            "sympy.core.cache".into(),
            "<module>".into(),
            "__cacheit.func_wrapper.wrapper".into()
        )
    );
    assert_eq!(
        py("C.m.<locals>.helper", "pkg/mod.py"),
        ("pkg.mod".into(), "C".into(), "m.helper".into())
    );
    assert_eq!(
        py("monomial_mul", "<string>"),
        ("string".into(), "<module>".into(), "monomial_mul".into())
    );
    assert_eq!(
        py("_find_and_load", "<frozen importlib._bootstrap>"),
        (
            "importlib._bootstrap".into(),
            "<module>".into(),
            "_find_and_load".into()
        )
    );
    assert_eq!(
        py("loads", "/usr/lib/python3.12/json/__init__.py"),
        ("json".into(), "<module>".into(), "loads".into())
    );
    assert_eq!(
        py(
            "RegexLexer.get_tokens_unprocessed",
            "/v/lib/python3.12/site-packages/pygments/lexer.py"
        ),
        (
            "pygments.lexer".into(),
            "RegexLexer".into(),
            "get_tokens_unprocessed".into()
        )
    );
    let bare = |name| frame_method(name, None);
    assert_eq!(
        bare("java/util/HashMap.get_[j]"),
        ("java.util".into(), "HashMap".into(), "get".into())
    );
    assert_eq!(
        bare("org.example.Main.main"),
        ("org.example".into(), "Main".into(), "main".into())
    );
    assert_eq!(
        bare("core::fmt::write"),
        ("core".into(), "fmt".into(), "write".into())
    );
    assert_eq!(
        bare("malloc"),
        ("native".into(), "<module>".into(), "malloc".into())
    );
    assert_eq!(
        bare("[libc.so.6]"),
        ("native".into(), "<module>".into(), "[libc.so.6]".into())
    );
}

#[test]
fn detects_by_content() {
    assert_eq!(
        ProfileFormat::detect(b"main;run;leaf 12\nmain;run 3\n"),
        Some(ProfileFormat::Folded)
    );
    assert_eq!(
        ProfileFormat::detect(
            br#"{"$schema":"https://www.speedscope.app/file-format-schema.json","profiles":[]}"#
        ),
        Some(ProfileFormat::Speedscope)
    );
    assert_eq!(ProfileFormat::detect(b"HRECv1\0\0binary"), None);
    assert_eq!(ProfileFormat::detect(b"just some words\n"), None);
    assert_eq!(
        ProfileFormat::detect(b" 1\n<module> (w.py:3);f (w.py:9) 12\n"),
        Some(ProfileFormat::Folded)
    );
    assert_eq!(ProfileFormat::detect(b"{\"other\": 1}"), None);
}

#[test]
fn folded_samples_spread_each_stack_evenly_per_thread() {
    let profile = parse_folded(
        &b"thread (0x1);main (a.py:3);f (a.py:9) 3\nthread (0x1);main (a.py:3) 1\nthread (0x2);g (b.py:1) 2\n"[..],
    )
    .expect("parses");
    assert_eq!(profile.threads, ["thread (0x1)", "thread (0x2)"]);
    assert_eq!(profile.samples.len(), 6);
    let times = |thread: u32| -> Vec<u64> {
        profile
            .samples
            .iter()
            .filter(|s| s.0 == thread)
            .map(|s| s.1)
            .collect()
    };
    // Thread 0: four samples, one every period; thread 1: two over the same span.
    assert_eq!(
        times(0),
        [0, 1, 2, 3].map(|k| k * FOLDED_PERIOD_NS).to_vec()
    );
    assert_eq!(times(1), [0, 2].map(|k| k * FOLDED_PERIOD_NS).to_vec());
    // The single `main`-only sample is not all at one end.
    let main_only: Vec<usize> = profile
        .samples
        .iter()
        .filter(|s| s.0 == 0)
        .enumerate()
        .filter(|(_, s)| s.2.len() == 1)
        .map(|(k, _)| k)
        .collect();
    assert_eq!(main_only.len(), 1);
    assert!(parse_folded(&b"no count here\n"[..]).is_err());
    assert!(parse_folded(&b"\n# only a comment\n"[..]).is_err());
    // Beyond FOLDED_MAX_SAMPLES, counts scale down and every stack keeps a sample.
    let big = format!("main;hot {}\nmain;cold 1\n", FOLDED_MAX_SAMPLES * 10);
    let profile = parse_folded(big.as_bytes()).expect("parses");
    assert_eq!(profile.samples.len() as u64, FOLDED_MAX_SAMPLES + 1);
}

#[test]
fn chrome_trace_calls_become_enters_and_exits_in_order() {
    let trace = read_chrome_trace(
        r#"{"traceEvents":[
            {"ph":"M","pid":1,"tid":7,"name":"thread_name","args":{"name":"worker"}},
            {"ph":"X","pid":1,"tid":7,"ts":1010,"dur":5,"name":"inner (a.py:3)"},
            {"ph":"X","pid":1,"tid":7,"ts":1000,"dur":20,"name":"outer (a.py:1)"},
            {"ph":"B","pid":1,"tid":8,"ts":1002,"name":"Game.run"},
            {"ph":"E","pid":1,"tid":8,"ts":1012},
            {"ph":"i","pid":1,"tid":8,"ts":1005,"name":"ignored"}]}"#
            .as_bytes(),
    )
    .expect("parses");
    assert_eq!(trace.threads.len(), 2);
    assert_eq!(trace.threads[0].0, "worker");
    // ns from the first event: outer 0..20 µs, inner 10..15 µs; Game.run 2..12 µs.
    let mut worker = trace.threads[0].1.clone();
    worker.sort_unstable();
    assert_eq!(worker, [(0, 20_000, 1), (10_000, 15_000, 0)]);
    assert_eq!(trace.threads[1].1, [(2_000, 12_000, 2)]);
    let mut out = Vec::new();
    write_trace(trace, "t", &mut out).expect("writes");
    let mut reader = crate::RecordingReader::new(std::io::Cursor::new(out)).expect("a recording");
    assert!(reader.frame_count() > 3);
    assert!(read_chrome_trace(&br#"{"traceEvents":[{"ph":"i","ts":1}]}"#[..]).is_err());
    let _ = reader.frames();
}

/// A trace of many batches: every parser meets names first in its own batches, and what
/// comes out is each call under its own name, in file order per thread; a bad event in a
/// late batch is the error, told as such.
#[test]
fn chrome_traces_of_many_batches_keep_every_call_and_name() {
    let mut json = String::from(r#"{"traceEvents":["#);
    let calls = 60_000u64;
    for i in 0..calls {
        let name = format!("m{}", (i * 7919) % 5000);
        json.push_str(&format!(
            r#"{{"ph":"X","pid":1,"tid":{},"ts":{},"dur":1,"name":"{name}","args":{{"n":[1,2]}}}},"#,
            i % 3,
            i * 10
        ));
    }
    json.push_str(r#"{"ph":"M","pid":1,"tid":0,"name":"thread_name","args":{"name":"main"}}]}"#);
    assert!(json.len() > 4 * CHROME_BATCH_BYTES);
    let trace = read_chrome_trace(json.as_bytes()).expect("parses");
    assert_eq!(trace.threads.len(), 3);
    assert_eq!(trace.threads[0].0, "main");
    for (tid, (_, thread_calls)) in trace.threads.iter().enumerate() {
        let expected: Vec<(u64, String)> = (0..calls)
            .filter(|i| i % 3 == tid as u64)
            .map(|i| (i * 10_000, format!("m{}", (i * 7919) % 5000)))
            .collect();
        let got: Vec<(u64, String)> = thread_calls
            .iter()
            .map(|&(start, _, function)| (start, trace.functions[function as usize].0.clone()))
            .collect();
        assert_eq!(got, expected, "thread {tid}");
    }
    let bad = json.replacen(r#""ts":590000,"#, r#""ts":"late","#, 1);
    let Err(error) = read_chrome_trace(bad.as_bytes()) else {
        panic!("a bad event must fail");
    };
    assert!(error.to_string().contains("an event"), "{error}");
    // The bad event near the end, then the file cut: the event comes first in the file.
    let Err(error) = read_chrome_trace(&bad.as_bytes()[..bad.len() - 2000]) else {
        panic!("a bad event in a cut trace must fail");
    };
    assert!(error.to_string().contains("an event"), "{error}");
    let cut = &json.as_bytes()[..json.len() / 2];
    let Err(error) = read_chrome_trace(cut) else {
        panic!("a cut trace must fail");
    };
    assert!(error.to_string().contains("ends inside"), "{error}");
}

#[test]
fn cpuprofile_samples_walk_their_node_to_the_root() {
    let profile = parse_cpuprofile(
        r#"{"nodes":[
            {"id":1,"callFrame":{"functionName":"(root)","url":""},"children":[2,3,5]},
            {"id":2,"callFrame":{"functionName":"(idle)","url":""}},
            {"id":3,"callFrame":{"functionName":"main","url":"file:///app/work.js"},"children":[4]},
            {"id":4,"callFrame":{"functionName":"map","url":"file:///app/node_modules/lodash/map.js"}},
            {"id":5,"callFrame":{"functionName":"(garbage collector)","url":""}}],
          "startTime":0,"endTime":40,"samples":[4,3,2,5],"timeDeltas":[100,1000,1000,1000]}"#,
    )
    .expect("parses");
    let names: Vec<(String, String, String)> = profile
        .frames
        .iter()
        .map(|(name, file)| frame_method(name, file.as_deref()))
        .collect();
    let stack = |i: usize| -> Vec<&(String, String, String)> {
        profile.samples[i]
            .2
            .iter()
            .map(|&f| &names[f as usize])
            .collect()
    };
    assert_eq!(
        stack(0),
        [
            &("work".into(), "<module>".into(), "main".into()),
            &("lodash.map".into(), "<module>".into(), "map".into())
        ]
    );
    assert!(stack(2).is_empty(), "idle: on nothing");
    assert_eq!(
        stack(3),
        [&("v8".into(), "<module>".into(), "(garbage collector)".into())]
    );
    assert_eq!(profile.samples[1].1, 1_100_000);
    assert_eq!(profile.period_ns, 1_000_000);
}

#[test]
fn pprof_samples_become_samples_of_its_period() {
    use highrise_record::pprof::{Function, Line, Location, Profile as Pprof, Sample, ValueType};
    let strings = [
        "",
        "samples",
        "count",
        "cpu",
        "nanoseconds",
        "main.main",
        "main.(*Shape).Area",
        "main.mix",
        "/src/main.go",
    ];
    let function = |id: u64, name: i64| Function {
        id,
        name,
        system_name: name,
        filename: 8,
        start_line: 1,
    };
    let location = |id: u64, function_id: u64| Location {
        id,
        line: vec![Line {
            function_id,
            line: 3,
            column: 0,
        }],
        ..Location::default()
    };
    let pprof = Pprof {
        sample_type: vec![
            ValueType { r#type: 1, unit: 2 },
            ValueType { r#type: 3, unit: 4 },
        ],
        sample: vec![
            Sample {
                location_id: vec![2, 1],
                value: vec![3, 30_000_000],
                label: vec![],
            },
            Sample {
                location_id: vec![3, 1],
                value: vec![1, 10_000_000],
                label: vec![],
            },
        ],
        location: vec![location(1, 1), location(2, 2), location(3, 3)],
        function: vec![function(1, 5), function(2, 6), function(3, 7)],
        string_table: strings.iter().map(|s| s.to_string()).collect(),
        period_type: Some(ValueType { r#type: 3, unit: 4 }),
        period: 10_000_000,
        ..Pprof::default()
    };
    let bytes = highrise_record::pprof::encode_gzipped(&pprof);
    assert_eq!(ProfileFormat::detect(&bytes), Some(ProfileFormat::Pprof));
    let raw = prost::Message::encode_to_vec(&pprof);
    assert_eq!(ProfileFormat::detect(&raw), Some(ProfileFormat::Pprof));
    let profile = parse_pprof(&bytes).expect("parses");
    assert_eq!(profile.period_ns, 10_000_000);
    assert_eq!(profile.samples.len(), 4);
    let area = profile
        .frames
        .iter()
        .position(|(name, _)| name == "main.(*Shape).Area")
        .expect("Area") as u32;
    let on_area = profile
        .samples
        .iter()
        .filter(|(_, _, stack)| stack.last() == Some(&area))
        .count();
    assert_eq!(on_area, 3);
    assert_eq!(
        frame_method("main.(*Shape).Area", Some("/src/main.go")),
        ("main".into(), "Shape".into(), "Area".into())
    );
    assert_eq!(
        frame_method("github.com/u/p/store.(*DB).Get", Some("/src/db.go")),
        ("github.com.u.p.store".into(), "DB".into(), "Get".into())
    );
    assert_eq!(
        frame_method("main.main.func1", Some("/src/main.go")),
        ("main".into(), "main".into(), "func1".into())
    );
    assert_eq!(
        frame_method("0x7f00", Some("lib:/lib/x86_64-linux-gnu/libc.so.6")),
        ("native.libc".into(), "<module>".into(), "0x7f00".into())
    );
    // An allocation profile (Go's heap profile): each stack's objects and bytes, made by its
    // innermost frame, of an untyped class; no time samples.
    let mut heap_strings: Vec<String> = strings.iter().map(|s| s.to_string()).collect();
    heap_strings.extend(["alloc_objects", "alloc_space", "bytes"].map(String::from));
    let heap = Pprof {
        sample_type: vec![
            ValueType { r#type: 9, unit: 2 },
            ValueType {
                r#type: 10,
                unit: 11,
            },
        ],
        sample: vec![
            Sample {
                location_id: vec![2, 1],
                value: vec![4, 4096],
                label: vec![],
            },
            Sample {
                location_id: vec![3, 1],
                value: vec![1, 100],
                label: vec![],
            },
        ],
        string_table: heap_strings,
        period_type: None,
        period: 0,
        ..pprof.clone()
    };
    let profile = parse_pprof(&prost::Message::encode_to_vec(&heap)).expect("reads");
    assert!(profile.samples.is_empty());
    assert_eq!(profile.allocations.len(), 2);
    let area = profile
        .frames
        .iter()
        .position(|(name, _)| name == "main.(*Shape).Area")
        .expect("Area") as u32;
    let by_area = profile
        .allocations
        .iter()
        .find(|a| a.stack.last() == Some(&area))
        .expect("Area allocates");
    assert_eq!((by_area.count, by_area.bytes), (4, 4096));
    assert_eq!(profile.classes[by_area.class as usize].1, "(untyped)");
    // Neither time nor allocations: refused, saying what it holds.
    let other = Pprof {
        sample_type: vec![ValueType { r#type: 5, unit: 8 }],
        ..pprof
    };
    let error = parse_pprof(&prost::Message::encode_to_vec(&other)).expect_err("not read");
    assert!(
        error.to_string().contains("main.main//src/main.go"),
        "{error}"
    );
    // Text that starts like a profile is still text.
    assert_ne!(
        ProfileFormat::detect(b"\n5\na;b 1\n"),
        Some(ProfileFormat::Pprof)
    );
}

#[test]
fn speedscope_samples_last_their_weight() {
    let json = |text: &str| SpeedscopeFile::read(text.as_bytes()).expect("json");
    let profile = parse_speedscope(&json(
        r#"{"$schema":"https://www.speedscope.app/file-format-schema.json",
            "shared":{"frames":[{"name":"leaf","file":"w.py","line":5},{"name":"main","file":"w.py","line":13}]},
            "profiles":[{"type":"sampled","name":"T1","unit":"milliseconds","startValue":0,"endValue":30,
                         "samples":[[1,0],[1],[1,0]],"weights":[10,10,10]}]}"#,
    ))
    .expect("parses");
    let times: Vec<u64> = profile.samples.iter().map(|s| s.1).collect();
    assert_eq!(times, [0, 10_000_000, 20_000_000]);
    assert_eq!(profile.period_ns, 10_000_000);
    assert_eq!(*profile.samples[0].2, [1, 0]);
    assert!(parse_speedscope(&json(
        r#"{"shared":{"frames":[]},"profiles":[{"type":"evented","events":[]}]}"#
    ))
    .is_err());
}

#[test]
fn speedscope_evented_profiles_become_calls() {
    let json = SpeedscopeFile::read(
        r#"{"shared":{"frames":[{"name":"main","file":"w.py"},{"name":"leaf","file":"w.py"}]},
            "exporter":"pyinstrument 5",
            "profiles":[{"type":"evented","name":"MainThread","unit":"seconds","startValue":1,"endValue":2,
                         "events":[{"type":"O","frame":0,"at":1},{"type":"O","frame":1,"at":1.25},
                                   {"type":"C","frame":1,"at":1.5},{"type":"O","frame":1,"at":1.75}]}]}"#
            .as_bytes(),
    )
    .expect("json");
    assert!(json.is_evented());
    let trace = parse_speedscope_evented(&json).expect("parses");
    assert_eq!(trace.producer, "speedscope from pyinstrument 5");
    let (name, mut calls) = trace.threads[0].clone();
    calls.sort_unstable();
    assert_eq!(name, "MainThread");
    // leaf 0.25–0.5 s, then open to the end with main.
    assert_eq!(
        calls,
        [
            (0, 1_000_000_000, 0),
            (250_000_000, 500_000_000, 1),
            (750_000_000, 1_000_000_000, 1)
        ]
    );
}
