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
cache="$HOME/.cache/highrise"

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
    venv="$cache/python-venv-$version"
    echo "== Python agent tests on $python ($version)"
    # The C recorder needs the interpreter's headers; Debian's system Python ships them apart.
    if ! "$python" -c 'import os, sys, sysconfig; sys.exit(0 if os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h")) else 1)'; then
        echo "test-python: no Python.h for $python; installing python3-dev" >&2
        apt-get update -qq && apt-get install -y -qq python3-dev || true
    fi
    if [ ! -x "$venv/bin/python" ]; then
        if ! "$python" -m venv "$venv"; then
            # Debian's system Python ships venv separately.
            apt-get update -qq && apt-get install -y -qq python3-venv python3-dev
            rm -rf "$venv"
            "$python" -m venv "$venv"
        fi
    fi
    # pytest, and a setuptools that builds wheels by itself (>= 70.1), so installs need no index.
    if ! "$venv/bin/python" -c 'import pytest, setuptools; assert tuple(map(int, setuptools.__version__.split(".")[:2])) >= (70, 1)' 2>/dev/null; then
        "$venv/bin/python" -m pip install -q --disable-pip-version-check pytest "setuptools>=70.1"
    fi
    "$venv/bin/python" -m pip install -q --disable-pip-version-check --no-build-isolation \
        --force-reinstall --no-deps "$root/agents/python"
    require_native=0
    if "$venv/bin/python" -c 'import sys; sys.exit(0 if sys.implementation.name == "cpython" and sys.version_info >= (3, 11) else 1)'; then
        require_native=1
    fi
    # From the tests directory, so the installed package (with its extension) is imported, not
    # the source tree.
    (cd "$root/agents/python/tests" &&
        HIGHRISE_REQUIRE_NATIVE=$require_native "$venv/bin/python" -m pytest -q -p no:cacheprovider .)
done
