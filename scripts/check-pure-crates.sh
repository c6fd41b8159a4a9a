#!/usr/bin/env bash
# The pure crates (protocol, aggregate, layout, record) must never depend on an engine or on an I/O
# runtime: no bevy, wgpu, winit or tokio in their normal or build dependency trees.
set -euo pipefail
cd "$(dirname "$0")/.."
status=0
for crate in highrise-protocol highrise-aggregate highrise-layout highrise-record; do
    if ! tree=$(cargo tree --locked -p "$crate" -e normal,build --prefix none --format '{p}'); then
        echo "check-pure-crates: cannot list the dependencies of $crate" >&2
        status=1
        continue
    fi
    forbidden=$(grep -E '^(bevy|bevy_[a-z_]+|wgpu|wgpu-[a-z-]+|winit|tokio) ' <<<"$tree" | sort -u || true)
    if [ -n "$forbidden" ]; then
        echo "check-pure-crates: $crate must stay engine-free but depends on:" >&2
        echo "$forbidden" >&2
        status=1
    else
        echo "check-pure-crates: $crate is engine-free ($(wc -l <<<"$tree") dependency lines checked)"
    fi
done
exit $status
