"""Many calls in a short time on two threads: with a tiny buffer the agent must drop and resync."""
import threading


def leaf(i):
    return i


def branch(n):
    for i in range(n):
        leaf(i)


def work():
    for _ in range(200):
        branch(100)


if __name__ == "__main__":
    thread = threading.Thread(target=work)
    thread.start()
    work()
    thread.join()
