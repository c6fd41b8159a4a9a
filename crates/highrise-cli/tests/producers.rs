//! Other tools' profiles from real producers (py-spy, viztracer, pyinstrument, Node, Go's
//! pprof, the JDK's JFR) opened by `highrise report`, checked against each producer's own
//! account of its file, and highrise's exports read back by those tools' own readers.

use std::path::{Path, PathBuf};
use std::process::Command;

const HIGHRISE: &str = env!("CARGO_BIN_EXE_highrise");

/// A test's turn with a real producer: profiling tests take turns ([`profiling`]), each in a
/// fresh directory of its own, removed when the turn ends.
struct Turn {
    dir: PathBuf,
    _one_at_a_time: std::sync::MutexGuard<'static, ()>,
}

impl Turn {
    fn take(name: &str) -> Turn {
        let one_at_a_time = profiling();
        let dir = std::env::temp_dir().join(format!("{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("temp dir");
        Turn {
            dir,
            _one_at_a_time: one_at_a_time,
        }
    }
}

impl Turn {
    /// The turn with a producer, or `None` (the test skipped, saying which is `missing`) where
    /// `producer` is not installed.
    fn with<T>(name: &str, producer: Option<T>, missing: &str) -> Option<(Turn, T)> {
        let turn = Turn::take(name);
        match producer {
            Some(producer) => Some((turn, producer)),
            None => {
                skipped(missing);
                None
            }
        }
    }
}

impl Drop for Turn {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Says a test is skipped for want of a producer.
fn skipped(missing: &str) {
    eprintln!("skipped: {missing} (scripts/install-profilers.sh installs it)");
}

/// A tool and its interpreter, from `scripts/install-profilers.sh`'s virtual environment.
fn profiler(tool: &str) -> Option<(PathBuf, PathBuf)> {
    let bin = Path::new(&std::env::var_os("HOME")?).join(".cache/highrise/profilers-venv/bin");
    (bin.join(tool).is_file() && bin.join("python").is_file())
        .then(|| (bin.join(tool), bin.join("python")))
}

/// The tests that profile a program take turns: a sampler starved by another test's program (two
/// cores) skips samples, and a profile's shares then depend on which it skipped.
fn profiling() -> std::sync::MutexGuard<'static, ()> {
    static PROFILING: std::sync::Mutex<()> = std::sync::Mutex::new(());
    PROFILING
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Each name's share of `total`, in percent, busiest first.
fn ranked(weights: std::collections::HashMap<String, f64>, total: f64) -> Vec<(String, f64)> {
    let mut ranked: Vec<(String, f64)> = weights
        .into_iter()
        .map(|(name, weight)| (name, 100.0 * weight / total))
        .collect();
    ranked.sort_by(|a, b| b.1.total_cmp(&a.1));
    ranked
}

/// `highrise report --json FILE` (which must succeed), and its methods: name, share of the run
/// and calls, busiest first.
fn report_methods(file: &Path) -> (serde_json::Value, Vec<(String, f64, Option<u64>)>) {
    let report = Command::new(HIGHRISE)
        .args(["report", "--json"])
        .arg(file)
        .output()
        .expect("report runs");
    assert!(
        report.status.success(),
        "{}: {}",
        file.display(),
        String::from_utf8_lossy(&report.stderr)
    );
    let json: serde_json::Value = serde_json::from_slice(&report.stdout).expect("json");
    let mut methods: Vec<(String, f64, Option<u64>)> = json["methods"]
        .as_array()
        .expect("methods")
        .iter()
        .map(|m| {
            (
                m["name"].as_str().expect("name").to_owned(),
                m["run_share_pct"].as_f64().expect("share"),
                m["calls"].as_u64(),
            )
        })
        .collect();
    methods.sort_by(|a, b| b.1.total_cmp(&a.1));
    (json, methods)
}

/// highrise's two busiest methods are the producer's two, each within 5 points. Where the
/// producer has methods tied at a rank (within 0.1 point: pyinstrument gives every frame but one
/// about 0 %), highrise's may be any of them.
fn assert_two_busiest_agree(
    what: &str,
    methods: &[(String, f64, Option<u64>)],
    producer: &[(String, f64)],
) {
    for ((name, share, _), (top, expected_pct)) in methods.iter().zip(producer).take(2) {
        eprintln!("{what}: highrise {name} {share:.1} %, the file's {top} {expected_pct:.1} %");
        let tied: Vec<&str> = producer
            .iter()
            .filter(|(_, pct)| (pct - expected_pct).abs() <= 0.1)
            .map(|(method, _)| method.as_str())
            .collect();
        assert!(
            tied.iter().any(|top| name.ends_with(&format!(".{top}"))),
            "{what}: {name} vs the file's {tied:?}"
        );
        assert!(
            (share - expected_pct).abs() <= 5.0,
            "{what}: {share:.1} % vs the file's {expected_pct:.1} %"
        );
    }
}

/// A small Python program in `dir`: `leaf` about three quarters of the time, `mix` the rest.
fn shapes_work(dir: &Path) -> PathBuf {
    let script = dir.join("shapes_work.py");
    std::fs::write(
        &script,
        "import time\n\
         def leaf(n):\n    s = 0\n    for i in range(n):\n        s += i * i\n    return s\n\
         def mix(n):\n    s = 0\n    for i in range(n):\n        s ^= i\n    return s\n\
         class Shape:\n    def area(self):\n        return leaf(20000)\n\
         def main():\n    t = time.time()\n    while time.time() - t < 1.5:\n        Shape().area()\n        mix(12000)\n\
         main()\n",
    )
    .expect("script");
    script
}

/// viztracer's Chrome trace of [`shapes_work`] run from `dir`: `dir/trace.json`.
fn viztrace(dir: &Path, viztracer: &Path, python: &Path) -> PathBuf {
    let script = shapes_work(dir);
    let out = dir.join("trace.json");
    let traced = Command::new(python)
        .arg(viztracer)
        .args(["--quiet", "-o"])
        .arg(&out)
        .arg(&script)
        .output()
        .expect("viztracer runs");
    assert!(
        traced.status.success(),
        "{}",
        String::from_utf8_lossy(&traced.stderr)
    );
    out
}

/// Profiles written by a real producer (py-spy: `--format raw`, folded stacks; `--format
/// speedscope`) open in `highrise report` as sampled sessions, detected by content whatever
/// their names, and their two busiest methods are those py-spy's own samples put first (each
/// innermost function's share of the file's samples), each within 5 points.
#[test]
fn py_spy_profiles_open_as_reports_with_py_spys_top_method() {
    let Some((turn, (py_spy, python))) =
        Turn::with("highrise-import", profiler("py-spy"), "no py-spy")
    else {
        return;
    };
    let dir = turn.dir.clone();
    let script = shapes_work(&dir);
    for (format, file) in [("raw", "profile.txt"), ("speedscope", "profile.data")] {
        let out = dir.join(file);
        let recorded = Command::new(&py_spy)
            .args(["record", "-r", "200", "--format", format, "-o"])
            .arg(&out)
            .arg("--")
            .arg(&python)
            .arg(&script)
            .output()
            .expect("py-spy runs");
        if !recorded.status.success() {
            eprintln!(
                "skipped: py-spy cannot sample here: {}",
                String::from_utf8_lossy(&recorded.stderr)
            );
            return;
        }
        // py-spy's own samples: each innermost function's share (lines of one function merged).
        let mut leaf_samples: std::collections::HashMap<String, f64> = Default::default();
        let mut total = 0.0;
        if format == "raw" {
            for line in std::fs::read_to_string(&out).expect("raw").lines() {
                let Some((stack, count)) = line.rsplit_once(' ') else {
                    continue;
                };
                let count: f64 = count.parse().expect("count");
                let leaf = stack.rsplit(';').next().expect("a frame");
                let name = leaf.split(" (").next().expect("a name").to_owned();
                *leaf_samples.entry(name).or_default() += count;
                total += count;
            }
        } else {
            let json: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(&out).expect("json")).expect("json");
            let frames = json["shared"]["frames"].as_array().expect("frames");
            for profile in json["profiles"].as_array().expect("profiles") {
                let weights = profile["weights"].as_array().expect("weights");
                for (sample, weight) in profile["samples"]
                    .as_array()
                    .expect("samples")
                    .iter()
                    .zip(weights)
                {
                    let Some(leaf) = sample.as_array().and_then(|s| s.last()) else {
                        continue;
                    };
                    let name = frames[leaf.as_u64().expect("index") as usize]["name"]
                        .as_str()
                        .expect("name")
                        .to_owned();
                    *leaf_samples.entry(name).or_default() += weight.as_f64().expect("weight");
                }
            }
            total = leaf_samples.values().sum();
        }
        let (json, methods) = report_methods(&out);
        assert_two_busiest_agree(format, &methods, &ranked(leaf_samples, total));
        assert!(
            json["measure"]["mode"] == "sampled",
            "{format}: the session says it is sampled: {}",
            json["measure"]
        );
    }
}

/// Chrome trace events from a real producer (viztracer) open in `highrise report` as exact
/// sessions: the two busiest methods by own time are those the trace's complete events give
/// (each function's durations less its callees', computed here from the file), within 5
/// points, and each method's calls are its events in the file.
#[test]
fn viztracer_chrome_traces_open_as_exact_reports() {
    let Some((turn, (viztracer, python))) =
        Turn::with("highrise-trace", profiler("viztracer"), "no viztracer")
    else {
        return;
    };
    let dir = turn.dir.clone();
    let out = viztrace(&dir, &viztracer, &python);
    // The file's own account: each function's own time (its complete events' durations less
    // their callees' on the same thread) and its number of events.
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).expect("trace")).expect("json");
    let mut calls: Vec<(f64, f64, String)> = json["traceEvents"]
        .as_array()
        .expect("events")
        .iter()
        .filter(|e| e["ph"] == "X")
        .map(|e| {
            let name = e["name"].as_str().expect("name");
            let name = name.split(" (").next().expect("name").to_owned();
            (
                e["ts"].as_f64().expect("ts"),
                e["dur"].as_f64().expect("dur"),
                name,
            )
        })
        .collect();
    calls.sort_by(|a, b| a.0.total_cmp(&b.0).then(b.1.total_cmp(&a.1)));
    let mut own: std::collections::HashMap<String, f64> = Default::default();
    let mut count: std::collections::HashMap<String, u64> = Default::default();
    let mut open: Vec<(f64, usize)> = Vec::new(); // (end, index)
    for (index, (ts, dur, name)) in calls.iter().enumerate() {
        while open.last().is_some_and(|&(end, _)| end <= *ts) {
            open.pop();
        }
        if let Some(&(_, parent)) = open.last() {
            *own.entry(calls[parent].2.clone()).or_default() -= dur;
        }
        *own.entry(name.clone()).or_default() += dur;
        *count.entry(name.clone()).or_default() += 1;
        open.push((ts + dur, index));
    }
    let start = calls.iter().map(|c| c.0).fold(f64::INFINITY, f64::min);
    let span = calls.iter().map(|c| c.0 + c.1).fold(0.0, f64::max) - start;
    let ranked = ranked(own, span);
    let (json, methods) = report_methods(&out);
    assert!(
        json["measure"]["mode"] == "exact",
        "a trace is exact: {}",
        json["measure"]
    );
    assert_two_busiest_agree("trace", &methods, &ranked);
    // Each of them called as often as the trace has events for it.
    for ((name, _, calls), (top, _)) in methods.iter().zip(&ranked).take(2) {
        assert_eq!(*calls, Some(count[top]), "{name}'s calls");
    }
}

/// A V8 CPU profile from a real producer (`node --cpu-prof`) opens in `highrise report` as a
/// sampled session whose two busiest methods are those the profile's own samples put first
/// (each sample's innermost function), each within 5 points.
#[test]
fn node_cpu_profiles_open_as_sampled_reports() {
    let turn = Turn::take("highrise-cpuprofile");
    let Ok(version) = Command::new("node").arg("--version").output() else {
        skipped("no node");
        return;
    };
    assert!(version.status.success());
    let dir = turn.dir.clone();
    let script = dir.join("work.js");
    std::fs::write(
        &script,
        "function leaf(n) { let s = 0; for (let i = 0; i < n; i++) { s += i * i % 7; } return s; }\n\
         function mix(n) { let s = 0; for (let i = 0; i < n; i++) { s ^= i; } return s; }\n\
         class Shape { area() { return leaf(200000); } }\n\
         const t = Date.now(); let total = 0;\n\
         while (Date.now() - t < 1500) { total += new Shape().area(); total += mix(1500000); }\n\
         console.log(total > 0);\n",
    )
    .expect("script");
    let ran = Command::new("node")
        .arg("--cpu-prof")
        .arg("--cpu-prof-dir")
        .arg(&dir)
        .arg("--cpu-prof-name")
        .arg("work.cpuprofile")
        .arg(&script)
        .output()
        .expect("node runs");
    assert!(
        ran.status.success(),
        "{}",
        String::from_utf8_lossy(&ran.stderr)
    );
    let out = dir.join("work.cpuprofile");
    // The profile's own account: each sample's innermost function, by node.
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).expect("profile")).expect("json");
    let name_of: std::collections::HashMap<u64, String> = json["nodes"]
        .as_array()
        .expect("nodes")
        .iter()
        .map(|n| {
            (
                n["id"].as_u64().expect("id"),
                n["callFrame"]["functionName"]
                    .as_str()
                    .unwrap_or("")
                    .to_owned(),
            )
        })
        .collect();
    let samples = json["samples"].as_array().expect("samples");
    let mut counts: std::collections::HashMap<String, f64> = Default::default();
    for sample in samples {
        *counts
            .entry(name_of[&sample.as_u64().expect("node")].clone())
            .or_default() += 1.0;
    }
    let (json, methods) = report_methods(&out);
    assert_eq!(json["measure"]["mode"], "sampled", "{}", json["measure"]);
    assert_two_busiest_agree(
        "cpuprofile",
        &methods,
        &ranked(counts, samples.len() as f64),
    );
}

/// `go` with a build cache that survives runs, and no module lookups (nothing to fetch).
fn go() -> Option<Command> {
    let home = std::env::var_os("HOME")?;
    let version = Command::new("go").arg("version").output().ok()?;
    version.status.success().then(|| {
        let mut go = Command::new("go");
        go.env("GOCACHE", Path::new(&home).join(".cache/highrise/go-build"))
            .env("GO111MODULE", "off")
            .env("GOFLAGS", "");
        go
    })
}

/// Runs the Go program `source` (written to `dir/NAME.go`) with a profile's path as its
/// argument, and returns that path (`dir/NAME.pprof`) once the program has succeeded.
fn run_go(mut go: Command, dir: &Path, name: &str, source: &str) -> PathBuf {
    let program = dir.join(format!("{name}.go"));
    std::fs::write(&program, source).expect("program");
    let profile = dir.join(format!("{name}.pprof"));
    let ran = go
        .arg("run")
        .arg(&program)
        .arg(&profile)
        .output()
        .expect("go runs");
    assert!(
        ran.status.success(),
        "{}",
        String::from_utf8_lossy(&ran.stderr)
    );
    profile
}

/// `go tool pprof -top` of `file` (with `args` before it): each function's flat value (as
/// printed) and flat share in percent, busiest first.
fn go_pprof_top(file: &Path, args: &[&str]) -> Vec<(String, String, f64)> {
    let top = go()
        .expect("go")
        .args(["tool", "pprof", "-top", "-nodecount=20"])
        .args(args)
        .arg(file)
        .output()
        .expect("go tool pprof runs");
    assert!(
        top.status.success(),
        "go tool pprof {}: {}",
        file.display(),
        String::from_utf8_lossy(&top.stderr)
    );
    String::from_utf8_lossy(&top.stdout)
        .lines()
        .filter_map(|line| {
            let fields: Vec<&str> = line.split_whitespace().collect();
            let flat_pct = fields.get(1)?.strip_suffix('%')?.parse().ok()?;
            Some((fields.get(5..)?.join(" "), fields[0].to_owned(), flat_pct))
        })
        .collect()
}

/// The file passes speedscope's published JSON schema (`python` has jsonschema).
fn assert_speedscope_schema(python: &Path, file: &Path) {
    let home = std::env::var_os("HOME").expect("HOME");
    let schema = Path::new(&home).join(".cache/highrise/speedscope/1.25.0/file-format-schema.json");
    let checked = Command::new(python)
        .args(["-c", "import json, sys, jsonschema; jsonschema.validate(json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))); print('valid')"])
        .arg(file)
        .arg(&schema)
        .output()
        .expect("python runs");
    assert!(
        checked.status.success(),
        "speedscope's schema: {}",
        String::from_utf8_lossy(&checked.stderr)
    );
}

/// A report's method name as exports write it: `package.function` outside classes.
fn exported_name(name: &str) -> String {
    name.replace(".<module>.", ".")
}

/// `highrise report FILE --export FORMAT OUT`, which must succeed.
fn export(file: &Path, format: &str, out: &Path) {
    let exported = Command::new(HIGHRISE)
        .arg("report")
        .arg(file)
        .args(["--export", format])
        .arg(out)
        .output()
        .expect("report --export runs");
    assert!(
        exported.status.success(),
        "--export {format}: {}",
        String::from_utf8_lossy(&exported.stderr)
    );
}

/// A pprof CPU profile from Go's own profiler (`runtime/pprof`, gzipped) opens in `highrise
/// report` with the two busiest functions `go tool pprof -top` lists, each within 5 points; and
/// the report exported as pprof reads back in `go tool pprof` with the same two at the same
/// shares (within 2 points).
#[test]
fn go_pprof_profiles_open_as_reports_and_export_back_to_go_tool_pprof() {
    let Some((turn, go_run)) = Turn::with("highrise-pprof", go(), "no go") else {
        return;
    };
    let dir = turn.dir.clone();
    let profile = run_go(
        go_run,
        &dir,
        "work",
        "package main\n\
         import (\"os\"; \"runtime/pprof\"; \"time\")\n\
         type Shape struct{ n int }\n\
         //go:noinline\n\
         func (s *Shape) Area() int { t := 0; for i := 0; i < s.n; i++ { t += i * i % 7 }; return t }\n\
         //go:noinline\n\
         func mix(n int) int { t := 0; for i := 0; i < n; i++ { t ^= i * 31 }; return t }\n\
         func main() {\n\
             f, _ := os.Create(os.Args[1]); pprof.StartCPUProfile(f)\n\
             end := time.Now().Add(1500 * time.Millisecond); s := &Shape{n: 3000000}; sink := 0\n\
             for time.Now().Before(end) { sink += s.Area() + s.Area() + mix(3000000) }\n\
             pprof.StopCPUProfile(); f.Close(); println(sink > 0)\n\
         }\n",
    );
    // Go names a method `main.(*Shape).Area`; highrise, `main.Shape.Area`.
    let go_top: Vec<(String, f64)> = go_pprof_top(&profile, &[])
        .into_iter()
        .map(|(name, _, flat)| (name.replace("(*", "").replace(')', ""), flat))
        .collect();
    let (json, methods) = report_methods(&profile);
    assert!(
        json["measure"]["mode"] == "sampled",
        "a profile is sampled: {}",
        json["measure"]
    );
    let short: Vec<(String, f64)> = go_top
        .iter()
        .map(|(name, flat)| {
            let short = name.split_once('.').map_or(name.as_str(), |(_, s)| s);
            (short.to_owned(), *flat)
        })
        .collect();
    assert_two_busiest_agree("pprof", &methods, &short);
    let exported = dir.join("exported.pb.gz");
    export(&profile, "pprof", &exported);
    // The export holds what the file held: the same two on top at the file's own shares (the
    // report's share of the run may differ from a share of samples by a few points).
    let back = go_pprof_top(&exported, &[]);
    for (((name, _, _), (read, _, flat)), (original, file_flat)) in
        methods.iter().zip(&back).zip(&go_top).take(2)
    {
        eprintln!("pprof export: go tool pprof {read} {flat:.1} %, the file's {original} {file_flat:.1} %");
        assert_eq!(&exported_name(name), read);
        assert_eq!(read, original);
        assert!(
            (file_flat - flat).abs() <= 1.0,
            "{read}: {flat} vs the file's {file_flat}"
        );
    }
}

/// A heap profile from Go's own profiler (`pprof.WriteHeapProfile`) opens in `highrise report`
/// as allocations: the two functions that allocated most are `go tool pprof -top
/// -sample_index=alloc_space`'s two, each at its share of the bytes (within 1 point); exported
/// as pprof, `go tool pprof` reads the same two at the same shares.
#[test]
fn go_heap_profiles_open_as_allocations_with_go_tool_pprofs_shares() {
    let Some((turn, go_run)) = Turn::with("highrise-heap", go(), "no go") else {
        return;
    };
    let dir = turn.dir.clone();
    let profile = run_go(
        go_run,
        &dir,
        "heap",
        "package main\n\
         import (\"os\"; \"runtime\"; \"runtime/pprof\")\n\
         var keep [][]byte\n\
         //go:noinline\n\
         func grow(n int) { keep = append(keep, make([]byte, n)) }\n\
         //go:noinline\n\
         func small(n int) { for i := 0; i < n; i++ { keep = append(keep, make([]byte, 64)) } }\n\
         func main() {\n\
             runtime.MemProfileRate = 4096\n\
             for i := 0; i < 100; i++ { grow(256 << 10); small(1000) }\n\
             runtime.GC(); f, _ := os.Create(os.Args[1]); pprof.WriteHeapProfile(f); f.Close()\n\
         }\n",
    );
    let go_top = go_pprof_top(&profile, &["-sample_index=alloc_space"]);
    let (json, _) = report_methods(&profile);
    let allocating = allocating_methods(&json);
    let total: u64 = allocating.iter().map(|(_, bytes)| bytes).sum();
    eprintln!("go heap: highrise {allocating:?}, go tool pprof {go_top:?}");
    for ((name, bytes), (top, _, flat_pct)) in allocating.iter().zip(&go_top).take(2) {
        let share = 100.0 * *bytes as f64 / total as f64;
        assert_eq!(&exported_name(name), top);
        assert!(
            (share - flat_pct).abs() <= 1.0,
            "{name}: {share:.1} % vs {flat_pct} %"
        );
    }
    // Exported as pprof, the allocations read back in `go tool pprof` as Go's own file had them.
    let exported = dir.join("exported.pb.gz");
    export(&profile, "pprof", &exported);
    let back = go_pprof_top(&exported, &["-sample_index=alloc_space"]);
    eprintln!("go heap exported: go tool pprof {back:?}");
    for ((read, _, flat_pct), (original, _, file_pct)) in back.iter().zip(&go_top).take(2) {
        assert_eq!(read, original);
        assert!(
            (flat_pct - file_pct).abs() <= 1.0,
            "{read}: {flat_pct} % exported vs {file_pct} % in Go's file"
        );
    }
    // As speedscope: a valid file whose allocated bytes are the report's.
    if let Some((_, python)) = profiler("viztracer") {
        let speedscope = dir.join("exported.speedscope.json");
        export(&profile, "speedscope", &speedscope);
        assert_speedscope_schema(&python, &speedscope);
        let file: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&speedscope).expect("reads")).expect("json");
        let allocated: u64 = file["profiles"]
            .as_array()
            .expect("profiles")
            .iter()
            .filter(|p| p["unit"] == "bytes")
            .flat_map(|p| p["weights"].as_array().expect("weights"))
            .map(|w| w.as_u64().expect("bytes"))
            .sum();
        assert_eq!(allocated, total, "the speedscope export's allocated bytes");
    }
}

/// An exact session (viztracer's trace of a Python program) exported for other tools: as pprof,
/// `go tool pprof` reads the same busiest method with its calls counted; as speedscope, the
/// file passes speedscope's published schema; as a Chrome trace, Chrome DevTools' own trace
/// engine reads every method's calls as the report counts them; as collapsed stacks, inferno's
/// flame graph reads every line, each thread at its total.
#[test]
fn exact_sessions_export_to_formats_that_their_own_readers_accept() {
    let turn = Turn::take("highrise-export");
    let (Some((viztracer, python)), Some(_)) = (profiler("viztracer"), go()) else {
        skipped("no viztracer or go");
        return;
    };
    let dir = turn.dir.clone();
    let trace = viztrace(&dir, &viztracer, &python);
    let (_, methods) = report_methods(&trace);
    let (busiest, _, calls) = &methods[0];
    let pprof = dir.join("exported.pb.gz");
    export(&trace, "pprof", &pprof);
    let by_time = go_pprof_top(&pprof, &["-sample_index=wall"]);
    assert_eq!(
        by_time[0].0,
        exported_name(busiest),
        "go tool pprof's busiest: {by_time:?}"
    );
    // Calls, as pprof counts them: each stack's calls are its innermost method's, so a
    // method's flat calls are all of its calls.
    let by_calls = go_pprof_top(&pprof, &["-sample_index=calls"]);
    let counted = by_calls
        .iter()
        .find(|(name, _, _)| *name == exported_name(busiest))
        .map(|(_, flat, _)| flat.parse::<u64>().expect("a count"));
    eprintln!("pprof export: {busiest} {counted:?} calls in pprof, {calls:?} in the report");
    assert_eq!(counted, *calls, "{busiest}'s calls in the pprof export");
    let speedscope = dir.join("exported.speedscope.json");
    export(&trace, "speedscope", &speedscope);
    assert_speedscope_schema(&python, &speedscope);
    chrome_export_reads_in_devtools(&trace, &dir, &methods);
    collapsed_export_reads_in_inferno(&trace, &dir);
}

/// The Chrome export of `file` read by Chrome DevTools' trace engine
/// (scripts/readers/chrome-trace.mjs): each of the report's `methods` with calls has as many
/// events, over all threads. Skipped without the engine.
fn chrome_export_reads_in_devtools(
    file: &Path,
    dir: &Path,
    methods: &[(String, f64, Option<u64>)],
) {
    let home = std::env::var_os("HOME").expect("HOME");
    if !Path::new(&home)
        .join(".cache/highrise/trace-engine/node_modules/@paulirish/trace_engine")
        .is_dir()
    {
        eprintln!("skipped the Chrome reader: scripts/install-profilers.sh installs it");
        return;
    }
    let chrome = dir.join("exported.trace.json");
    export(file, "chrome", &chrome);
    let reader =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/readers/chrome-trace.mjs");
    let read = Command::new("node")
        .arg(reader)
        .arg(&chrome)
        .output()
        .expect("node runs");
    assert!(
        read.status.success(),
        "DevTools' trace engine: {}",
        String::from_utf8_lossy(&read.stderr)
    );
    let json: serde_json::Value = serde_json::from_slice(&read.stdout).expect("json");
    let mut calls: std::collections::HashMap<String, u64> = Default::default();
    for thread in json["threads"].as_array().expect("threads") {
        for (name, seen) in thread["calls"].as_object().expect("calls") {
            *calls.entry(name.clone()).or_default() += seen["calls"].as_u64().expect("a count");
        }
    }
    let mut compared = 0;
    for (name, _, counted) in methods {
        let Some(counted) = counted.filter(|&c| c > 0) else {
            continue;
        };
        let read = calls.get(name).or_else(|| calls.get(&exported_name(name)));
        assert_eq!(read, Some(&counted), "{name}: DevTools read {read:?} calls");
        compared += 1;
    }
    eprintln!("chrome export: DevTools' trace engine read the calls of {compared} methods");
    assert!(compared >= 3, "{compared} methods compared");
}

/// The collapsed export of `file` read by inferno's flame graph: no line ignored, the whole at the
/// file's total and each thread at its own. Skipped without inferno.
fn collapsed_export_reads_in_inferno(file: &Path, dir: &Path) {
    let home = std::env::var_os("HOME").expect("HOME");
    let inferno = Path::new(&home).join(".cache/highrise/inferno/bin/inferno-flamegraph");
    if !inferno.is_file() {
        eprintln!("skipped inferno: scripts/install-profilers.sh installs it");
        return;
    }
    let collapsed = dir.join("exported.folded");
    export(file, "collapsed", &collapsed);
    let drawn = Command::new(&inferno)
        .arg(&collapsed)
        .output()
        .expect("inferno runs");
    let warnings = String::from_utf8_lossy(&drawn.stderr);
    assert!(
        drawn.status.success() && !warnings.contains("Ignored"),
        "inferno: {warnings}"
    );
    let svg = String::from_utf8_lossy(&drawn.stdout);
    let text = std::fs::read_to_string(&collapsed).expect("collapsed");
    let mut per_thread: std::collections::HashMap<&str, u64> = Default::default();
    for line in text.lines() {
        let (stack, value) = line.rsplit_once(' ').expect("a count");
        let first = stack.split(';').next().expect("a frame");
        *per_thread.entry(first).or_default() += value.parse::<u64>().expect("a number");
    }
    let total: u64 = per_thread.values().sum();
    let title = |name: &str, value: u64| {
        let name = name
            .replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('>', "&gt;");
        format!("<title>{name} ({} samples, ", group_thousands(value))
    };
    assert!(
        svg.contains(&title("all", total)),
        "inferno's total is not {total}"
    );
    for (first, value) in &per_thread {
        assert!(
            svg.contains(&title(first, *value)),
            "inferno: {first} is not at {value}"
        );
    }
    eprintln!(
        "collapsed export: inferno read {} threads, {total} µs in all",
        per_thread.len()
    );
}

/// `1234567` as inferno writes counts: `1,234,567`.
fn group_thousands(value: u64) -> String {
    let digits = value.to_string();
    let mut out = String::new();
    for (i, digit) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

/// Each method's bytes allocated in a report, most first.
fn allocating_methods(json: &serde_json::Value) -> Vec<(String, u64)> {
    let mut methods: Vec<(String, u64)> = json["methods"]
        .as_array()
        .expect("methods")
        .iter()
        .filter_map(|m| {
            let bytes = m["allocations_total"]["bytes"].as_u64()?;
            Some((m["name"].as_str()?.to_owned(), bytes))
        })
        .filter(|(_, bytes)| *bytes > 0)
        .collect();
    methods.sort_by_key(|m| std::cmp::Reverse(m.1));
    methods
}

/// A JFR recording from the JDK's own recorder (`-XX:StartFlightRecording`) opens in `highrise
/// report` with the two busiest methods the JDK's own reader (`jfr print`) finds on top of its
/// execution samples, each within 5 points; and its allocation samples as allocations: the two
/// methods that allocated most, with exactly the bytes `jfr print` sums from their samples.
#[test]
fn jfr_recordings_open_as_reports_with_the_jdks_own_top_methods() {
    let turn = Turn::take("highrise-jfr");
    let jfr_tool = Path::new("/usr/lib/jvm")
        .read_dir()
        .into_iter()
        .flatten()
        .flatten()
        .map(|jdk| jdk.path().join("bin/jfr"))
        .find(|jfr| jfr.is_file());
    let (Ok(version), Some(jfr_tool)) = (Command::new("java").arg("-version").output(), jfr_tool)
    else {
        eprintln!("skipped: no JDK with jfr (scripts/install-java-deps.sh installs one)");
        return;
    };
    assert!(version.status.success());
    let dir = turn.dir.clone();
    let source = dir.join("Work.java");
    std::fs::write(
        &source,
        "public class Work {\n\
         static int area(int n) { int t = 0; for (int i = 0; i < n; i++) { t += i * i % 7; } return t; }\n\
         static int mix(int n) { int t = 0; for (int i = 0; i < n; i++) { t ^= i * 31; } return t; }\n\
         static long[] keep(int n) { return new long[n]; }\n\
         static String label(int k) { return \"item-\" + k; }\n\
         public static void main(String[] args) {\n\
             long end = System.nanoTime() + 1_500_000_000L; long sink = 0;\n\
             while (System.nanoTime() < end) {\n\
                 sink += area(3_000_000) + mix(6_000_000) + keep(20_000).length;\n\
                 for (int k = 0; k < 2_000; k++) { sink += label(k).length(); }\n\
             }\n\
             System.out.println(sink != 0);\n\
         }\n}\n",
    )
    .expect("source");
    // Compiled first: the source launcher would compile it inside the recording.
    let compiled = Command::new("javac")
        .arg("-d")
        .arg(&dir)
        .arg(&source)
        .output()
        .expect("javac runs");
    assert!(
        compiled.status.success(),
        "{}",
        String::from_utf8_lossy(&compiled.stderr)
    );
    let recording = dir.join("work.jfr");
    let ran = Command::new("java")
        .arg(format!(
            "-XX:StartFlightRecording=filename={},settings=profile",
            recording.display()
        ))
        .arg("-cp")
        .arg(&dir)
        .arg("Work")
        .output()
        .expect("java runs");
    assert!(
        ran.status.success(),
        "{}",
        String::from_utf8_lossy(&ran.stderr)
    );
    // The JDK's own account: each execution sample's innermost frame.
    let printed = Command::new(&jfr_tool)
        .args(["print", "--json", "--events", "jdk.ExecutionSample"])
        .arg(&recording)
        .output()
        .expect("jfr print runs");
    assert!(
        printed.status.success(),
        "{}",
        String::from_utf8_lossy(&printed.stderr)
    );
    let json: serde_json::Value = serde_json::from_slice(&printed.stdout).expect("json");
    let mut tops: std::collections::HashMap<String, f64> = Default::default();
    let mut total = 0.0;
    for event in json["recording"]["events"].as_array().expect("events") {
        let method = &event["values"]["stackTrace"]["frames"][0]["method"];
        let (Some(class), Some(name)) = (method["type"]["name"].as_str(), method["name"].as_str())
        else {
            continue;
        };
        *tops
            .entry(format!("{}.{name}", class.replace('/', ".")))
            .or_default() += 1.0;
        total += 1.0;
    }
    let ranked = ranked(tops, total);
    let (json, methods) = report_methods(&recording);
    assert!(
        json["measure"]["mode"] == "sampled",
        "a JFR recording is sampled: {}",
        json["measure"]
    );
    // JFR's shares are of its samples; the report's of the run, which also holds time no
    // sample saw (the JVM starting, the program's last moments): compared as shares of the time
    // some method was on top.
    let on_top: f64 = methods.iter().map(|(_, share, _)| share).sum();
    let of_samples: Vec<(String, f64, Option<u64>)> = methods
        .into_iter()
        .map(|(name, share, calls)| (name, 100.0 * share / on_top, calls))
        .collect();
    eprintln!("jfr: methods on top {on_top:.1} % of the run");
    assert_two_busiest_agree("jfr", &of_samples, &ranked);
    // Allocation samples: JFR's weight (the bytes a sample stands for) on the innermost frame.
    let printed = Command::new(&jfr_tool)
        .args(["print", "--json", "--events", "jdk.ObjectAllocationSample"])
        .arg(&recording)
        .output()
        .expect("jfr print runs");
    let printed: serde_json::Value = serde_json::from_slice(&printed.stdout).expect("json");
    let mut weights: std::collections::HashMap<String, u64> = Default::default();
    for event in printed["recording"]["events"].as_array().expect("events") {
        let method = &event["values"]["stackTrace"]["frames"][0]["method"];
        let (Some(class), Some(name), Some(weight)) = (
            method["type"]["name"].as_str(),
            method["name"].as_str(),
            event["values"]["weight"].as_u64(),
        ) else {
            continue;
        };
        *weights
            .entry(format!("{}.{name}", class.replace('/', ".")))
            .or_default() += weight;
    }
    let mut weights: Vec<(String, u64)> = weights.into_iter().collect();
    weights.sort_by_key(|w| std::cmp::Reverse(w.1));
    let allocating = allocating_methods(&json);
    eprintln!("jfr allocations: highrise {allocating:?}, jfr print {weights:?}");
    assert!(weights.len() >= 2, "the program allocates: {weights:?}");
    for ((name, bytes), (top, weight)) in allocating.iter().zip(&weights).take(2) {
        assert!(name.ends_with(top.as_str()), "{name} vs jfr's {top}");
        assert_eq!(bytes, weight, "{name}'s bytes");
    }
    // A JFR file is chunks one after another, each with its own constants (the JVM starts a
    // new one every 12 MB or so): the recording three times over reads as three times the bytes.
    let tripled = dir.join("tripled.jfr");
    let whole = std::fs::read(&recording).expect("reads");
    std::fs::write(&tripled, [&whole[..], &whole[..], &whole[..]].concat()).expect("writes");
    let (json, _) = report_methods(&tripled);
    for ((name, bytes), (again, thrice)) in allocating.iter().zip(allocating_methods(&json)).take(2)
    {
        assert_eq!(name, &again);
        assert_eq!(3 * bytes, thrice, "{name}'s bytes in three chunks");
    }
}

/// A speedscope evented profile from a real producer (pyinstrument's `-r speedscope`) opens in
/// `highrise report` as a sampled session (pyinstrument samples, then merges its samples into one
/// timeline) whose two busiest methods are the file's own (each frame's open time less its
/// children's, over the profile's span), each within 5 points.
#[test]
fn pyinstrument_evented_profiles_open_as_sampled_reports() {
    let Some((turn, (pyinstrument, python))) = Turn::with(
        "highrise-pyinstrument",
        profiler("pyinstrument"),
        "no pyinstrument",
    ) else {
        return;
    };
    let dir = turn.dir.clone();
    let script = shapes_work(&dir);
    let out = dir.join("profile.json");
    let profiled = Command::new(&python)
        .arg(&pyinstrument)
        .args(["-r", "speedscope", "-o"])
        .arg(&out)
        .arg(&script)
        .output()
        .expect("pyinstrument runs");
    assert!(
        profiled.status.success(),
        "{}",
        String::from_utf8_lossy(&profiled.stderr)
    );
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).expect("profile")).expect("json");
    let frames = json["shared"]["frames"].as_array().expect("frames");
    let profile = &json["profiles"][0];
    assert_eq!(profile["type"], "evented");
    // Own time per function: at each event, the time since the last goes to the innermost open.
    let mut own: std::collections::HashMap<String, f64> = Default::default();
    let mut open: Vec<usize> = Vec::new();
    let mut last = profile["startValue"].as_f64().expect("start");
    for event in profile["events"].as_array().expect("events") {
        let at = event["at"].as_f64().expect("at");
        if let Some(&top) = open.last() {
            let name = frames[top]["name"].as_str().expect("name").to_owned();
            *own.entry(name).or_default() += at - last;
        }
        last = at;
        let frame = event["frame"].as_u64().expect("frame") as usize;
        if event["type"] == "O" {
            open.push(frame);
        } else if let Some(depth) = open.iter().rposition(|&f| f == frame) {
            open.truncate(depth);
        }
    }
    let span =
        profile["endValue"].as_f64().expect("end") - profile["startValue"].as_f64().expect("start");
    let ranked = ranked(own, span);
    let (json, methods) = report_methods(&out);
    assert!(
        json["measure"]["mode"] == "sampled",
        "pyinstrument's timeline is samples: {}",
        json["measure"]
    );
    assert_two_busiest_agree("pyinstrument", &methods, &ranked);
    assert!(
        methods.iter().all(|(_, _, calls)| *calls == Some(0))
            && json["measure"]["calls_counted"] == false,
        "no calls counted: {}",
        json["measure"]
    );
}
