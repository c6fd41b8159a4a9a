#!/usr/bin/env bash
# Installs the other tools' profilers whose files highrise opens (crates/highrise-record's
# `import`) and the readers that check what it exports (`export`), for the tests that compare
# against them: py-spy (folded stacks, speedscope), viztracer (Chrome trace events), pyinstrument
# (speedscope evented profiles) and jsonschema (to check exports against speedscope's published
# schema) in a virtual environment of their own, $HOME/.cache/highrise/profilers-venv; speedscope's npm package (its schema) in
# $HOME/.cache/highrise/speedscope; from Debian when missing: Node (`node --cpu-prof`) and Go
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
