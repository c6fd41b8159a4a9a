"""Corpus program (scripts/test-corpus.sh): docutils building an HTML document.

Generates a reStructuredText document (sections, paragraphs with inline markup and references,
bullet and enumerated lists, field lists, grid tables, literal blocks, footnotes) of
`--sections` sections and publishes it to HTML5 with docutils' own publisher, `--rounds` times.
Run under the agent with `--include docutils` (site-packages are left out by default).
"""

import argparse

from docutils.core import publish_string

WORDS = (
    "city district block building elevation thread stack method window sample agent "
    "listener session record report package class signature event batch"
).split()


def paragraph(seed, sentences=6):
    out = []
    for s in range(sentences):
        words = [WORDS[(seed * 7 + s * 3 + k * 5) % len(WORDS)] for k in range(12)]
        words[2] = "*%s*" % words[2]
        words[5] = "**%s**" % words[5]
        words[8] = "``%s()``" % words[8]
        if s % 3 == 0:
            words[10] = "`%s <https://example.org/%d/%d>`__" % (words[10], seed, s)
        if s % 4 == 1:
            words[11] = words[11] + " [#]_"
        out.append(" ".join(words).capitalize() + ".")
    return " ".join(out)


def section(i):
    title = "Section %d: %s %s" % (i, WORDS[i % len(WORDS)], WORDS[(i * 3) % len(WORDS)])
    lines = [title, "=" * len(title), "", paragraph(i), ""]
    lines += [":Author: agent %d" % i, ":Version: 1.%d" % i, ":Status: measured", ""]
    for k in range(5):
        lines.append("- item %d of section %d: %s" % (k, i, paragraph(i + k, 1)))
    lines.append("")
    for k in range(3):
        lines.append("%d. step %d, ``call_%d()`` then *wait*" % (k + 1, k, k))
    lines += ["", "+--------+--------+--------+", "| method | calls  | share  |",
              "+========+========+========+"]
    for k in range(4):
        lines += ["| m%-5d | %-6d | %-5d%% |" % (k, k * i, (k * 7) % 100), "+--------+--------+--------+"]
    lines += ["", "::", ""]
    lines += ["    def f_%d_%d(x):" % (i, k) for k in range(3)]
    lines += ["", paragraph(i * 11), ""]
    # One footnote per reference: two paragraphs of six sentences, every fourth from the second.
    for k in range(2 * sum(1 for s in range(6) if s % 4 == 1)):
        lines += [".. [#] footnote %d of section %d" % (k, i), ""]
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--sections", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=1)
    args = parser.parse_args()
    source = "Corpus document\n###############\n\n" + "\n\n".join(section(i) for i in range(args.sections))
    size = 0
    for _ in range(args.rounds):
        html = publish_string(
            source,
            writer_name="html5",
            settings_overrides={"report_level": 5, "halt_level": 5, "output_encoding": "unicode"},
        )
        size += len(html)
    print("docutils_build: %d sections, %d bytes of reST, %d bytes of HTML" % (args.sections, len(source), size))


if __name__ == "__main__":
    main()
