#!/usr/bin/env bash
# Installs what the Java agent, its tests and the Java examples need from Debian when missing:
# a JDK (javac, jcmd) and ASM (libasm-java, bundled into the agent jar); for the corpus of real
# programs (scripts/test-corpus.sh), Maven (`mvn`), Rhino (Mozilla's JavaScript engine, `rhino`) and
# JRuby (`jruby`, a ~27,000-method interpreter: the big running JVM `highrise attach` is tried on).
set -euo pipefail
missing=()
command -v javac >/dev/null 2>&1 && command -v jcmd >/dev/null 2>&1 || missing+=(openjdk-17-jdk-headless)
[[ -f /usr/share/java/asm.jar && -f /usr/share/java/asm-commons.jar ]] || missing+=(libasm-java)
command -v mvn >/dev/null 2>&1 || missing+=(maven)
[[ -f /usr/share/java/js.jar ]] || missing+=(rhino)
command -v jruby >/dev/null 2>&1 || missing+=(jruby)
if ((${#missing[@]})); then
    echo "install-java-deps: installing ${missing[*]}"
    if [ "$(id -u)" -ne 0 ]; then sudo=sudo; else sudo=; fi
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi
