"""A thread records a burst, then stays alive and idle: its event buffers must be given back
(the native drain hands a busy thread its drained buffer back, and frees both once it idles).
Prints the bytes held by the threads' buffers just after the burst and after 1.5 s idle."""
import threading
import time

from highrise_agent import _native

burst_done = threading.Event()
release = threading.Event()


def leaf():
    return 1


def burst():
    for _ in range(20_000):
        leaf()
    burst_done.set()
    release.wait()


worker = threading.Thread(target=burst)
worker.start()
burst_done.wait()
time.sleep(0.05)  # a few drains: the worker's buffer and its spare
busy = _native.buffered_bytes()
time.sleep(1.5)  # well over 50 idle drains
idle = _native.buffered_bytes()
release.set()
worker.join()
print("BUFFERED", busy, idle)
