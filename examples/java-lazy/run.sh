#!/usr/bin/env bash
# Builds and runs the lazily loading Java example (examples/java-lazy/README.md) with the highrise
# agent, or without it for `highrise attach`. Start the viewer first (`highrise`, or
# `highrise serve` without a window).
#
# Usage: examples/java-lazy/run.sh [--variant before|moved] [--addr HOST:PORT] [--no-agent]
#                                   [--agent-opts OPTS] [--build-only] [PROGRAM OPTIONS]
#   --variant before   the program as written: packages app.*, version label "before" (default)
#   --variant moved    every package moved under main.* (app.ui -> main.app.ui; sources rewritten
#                      with sed into build/moved/src), version label "after" (alias: --variant after)
#   --addr HOST:PORT   where the agent connects (default: $HIGHRISE_ADDR, else 127.0.0.1:7878)
#   --no-agent         run without the agent; attach later with the printed `highrise attach` line
#   --agent-opts OPTS  extra agent options, comma-separated (e.g. verbose,lossless)
#   --build-only       build build/<variant>/classes and stop
# PROGRAM OPTIONS (passed to the program): --seconds N (default: until killed), --phase-seconds S
#   (time between load phases, default 2), --restart-seconds R (time between "new game"s, each
#   leaking a thread, default 3), --max-leaks K (default 6), --workers W (default 2).
# The script execs java, so its pid is the JVM's pid.
set -euo pipefail
cd "$(dirname "$0")"
here="$PWD"
variant=before
addr="${HIGHRISE_ADDR:-127.0.0.1:7878}"
agent=1
build_only=0
agent_opts=""
program_args=()
while (($#)); do
    case "$1" in
        --variant) variant="${2:?--variant needs before or moved}"; shift 2 ;;
        --variant=*) variant="${1#--variant=}"; shift ;;
        --addr) addr="${2:?--addr needs HOST:PORT}"; shift 2 ;;
        --addr=*) addr="${1#--addr=}"; shift ;;
        --no-agent) agent=0; shift ;;
        --agent-opts) agent_opts="${2:?}"; shift 2 ;;
        --build-only) build_only=1; shift ;;
        -h|--help) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) program_args+=("$1"); shift ;;
    esac
done
case "$variant" in
    before) root=app; label=before ;;
    moved|after) variant=moved; root=main.app; label=after ;;
    *) echo "run.sh: unknown variant '$variant' (before or moved)" >&2; exit 2 ;;
esac

out="build/$variant"
rm -rf "$out" && mkdir -p "$out/classes"
if [[ "$variant" == moved ]]; then
    # The restructured version: every package moves under a new root package `main`
    # (app.* -> main.app.*), as in the paper's second case study. Only package and import lines
    # name packages (features are loaded relative to app.Main's own package), so sed is enough.
    while IFS= read -r f; do
        dest="$out/src/main/${f#src/}"
        mkdir -p "$(dirname "$dest")"
        sed -E 's/^(package|import|import static) app([.;])/\1 main.app\2/' "$f" > "$dest"
    done < <(find src -name '*.java')
    src="$out/src"
else
    src=src
fi
javac --release 11 -d "$out/classes" $(find "$src" -name '*.java')
echo "java-lazy: built $here/$out/classes (variant $variant, main class $root.Main)"
if ((build_only)); then
    exit 0
fi

jvm_args=()
if ((agent)); then
    ../../agents/java/build.sh >/dev/null
    opts="addr=$addr,include=$root,program=java-lazy,label=$label${agent_opts:+,$agent_opts}"
    jvm_args+=("-javaagent:$here/../../agents/java/build/highrise-agent.jar=$opts")
    echo "java-lazy: pid $$, agent connects to $addr (program java-lazy, label $label, include $root)"
else
    echo "java-lazy: pid $$, running WITHOUT the agent; attach with:"
    echo "  highrise attach $$ --include $root --program java-lazy --label $label --addr $addr"
fi
exec java "${jvm_args[@]}" -cp "$out/classes" "$root.Main" "${program_args[@]}"
