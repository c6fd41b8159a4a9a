"""`python -m shapes [--repeat N] [--pause-ms MS]` (under the agent: `python -m highrise_agent -m
shapes ...`): runs the paper's `main` N times, pausing between runs so a viewer can watch."""

import argparse
import time

from .canvas import Canvas


def run(repeat, pause_ms):
    made = 0
    for _ in range(repeat):
        made += len(Canvas.main().shapes)
        if pause_ms:
            time.sleep(pause_ms / 1000)
    return made


if __name__ == "__main__":
    parser = argparse.ArgumentParser(prog="python -m shapes", description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--pause-ms", type=int, default=0)
    options = parser.parse_args()
    print("shapes: %d shapes made in %d run(s)" % (run(options.repeat, options.pause_ms), options.repeat))
