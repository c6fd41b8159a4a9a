#!/usr/bin/env bash
# Installs the other tools' profilers whose files highrise opens (crates/highrise-record's
# `import`), for the tests that check it against what those tools write: py-spy (folded stacks,
# speedscope) and viztracer (Chrome trace events), in a virtual environment of their own,
# $HOME/.cache/highrise/profilers-venv, made when missing; and Node (`node --cpu-prof`), from
# Debian when missing. Python from python3 (Debian's ships venv apart: installed when missing).
set -euo pipefail
if [ "$(id -u)" -ne 0 ]; then sudo=sudo; else sudo=; fi
if ! command -v node >/dev/null 2>&1; then
    echo "install-profilers: nodejs from Debian"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq nodejs >/dev/null
fi
venv="$HOME/.cache/highrise/profilers-venv"
wanted=(py-spy==0.4.3 viztracer==1.1.1)
if [ -x "$venv/bin/py-spy" ] && [ -x "$venv/bin/viztracer" ]; then
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
