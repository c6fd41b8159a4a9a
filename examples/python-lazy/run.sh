#!/usr/bin/env bash
# Runs the textshop example under the highrise Python agent:
#
#   examples/python-lazy/run.sh [--addr HOST:PORT] [--backend native|python] [textshop options]
#
# textshop options: --seconds N (default: until killed; SIGINT/SIGTERM end it cleanly),
# --phase-s S (default 2), --restart-s R, --workers W, --docs-per-s D, --quiet.
# The viewer address defaults to $HIGHRISE_ADDR, else 127.0.0.1:7878.
#
# The agent is pip-installed (from agents/python, C recorder included) into a venv at
# $HIGHRISE_VENV (default ~/.cache/highrise/python-lazy-venv, made with $HIGHRISE_PYTHON, default
# python3), and reinstalled only when its sources changed; later starts take well under a second.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
venv="${HIGHRISE_VENV:-$HOME/.cache/highrise/python-lazy-venv}"
python="${HIGHRISE_PYTHON:-python3}"

agent_args=(--program textshop)
while [ $# -gt 0 ]; do
    case "$1" in
        --addr|--backend|--version-label|--include|--exclude)
            agent_args+=("$1" "$2"); shift 2 ;;
        --addr=*|--backend=*|--version-label=*|--include=*|--exclude=*)
            agent_args+=("$1"); shift ;;
        *) break ;;
    esac
done

mkdir -p "$(dirname "$venv")"
(
    flock 9  # two runs starting at once install once
    if [ ! -x "$venv/bin/python" ]; then
        "$python" -m venv "$venv" >&2
    fi
    stamp="$venv/.highrise-agent-installed"
    if [ ! -f "$stamp" ] || [ -n "$(find "$root/agents/python/highrise_agent" "$root/agents/python/setup.py" \
        "$root/agents/python/pyproject.toml" -newer "$stamp" -print -quit)" ] ||
        ! "$venv/bin/python" -c 'import highrise_agent' 2>/dev/null; then
        # A setuptools that builds wheels by itself (>= 70.1), so the install needs no index.
        if ! "$venv/bin/python" -c 'import setuptools, sys; sys.exit(tuple(map(int, setuptools.__version__.split(".")[:2])) < (70, 1))' 2>/dev/null; then
            "$venv/bin/python" -m pip install -q --disable-pip-version-check "setuptools>=70.1" >&2
        fi
        echo "run.sh: installing the highrise agent into $venv" >&2
        "$venv/bin/python" -m pip install -q --disable-pip-version-check --no-build-isolation --force-reinstall \
            --no-deps "$root/agents/python" >&2
        touch "$stamp"
    fi
) 9>"$venv.lock"

exec "$venv/bin/python" -m highrise_agent "${agent_args[@]}" "$here/textshop_demo.py" "$@"
