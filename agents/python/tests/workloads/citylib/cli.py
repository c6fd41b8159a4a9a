"""Run as `python -m highrise_agent -m citylib.cli CODE`: calls a few functions, exits with CODE."""
import sys

from citylib.geometry import Circle, scale


def main(argv):
    total = 0.0
    for radius in range(4):
        total += scale(Circle(radius).area())
    print("total %.3f" % total)
    return int(argv[0]) if argv else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
