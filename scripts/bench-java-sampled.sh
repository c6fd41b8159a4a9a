#!/usr/bin/env bash
# The Java sampling benchmark: Rhino (Debian's libjs-rhino-java, all of org.mozilla profiled) running
# scripts/corpus/rhino-nbody.js, interleaved rounds of: plain, JFR's own recording (settings=profile,
# the reference), the agent's sampled mode and its default (mode=auto) into `highrise record`.
# Prints each run's wall time, the default's events and drops, and, per round, the top 3 methods
# by JFR's share of execution samples (each sample's innermost org.mozilla frame) next to
# highrise's share of the run (report run %) for them in each mode. With SAME_RUN=1, one more run per round: the
# default mode with JFR recording in the same JVM, so both see the same run (JIT choices and the
# share of each helper method vary from run to run), compared method by method.
# WORKLOAD=maven runs Debian's Maven instead (`mvn -o validate` of a generated project of STEPS
# modules, default filter, the JVM's options through MAVEN_OPTS; frames outside the JDK and the
# agent count). EXACT=1 adds the exact mode.
# TOP=N compares the top N (default 3).
# Usage: scripts/bench-java-sampled.sh [ROUNDS] [STEPS]   (BENCHMARKS.md, "Sampled mode")
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
rounds="${1:-3}"
steps="${2:-300000}"
target="${CARGO_TARGET_DIR:-$HOME/.cache/highrise/target}"
highrise="$target/release/highrise"
[ -x "$highrise" ] || highrise="$target/debug/highrise"
jar="$root/agents/java/build/highrise-agent.jar"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
workload="${WORKLOAD:-rhino}"
export HIGHRISE_BENCH_TOP="${TOP:-3}"
if [ "$workload" = maven ]; then
    "$root/scripts/corpus/maven-project.sh" "$steps" "$work/project" >/dev/null
    mkdir -p "$work/m2"
    include=""
    export HIGHRISE_BENCH_PREFIX="" # every frame outside the JDK
    # launch JVM_OPTIONS...: the program with these options for its JVM.
    launch() { (cd "$work/project" && MAVEN_OPTS="$*" mvn -o -q -B validate -Dmaven.repo.local="$work/m2"); }
else
    include=",include=org.mozilla"
    export HIGHRISE_BENCH_PREFIX="org.mozilla"
    launch() { java "$@" -cp /usr/share/java/js.jar org.mozilla.javascript.tools.shell.Main -opt -1 "$root/scripts/corpus/rhino-nbody.js" "$steps"; }
fi
# What both comparisons below read: JFR's samples by innermost frame of the program, and reports.
cat >"$work/bench_common.py" <<'PY'
import collections, json, os, sys

sys.setrecursionlimit(1_000_000)  # an exact report's call tree nests deep
PREFIX = os.environ["HIGHRISE_BENCH_PREFIX"]
JDK = ("java.", "javax.", "jdk.", "sun.", "com.sun.", "io.highrise.", "org.objectweb.asm.")  # and the agent's own


def jfr_tops(path):
    """(Counter of each execution sample's innermost program frame, samples counted)."""
    tops = collections.Counter()
    for event in json.load(open(path))["recording"]["events"]:
        for frame in ((event.get("values") or {}).get("stackTrace") or {}).get("frames") or []:
            method = (frame or {}).get("method") or {}
            name = ((method.get("type") or {}).get("name") or "").replace("/", ".")
            if name and (name.startswith(PREFIX) if PREFIX else not name.startswith(JDK)):
                tops[name + "." + method["name"]] += 1
                break
    return tops, sum(tops.values())


def load_report(path):
    return json.load(open(path))


def short(method):
    """Class.method and its share of the run."""
    name = method["name"]
    return f"{name.rsplit('.', 2)[-2]}.{name.rsplit('.', 1)[-1]} {method['run_share_pct']:.1f} %"
PY
wall() { local s; s=$(date +%s.%N); "$@" >/dev/null 2>"$work/err" || { cat "$work/err"; exit 1; }; echo "$(date +%s.%N) - $s" | bc; }
for round in $(seq 1 "$rounds"); do
    plain=$(wall launch)
    jfr=$(wall launch -XX:StartFlightRecording=settings=profile,filename="$work/r$round.jfr")
    recorded() { # recorded NAME AGENT_OPTIONS [JVM_OPTIONS...]: the run's wall time; its recording in $work/NAME
        rm -rf "$work/$1"; mkdir -p "$work/$1"
        "$highrise" record --listen 127.0.0.1:0 --out "$work/$1" --sessions 1 >"$work/record.out" 2>&1 &
        local recorder=$!
        for _ in $(seq 50); do grep -q LISTENING "$work/record.out" && break; sleep 0.1; done
        local addr; addr="$(sed -n 's/^LISTENING //p' "$work/record.out" | head -1)"
        local name="$1" options="$2"
        shift 2
        wall launch "-javaagent:$jar=addr=$addr$include$options" "$@"
        wait "$recorder"
    }
    sampled=$(recorded "sampled$round" ",mode=sampled")
    auto=$(recorded "auto$round" "")
    exact=""
    if [ -n "${EXACT:-}" ]; then
        exact=$(recorded "exact$round" ",mode=exact")
    fi
    if [ -n "${SAME_RUN:-}" ]; then
        recorded "same$round" "" -XX:StartFlightRecording=settings=profile,filename="$work/same$round.jfr" >/dev/null
        jfr print --json --events jdk.ExecutionSample "$work/same$round.jfr" >"$work/same$round.json"
        "$highrise" report --json "$work/same$round"/*.hrec >"$work/same$round.report.json" || true
        PYTHONPATH="$work" python3 - "$work/same$round.json" "$work/same$round.report.json" <<'PY'
import os, sys
from bench_common import jfr_tops, load_report, short
tops, total = jfr_tops(sys.argv[1])
whole = load_report(sys.argv[2])
report = {m["name"]: m for m in whole["methods"]}
# JFR skips a sample it cannot walk (a thread in the VM, an unwalkable frame): its share of its own
# samples overstates a method by the run's unsampled part. Its samples x period over the run's
# wall time (the program's main thread alone: Rhino's and Maven's work is single-threaded) does not.
run_s = whole["duration_ns"] / 1e9
print(f"  same run, default mode + JFR ({total} JFR samples, {100 * total * 0.010 / run_s:.0f} % of the run's"
      " 10 ms periods): JFR share of its samples / of the run; highrise share of the run")
for name, count in tops.most_common(int(os.environ["HIGHRISE_BENCH_TOP"])):
    print(f"    {100 * count / total:5.1f} %  {100 * count * 0.010 / run_s:5.1f} %"
          f"  {report.get(name, {}).get('run_share_pct', 0):5.1f} %  {name}")
top = sorted(report.values(), key=lambda m: -m["run_share_pct"])[:5]
print("  highrise's top 5: " + ", ".join(short(m) for m in top))
PY
    fi
    printf 'round %s: plain %.2f s, JFR %.2f s (%.2fx), sampled %.2f s (%.2fx), default (auto) %.2f s (%.2fx)\n' \
        "$round" "$plain" "$jfr" "$(echo "$jfr / $plain" | bc -l)" "$sampled" "$(echo "$sampled / $plain" | bc -l)" \
        "$auto" "$(echo "$auto / $plain" | bc -l)"
    [ -z "$exact" ] || printf '  exact %.2f s (%.2fx)\n' "$exact" "$(echo "$exact / $plain" | bc -l)"
    jfr print --json --events jdk.ExecutionSample "$work/r$round.jfr" >"$work/r$round.json"
    "$highrise" report --json "$work/sampled$round"/*.hrec >"$work/sampled$round.json" || true
    "$highrise" report --json "$work/auto$round"/*.hrec >"$work/auto$round.json" || true
    reports=("$work/sampled$round.json" "$work/auto$round.json")
    if [ -n "$exact" ]; then
        "$highrise" report --json "$work/exact$round"/*.hrec >"$work/exact$round.json" || true
        reports+=("$work/exact$round.json")
    fi
    PYTHONPATH="$work" python3 - "$work/r$round.json" "${reports[@]}" <<'PY'
import os, sys
from bench_common import jfr_tops, load_report, short
top_n = int(os.environ["HIGHRISE_BENCH_TOP"])
tops, total = jfr_tops(sys.argv[1])
runs = [load_report(path) for path in sys.argv[2:]]
reports = [{m["name"]: m for m in run["methods"]} for run in runs]
labels = ["sampled", "default", "exact"][: len(runs)]
for label, run in zip(labels[1:], runs[1:]):
    print(f"  {label}: {run['measure']['mode']}, {run['events']} events, {run['events_dropped']} dropped ({run['dropped_pct']:.3f} %)")
print(f"  JFR top {top_n} ({total} samples) vs highrise {', '.join(labels)} (share of the run):")
for name, count in tops.most_common(top_n):
    ours = "  ".join(f"{r.get(name, {}).get('run_share_pct', 0):5.1f} %" for r in reports)
    print(f"    {100 * count / total:5.1f} %  {ours}  {name}")
jfr_top = {name for name, _ in tops.most_common(top_n)}
for label, report in zip(labels, reports):
    top = sorted(report.values(), key=lambda m: -m["run_share_pct"])[:top_n]
    shared = len(jfr_top & {m["name"] for m in top})
    print(f"  highrise {label} top {top_n} ({shared} of JFR's): " + ", ".join(short(m) for m in top))
PY
done
