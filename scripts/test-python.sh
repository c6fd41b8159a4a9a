#!/usr/bin/env bash
# Tests the Python agent (agents/python): builds the real listener highrise-probe,
# makes one virtual environment per available CPython (3.11, plus 3.12 and 3.13 when present)
# under $HOME/.cache/highrise/, pip-installs the agent there (its C extension included) and runs
# pytest against the probe (HIGHRISE_PROBE) with both the native and the pure-Python recorder.
# The allocation-site and memory-prediction examples' tests (tests/test_shapes_example.py,
# tests/test_predict_example.py) also run `highrise record`
# and `highrise report`: $HIGHRISE_BIN, else $CARGO_TARGET_DIR/debug/highrise (built by
# `cargo test --workspace` before this script in scripts/test.sh); skipped when it is not built.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$(pwd)"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/highrise/target}"

# A caller may point HIGHRISE_PROBE at an already built probe; otherwise build it.
if [ -z "${HIGHRISE_PROBE:-}" ]; then
    cargo build -p highrise-probe --locked
    export HIGHRISE_PROBE="$CARGO_TARGET_DIR/debug/highrise-probe"
fi

# The interpreters: python3 (must be 3.11+ for the C recorder), and 3.12/3.13 when installed.
source scripts/find-pythons.sh
if [ ${#pythons[@]} -eq 0 ]; then
    echo "test-python: no python3 found; installing it" >&2
    apt-get update -qq && apt-get install -y -qq python3 python3-venv python3-dev
    add_python python3
fi

# `highrise attach PID` reaches a running CPython through gdb (tests/test_attach.py).
if ! command -v gdb >/dev/null 2>&1; then
    echo "test-python: installing gdb (for highrise attach)" >&2
    apt-get update -qq && apt-get install -y -qq gdb || true
fi

for entry in "${pythons[@]}"; do
    python="${entry%=*}"
    version="${entry#*=}"
    echo "== Python agent tests on $python ($version)"
    agent_venv "$python" "$version"
    if ! "$venv/bin/python" -c 'import pytest' 2>/dev/null; then
        "$venv/bin/python" -m pip install -q --disable-pip-version-check pytest
    fi
    require_native=0
    if "$venv/bin/python" -c 'import sys; sys.exit(0 if sys.implementation.name == "cpython" and sys.version_info >= (3, 11) else 1)'; then
        require_native=1
    fi
    # From the tests directory, so the installed package (with its extension) is imported, not
    # the source tree.
    (cd "$root/agents/python/tests" &&
        HIGHRISE_REQUIRE_NATIVE=$require_native "$venv/bin/python" -m pytest -q -p no:cacheprovider .)
done
