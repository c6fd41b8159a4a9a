#!/usr/bin/env bash
# The Java agent's cost benchmark (BENCHMARKS.md, "Java agent"). CallBench (a tight loop of
# small static calls) runs:
#   1. without the agent;
#   2. with the agent but no viewer listening (the instrumentation is then a no-op);
#   3. streaming to a real highrise-probe, default mode (drops when the listener falls behind);
#   4. the same, lossless (the program waits for the sender: the pipeline's throughput);
#   0. reference: two System.nanoTime() reads per "call" (the floor for enter+exit timestamps);
#   5. streaming, in short reps of 4000 calls with 1 ms pauses (the sender always keeps up: what
#      the calling thread pays per call);
#   6. one thread paced at 5, 10 and 20 M events/s (the sustained rate without drops);
#   7. allocation counting (AllocBench): loops allocating in JIT-compiled code, without the agent,
#      streaming with alloc=off and with alloc=on; on minus off is the added cost per allocation.
#      Modes: object (new Point in one frame), array (new int[8]), mixed (three classes in turn),
#      elided (new Point(i).x: escape analysis removes the allocation, the counting stays),
#      call (one profiled call per allocation; 7d in short reps with pauses, so the sender keeps
#      up and nothing drops). The allocated classes' constructors are excluded
#      from profiling so the loop measures allocations, not calls.
# Each line: the median ns per call over the reps (the first rep, JIT warm-up, left out), the JVM's
# CPU seconds (all its threads, the sender included), and the probe's event and drop counts.
# Usage: agents/java/bench.sh [CALLS_PER_REP] [REPS]   (default 20000000 7)
# ONLY=6 runs only the paced cases, ONLY=7 only the allocation cases (ALLOCS=N per rep, default 50000000;
# ALLOC_MODES="object call" picks the loop modes of 7a-7c, ALLOC_MODES= runs 7d alone).
# PROBE=path overrides the listener (default: the release build if present, else debug).
set -euo pipefail
cd "$(dirname "$0")"
CALLS="${1:-20000000}"
REPS="${2:-7}"
TARGET="${CARGO_TARGET_DIR:-$HOME/.cache/highrise/target}"
PROBE="${PROBE:-$TARGET/release/highrise-probe}"
[[ -x "$PROBE" ]] || PROBE="$TARGET/debug/highrise-probe"
[[ -f build/highrise-agent.jar ]] || ./build.sh >/dev/null
JAR="$PWD/build/highrise-agent.jar"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT

# bench TITLE AGENT_OPTIONS(or "none"|"noviewer") CALLBENCH_ARGS...
bench() {
    local title="$1" opts="$2"
    shift 2
    local agent=() probe_pid=""
    if [[ $opts == noviewer ]]; then
        local port
        port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
        agent=("-javaagent:$JAR=addr=127.0.0.1:$port,include=io.highrise.bench")
    elif [[ $opts != none ]]; then
        local out="$TMP/probe-$RANDOM.out"
        "$PROBE" --listen 127.0.0.1:0 --sessions 1 --timeout-s 600 >"$out" &
        probe_pid=$!
        for _ in $(seq 200); do grep -q LISTENING "$out" 2>/dev/null && break; sleep 0.05; done
        agent=("-javaagent:$JAR=addr=$(head -1 "$out" | cut -d' ' -f2),include=io.highrise.bench$opts")
    fi
    echo "== $title"
    /usr/bin/time -f "   jvm cpu: %U s user + %S s sys, %e s wall" \
        java "${agent[@]}" -cp build/test-classes "${MAIN:-io.highrise.bench.CallBench}" "$@" 2>&1 \
        | grep -v '^highrise-agent:' | grep -v '^rep ' | sed 's/^median/   median/'
    if [[ -n $probe_pid ]]; then
        wait "$probe_pid" || true
        tail -1 "$out" | python3 -c 'import json,sys; d=json.load(sys.stdin); s=d["stats"]; print("   probe: end=%s events=%d dropped=%d resyncs=%d bytes=%d allocations=%d (dropped %d) memory_records=%d" % (d["end"], s["events"], s["agent_events_dropped"], s["resyncs"], s["bytes"], s.get("allocations", 0), s.get("agent_allocations_dropped", 0), s.get("memory_records", 0)))'
    fi
}

echo "probe: $PROBE"
uptime
if [[ -z "${ONLY:-}" ]]; then
bench "0. reference: two System.nanoTime() per call, no agent" none "$CALLS" "$REPS" 1 0 clock
bench "1. without the agent" none "$CALLS" "$REPS"
bench "2. agent loaded, no viewer (no-op hooks)" noviewer "$CALLS" "$REPS"
bench "3. streaming to highrise-probe, default mode" "" "$CALLS" "$REPS"
bench "4. streaming to highrise-probe, lossless" ",lossless" "$CALLS" "$REPS"
bench "5a. short reps with pauses, without the agent" none 4000 2000 1 1
bench "5b. short reps with pauses, streaming (sender keeps up)" "" 4000 2000 1 1
fi
# One thread paced at R M events/s for 3 reps of 5 s each: the share the probe counts dropped.
if [[ -z "${ONLY:-}" || "${ONLY:-}" == 6 ]]; then
for rate in 5 10 20; do
    bench "6. one thread paced at $rate M events/s, streaming, default mode" "" \
        $((rate * 500000 * 5)) 3 1 0 "pace:$rate"
done
fi
# Allocation counting: ns per allocation without the agent, with alloc=off and with alloc=on.
if [[ -z "${ONLY:-}" || "${ONLY:-}" == 7 ]]; then
ALLOCS="${ALLOCS:-50000000}"
DATA=',exclude=io.highrise.bench.AllocBench$Point,exclude=io.highrise.bench.AllocBench$Pair'
for mode in ${ALLOC_MODES-object array mixed elided call}; do
    MAIN=io.highrise.bench.AllocBench bench "7a. $mode: without the agent" none "$mode" "$ALLOCS" "$REPS"
    MAIN=io.highrise.bench.AllocBench bench "7b. $mode: streaming, alloc=off" ",alloc=off$DATA" "$mode" "$ALLOCS" "$REPS"
    MAIN=io.highrise.bench.AllocBench bench "7c. $mode: streaming, alloc=on" ",alloc=on$DATA" "$mode" "$ALLOCS" "$REPS"
done
# One profiled call per allocation in short reps with pauses (the sender keeps up, nothing drops):
# what the calling thread pays for a call that allocates, alloc=off vs on.
for opts in off on; do
    MAIN=io.highrise.bench.AllocBench bench "7d. call, short reps with pauses, streaming, alloc=$opts" \
        ",alloc=$opts$DATA" call 3000 600 10
done
fi
uptime
