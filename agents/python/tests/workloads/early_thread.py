"""A thread that already runs when the program calls highrise_agent.start() (3.11 needs the C
recorder's all-threads install for it; 3.12+ get it from sys.monitoring)."""
import sys
import threading

import highrise_agent

go = threading.Event()


def early_work(n):
    return n * n


def early_loop():
    go.wait()
    for i in range(25):
        early_work(i)


def main():
    thread = threading.Thread(target=early_loop, name="early")
    thread.start()
    agent = highrise_agent.start(program="early-thread")
    assert agent is not None
    sys.stderr.write("recorder %s\n" % agent.recorder.kind)
    go.set()
    thread.join()


if __name__ == "__main__":
    main()
