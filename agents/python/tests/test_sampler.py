"""The sampler's switch interval: short while the program runs on one thread (a sample then
waits for the GIL at most that long instead of landing on the program's next I/O), the
program's own as soon as it has more threads, and never one the program set itself clobbered."""

import sys

from highrise_agent import _sampler


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
