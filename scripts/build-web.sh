#!/usr/bin/env bash
# Builds the page's bundle, crates/highrise-web/assets/city.js, from web/src with three.js and
# esbuild from npm (versions pinned in web/package-lock.json), so that the highrise binary
# embeds it and needs no Node. `--check` builds into a temporary file and fails when it differs
# from the checked-in bundle (the tests run that).
set -euo pipefail
cd "$(dirname "$0")/../web"
out=../crates/highrise-web/assets/city.js
if [ ! -x node_modules/.bin/esbuild ] || ! cmp -s package-lock.json node_modules/.package-lock.json.wanted; then
    npm ci --silent --no-audit --no-fund >/dev/null
    cp package-lock.json node_modules/.package-lock.json.wanted
fi
build() {
    node_modules/.bin/esbuild src/main.js --bundle --minify --format=iife --target=es2020 \
        --legal-comments=eof --log-level=warning --outfile="$1"
}
if [ "${1:-}" = "--check" ]; then
    fresh="$(mktemp)"
    trap 'rm -f "$fresh"' EXIT
    build "$fresh"
    if ! cmp -s "$fresh" "$out"; then
        echo "build-web: $out does not match web/src: run scripts/build-web.sh and commit it" >&2
        exit 1
    fi
    echo "build-web: the bundle matches its sources"
else
    build "$out"
    echo "build-web: wrote $out ($(wc -c <"$out") bytes)"
fi
