#!/usr/bin/env bash
# The viewer's frame rate at 200k buildings on a GPU: the six runs of BENCHMARKS.md's "Frame
# rate on a GPU at 200k buildings" table (benches/gpu_frame.rs), ~90 s in all.
#
# Usage: scripts/gpu-frame-rate.sh [BINARY] [OUT_DIR]
#   BINARY: a gpu_frame bench binary (built elsewhere and copied, for a machine without Rust);
#           default: built here in the dev profile at opt-level 3, as BENCHMARKS.md says.
#   OUT_DIR: where the two 1080p screenshots go (default: the current directory).
# Needs a Vulkan loader and driver; set WGPU_BACKEND=vulkan to keep wgpu off other backends.
set -uo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/highrise/target}"
binary="${1:-}"
out="${2:-.}"
if [ -z "$binary" ]; then
  binary=$(CARGO_PROFILE_DEV_OPT_LEVEL=3 cargo bench --profile dev -p highrise-viewer \
    --bench gpu_frame --no-run --message-format=json 2>/dev/null |
    python3 -c 'import json,sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["target"]["name"] == "gpu_frame":
        print(m["executable"])')
fi
[ -x "$binary" ] || { echo "no gpu_frame binary (${binary:-none})" >&2; exit 1; }
mkdir -p "$out"
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-/tmp}"
run() { echo "== $*"; timeout 45 "$binary" "$@" 2>&1 | grep -v XDG_RUNTIME; }
run --scenario worst --seconds 10 --size 1920x1080 --png "$out/worst_1080.png"
run --scenario live --seconds 10 --size 1920x1080 --png "$out/live_1080.png"
run --scenario worst --seconds 10 --size 3840x2160
run --scenario worst --seconds 10 --size 1920x1080 --no-gpu-wait
run --scenario worst --seconds 10 --size 1920x1080
run --scenario live --seconds 10 --size 3840x2160
