"""One call, then idle for a while: the agent must keep the viewer's clock moving (heartbeats)."""
import time


def work():
    return sum(range(100))


work()
time.sleep(1.0)
