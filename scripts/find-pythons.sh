# Sourced by the scripts that test on every CPython here (test-python.sh, test-corpus.sh):
# fills `pythons` with "PATH=VERSION" entries: python3 (3.11+ for the C recorder), and 3.12 and
# 3.13 when installed (as python3.X or under pyenv), each version once.
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
