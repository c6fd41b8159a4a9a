"""What allocation counting costs on an allocation-heavy real workload: docutils (pure Python, from
the package registry) rendering a reStructuredText document to HTML, timed in fresh processes:

    baseline      no agent
    agent         the agent streaming to a real listener (highrise-probe), --alloc off
    agent+alloc   the same with --alloc on (3.13+: types; 3.11/3.12: blocks)
    agent+blocks  (3.13+ only) --alloc blocks, the 3.11/3.12 way, for comparison
    floor-noop    (3.12+) no agent: the agent's sys.monitoring events with a C callback that does
                  nothing, for every function (not only the profiled ones): CPython's own cost
    floor-clock   (3.12+) the same, the callback reading the event clock (RDTSC) once
    tracemalloc   tracemalloc.start() (one frame), no agent
    memray        memray.Tracker (when memray is importable), no agent

By default the agent profiles only the driver (docutils is site-packages: excluded, its
allocations count for the driver's `render`), as for a program that uses a library; with
--include-library it profiles docutils' own functions too (every call an event, every allocation
in its own frame). Wall time of the render (after imports and agent start), median of --runs,
variants interleaved run by run. Also prints the objects (3.13) or blocks counted per render.

    pip install docutils memray            # in the interpreter that runs the agent
    python agents/python/bench/bench_alloc.py [--runs 5] [--sections 400] [--include-library]
    python agents/python/bench/bench_alloc.py --workload objects [--sections 500]

`--workload objects` times a loop making SECTIONS x 10000 small objects instead (no library):
the added nanoseconds per object.

The probe defaults to $HIGHRISE_PROBE, else $CARGO_TARGET_DIR (or ~/.cache/highrise/target)
/debug/highrise-probe.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

WORKLOAD = r"""
import sys, time
variant, sections, include, workload = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "1", sys.argv[4]

if workload == "objects":  # the cost per object: a loop making `sections` * 10000 small objects
    class Point:
        __slots__ = ("x", "y")

    def publish_string(count, writer_name=None):
        made = 0
        while made < count:
            Point(); Point(); Point(); Point(); Point(); Point(); Point(); Point(); Point(); Point()
            made += 10
        return "x" * made

    def document(count):
        return count * 10000
else:
    from docutils.core import publish_string

PARAGRAPH = (
    "The *viewer* draws each **method** as a building; its height is the share of the last "
    "few seconds it ran (``elevation``). See `the paper`_ and [Wettel2008]_ for the metaphor, "
    "and :emphasis:`districts` for packages. Numbers: %d, %d, %d."
)

def rst_document(count):
    lines = ["=================", "A generated guide", "=================", ""]
    for i in range(count):
        title = "Section %d: classes and methods" % i
        lines += [title, "-" * len(title), "", PARAGRAPH % (i, i * 7, i * 13), ""]
        lines += ["- item %d with *emphasis*" % j for j in range(5)] + [""]
        lines += ["#. step %d: ``call(%d)``" % (j, j) for j in range(3)] + [""]
        lines += ["+-------+--------+", "| name  | value  |", "+=======+========+"]
        for j in range(3):
            lines += ["| m%-4d | %-6d |" % (j, i * j), "+-------+--------+"]
        lines += ["", "::", "", "    def f%d(x):" % i, "        return x * %d" % i, ""]
        lines += [".. note:: Note %d, see `%s`_." % (i, title), ""]
    lines += [".. _the paper: https://example.org/paper", "", ".. [Wettel2008] Wettel and Lanza.", ""]
    return "\n".join(lines)

if workload != "objects":
    document = rst_document
TEXT = document(sections)
publish_string(document(2), writer_name="html5")  # warm: regexes, lazy imports

agent = None
if variant.startswith("agent"):
    import highrise_agent
    alloc = {"agent": "off", "agent+alloc": "on", "agent+blocks": "blocks"}[variant]
    agent = highrise_agent.start(
        program="bench-alloc", alloc=alloc, include=["docutils"] if include else ()
    )
    assert agent is not None, "no listener"
elif variant.startswith("floor-"):  # CPython's dispatch of the agent's events, nothing recorded
    from highrise_agent import _native
    monitoring, events = sys.monitoring, sys.monitoring.events
    monitoring.use_tool_id(monitoring.PROFILER_ID, "floor")
    callback = _native.floor_noop if variant == "floor-noop" else _native.floor_clock
    watched = (events.PY_START, events.PY_RESUME, events.PY_THROW, events.PY_RETURN, events.PY_YIELD, events.PY_UNWIND)
    for event in watched:
        monitoring.register_callback(monitoring.PROFILER_ID, event, callback)
    monitoring.set_events(monitoring.PROFILER_ID, sum(watched))  # distinct bits: the sum is the mask
elif variant == "tracemalloc":
    import tracemalloc
    tracemalloc.start()
elif variant == "memray":
    import memray, tempfile, os
    capture = os.path.join(tempfile.mkdtemp(), "bench.memray")
    tracker = memray.Tracker(capture)
    tracker.__enter__()

def render(text):
    return publish_string(text, writer_name="html5")

start = time.perf_counter()
html = render(TEXT)
elapsed = time.perf_counter() - start
if variant == "memray":
    tracker.__exit__(None, None, None)
print(elapsed, len(html), agent.recorder.dropped_total if agent else 0)
"""

# The fast listener: reads and discards everything (after a Welcome), so that the figures are the
# agent's cost and not a debug-built listener's backpressure.
SINK = r"""
import socket, sys
from highrise_agent import _wire
server = socket.socket()
server.bind(("127.0.0.1", 0))
server.listen(1)
print("LISTENING 127.0.0.1:%d" % server.getsockname()[1], flush=True)
conn, _ = server.accept()
conn.sendall(_wire.welcome(_wire.PROTOCOL_VERSION, 1))
total = 0
while True:
    data = conn.recv(1 << 20)
    if not data:
        break
    total += len(data)
conn.close()
print(total)
"""


def probe_path(explicit):
    if explicit:
        return explicit
    if os.environ.get("HIGHRISE_PROBE"):
        return os.environ["HIGHRISE_PROBE"]
    target = os.environ.get("CARGO_TARGET_DIR") or os.path.expanduser("~/.cache/highrise/target")
    return os.path.join(target, "debug", "highrise-probe")


def run_once(script, sink, variant, args, probe, listener_kind):
    env = dict(os.environ)
    env.pop("HIGHRISE_ALLOC", None)
    listener = None
    if variant.startswith("agent"):
        if listener_kind == "probe":
            command = [probe, "--listen", "127.0.0.1:0", "--sessions", "1", "--timeout-s", "600"]
        else:
            command = [sys.executable, sink]
        listener = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
        env["HIGHRISE_ADDR"] = listener.stdout.readline().split()[1]
    done = subprocess.run(
        [sys.executable, script, variant, str(args.sections), "1" if args.include_library else "0", args.workload],
        env=env,
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        raise SystemExit("%s failed:\n%s" % (variant, done.stderr))
    elapsed, _, dropped = done.stdout.split()[:3]
    counted = None
    if listener is not None:
        out, _ = listener.communicate(timeout=600)
        if listener_kind == "probe":
            counted = json.loads(out.splitlines()[-1])["stats"]["allocations"]
    return float(elapsed), counted, int(dropped)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--sections", type=int, default=400, help="size of the rendered document")
    parser.add_argument("--include-library", action="store_true", help="profile docutils itself too")
    parser.add_argument(
        "--workload",
        choices=("docutils", "objects"),
        default="docutils",
        help="objects: a loop making SECTIONS x 10000 small objects (the cost per object)",
    )
    parser.add_argument("--probe", default=None)
    parser.add_argument(
        "--listener",
        choices=("sink", "probe"),
        default="sink",
        help="sink (default): a listener that discards what it reads; probe: highrise-probe, which "
        "also says how many objects were counted (a debug build can slow the agent down)",
    )
    parser.add_argument("--variants", default=None, help="comma-separated subset")
    args = parser.parse_args()
    probe = probe_path(args.probe)
    variants = ["baseline", "agent", "agent+alloc"]
    if sys.version_info >= (3, 13):
        variants.append("agent+blocks")
    variants.append("tracemalloc")
    try:
        import memray  # noqa: F401

        variants.append("memray")
    except ImportError:
        print("(memray is not installed: pip install memray)")
    if args.variants:
        variants = [v for v in args.variants.split(",") if v]
    with tempfile.TemporaryDirectory() as tmp:
        script = os.path.join(tmp, "workload.py")
        with open(script, "w") as out:
            out.write(WORKLOAD)
        sink = os.path.join(tmp, "sink.py")
        with open(sink, "w") as out:
            out.write(SINK)
        times = {variant: [] for variant in variants}
        counted = {}
        for _ in range(args.runs):
            for variant in variants:
                elapsed, allocations, dropped = run_once(script, sink, variant, args, probe, args.listener)
                times[variant].append(elapsed)
                if variant.startswith("agent"):
                    counted[variant] = (allocations, dropped)
    base = statistics.median(times["baseline"]) if "baseline" in times else None
    if args.workload == "objects":
        what = "a loop making %d objects" % (args.sections * 10000)
    else:
        what = "docutils render of %d sections, %s" % (
            args.sections,
            "docutils profiled (--include)" if args.include_library else "docutils excluded (library)",
        )
    print("CPython %s, %s, median of %d runs" % (".".join(map(str, sys.version_info[:3])), what, args.runs))
    for variant in variants:
        median = statistics.median(times[variant])
        line = "  %-13s %7.3f s" % (variant, median)
        if base:
            line += "  %5.2fx" % (median / base)
        if variant == "agent+alloc" and "agent" in times:
            line += "  (%.2fx the agent without counting)" % (median / statistics.median(times["agent"]))
        if variant in counted:
            allocations, dropped = counted[variant]
            if allocations is not None:
                line += "  [%s counted]" % format(allocations, ",")
            line += "  [%d events dropped]" % dropped
        if args.workload == "objects" and base and variant != "baseline":
            line += "  %+.1f ns/object" % ((median - base) * 1e9 / (args.sections * 10000))
        line += "  runs: " + " ".join("%.3f" % t for t in times[variant])
        print(line)


if __name__ == "__main__":
    main()
