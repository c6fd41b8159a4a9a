#!/usr/bin/env bash
# Issue 38's Java benchmark: Rhino (Debian's libjs-rhino-java, all of org.mozilla profiled) running
# scripts/corpus/rhino-nbody.js, interleaved rounds of: plain, JFR's own recording (settings=profile,
# the reference), the agent's sampled mode and its default (mode=auto) into `highrise record`.
# Prints each run's wall time, the default's events and drops, and, per round, the top 3 methods
# by JFR's share of execution samples (each sample's innermost org.mozilla frame) next to
# highrise's share of the run (report run %) for them in each mode. With SAME_RUN=1, one more run per round: the
# default mode with JFR recording in the same JVM, so both see the same run (JIT choices and the
# share of each helper method vary from run to run), compared method by method.
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
run=(-cp /usr/share/java/js.jar org.mozilla.javascript.tools.shell.Main -opt -1 "$root/scripts/corpus/rhino-nbody.js" "$steps")
wall() { local s; s=$(date +%s.%N); "$@" >/dev/null 2>"$work/err" || { cat "$work/err"; exit 1; }; echo "$(date +%s.%N) - $s" | bc; }
for round in $(seq 1 "$rounds"); do
    plain=$(wall java "${run[@]}")
    jfr=$(wall java -XX:StartFlightRecording=settings=profile,filename="$work/r$round.jfr" "${run[@]}")
    recorded() { # recorded NAME AGENT_OPTIONS: the run's wall time; its recording in $work/NAME
        rm -rf "$work/$1"; mkdir -p "$work/$1"
        "$highrise" record --listen 127.0.0.1:0 --out "$work/$1" --sessions 1 >"$work/record.out" 2>&1 &
        local recorder=$!
        for _ in $(seq 50); do grep -q LISTENING "$work/record.out" && break; sleep 0.1; done
        local addr; addr="$(sed -n 's/^LISTENING //p' "$work/record.out" | head -1)"
        wall java "-javaagent:$jar=addr=$addr,include=org.mozilla$2" "${run[@]}"
        wait "$recorder"
    }
    sampled=$(recorded "sampled$round" ",mode=sampled")
    auto=$(recorded "auto$round" "")
    if [ -n "${SAME_RUN:-}" ]; then
        run=(-XX:StartFlightRecording=settings=profile,filename="$work/same$round.jfr" "${run[@]}")
        recorded "same$round" "" >/dev/null
        run=("${run[@]:1}")
        jfr print --json --events jdk.ExecutionSample "$work/same$round.jfr" >"$work/same$round.json"
        "$highrise" report --json "$work/same$round"/*.hrec >"$work/same$round.report.json" || true
        python3 - "$work/same$round.json" "$work/same$round.report.json" <<'PY'
import collections, json, sys
tops = collections.Counter()
for event in json.load(open(sys.argv[1]))["recording"]["events"]:
    for frame in ((event.get("values") or {}).get("stackTrace") or {}).get("frames") or []:
        method = (frame or {}).get("method") or {}
        name = ((method.get("type") or {}).get("name") or "").replace("/", ".")
        if name.startswith("org.mozilla"):
            tops[name + "." + method["name"]] += 1
            break
total = sum(tops.values())
report = {m["name"]: m for m in json.load(open(sys.argv[2]))["methods"]}
print(f"  same run, default mode + JFR ({total} JFR samples): JFR share / highrise share of the run")
for name, count in tops.most_common(5):
    print(f"    {100 * count / total:5.1f} %  {report.get(name, {}).get('run_share_pct', 0):5.1f} %  {name}")
top = sorted(report.values(), key=lambda m: -m["run_share_pct"])[:5]
print("  highrise's top 5: " + ", ".join(f"{m['name'].rsplit('.', 2)[-2]}.{m['name'].rsplit('.', 1)[-1]} {m['run_share_pct']:.1f} %" for m in top))
PY
    fi
    printf 'round %s: plain %.2f s, JFR %.2f s (%.2fx), sampled %.2f s (%.2fx), default (auto) %.2f s (%.2fx)\n' \
        "$round" "$plain" "$jfr" "$(echo "$jfr / $plain" | bc -l)" "$sampled" "$(echo "$sampled / $plain" | bc -l)" \
        "$auto" "$(echo "$auto / $plain" | bc -l)"
    jfr print --json --events jdk.ExecutionSample "$work/r$round.jfr" >"$work/r$round.json"
    "$highrise" report --json "$work/sampled$round"/*.hrec >"$work/sampled$round.json" || true
    "$highrise" report --json "$work/auto$round"/*.hrec >"$work/auto$round.json" || true
    python3 - "$work/r$round.json" "$work/sampled$round.json" "$work/auto$round.json" <<'PY'
import collections, json, sys
samples = json.load(open(sys.argv[1]))["recording"]["events"]
tops = collections.Counter()
for event in samples:
    for frame in ((event.get("values") or {}).get("stackTrace") or {}).get("frames") or []:
        method = (frame or {}).get("method") or {}
        name = ((method.get("type") or {}).get("name") or "").replace("/", ".")
        if name.startswith("org.mozilla"):
            tops[name + "." + method["name"]] += 1
            break
total = sum(tops.values())
runs = [json.load(open(path)) for path in sys.argv[2:]]
reports = [{m["name"]: m for m in run["methods"]} for run in runs]
auto = runs[1]
print(f"  default: {auto['measure']['mode']}, {auto['events']} events, {auto['events_dropped']} dropped ({auto['dropped_pct']:.3f} %)")
print(f"  JFR top 3 ({total} samples in org.mozilla) vs highrise sampled, default (share of the run):")
for name, count in tops.most_common(3):
    ours = "  ".join(f"{r.get(name, {}).get('run_share_pct', 0):5.1f} %" for r in reports)
    print(f"    {100 * count / total:5.1f} %  {ours}  {name}")
for label, report in zip(["sampled", "default"], reports):
    top = sorted(report.values(), key=lambda m: -m["run_share_pct"])[:3]
    print(f"  highrise {label} top 3: " + ", ".join(f"{m['name'].rsplit('.', 2)[-2]}.{m['name'].rsplit('.', 1)[-1]} {m['run_share_pct']:.1f} %" for m in top))
PY
done
