"""Starts the agent itself with highrise_agent.start() (address from HIGHRISE_ADDR)."""
import sys

import highrise_agent


def ping(n):
    return n + 1


def run():
    agent = highrise_agent.start(program="start-api-demo", version_label="v-test")
    print("agent", "on" if agent is not None else "off")
    if agent is not None:
        sys.stderr.write("mechanism %s\n" % agent.recorder.mechanism)
    for i in range(50):
        ping(i)
    if agent is not None:
        highrise_agent.stop()  # flush, Goodbye, and read the viewer's answer
        sys.stderr.write("answer %s\n" % (agent.answer[0],))


if __name__ == "__main__":
    run()
