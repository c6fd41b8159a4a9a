"""Allocation counting with exactly known allocations (see test_alloc.py).

Every allocation the test checks is one the code makes on purpose, in a way no CPython free list
can serve and no constant folding can remove: `Node` (a class with __slots__, so its instances
are one fixed-size block on every version), `Boom` (an exception class) and `bytes` objects of a
size known only at run time (b"x" * size: one block of 33 + size bytes). Loops count with small
ints (cached, never allocated) and `while`, so no range objects.

Per run(size): make_nodes(10) 10 Node; make_blobs(5, size) 5 bytes; build(4) one Node per level
(four contexts build, build>build, ...); guarded(3, size) calls fail three times: each makes 3
bytes and raises a Boom, which leaves a traceback entry (and the frame object it names) in fail
and in guarded; consume(4, size) makes a generator and 2 ints (its running total passes 256
twice), the generator blob_gen 4 bytes. Four worker threads and the main thread each do one run (`solo`: the main thread alone, 30 runs).
"""
import sys
import threading


class Node:
    __slots__ = ("value", "next")


class Boom(Exception):
    pass


def make_nodes(n):
    head = None
    i = 0
    while i < n:
        node = Node()
        node.value = i
        node.next = head
        head = node
        i += 1
    return head


def make_blobs(n, size):
    blob = None
    i = 0
    while i < n:
        blob = b"x" * size
        i += 1
    return blob


def build(depth):
    node = Node()
    node.value = depth
    if depth > 1:
        node.next = build(depth - 1)
    return node


def fail(size):
    make = b"x" * size
    make = b"y" * size
    make = b"z" * size
    raise Boom()


def guarded(times, size):
    i = 0
    while i < times:
        try:
            fail(size)
        except Boom:
            pass
        i += 1


def blob_gen(n, size):
    i = 0
    while i < n:
        yield b"x" * size
        i += 1


def consume(n, size):
    total = 0
    for blob in blob_gen(n, size):
        total += len(blob)
    return total


def run(size):
    nodes = make_nodes(10)
    blob = make_blobs(5, size)
    tree = build(4)
    guarded(3, size)
    consume(4, size)
    return nodes is not None and blob is not None and tree is not None


def main():
    size = int(sys.argv[1]) if len(sys.argv) > 1 else 100
    if sys.argv[2:] == ["solo"]:  # the drop test: one thread, many runs
        for _ in range(30):
            run(size)
        print("done")
        return
    threads = [threading.Thread(target=run, args=(size,), name="worker-%d" % i) for i in range(4)]
    for thread in threads:
        thread.start()
    run(size)
    for thread in threads:
        thread.join()
    print("done")


if __name__ == "__main__":
    main()
