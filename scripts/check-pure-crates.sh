#!/usr/bin/env bash
# The pure crates (protocol, aggregate, layout, record) must never depend on an engine or on an I/O
# runtime: no bevy, wgpu, winit or tokio in their normal or build dependency trees. The headless
# `highrise` (highrise-cli without its default `viewer` feature) must never depend on an engine:
# no bevy, wgpu or winit.
set -euo pipefail
cd "$(dirname "$0")/.."
status=0

# check NAME FORBIDDEN_REGEX CARGO_TREE_ARGS...
check() {
    local name="$1" forbidden_pattern="$2"
    shift 2
    local tree forbidden
    if ! tree=$(cargo tree --locked "$@" -e normal,build --prefix none --format '{p}'); then
        echo "check-pure-crates: cannot list the dependencies of $name" >&2
        status=1
        return
    fi
    forbidden=$(grep -E "$forbidden_pattern" <<<"$tree" | sort -u || true)
    if [ -n "$forbidden" ]; then
        echo "check-pure-crates: $name must stay engine-free but depends on:" >&2
        echo "$forbidden" >&2
        status=1
    else
        echo "check-pure-crates: $name is engine-free ($(wc -l <<<"$tree") dependency lines checked)"
    fi
}

engines='^(bevy|bevy_[a-z_]+|wgpu|wgpu-[a-z-]+|winit) '
for crate in highrise-protocol highrise-aggregate highrise-layout highrise-record; do
    check "$crate" '^(bevy|bevy_[a-z_]+|wgpu|wgpu-[a-z-]+|winit|tokio) ' -p "$crate"
done
check "highrise-cli --no-default-features (the headless highrise)" "$engines" \
    -p highrise-cli --no-default-features
# And it really compiles that way (type-checked in the shared target directory: no second
# build of every dependency, and no headless `highrise` binary replacing the one the window
# tests run).
if ! cargo check --locked --quiet -p highrise-cli --no-default-features; then
    echo "check-pure-crates: highrise-cli --no-default-features does not compile" >&2
    status=1
fi
exit $status
