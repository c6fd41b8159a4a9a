"""What a phase mark costs (the goal: at most 1 µs): `with highrise_agent.phase("p"): pass`
timed in a loop, in this process, with the agent running and streaming to a real listener
(`highrise record` into a temporary directory), against the same loop with no agent (the mark
then only reads a global).

    python agents/python/bench/bench_phase.py [--marks 200000] [--backend native|python]
    python agents/python/bench/bench_phase.py --live 1000000 [--marks 20]

`--live N`: the agent's live-object snapshots on (`live=True`), N instances of a class kept
alive (and N/10 lists holding them): what one mark's end costs with a collection, a walk of the
collector's objects and a size per instance.

`highrise` is $HIGHRISE_BIN, else $CARGO_TARGET_DIR (or ~/.cache/highrise/target)/debug/highrise.
"""

import argparse
import contextlib
import os
import subprocess
import sys
import tempfile
import time

import highrise_agent


def highrise_bin():
    explicit = os.environ.get("HIGHRISE_BIN")
    if explicit:
        return explicit
    target = os.environ.get("CARGO_TARGET_DIR") or os.path.expanduser("~/.cache/highrise/target")
    return os.path.join(target, "debug", "highrise")


@contextlib.contextmanager
def agent_recorded(wait_s, **options):
    """The agent started with `options`, streaming to `highrise record` (into a temporary
    directory) until the block ends; yields the agent."""
    with tempfile.TemporaryDirectory() as out:
        record = subprocess.Popen(
            [highrise_bin(), "record", "--out", out, "--listen", "127.0.0.1:0", "--sessions", "1"],
            stdout=subprocess.PIPE,
            text=True,
        )
        addr = record.stdout.readline().split()[1]
        agent = highrise_agent.start(addr=addr, **options)
        try:
            yield agent
        finally:
            highrise_agent.stop()
            record.wait(timeout=wait_s)


def loop(marks):
    phase = highrise_agent.phase("bench")
    start = time.perf_counter_ns()
    for _ in range(marks):
        with phase:
            pass
    return (time.perf_counter_ns() - start) / marks


def empty_loop(marks):
    start = time.perf_counter_ns()
    for _ in range(marks):
        pass
    return (time.perf_counter_ns() - start) / marks


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--marks", type=int, default=200_000)
    parser.add_argument("--backend", default="native")
    parser.add_argument("--live", type=int, default=None, metavar="N")
    options = parser.parse_args()
    if options.live is not None:
        return live_main(options)
    base = min(empty_loop(options.marks) for _ in range(3))
    off = min(loop(options.marks) for _ in range(3)) - base
    with agent_recorded(60, backend=options.backend, buffer_events=1 << 20) as agent:
        assert agent is not None, "the agent did not connect"
        on = min(loop(options.marks) for _ in range(3)) - base
    print(
        "python %d.%d, %s recorder: a phase mark (enter + exit) costs %.0f ns with the agent, "
        "%.0f ns without (%d marks, best of 3, loop overhead removed)"
        % (sys.version_info[0], sys.version_info[1], options.backend, on, off, options.marks)
    )


class Kept:
    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value


def live_main(options):
    """Marks with live snapshots on, N objects live."""
    with agent_recorded(120, backend=options.backend, live=True, include=["__main__"]) as agent:
        assert agent is not None and agent.live, "the agent did not connect with live=True"
        kept = make_kept(options.live)
        assert sum(map(len, kept)) == options.live
        marks = options.marks if options.marks != 200_000 else 20
        best = min(loop(marks) for _ in range(3))
    print(
        "python %d.%d: a phase mark with a live snapshot costs %.1f ms with %d instances kept live "
        "(%d objects in all for the collector; best of 3 x %d marks)"
        % (sys.version_info[0], sys.version_info[1], best / 1e6, options.live, len(__import__("gc").get_objects()), marks)
    )


def make_kept(n):
    """N Kept instances made in a profiled function (so their class has an id), in lists of 10."""
    return [[Kept(i) for i in range(j, min(n, j + 10))] for j in range(0, n, 10)]


if __name__ == "__main__":
    main()
