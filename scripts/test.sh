#!/usr/bin/env bash
# Runs every test of the project: the pure-crate dependency check and all Rust tests (unit,
# integration against real sockets and real processes, property tests, golden files, headless
# Bevy app tests, and the real-window screenshot tests under Xvfb + lavapipe, with the demo and
# the lazily loading Java and Python examples).
set -euo pipefail
cd "$(dirname "$0")/.."
# One target directory that survives between runs (and between CI runs on the same machine).
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/highrise/target}"
# Old test binaries and incremental caches go when that directory's disk runs low.
scripts/prune-target.sh
scripts/install-render-deps.sh
# The window tests run the lazily loading Java example (examples/java-lazy) too.
scripts/install-java-deps.sh
# py-spy, viztracer and Node, whose profiles `highrise report` must read as they wrote them.
scripts/install-profilers.sh
scripts/check-pure-crates.sh
# Comments and docs name features, not issue numbers.
scripts/check-docs.sh
# No new import cycle between a crate's files (the aggregator has none).
scripts/check-module-cycles.py
# ARCHITECTURE.md's crate table says what each crate depends on; no bullet runs over 10 lines.
scripts/check-architecture.py
cargo test --workspace --locked
# The binaries the scripts below run, built with the tests' features: a `cargo build -p` of one
# of them alone would rebuild its dependencies with other features (minutes on a fresh machine).
cargo build --workspace --locked --bins --tests
export HIGHRISE_BIN="$CARGO_TARGET_DIR/debug/highrise"
export HIGHRISE_PROBE="$CARGO_TARGET_DIR/debug/highrise-probe"
export HIGHRISE_CORPUS_RUST_BIN="$CARGO_TARGET_DIR/debug/corpus-rust"
scripts/test-java.sh
scripts/test-python.sh
# Real programs under their agents (Maven, Rhino, Pygments, docutils, a Rust crate), recorded and reported.
scripts/test-corpus.sh
# The city in a browser: real headless Chromium on `serve --web` (demo, a Java program, 20
# pages) and on an exported recording opened from disk.
scripts/test-web.sh
# OTLP from real OpenTelemetry SDKs (Python, Node) on several network namespaces.
scripts/test-otlp.sh
# A short run of each fuzz target (fuzz/) when a nightly toolchain is there; skipped otherwise.
scripts/fuzz-smoke.sh
