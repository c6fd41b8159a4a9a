"""Where rendered output goes: a bounded ring of recent outputs, and a counting sink."""
import threading
from collections import deque


class Ring:
    def __init__(self, capacity=64):
        self._items = deque(maxlen=capacity)
        self._lock = threading.Lock()

    def push(self, item):
        with self._lock:
            self._items.append(item)

    def drain(self):
        with self._lock:
            items = list(self._items)
            self._items.clear()
        return items


class Sink:
    """Counts bytes written per format and keeps the last few outputs."""

    def __init__(self):
        self.bytes_by_format = {}
        self.recent = Ring()
        self._lock = threading.Lock()

    def write(self, fmt, text):
        with self._lock:
            self.bytes_by_format[fmt] = self.bytes_by_format.get(fmt, 0) + len(text)
        self.recent.push((fmt, text[:80]))

    def flush(self):
        return self.recent.drain()

    def size(self):
        with self._lock:
            return sum(self.bytes_by_format.values())
