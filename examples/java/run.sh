#!/usr/bin/env bash
# Runs the Java example (a lending library) with the highrise agent. Start the viewer first
# (`cargo run --release -- --no-demo`, or `highrise serve` without a window).
# Usage: examples/java/run.sh [SECONDS]   (0 or nothing: until interrupted)
# HIGHRISE_ADDR=host:port changes where the agent connects (default 127.0.0.1:7878).
set -euo pipefail
cd "$(dirname "$0")"
../../agents/java/build.sh >/dev/null
rm -rf build && mkdir -p build
javac --release 11 -d build $(find src -name '*.java')
exec java -javaagent:../../agents/java/build/highrise-agent.jar=include=demo.library,program=library \
    -cp build demo.library.LibraryApp "${1:-0}"
