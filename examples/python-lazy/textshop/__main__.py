"""`python -m textshop [--seconds N] [--phase-s S] [--workers W]`."""
import sys

from textshop.app import main

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
