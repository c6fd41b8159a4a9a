#!/usr/bin/env bash
# Runs the allocation-site paper's example (Canvas, ShapeFactory, Circle, Box) with the highrise
# Java agent, which counts every object it creates per method and calling context. Start the
# viewer first (`cargo run --release -- --no-demo`, or `highrise serve` without a window), or
# record it: `highrise record --out DIR` then `highrise report DIR/*.hrec`.
# Usage: examples/java-shapes/run.sh [REPEAT [PAUSE_MS]]   (default 600 runs, 100 ms apart: a minute)
# HIGHRISE_ADDR=host:port changes where the agent connects (default 127.0.0.1:7878).
set -euo pipefail
cd "$(dirname "$0")"
../../agents/java/build.sh >/dev/null
rm -rf build && mkdir -p build
javac --release 11 -d build $(find src -name '*.java')
exec java -javaagent:../../agents/java/build/highrise-agent.jar=include=shapes,program=shapes,alloc=on \
    -cp build shapes.Canvas --repeat "${1:-600}" --pause-ms "${2:-100}"
