"""Collections inside a counted method (see test_alloc.py): with gc's threshold at 1, a
collection starts at almost every allocation of a container, so most of them start inside
`chain`. CPython 3.12+ makes a phase string for gc.callbacks at each collection's start and stop;
those are the collector's, and `chain`'s allocations must stay exactly its 200 `Link` objects
(a class with __slots__ holding an object: one tracked block each, no free list). Loops count with
small ints and `while`, so no range objects. The program's own gc callback counts collections
(its allocations are its own); with the argument `callback`, it is registered for all of the run
(else only to count, after chain)."""
import gc
import sys

started = {"start": 0, "stop": 0}


def on_gc(phase, info):
    started[phase] += 1


class Link:
    __slots__ = ("next",)


def chain(n):
    head = None
    i = 0
    while i < n:
        link = Link()
        link.next = head
        head = link
        i += 1
    return head


if __name__ == "__main__":
    gc.set_threshold(1)
    before = gc.get_stats()[0]["collections"]
    if sys.argv[1:] == ["callback"]:
        gc.callbacks.append(on_gc)
        chain(200)
        gc.callbacks.remove(on_gc)
    else:
        chain(200)
    print(gc.get_stats()[0]["collections"] - before, started["start"], started["stop"])
