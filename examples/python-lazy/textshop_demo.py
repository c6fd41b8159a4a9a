"""Runs textshop from a checkout, from any directory:
`python -m highrise_agent examples/python-lazy/textshop_demo.py --seconds 20`."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from textshop.app import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
