#!/usr/bin/env bash
# Installs the other tools' profilers whose files highrise opens (crates/highrise-record's
# `import`) and the readers that check what it exports (`export`), for the tests that compare
# against them: py-spy (folded stacks, speedscope), viztracer (Chrome trace events), pyinstrument
# (speedscope evented profiles) and jsonschema (to check exports against speedscope's published
# schema) in a virtual environment of their own, $HOME/.cache/highrise/profilers-venv; speedscope's npm package (its schema) in
# $HOME/.cache/highrise/speedscope; Chrome DevTools' trace engine (reads Chrome trace exports) in
# $HOME/.cache/highrise/trace-engine; inferno (reads collapsed exports) in
# $HOME/.cache/highrise/inferno; from Debian when missing: Node (`node --cpu-prof`) and Go
# (`runtime/pprof` writes pprof, `go tool pprof` reads it). Python from python3 (Debian's ships
# venv apart: installed when missing).
set -euo pipefail
if [ "$(id -u)" -ne 0 ]; then sudo=sudo; else sudo=; fi
debian=()
command -v node >/dev/null 2>&1 || debian+=(nodejs npm)
command -v npm >/dev/null 2>&1 || debian+=(npm)
command -v go >/dev/null 2>&1 || debian+=(golang-go)
if [ "${#debian[@]}" -gt 0 ]; then
    echo "install-profilers: ${debian[*]} from Debian"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${debian[@]}" >/dev/null
fi
cache="$HOME/.cache/highrise"
speedscope=1.25.0
if [ ! -f "$cache/speedscope/$speedscope/file-format-schema.json" ]; then
    echo "install-profilers: speedscope $speedscope (its file format's schema)"
    rm -rf "$cache/speedscope" && mkdir -p "$cache/speedscope/$speedscope"
    (cd "$cache/speedscope" && npm pack --silent "speedscope@$speedscope" >/dev/null \
        && tar xzf "speedscope-$speedscope.tgz" -C "$speedscope" --strip-components=3 \
            package/dist/release/file-format-schema.json)
fi
# Chrome DevTools' trace engine (the Performance panel's parser), to read Chrome trace exports
# (scripts/readers/chrome-trace.mjs); its two dependencies pinned.
trace_engine=0.0.65
if [ "$(cat "$cache/trace-engine/wanted" 2>/dev/null)" != "$trace_engine" ]; then
    echo "install-profilers: @paulirish/trace_engine $trace_engine (Chrome DevTools' trace reader)"
    rm -rf "$cache/trace-engine" && mkdir -p "$cache/trace-engine"
    cat >"$cache/trace-engine/package.json" <<JSON
{"private": true, "dependencies": {"@paulirish/trace_engine": "$trace_engine"},
 "overrides": {"third-party-web": "0.30.0", "legacy-javascript": "0.0.1"}}
JSON
    (cd "$cache/trace-engine" && npm install --silent --no-audit --no-fund >/dev/null)
    echo "$trace_engine" >"$cache/trace-engine/wanted"
fi
# inferno's flame graph (crates.io), to read collapsed-stack exports.
inferno=0.12.8
if [ "$(cat "$cache/inferno/wanted" 2>/dev/null)" != "$inferno" ]; then
    echo "install-profilers: inferno $inferno (flame graphs from collapsed stacks)"
    cargo install -q inferno --version "$inferno" --locked --root "$cache/inferno" \
        --no-default-features --features cli
    echo "$inferno" >"$cache/inferno/wanted"
fi
venv="$cache/profilers-venv"
wanted=(py-spy==0.4.3 viztracer==1.1.1 jsonschema==4.23.0 pyinstrument==5.1.3)
if [ "$(cat "$venv/wanted" 2>/dev/null)" = "${wanted[*]}" ]; then
    exit 0
fi
if ! python3 -c 'import venv, ensurepip' 2>/dev/null; then
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq python3-venv >/dev/null
fi
echo "install-profilers: ${wanted[*]} into $venv"
rm -rf "$venv"
python3 -m venv "$venv"
"$venv/bin/python" -m pip install -q --disable-pip-version-check "${wanted[@]}"
echo "${wanted[*]}" >"$venv/wanted"
