#!/usr/bin/env bash
# Keeps the shared target directory from filling the disk. CI reuses one target directory
# across commits, and every commit leaves its own test binaries (over 1 GB each for the CLI and
# the viewer) and incremental caches behind. When the disk holding the target directory has
# less than HIGHRISE_MIN_FREE_GB (default 25) free, this removes the incremental caches and the
# test and bench executables not rebuilt in the last two hours: cargo rebuilds whatever it
# needs of them; libraries are kept, so nothing is compiled from scratch.
set -euo pipefail
target="${CARGO_TARGET_DIR:-$HOME/.cache/highrise/target}"
min_free_gb="${HIGHRISE_MIN_FREE_GB:-25}"
[ -d "$target" ] || exit 0
free_gb() { df -Pk "$target" | awk 'NR == 2 { print int($4 / 1048576) }'; }
before=$(free_gb)
if [ "$before" -ge "$min_free_gb" ]; then
    exit 0
fi
for profile in "$target"/*/; do
    rm -rf "${profile}incremental"
    [ -d "${profile}deps" ] || continue
    find "${profile}deps" -maxdepth 1 -type f -perm -u+x ! -name '*.so' ! -name '*.rlib' \
        -mmin +120 -delete
done
echo "prune-target: $before GB free on the target directory's disk (under $min_free_gb): removed" \
    "incremental caches and old test executables; $(free_gb) GB free now"
