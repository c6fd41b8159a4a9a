"""The GIL-free stack reader (`_stacks`): it reads a thread that holds the GIL in one long C
call, where a sampler that needs the GIL sees nothing, and it gives every thread's frames in
order. The GIL-bound sampler's switch interval: short while the program runs on one thread (a
sample then waits for the GIL at most that long instead of landing on the program's next I/O),
the program's own as soon as it has more threads, and never one the program set itself
clobbered."""

import os
import sys
import threading
import time

import pytest

from highrise_agent import _sampler

try:
    from highrise_agent import _stacks as stacks
except ImportError:
    # CI builds the extensions (HIGHRISE_REQUIRE_NATIVE=1): there the reader must exist on 3.11-3.13.
    if os.environ.get("HIGHRISE_REQUIRE_NATIVE") == "1" and (3, 11) <= sys.version_info < (3, 14):
        raise
    stacks = None


def inside_c_call():
    """Holds the GIL for a few hundred milliseconds in one C call (no Python code runs in it)."""
    return sorted(range(3_000_000, 0, -1), reverse=True)[:1] + sorted([str(i) for i in range(400_000)])[:1]


def outer():
    return inside_c_call()


def parked(event):
    event.wait()


@pytest.mark.skipif(stacks is None, reason="no GIL-free reader for this Python")
def test_stacks_reads_a_thread_inside_one_long_c_call_and_every_thread_s_frames():
    release = threading.Event()
    waiter = threading.Thread(target=parked, args=(release,))
    waiter.start()
    stacks.start(0.002)
    try:
        started = time.monotonic()
        outer()
        took_s = time.monotonic() - started
    finally:
        stacks.stop()
        release.set()
        waiter.join()
    batch = stacks.drain()
    assert stacks.counts()["dropped"] == 0
    main, code_c, code_outer = threading.get_ident(), id(inside_c_call.__code__), id(outer.__code__)
    # The main thread's samples with inside_c_call on top (innermost first) and outer under it.
    in_c = [ts for ts, ident, pointers in batch if ident == main and pointers[:2] == (code_c, code_outer)]
    # One every 2 ms while it ran, less the machine's noise; a GIL-bound reader gets none.
    assert len(in_c) >= took_s / 0.002 * 0.5, (len(in_c), took_s)
    assert in_c == sorted(in_c)
    waits = [pointers for _, ident, pointers in batch if ident == waiter.ident]
    # Parked all along (its first sample may come before it reached `parked`).
    assert waits and sum(id(parked.__code__) in pointers for pointers in waits) >= len(waits) - 1, waits[:3]


def test_switch_interval_is_short_on_one_thread_and_the_program_s_own_otherwise():
    own = sys.getswitchinterval()
    sampler = _sampler.Sampler(methods=None, period_s=0.01)
    try:
        sampler._tune_switch_interval(1)
        assert abs(sys.getswitchinterval() - _sampler.SAMPLING_SWITCH_INTERVAL_S) < 1e-9
        sampler._tune_switch_interval(1)  # idempotent
        sampler._tune_switch_interval(3)  # the program starts threads: its interval is back
        assert sys.getswitchinterval() == own
        sampler._tune_switch_interval(1)
        assert abs(sys.getswitchinterval() - _sampler.SAMPLING_SWITCH_INTERVAL_S) < 1e-9
        sampler.restore_switch_interval()  # the session ends
        assert sys.getswitchinterval() == own
    finally:
        sys.setswitchinterval(own)


def test_an_interval_the_program_set_meanwhile_is_left_alone():
    own = sys.getswitchinterval()
    sampler = _sampler.Sampler(methods=None, period_s=0.01)
    try:
        sampler._tune_switch_interval(1)
        sys.setswitchinterval(0.02)  # the program's own choice, while sampled
        sampler.restore_switch_interval()
        assert sys.getswitchinterval() == 0.02
    finally:
        sys.setswitchinterval(own)
