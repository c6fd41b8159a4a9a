#!/usr/bin/env bash
# Runs the Java agent's tests (agents/java): installs a JDK and ASM from Debian when
# missing, builds the agent jar, builds highrise-probe (the real listener the tests talk to), and
# runs agents/java/test/io/highrise/agent/AgentTests.java. Exits non-zero on any failure.
# When the `highrise` binary is already built, the attach test goes through `highrise attach`;
# otherwise through jcmd directly (the same mechanism).
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/highrise/target}"

scripts/install-java-deps.sh

agents/java/build.sh
# A caller may point HIGHRISE_PROBE at an already built probe; otherwise build it.
if [ -z "${HIGHRISE_PROBE:-}" ]; then
    cargo build --locked -p highrise-probe
fi
JAVA_DIR="$PWD/agents/java"
args=(--probe "${HIGHRISE_PROBE:-$CARGO_TARGET_DIR/debug/highrise-probe}"
      --jar "$JAVA_DIR/build/highrise-agent.jar"
      --classes "$JAVA_DIR/build/test-classes"
      --golden "$PWD/agent-protocol/golden")
highrise="${HIGHRISE_BIN:-$CARGO_TARGET_DIR/debug/highrise}"
if [[ -x "$highrise" ]]; then
    args+=(--highrise "$highrise")
fi
java -cp "$JAVA_DIR/build/highrise-agent.jar:$JAVA_DIR/build/test-classes" io.highrise.agent.AgentTests "${args[@]}"
