"""Phase marks (highrise_agent.phase): two "load" phases (a context manager), one "save" (a
decorated function), nested in "run" (a context manager around them), on the main thread, and a
"load" on a worker thread."""

import threading

import highrise_agent


class Item:
    pass


class Record:
    pass


def build(n):
    return [Item() for _ in range(n)]


@highrise_agent.phase("save")
def save(items):
    return [Record() for _ in items[:10]]


def worker():
    with highrise_agent.phase("load"):
        build(7)


def main():
    with highrise_agent.phase("run"):
        with highrise_agent.phase("load"):
            items = build(100)
        with highrise_agent.phase("load"):
            items += build(50)
        save(items)
    thread = threading.Thread(target=worker)
    thread.start()
    thread.join()
    print("phases: %d items" % len(items))


if __name__ == "__main__":
    main()
