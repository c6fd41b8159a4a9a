# Sourced from the repository root by the scripts that test on every CPython here
# (test-python.sh, test-corpus.sh). Fills `pythons` with "PATH=VERSION" entries: python3
# (3.11+ for the C recorder), and 3.12 and 3.13 when installed (as python3.X or under pyenv),
# each version once; `agent_venv` below makes each one's virtual environment.
pythons=()
add_python() {
    local candidate="$1"
    [ -x "$candidate" ] || candidate="$(command -v "$1" 2>/dev/null || true)"
    [ -n "$candidate" ] && [ -x "$candidate" ] || return 0
    local version
    version="$("$candidate" -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null)" || return 0
    for seen in "${pythons[@]:-}"; do
        [ "${seen#*=}" = "$version" ] && return 0
    done
    pythons+=("$candidate=$version")
}
add_python python3
for version in 3.12 3.13; do
    add_python "python$version"
    for candidate in "$HOME"/.pyenv/versions/"$version".*/bin/python3; do
        add_python "$candidate"
    done
done

# agent_venv PYTHON VERSION: sets `venv` to $HOME/.cache/highrise/python-venv-VERSION, made if
# missing (Debian's system Python ships venv and its headers apart), with a setuptools that
# builds wheels by itself (>= 70.1, so installs need no index) and the agent from this tree,
# its C recorder included.
agent_venv() {
    local python="$1" version="$2"
    venv="$HOME/.cache/highrise/python-venv-$version"
    # The C recorder needs the interpreter's headers.
    if ! "$python" -c 'import os, sys, sysconfig; sys.exit(0 if os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h")) else 1)'; then
        echo "no Python.h for $python; installing python3-dev" >&2
        apt-get update -qq && apt-get install -y -qq python3-dev || true
    fi
    if [ ! -x "$venv/bin/python" ]; then
        if ! "$python" -m venv "$venv"; then
            apt-get update -qq && apt-get install -y -qq python3-venv python3-dev
            rm -rf "$venv"
            "$python" -m venv "$venv"
        fi
    fi
    if ! "$venv/bin/python" -c 'import setuptools; assert tuple(map(int, setuptools.__version__.split(".")[:2])) >= (70, 1)' 2>/dev/null; then
        "$venv/bin/python" -m pip install -q --disable-pip-version-check "setuptools>=70.1"
    fi
    "$venv/bin/python" -m pip install -q --disable-pip-version-check --no-build-isolation \
        --force-reinstall --no-deps "$(pwd)/agents/python"
}
