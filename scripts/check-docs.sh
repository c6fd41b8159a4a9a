#!/usr/bin/env bash
# Sources and docs name features, not issue numbers: a reader without the issue tracker must
# understand every comment and document. Fails on the word "issue" or "issues" followed by a
# number (with or without "#") in tracked text files; the fuzz corpus and binary files are skipped.
set -euo pipefail
cd "$(dirname "$0")/.."

status=0
hits=$(git grep -nIE "[Ii]ssues? #?[0-9]+" -- . ':(exclude)fuzz/corpus') || status=$?
if [[ $status -eq 0 ]]; then
    echo "check-docs: issue numbers found; name the feature or behaviour instead:" >&2
    echo "$hits" >&2
    exit 1
elif [[ $status -ne 1 ]]; then
    echo "check-docs: git grep failed (exit $status)" >&2
    exit 1
fi
echo "check-docs: no issue numbers in sources or docs"
