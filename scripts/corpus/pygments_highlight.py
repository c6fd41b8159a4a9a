"""Corpus program (scripts/test-corpus.sh): Pygments highlighting real Python source.

Lexes Pygments' own modules (real code, a few hundred KiB) with PythonLexer and formats them
as HTML with line numbers, `--rounds` times. Run under the agent with `--include pygments`
(site-packages are left out by default).
"""

import argparse
import os

import pygments
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import PythonLexer


def sources():
    root = os.path.dirname(pygments.__file__)
    texts = []
    for directory, _, files in sorted(os.walk(root)):
        for name in sorted(files):
            if name.endswith(".py") and "lexers" not in directory.split(os.sep)[-1:]:
                with open(os.path.join(directory, name), encoding="utf-8") as f:
                    texts.append(f.read())
    return texts


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=1)
    args = parser.parse_args()
    texts = sources()
    lexer = PythonLexer()
    formatter = HtmlFormatter(linenos="table", cssclass="source")
    size = 0
    for _ in range(args.rounds):
        for text in texts:
            size += len(highlight(text, lexer, formatter))
    print("pygments_highlight: %d files, %d bytes of source, %d bytes of HTML"
          % (len(texts), sum(map(len, texts)), size))


if __name__ == "__main__":
    main()
