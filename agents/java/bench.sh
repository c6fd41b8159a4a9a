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
#   6. one thread paced at 5, 10 and 20 M events/s (the sustained rate without drops).
# Each line: the median ns per call over the reps (the first rep, JIT warm-up, left out), the JVM's
# CPU seconds (all its threads, the sender included), and the probe's event and drop counts.
# Usage: agents/java/bench.sh [CALLS_PER_REP] [REPS]   (default 20000000 7)
# ONLY=6 runs only the paced cases.
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
        java "${agent[@]}" -cp build/test-classes io.highrise.bench.CallBench "$@" 2>&1 \
        | grep -v '^highrise-agent:' | grep -v '^rep ' | sed 's/^median/   median/'
    if [[ -n $probe_pid ]]; then
        wait "$probe_pid" || true
        tail -1 "$out" | python3 -c 'import json,sys; d=json.load(sys.stdin); s=d["stats"]; print("   probe: end=%s events=%d dropped=%d resyncs=%d bytes=%d" % (d["end"], s["events"], s["agent_events_dropped"], s["resyncs"], s["bytes"]))'
    fi
}

echo "probe: $PROBE"
uptime
if [[ "${ONLY:-}" != 6 ]]; then
bench "0. reference: two System.nanoTime() per call, no agent" none "$CALLS" "$REPS" 1 0 clock
bench "1. without the agent" none "$CALLS" "$REPS"
bench "2. agent loaded, no viewer (no-op hooks)" noviewer "$CALLS" "$REPS"
bench "3. streaming to highrise-probe, default mode" "" "$CALLS" "$REPS"
bench "4. streaming to highrise-probe, lossless" ",lossless" "$CALLS" "$REPS"
bench "5a. short reps with pauses, without the agent" none 4000 2000 1 1
bench "5b. short reps with pauses, streaming (sender keeps up)" "" 4000 2000 1 1
fi
# One thread paced at R M events/s for 3 reps of 5 s each: the share the probe counts dropped.
for rate in 5 10 20; do
    bench "6. one thread paced at $rate M events/s, streaming, default mode" "" \
        $((rate * 500000 * 5)) 3 1 0 "pace:$rate"
done
uptime
