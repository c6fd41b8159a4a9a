"""Per-call cost of the highrise Python agent: a tight loop of calls to an empty function, timed
without the agent and with it (native and pure-Python recorders) streaming to a real listener
(highrise-probe). Cost per call = (time with agent - time without) / calls; each call is one
enter and one exit event. Medians of --runs fresh processes per variant.

    python bench/bench_call.py [--calls 1000000] [--runs 5] [--workload empty|library] [--probe PATH]

The probe defaults to $HIGHRISE_PROBE, else $CARGO_TARGET_DIR (or ~/.cache/highrise/target)
/debug/highrise-probe. Prints one line per variant and the listener's drop counts.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys

WORKLOAD = r"""
import sys, time
calls = int(sys.argv[1])
variant = sys.argv[2]
if variant != "baseline":
    import highrise_agent
    agent = highrise_agent.start(backend=variant, program="bench-" + variant)
    assert agent is not None, "no listener"

if sys.argv[3] == "empty":
    def leaf():
        pass
else:  # "library": each profiled call spends its time in excluded standard-library code
    import posixpath
    def leaf():
        posixpath.join("a", "b")
        posixpath.basename("/x/y")

def loop(n):
    for _ in range(n):
        leaf()

loop(1000)
c0 = time.process_time_ns()
t0 = time.perf_counter_ns()
loop(calls)
t1 = time.perf_counter_ns()
c1 = time.process_time_ns()
print(t1 - t0, c1 - c0)
"""


def default_probe():
    target = os.environ.get("CARGO_TARGET_DIR") or os.path.expanduser("~/.cache/highrise/target")
    return os.environ.get("HIGHRISE_PROBE") or os.path.join(target, "debug", "highrise-probe")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=1_000_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--probe", default=default_probe())
    parser.add_argument("--variants", default="baseline,native,python")
    parser.add_argument(
        "--workload",
        choices=("empty", "library"),
        default="empty",
        help="empty: calls of an empty function; library: each call also makes 2 calls into "
        "the standard library (posixpath: ~6 Python-level calls, not recorded)",
    )
    args = parser.parse_args()
    variants = args.variants.split(",")
    probe = subprocess.Popen(
        [args.probe, "--listen", "127.0.0.1:0", "--timeout-s", "3600"],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        addr = probe.stdout.readline().split()[1]
        env = dict(os.environ, HIGHRISE_ADDR=addr)
        times = {variant: [] for variant in variants}
        cpu = {variant: [] for variant in variants}
        sessions = []
        for _ in range(args.runs):
            for variant in variants:  # interleaved, so load changes hit every variant alike
                out = subprocess.run(
                    [sys.executable, "-c", WORKLOAD, str(args.calls), variant, args.workload],
                    env=env,
                    cwd="/",  # import the installed agent, not a source tree next to cwd
                    check=True,
                    capture_output=True,
                    text=True,
                ).stdout
                wall_ns, cpu_ns = out.split()[-2:]
                times[variant].append(int(wall_ns))
                cpu[variant].append(int(cpu_ns))
                if variant != "baseline":
                    sessions.append(json.loads(probe.stdout.readline()))
        print(
            "python %s, %s workload, %d calls, median of %d runs"
            % (sys.version.split()[0], args.workload, args.calls, args.runs)
        )
        for label, table in (("wall", times), ("cpu (all threads)", cpu)):
            base = statistics.median(table["baseline"]) / args.calls if "baseline" in table else 0.0
            print(" %s:" % label)
            for variant in variants:
                per_call = statistics.median(table[variant]) / args.calls
                extra = "" if variant == "baseline" else "  (+%.0f ns per call)" % (per_call - base)
                print("  %-8s %7.1f ns per call%s" % (variant, per_call, extra))
        for variant in variants[1:] if variants[0] == "baseline" else variants:
            dropped = [s["stats"]["agent_events_dropped"] for s in sessions if s["program"] == "bench-" + variant]
            events = [s["stats"]["events"] for s in sessions if s["program"] == "bench-" + variant]
            print(
                "  %s: median %d events received, %d dropped per run"
                % (variant, statistics.median(events), statistics.median(dropped))
            )
    finally:
        probe.kill()
        probe.wait()


if __name__ == "__main__":
    main()
