"""A running Python program for attach tests and benchmarks (scripts/bench-attach.py --python):
docutils builds the corpus document (docutils_build.py, 5 sections) to HTML in rounds and prints
"SECONDS ROUNDS" (the rounds done in that second) each second, for argv[1] seconds (default 60)."""

import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from docutils.core import publish_string  # noqa: E402

from docutils_build import section  # noqa: E402

SOURCE = "Corpus document\n###############\n\n" + "\n\n".join(section(i) for i in range(5))
SETTINGS = {"report_level": 5, "halt_level": 5, "output_encoding": "unicode"}


def main():
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 60.0
    start = last = time.monotonic()
    rounds = 0
    while True:
        publish_string(SOURCE, writer_name="html5", settings_overrides=SETTINGS)
        rounds += 1
        now = time.monotonic()
        if now - last < 1.0:
            continue
        print("%.1f %d" % (now - start, rounds), flush=True)
        rounds = 0
        last = now
        if now - start >= seconds:
            break


if __name__ == "__main__":
    main()
