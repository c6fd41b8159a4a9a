#!/usr/bin/env bash
# Fuzz smoke: builds every fuzz target in fuzz/ the way cargo-fuzz 0.13 does (same RUSTFLAGS:
# sanitizer coverage, AddressSanitizer, debug assertions; opt-level 1) without needing cargo-fuzz,
# then runs each for FUZZ_SMOKE_SECONDS (10) on a copy of its seed corpus. Fails on a crash
# (the input is kept under fuzz/artifacts/). Needs a nightly toolchain; without one it says so
# and passes. Longer runs: `cd fuzz && cargo +nightly fuzz run <target>` (BENCHMARKS.md, "Fuzzing").
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v rustup >/dev/null || ! rustup toolchain list | grep -q '^nightly'; then
    echo "fuzz smoke skipped: no nightly toolchain (rustup toolchain install nightly to run it)"
    exit 0
fi

seconds="${FUZZ_SMOKE_SECONDS:-10}"
target_dir="${CARGO_TARGET_DIR:-$HOME/.cache/highrise/target}/fuzz"
triple="$(rustc +nightly -vV | sed -n 's/^host: //p')"
targets=(session_frames session_messages recording_reader profile_import agent_answer otlp_request adaptive_maps)

# cargo-fuzz's flags for `cargo fuzz build` (address sanitizer, the default).
rustflags=(
    -Cpasses=sancov-module
    -Cllvm-args=-sanitizer-coverage-level=4
    -Cllvm-args=-sanitizer-coverage-inline-8bit-counters
    -Cllvm-args=-sanitizer-coverage-pc-table
    -Cllvm-args=-sanitizer-coverage-trace-compares
    --cfg fuzzing
    -Cllvm-args=-simplifycfg-branch-fold-threshold=0
    -Zsanitizer=address
    -Cllvm-args=-sanitizer-coverage-stack-depth
    -Cdebug-assertions
    -Ccodegen-units=1
)
# At opt-level 1 (cargo-fuzz builds at 3): a fifth off a cold build for a 10 s smoke; the
# sanitizer, the coverage and debug assertions are the same, so what it finds reproduces.
RUSTFLAGS="${rustflags[*]}" cargo +nightly build --manifest-path fuzz/Cargo.toml \
    --target "$triple" --release --config 'profile.release.debug="line-tables-only"' \
    --config 'profile.release.opt-level=1' --target-dir "$target_dir" --bins

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
failed=()
for target in "${targets[@]}"; do
    # The recording reader and the answer decoder must never allocate beyond the formats'
    # bounds (a few MiB); the session targets decode bincode, whose claims are capped at 128 MiB.
    case "$target" in
        recording_reader | agent_answer | profile_import) limits=(-malloc_limit_mb=64) ;;
        *) limits=() ;;
    esac
    mkdir -p "$work/$target"
    cp fuzz/corpus/"$target"/* "$work/$target/"
    echo "fuzz smoke: $target for ${seconds}s"
    if ! ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_odr_violation=0" \
        "$target_dir/$triple/release/$target" "$work/$target" -max_total_time="$seconds" \
        -print_final_stats=1 -artifact_prefix="$work/$target-" "${limits[@]}" 2>"$work/$target.log"; then
        tail -n 40 "$work/$target.log"
        mkdir -p fuzz/artifacts/"$target"
        cp "$work/$target"-* fuzz/artifacts/"$target"/ 2>/dev/null || true
        echo "fuzz smoke: $target FAILED; input(s) kept in fuzz/artifacts/$target/" >&2
        failed+=("$target")
    else
        grep -E '^stat::number_of_executed_units|^Done' "$work/$target.log" || true
    fi
done
if ((${#failed[@]})); then
    echo "fuzz smoke failed: ${failed[*]}" >&2
    exit 1
fi
echo "fuzz smoke: every target ran ${seconds}s clean"
