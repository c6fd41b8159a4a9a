"""Time helpers shared by the app and the threads."""
import time


def monotonic_s():
    return time.monotonic()


class Ticker:
    """Fires every `period_s` seconds (checked by polling)."""

    def __init__(self, period_s, start_s=None):
        self.period_s = period_s
        self.next_s = (monotonic_s() if start_s is None else start_s) + period_s
        self.fired = 0

    def due(self, now_s=None):
        now_s = monotonic_s() if now_s is None else now_s
        if now_s < self.next_s:
            return False
        self.fired += 1
        self.next_s += self.period_s
        if self.next_s < now_s:  # fell behind: do not fire a burst
            self.next_s = now_s + self.period_s
        return True

    def wait(self, stop_event, timeout_s):
        return stop_event.wait(min(timeout_s, max(0.0, self.next_s - monotonic_s())))


class Deadline:
    """A point in time, or none (`seconds=None`: never expires)."""

    def __init__(self, seconds):
        self.end_s = None if seconds is None else monotonic_s() + seconds

    def remaining(self):
        if self.end_s is None:
            return float("inf")
        return max(0.0, self.end_s - monotonic_s())

    def expired(self):
        return self.end_s is not None and monotonic_s() >= self.end_s
