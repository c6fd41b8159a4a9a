#!/usr/bin/env bash
# The Java agent's cost benchmark (BENCHMARKS.md, "Java agent"): CallBench without the agent,
# with the agent but no viewer (the no-op path), and with the agent streaming to a real
# highrise-probe (default mode and lossless). Prints each run's median ns per call and the
# probe's event and drop counts. Usage: agent-protocol/java/bench.sh [CALLS_PER_REP] [REPS]
# PROBE=path overrides the listener (default: the release build, else the debug build).
set -euo pipefail
cd "$(dirname "$0")"
CALLS="${1:-20000000}"
REPS="${2:-7}"
TARGET="${CARGO_TARGET_DIR:-$HOME/.cache/highrise/target}"
PROBE="${PROBE:-$TARGET/release/highrise-probe}"
[[ -x "$PROBE" ]] || PROBE="$TARGET/debug/highrise-probe"
[[ -f build/highrise-agent.jar ]] || ./build.sh >/dev/null
JAR="$PWD/build/highrise-agent.jar"
RUN=(java -cp build/test-classes io.highrise.bench.CallBench "$CALLS" "$REPS")
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
uptime
echo "== without the agent"
"${RUN[@]}" | tail -1
echo "== agent loaded, no viewer listening (instrumentation is a no-op)"
FREE_PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
java -javaagent:"$JAR"=addr=127.0.0.1:$FREE_PORT,include=io.highrise.bench -cp build/test-classes \
    io.highrise.bench.CallBench "$CALLS" "$REPS" 2>/dev/null | tail -1
for mode in default lossless; do
    echo "== agent streaming to highrise-probe ($mode; probe: $PROBE)"
    "$PROBE" --listen 127.0.0.1:0 --sessions 1 --timeout-s 300 >"$TMP/probe-$mode.out" &
    PROBE_PID=$!
    for _ in $(seq 100); do grep -q LISTENING "$TMP/probe-$mode.out" 2>/dev/null && break; sleep 0.05; done
    ADDR=$(head -1 "$TMP/probe-$mode.out" | cut -d' ' -f2)
    OPTS="addr=$ADDR,include=io.highrise.bench"
    [[ $mode == lossless ]] && OPTS="$OPTS,lossless"
    java -javaagent:"$JAR"="$OPTS" -cp build/test-classes io.highrise.bench.CallBench "$CALLS" "$REPS" | tail -1
    wait "$PROBE_PID" || true
    tail -1 "$TMP/probe-$mode.out" | python3 -c 'import json,sys; d=json.load(sys.stdin); s=d["stats"]; print("   probe: end=%s events=%d dropped=%d resyncs=%d bytes=%d" % (d["end"], s["events"], s["agent_events_dropped"], s["resyncs"], s["bytes"]))'
done
uptime
