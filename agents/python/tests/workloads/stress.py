"""Robustness: many short-lived threads (records created and ended), a thread pool, recursion
until RecursionError, and a deep stack that grows the shadow stack."""
import sys
import threading
from concurrent.futures import ThreadPoolExecutor


def tiny(i):
    return i * 2


def short_lived(i):
    for j in range(3):
        tiny(j)


def dive(n):
    return dive(n + 1)


def deep(n):
    return 0 if n == 0 else 1 + deep(n - 1)


def main():
    for batch in range(10):
        threads = [threading.Thread(target=short_lived, args=(i,)) for i in range(30)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    with ThreadPoolExecutor(max_workers=4) as pool:
        list(pool.map(tiny, range(200)))
    if "--no-recursion-error" not in sys.argv:
        try:
            dive(0)
        except RecursionError:
            pass
    sys.setrecursionlimit(5000)
    deep(3000)
    print("ok")


if __name__ == "__main__":
    main()
