#!/usr/bin/env bash
# The corpus of real programs: each one runs under its agent into a real `highrise record`
# listener (a free loopback port, a temporary directory), the recorder is stopped with SIGINT
# (which finishes the files), and `highrise report --json` on the recording must say:
#   - the session ended with the agent's Goodbye, with no session error and not interrupted;
#   - no "panicked" from the recorder, the report or the program;
#   - `events` (the session's count) equals the events the agent says it sent at exit
#     (Java: agent option `stats`; Python: HIGHRISE_STATS=on; Rust: highrise_agent::stats()),
#     and `events_dropped` equals the agent's dropped count;
#   - the program's own known hot method is first by mean elevation (or in the top 3 where the
#     program's hottest is legitimately spread: said at the case);
#   - no alert (stuck, jump; dropping only if the agent dropped events): a false alarm.
# One line per program (name, events, top method, seconds, PASS/FAIL); exits non-zero on any
# failure. The programs:
#   java   maven      Debian's Maven (`mvn -o validate`) on a generated multi-module project
#                     (scripts/corpus/maven-project.sh; $HIGHRISE_CORPUS_MAVEN_MODULES, default 300)
#   java   rhino      Debian's Rhino (Mozilla's JavaScript engine) interpreting an n-body
#                     simulation (scripts/corpus/rhino-nbody.js); its interpreter profiled
#   python pygments   Pygments highlighting its own source as HTML, on 3.11, 3.12, 3.13
#   python docutils   docutils building an HTML document from generated reST, on each Python
#   rust   corpus     examples/corpus-rust: serde_json and zstd in #[highrise_agent::profile] fns
#   java   jruby-attach    `highrise attach` (default mode) into Debian's JRuby running a Ruby
#                          program, then `highrise detach` (scripts/bench-attach.py --check: its
#                          rounds/s before, attached and detached in one run; top method vs JFR)
#   python docutils-attach the same into a running docutils on python3 (top method vs py-spy)
#   java   vt-service      the JDK's HttpServer, a virtual thread per request, compiled for 21 and
#                          run on the newest JDK 21+ here, under `ab` (50 at a time): fetch on top
#                          with ~50 threads, calls = requests served (scripts/corpus/vt_check.py)
#   python aiohttp-tasks   an aiohttp service under Apache's `ab` (50 at a time), on the first
#                          CPython 3.12+: fetch_user on top with ~50 tasks, calls = requests served
#                          (scripts/corpus/aiohttp_check.py)
# Installs what it needs: Maven and Rhino from Debian (scripts/install-java-deps.sh), the pinned
# Python libraries into the virtual environments scripts/test-python.sh makes
# ($HOME/.cache/highrise/python-venv-<version>, made here when missing).
# HIGHRISE_CORPUS=name,name runs a subset (maven, rhino, pygments, docutils, rust, jruby-attach,
# docutils-attach, aiohttp-tasks, vt-service);
# HIGHRISE_CORPUS_KEEP=1 keeps the recordings, reports and outputs (their folder is printed).
set -euo pipefail
cd "$(dirname "$0")/.."
root="$(pwd)"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/highrise/target}"
maven_modules="${HIGHRISE_CORPUS_MAVEN_MODULES:-300}"
# Pinned: the hot methods below were measured with these versions.
python_libs=(pygments==2.19.2 docutils==0.21.2)

wanted() { [ -z "${HIGHRISE_CORPUS:-}" ] || [[ ",$HIGHRISE_CORPUS," == *",$1,"* ]]; }

# --- what the programs need -------------------------------------------------------------------
scripts/install-java-deps.sh
jar="$root/agents/java/build/highrise-agent.jar"
if [ ! -f "$jar" ] || [ -n "$(find agents/java/src -newer "$jar" -name '*.java' | head -1)" ]; then
    agents/java/build.sh >/dev/null
fi
highrise="${HIGHRISE_BIN:-$CARGO_TARGET_DIR/debug/highrise}"
if [ ! -x "$highrise" ]; then
    # `cargo test --workspace` (scripts/test.sh, before this script) builds it; alone, the
    # headless build is enough here.
    cargo build --locked -p highrise-cli --no-default-features
fi
corpus_rust="${HIGHRISE_CORPUS_RUST_BIN:-$CARGO_TARGET_DIR/debug/corpus-rust}"
if [ -z "${HIGHRISE_CORPUS_RUST_BIN:-}" ]; then
    cargo build --locked -p highrise-example-corpus-rust
fi

# The interpreters, as scripts/test-python.sh finds them: python3, and 3.12/3.13 when present.
source scripts/find-pythons.sh
venvs=()
if wanted pygments || wanted docutils || wanted docutils-attach || wanted aiohttp-tasks; then
    for entry in "${pythons[@]}"; do
        python="${entry%=*}"
        version="${entry#*=}"
        agent_venv "$python" "$version"
        if ! "$venv/bin/python" - "${python_libs[@]}" <<'PY' 2>/dev/null; then
import sys
from importlib.metadata import version
sys.exit(0 if all(version(name) == want for name, want in (pin.split("==") for pin in sys.argv[1:])) else 1)
PY
            "$venv/bin/python" -m pip install -q --disable-pip-version-check "${python_libs[@]}"
        fi
        venvs+=("$venv=$version")
    done
fi

# --- one program --------------------------------------------------------------------------------
work="$(mktemp -d "${TMPDIR:-/tmp}/highrise-corpus.XXXXXX")"
recorder_pid=""
cleanup() {
    if [ -n "$recorder_pid" ]; then kill "$recorder_pid" 2>/dev/null || true; fi
    if [ -n "${HIGHRISE_CORPUS_KEEP:-}" ]; then
        echo "corpus: recordings, reports and outputs kept in $work"
    else
        rm -rf "$work"
    fi
}
trap cleanup EXIT
failures=0
passed=0

# run_case NAME EXPECTED TOP_N DIR COMMAND...: COMMAND runs in DIR with HIGHRISE_ADDR set; its
# stderr must hold the agent's line `highrise-agent: sent N events, dropped M`. EXPECTED is the
# method's `name` in the report (package.Class.method), which must be among the TOP_N methods by
# mean elevation.
run_case() {
    local name="$1" expected="$2" top_n="$3" dir="$4"
    shift 4
    local case_dir="$work/$name"
    mkdir -p "$case_dir/rec"
    local started
    started="$(date +%s.%N)"
    "$highrise" record --listen 127.0.0.1:0 --out "$case_dir/rec" \
        >"$case_dir/recorder.out" 2>"$case_dir/recorder.err" &
    recorder_pid=$!
    local addr="" i
    for ((i = 0; i < 100; i++)); do
        addr="$(awk '/^LISTENING /{print $2; exit}' "$case_dir/recorder.out" 2>/dev/null || true)"
        [ -n "$addr" ] && break
        sleep 0.1
    done
    local problems=()
    local rc=0
    if [ -z "$addr" ]; then
        problems+=("the recorder did not start listening")
    else
        (cd "$dir" && HIGHRISE_ADDR="$addr" "$@") >"$case_dir/program.out" 2>"$case_dir/program.err" || rc=$?
        [ "$rc" -eq 0 ] || problems+=("the program exited with $rc")
        # The live session must end (the agent's Goodbye) before the recorder is stopped.
        for ((i = 0; i < 200; i++)); do
            grep -q '^session .* ended' "$case_dir/recorder.out" && break
            sleep 0.1
        done
        grep -q '^session .* ended (goodbye)' "$case_dir/recorder.out" ||
            problems+=("no session ended with goodbye: $(grep '^session' "$case_dir/recorder.out" | head -1)")
    fi
    kill -INT "$recorder_pid" 2>/dev/null || true
    local recorder_rc=0
    wait "$recorder_pid" || recorder_rc=$?
    recorder_pid=""
    [ "$recorder_rc" -eq 0 ] || problems+=("the recorder exited with $recorder_rc")
    grep -q 'panicked' "$case_dir/recorder.err" && problems+=("the recorder panicked: $(grep -m1 panicked "$case_dir/recorder.err")")
    grep -q 'panicked' "$case_dir/program.err" 2>/dev/null && problems+=("the program panicked: $(grep -m1 panicked "$case_dir/program.err")")
    local files=("$case_dir"/rec/*.hrec)
    local events="-" top="-"
    if [ ! -f "${files[0]}" ] || [ "${#files[@]}" -ne 1 ]; then
        problems+=("expected one recording, found ${#files[@]}")
    elif ! "$highrise" report --json "${files[0]}" >"$case_dir/report.json" 2>"$case_dir/report.err"; then
        problems+=("highrise report failed: $(tail -1 "$case_dir/report.err")")
    else
        grep -q 'panicked' "$case_dir/report.err" && problems+=("the report panicked")
        # Prints "events<TAB>top method (elevation)", then one problem a line.
        local checked
        checked="$(python3 - "$case_dir/report.json" "$case_dir/program.err" "$expected" "$top_n" <<'PY'
import json, re, sys

report_path, stderr_path, expected, top_n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
with open(report_path) as f:
    report = json.load(f)
problems = []
if report.get("end") != "goodbye":
    problems.append("the recording ends with %r, not goodbye" % report.get("end"))
if report.get("errors"):
    problems.append("session errors: %s" % "; ".join(report["errors"][:3]))
if report.get("interrupted"):
    problems.append("the recording is interrupted: %s" % report["interrupted"])
with open(stderr_path, errors="replace") as f:
    # Without terminal colour codes (Maven's console writes some before the agent's line).
    said = re.findall(r"^highrise-agent: sent (\d+) events, dropped (\d+)$",
                      re.sub(r"\x1b\[[0-9;]*m", "", f.read()), re.M)
if len(said) != 1:
    problems.append("the agent said %d times how many events it sent (want once)" % len(said))
else:
    sent, dropped = map(int, said[0])
    if report["events"] != sent:
        problems.append("the session counted %d events, the agent sent %d" % (report["events"], sent))
    if report["events_dropped"] != dropped:
        problems.append("the session counted %d dropped, the agent dropped %d" % (report["events_dropped"], dropped))
# No false alarm (such as a jump at start-up): a steady program raises no stuck or jump alert,
# and a dropping alert only when its agent did drop events.
for alert in report.get("alerts", []):
    if alert["kind"] != "dropping" or report["events_dropped"] == 0:
        problems.append("a false alert: %s" % alert["text"])
methods = sorted(report["methods"], key=lambda m: -m["run_share_pct"])
top = methods[0] if methods else None
names = [m["name"] for m in methods[:top_n]]
if expected not in names:
    problems.append("%s is not %s by share of the run: %s" % (
        expected, "first" if top_n == 1 else "in the top %d" % top_n,
        ", ".join("%s %.1f%%" % (m["name"], m["run_share_pct"]) for m in methods[:max(top_n, 3)])))
print("%d\t%s" % (report["events"], "%s (%.1f%%)" % (top["name"], top["run_share_pct"]) if top else "-"))
for problem in problems:
    print(problem)
PY
)" || problems+=("checking the report failed")
        if [ -n "$checked" ]; then
            local first
            first="$(head -1 <<<"$checked")"
            events="${first%%$'\t'*}"
            top="${first#*$'\t'}"
            while IFS= read -r line; do
                [ -n "$line" ] && problems+=("$line")
            done < <(tail -n +2 <<<"$checked")
        fi
    fi
    local seconds
    seconds="$(python3 -c "import sys; print('%.1f' % (float(sys.argv[2]) - float(sys.argv[1])))" "$started" "$(date +%s.%N)")"
    if [ "${#problems[@]}" -eq 0 ]; then
        printf 'corpus: %-18s %10s events  top %-70s %6s s  PASS\n' "$name" "$events" "$top" "$seconds"
        passed=$((passed + 1))
    else
        printf 'corpus: %-18s %10s events  top %-70s %6s s  FAIL\n' "$name" "$events" "$top" "$seconds"
        for problem in "${problems[@]}"; do
            echo "    $problem"
        done
        echo "    (program stderr, last lines:)"
        tail -5 "$case_dir/program.err" 2>/dev/null | sed 's/^/      /'
        failures=$((failures + 1))
    fi
}

# --- the corpus -----------------------------------------------------------------------------------
corpus_started="$(date +%s.%N)"

if wanted maven; then
    # Reference (JFR, no agent: `MAVEN_OPTS=-XX:StartFlightRecording=settings=profile,...`, each
    # execution sample's innermost frame outside the JDK, 300 modules): ClassRealm.findClassInternal
    # (plexus-classworlds loading Maven's classes) 13-17 % of the samples, the next under 5 %. A
    # short Maven run is dominated by loading its own classes. (From ~1500 modules on, the
    # reactor's MavenProjectComparator.compare takes over: 44 % at 1500.)
    scripts/corpus/maven-project.sh "$maven_modules" "$work/maven-project"
    mkdir -p "$work/m2"
    run_case "java/maven" org.codehaus.plexus.classworlds.realm.ClassRealm.findClassInternal 1 \
        "$work/maven-project" \
        env MAVEN_OPTS="-javaagent:$jar=stats" \
        mvn -o -q -B validate -Dmaven.repo.local="$work/m2"
fi

if wanted rhino; then
    # -opt -1: Rhino's interpreter, whose class (and nested classes) is profiled. Reference (JFR,
    # no agent, each sample's innermost non-JDK frame, 100000 steps): Interpreter.interpretLoop
    # 49 % of the samples, Interpreter.doArithmetic 14 %, EmbeddedSlotMap.query 12 %; under the
    # agent interpretLoop leads by 3.5x or more (load average 5, ~40 % of the events dropped).
    # Not all of Rhino: that makes ~13000 profiled calls per step (1.3 billion for 100000 steps),
    # and on 2 busy cores its drops (or `lossless`'s waits) left interpretLoop first only by a
    # hair, or second: the agent's own cost, not the program's, decided the top.
    run_case "java/rhino" org.mozilla.javascript.Interpreter.interpretLoop 1 "$root/scripts/corpus" \
        java "-javaagent:$jar=stats,include=org.mozilla.javascript.Interpreter" \
        -cp /usr/share/java/js.jar org.mozilla.javascript.tools.shell.Main -opt -1 rhino-nbody.js 3000
fi

for entry in "${venvs[@]:-}"; do
    [ -n "$entry" ] || continue
    venv="${entry%=*}"
    version="${entry#*=}"
    if wanted pygments; then
        # Reference (py-spy 0.4.3 `record --format raw`, no agent, each sample's innermost frame in
        # pygments): RegexLexer.get_tokens_unprocessed 71-78 % of the samples on 3.11-3.13,
        # HtmlFormatter._format_lines 12-13 %.
        run_case "python$version/pygments" pygments.lexer.RegexLexer.get_tokens_unprocessed 1 "$work" \
            env HIGHRISE_STATS=on "$venv/bin/python" -m highrise_agent --include pygments \
            "$root/scripts/corpus/pygments_highlight.py" --rounds 2
    fi
    if wanted docutils; then
        # Top 3, not first: docutils' time is spread over many small functions. Reference (py-spy,
        # as for pygments, 100 sections): Node._fast_findall first on 3.11-3.13 with 10-12 % of
        # the samples, the second 7-9.5 % and a different one on each version
        # (State.make_transition, TextElement.__init__, document.note_source).
        run_case "python$version/docutils" docutils.nodes.Node._fast_findall 3 "$work" \
            env HIGHRISE_STATS=on "$venv/bin/python" -m highrise_agent --include docutils \
            "$root/scripts/corpus/docutils_build.py" --sections 100
    fi
done

if wanted rust; then
    # Reference: the program's own timing of each step without a viewer (`corpus-rust
    # --timings`): codec::compress (zstd level 19) 76 % of the work, checksum 8 %, encode 6 %.
    run_case "rust/corpus" corpus.codec.codec.compress 1 "$work" "$corpus_rust" --rounds 2
fi

# Attaching to big programs already running: what it costs them, what it shows, and the detach.
attach_case() {
    local name="$1"
    shift
    local started out
    started="$(date +%s.%N)"
    out="$work/$name.json"
    mkdir -p "$(dirname "$out")"
    if "$@" >"$out" 2>"$work/$name.err"; then
        passed=$((passed + 1))
        echo "corpus: $name $(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print("rounds/s %s, first city %s s, top %s" % (r["rounds_per_s"], r["first_city_s"], list(r["highrise_top"])[:1]))' "$out") PASS ($(python3 -c "import sys; print('%.1f' % (float(sys.argv[2]) - float(sys.argv[1])))" "$started" "$(date +%s.%N)") s)"
    else
        failures=$((failures + 1))
        echo "corpus: $name FAIL"
        cat "$out" "$work/$name.err"
    fi
}
if wanted jruby-attach; then
    attach_case "java/jruby-attach" python3 scripts/bench-attach.py --check --phase-s 8 --highrise "$highrise"
fi
if wanted docutils-attach && [ -n "${venvs[0]:-}" ]; then
    HIGHRISE_BENCH_PYTHON="${venvs[0]%=*}/bin/python" HIGHRISE_PY_SPY="$HOME/.cache/highrise/profilers-venv/bin/py-spy" \
        attach_case "python/docutils-attach" python3 scripts/bench-attach.py --python --check --phase-s 8 \
        --highrise "$highrise"
fi

# Services under a real load generator, Apache's `ab` (scripts/corpus/service_load.py).
need_ab() {
    if ! command -v ab >/dev/null 2>&1; then
        echo "corpus: installing apache2-utils (ab, the load generator)"
        apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq apache2-utils >/dev/null
    fi
}
# service_case NAME CHECK_SCRIPT ARGS...: the check prints its JSON summary, exits 1 on a failure.
service_case() {
    local name="$1" check="$2"
    shift 2
    need_ab
    local started out="$work/$name.json"
    started="$(date +%s.%N)"
    mkdir -p "$(dirname "$out")"
    if python3 "scripts/corpus/$check" "$@" 3000 >"$out" 2>"$work/$name.err"; then
        passed=$((passed + 1))
        echo "corpus: $name $(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); w=r.get("waits_in"); print(r.get("skipped") or "%s requests, %s/s, top %s %.1f %%, %d threads in it, calls %s" % (r["served"], r["requests_per_s"], r["top"], r["top_run_pct"], w["max_thread_count"], r["calls"]))' "$out") PASS ($(python3 -c "import sys; print('%.1f' % (float(sys.argv[2]) - float(sys.argv[1])))" "$started" "$(date +%s.%N)") s)"
    else
        failures=$((failures + 1))
        echo "corpus: $name FAIL"
        cat "$out" "$work/$name.err"
    fi
}
if wanted vt-service; then
    service_case "java/vt-service" vt_check.py "$jar" "$highrise"
fi
# asyncio tasks as threads in a real framework (aiohttp, pinned), on the first CPython 3.12+.
aiohttp_venv=""
for entry in "${venvs[@]}"; do
    if [ -z "$aiohttp_venv" ] && [[ "${entry#*=}" != 3.11* ]]; then aiohttp_venv="${entry%=*}"; fi
done
if wanted aiohttp-tasks && [ -n "$aiohttp_venv" ]; then
    "$aiohttp_venv/bin/python" -c 'import aiohttp, sys; sys.exit(aiohttp.__version__ != "3.14.5")' 2>/dev/null \
        || "$aiohttp_venv/bin/python" -m pip install -q --disable-pip-version-check aiohttp==3.14.5
    service_case "python/aiohttp-tasks" aiohttp_check.py "$aiohttp_venv/bin/python" "$highrise"
fi

total="$(python3 -c "import sys; print('%.1f' % (float(sys.argv[2]) - float(sys.argv[1])))" "$corpus_started" "$(date +%s.%N)")"
echo "corpus: $passed passed, $failures failed ($total s)"
[ "$failures" -eq 0 ]
