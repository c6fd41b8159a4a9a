"""What each way of measuring costs a large pure-Python workload of many tiny functions, and
whether it finds the same hot spots: docutils (from the package registry, every one of its
functions profiled: `--include docutils`) building an HTML document, the corpus program
`scripts/corpus/docutils_build.py`. Each variant runs in a fresh process, variants interleaved
run by run; the figure is the whole process's wall time (start-up included), median of --runs:

    plain     no profiler
    cprofile  python -m cProfile (the standard library's deterministic profiler)
    py-spy    py-spy record --rate 100 from outside the process (when `py-spy` is on PATH or
              beside the interpreter)
    exact     the highrise agent, --mode exact (every call), into `highrise record`
    sampled   --mode sampled (every thread's stack every 10 ms, no hook)
    auto      the default: exact until the program makes more than 1 M events/s, then sampled
    same-run  (with py-spy) the sampled mode with py-spy recording the same process: both views
              of one run, method by method (runs differ; py-spy's samples of the agent's own
              thread are left out)

Then the top 5 by py-spy (each sample's innermost docutils frame, the "nearest profiled frame"
highrise uses, as a share of all samples) beside each highrise mode's top 5 by share of the run
(`highrise report --json`'s `run_share_pct`, of the last run's recording).

    pip install docutils py-spy ./agents/python
    python agents/python/bench/bench_modes.py [--runs 5] [--sections 300] [--variants a,b]

`highrise` defaults to $HIGHRISE_BIN, else $CARGO_TARGET_DIR (or ~/.cache/highrise/target)
/debug/highrise.
"""

import argparse
import collections
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
SCRIPT = os.path.join(ROOT, "scripts", "corpus", "docutils_build.py")
MODES = ("exact", "sampled", "auto")


def highrise_path():
    if os.environ.get("HIGHRISE_BIN"):
        return os.environ["HIGHRISE_BIN"]
    target = os.environ.get("CARGO_TARGET_DIR") or os.path.expanduser("~/.cache/highrise/target")
    return os.path.join(target, "debug", "highrise")


def py_spy_path():
    beside = os.path.join(os.path.dirname(sys.executable), "py-spy")
    return beside if os.path.exists(beside) else shutil.which("py-spy")


def run_once(variant, sections, work):
    """(wall seconds, stderr, output file or None)."""
    program = [SCRIPT, "--sections", str(sections)]
    env = dict(os.environ, HIGHRISE_STATS="on")
    out = os.path.join(work, variant + ".out")
    record = None
    if variant == "plain":
        command = [sys.executable] + program
    elif variant == "cprofile":
        command = [sys.executable, "-m", "cProfile", "-o", out] + program
    elif variant == "py-spy":
        command = [py_spy_path(), "record", "--rate", "100", "--format", "raw", "-o", out, "--"]
        command += [sys.executable] + program
    else:
        mode = "sampled" if variant == "same-run" else variant
        if os.path.exists(out):
            os.remove(out)
        record = subprocess.Popen(
            [highrise_path(), "record", "--listen", "127.0.0.1:0", "--out", out, "--sessions", "1"],
            stdout=subprocess.PIPE,
            text=True,
        )
        env["HIGHRISE_ADDR"] = record.stdout.readline().split()[1]
        command = [sys.executable, "-m", "highrise_agent", "--mode", mode, "--include", "docutils"] + program
        if variant == "same-run":
            spied = out + ".py-spy"
            command = [py_spy_path(), "record", "--rate", "100", "--format", "raw", "-o", spied, "--"] + command
    started = time.monotonic()
    done = subprocess.run(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    elapsed = time.monotonic() - started
    if record is not None:
        record.communicate(timeout=120)
    if done.returncode != 0:
        raise SystemExit("%s failed:\n%s" % (variant, done.stderr))
    return elapsed, done.stderr, out if variant != "plain" else None


def py_spy_top(raw_path, count):
    """[(name, share %)] of the innermost docutils frame of each sample, as shares of the program
    thread's samples (the agent's own thread left out)."""
    counts = collections.Counter()
    total = 0
    with open(raw_path) as raw:
        for line in raw:
            stack, _, samples = line.rstrip("\n").rpartition(" ")
            if not samples.isdigit() or "highrise_agent/_agent.py" in stack:
                continue
            total += int(samples)
            for frame in reversed(stack.split(";")):
                match = re.match(r"(.*) \((.*docutils/.*?)\.py(?::\d+)?\)$", frame)
                if match:
                    function, path = match.groups()
                    module = path[path.rindex("docutils/") :].replace("/", ".")
                    counts["%s %s" % (module.removesuffix(".__init__"), function)] += int(samples)
                    break
    return [(name, 100.0 * n / total) for name, n in counts.most_common(count)]


def highrise_top(recording, count):
    report = subprocess.run(
        [highrise_path(), "report", "--json", recording], capture_output=True, text=True, check=True
    )
    methods = json.loads(report.stdout)["methods"]
    methods.sort(key=lambda m: -m["run_share_pct"])
    return [("%s %s.%s" % (m["package"], m["class"], m["method"]), m["run_share_pct"]) for m in methods[:count]]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--sections", type=int, default=300)
    parser.add_argument("--variants", default=None, help="comma-separated subset")
    parser.add_argument("--top", type=int, default=5)
    args = parser.parse_args()
    variants = ["plain", "cprofile"] + (["py-spy"] if py_spy_path() else []) + list(MODES)
    variants += ["same-run"] if py_spy_path() else []
    if args.variants:
        variants = [v for v in args.variants.split(",") if v]
    print("CPython %s, docutils %d sections, %d runs" % (sys.version.split()[0], args.sections, args.runs))
    times = {variant: [] for variant in variants}
    last = {}
    with tempfile.TemporaryDirectory() as work:
        for _ in range(args.runs):
            for variant in variants:
                elapsed, stderr, out = run_once(variant, args.sections, work)
                times[variant].append(elapsed)
                last[variant] = (stderr, out)
        base = statistics.median(times["plain"]) if "plain" in times else None
        for variant in variants:
            median = statistics.median(times[variant])
            ratio = " %.2fx" % (median / base) if base else ""
            runs = " ".join("%.2f" % t for t in times[variant])
            notes = " ".join(
                line.split("highrise-agent: ", 1)[1][:90]
                for line in last[variant][0].splitlines()
                if line.startswith("highrise-agent: ")
            )
            print("%-9s %6.2f s%s  (%s)  %s" % (variant, median, ratio, runs, notes))
        tops = {}
        if "py-spy" in last:
            tops["py-spy"] = py_spy_top(last["py-spy"][1], args.top)
        for mode in MODES:
            if mode in last:
                tops[mode] = highrise_top(last[mode][1], args.top)
        if "same-run" in last:
            recording = last["same-run"][1]
            ours = dict(highrise_top(recording, 10**6))
            print("same run, sampled mode with py-spy on it: py-spy share / highrise share of the run")
            for method, share in py_spy_top(recording + ".py-spy", args.top):
                print("  %5.1f %%  %5.1f %%  %s" % (share, ours.get(method, 0.0), method))
        for name, top in tops.items():
            print("top %d, %s (last run):" % (args.top, name))
            for method, share in top:
                print("  %5.1f %%  %s" % (share, method))


if __name__ == "__main__":
    main()
