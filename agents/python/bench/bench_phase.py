"""What a phase mark costs (issue 16's goal: at most 1 µs): `with highrise_agent.phase("p"): pass`
timed in a loop, in this process, with the agent running and streaming to a real listener
(`highrise record` into a temporary directory), against the same loop with no agent (the mark
then only reads a global).

    python agents/python/bench/bench_phase.py [--marks 200000] [--backend native|python]

`highrise` is $HIGHRISE_BIN, else $CARGO_TARGET_DIR (or ~/.cache/highrise/target)/debug/highrise.
"""

import argparse
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
    options = parser.parse_args()
    base = min(empty_loop(options.marks) for _ in range(3))
    off = min(loop(options.marks) for _ in range(3)) - base
    with tempfile.TemporaryDirectory() as out:
        record = subprocess.Popen(
            [highrise_bin(), "record", "--out", out, "--listen", "127.0.0.1:0", "--sessions", "1"],
            stdout=subprocess.PIPE,
            text=True,
        )
        addr = record.stdout.readline().split()[1]
        agent = highrise_agent.start(addr=addr, backend=options.backend, buffer_events=1 << 20)
        assert agent is not None, "the agent did not connect"
        on = min(loop(options.marks) for _ in range(3)) - base
        highrise_agent.stop()
        record.wait(timeout=60)
    print(
        "python %d.%d, %s recorder: a phase mark (enter + exit) costs %.0f ns with the agent, "
        "%.0f ns without (%d marks, best of 3, loop overhead removed)"
        % (sys.version_info[0], sys.version_info[1], options.backend, on, off, options.marks)
    )


if __name__ == "__main__":
    main()
