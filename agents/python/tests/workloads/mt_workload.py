"""Threads, recursion and exceptions with exactly known call counts (see test_agent.py).

Per worker call: fib(10) = 177 calls of fib; 5 x Circle(...) (5 __init__, 5 area); 3 scale;
7 fail (each raises, caught in worker); 2 outer -> inner (inner raises through outer); 1
Circle.Unit.side; json.dumps once (standard library: excluded unless --include json).
Four worker threads plus one worker call on the main thread; exit code from argv[1] (default 0).
"""
import json
import sys
import threading

from citylib.geometry import Circle, scale


def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)


def fail(i):
    raise ValueError(i)


def inner():
    raise KeyError("deep")


def outer():
    inner()


def worker(index):
    fib(10)
    for radius in range(5):
        Circle(radius).area()
    for value in range(3):
        scale(value)
    for i in range(7):
        try:
            fail(i)
        except ValueError:
            pass
    for _ in range(2):
        try:
            outer()
        except KeyError:
            pass
    Circle.Unit().side()
    json.dumps({"worker": index})


def main():
    threads = [threading.Thread(target=worker, args=(i,), name="worker-%d" % i) for i in range(4)]
    for thread in threads:
        thread.start()
    worker(99)
    for thread in threads:
        thread.join()
    print("done")
    return int(sys.argv[1]) if len(sys.argv) > 1 else 0


if __name__ == "__main__":
    sys.exit(main())
