"""For the sampled and auto modes: `hot` and `cool` (each with its leaf) are spun 3:1 in time on
the main thread (loops of tiny calls, millions of events a second under the hooks) while a second thread waits in
`stuck` for the whole run (the paper's leak: a thread parked for good). Argument: seconds."""
import sys
import threading
import time

release = threading.Event()


def hot_leaf(i):
    return i + 1


def cool_leaf(i):
    return i + 1


def hot(seconds):
    end = time.perf_counter() + seconds
    i = 0
    while time.perf_counter() < end:
        for _ in range(100):
            i = hot_leaf(i)
    return i


def cool(seconds):
    end = time.perf_counter() + seconds
    i = 0
    while time.perf_counter() < end:
        for _ in range(100):
            i = cool_leaf(i)
    return i


def stuck():
    release.wait()


def main(seconds):
    waiter = threading.Thread(target=stuck, name="waiter")
    waiter.start()
    for _ in range(int(seconds / 0.4)):
        hot(0.3)
        cool(0.1)
    release.set()
    waiter.join()


if __name__ == "__main__":
    main(float(sys.argv[1]) if len(sys.argv) > 1 else 4.0)
