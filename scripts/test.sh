#!/usr/bin/env bash
# Runs every test of the project: the pure-crate dependency check and all Rust tests
# (unit, integration against real sockets, property tests, golden files).
set -euo pipefail
cd "$(dirname "$0")/.."
# One target directory that survives between runs (and between CI runs on the same machine).
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/highrise/target}"
scripts/check-pure-crates.sh
cargo test --workspace --locked
