#!/usr/bin/env bash
# The city in a browser, in real headless Chromium (scripts/web/check_web.mjs): the live page
# of `highrise serve --web` with the demo and with a real Java program, a recording exported
# as one HTML file opened from disk, twenty pages at once. First checks that the embedded
# bundle matches its sources (scripts/build-web.sh --check).
# Installs what it needs: Debian's chromium, puppeteer-core (npm) under $HOME/.cache/highrise.
# HIGHRISE_WEB_TESTS=demo,java,export picks parts; HIGHRISE_WEB_OUT keeps the screenshots.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/highrise/target}"
cache="$HOME/.cache/highrise"
if [ "$(id -u)" -ne 0 ]; then sudo=sudo; else sudo=; fi
if ! command -v chromium >/dev/null 2>&1; then
    echo "test-web: chromium from Debian"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends chromium >/dev/null
fi
command -v node >/dev/null 2>&1 || scripts/install-profilers.sh
puppeteer=25.16.0
if [ "$(cat "$cache/web-test/wanted" 2>/dev/null)" != "$puppeteer" ]; then
    echo "test-web: puppeteer-core $puppeteer"
    rm -rf "$cache/web-test" && mkdir -p "$cache/web-test"
    echo "{\"private\": true, \"dependencies\": {\"puppeteer-core\": \"$puppeteer\"}}" \
        >"$cache/web-test/package.json"
    (cd "$cache/web-test" && npm install --silent --no-audit --no-fund >/dev/null)
    echo "$puppeteer" >"$cache/web-test/wanted"
fi
scripts/build-web.sh --check
highrise="${HIGHRISE_BIN:-$CARGO_TARGET_DIR/debug/highrise}"
[ -x "$highrise" ] || cargo build -p highrise-cli --locked
# Screenshots (the README's is demo-hover.png) and figures.json, kept until the next run.
out="${HIGHRISE_WEB_OUT:-$CARGO_TARGET_DIR/web-test-out}"
rm -rf "$out"
HIGHRISE_WEB_OUT="$out" HIGHRISE_BIN="$highrise" HIGHRISE_WEB_TEST_MODULES="$cache/web-test/node_modules" \
    HIGHRISE_CHROMIUM="$(command -v chromium)" node scripts/web/check_web.mjs
