#!/usr/bin/env python3
"""Checks ARCHITECTURE.md's crate table against `cargo metadata`.

Each row whose first column names workspace crates (`highrise-…` in backticks) must list in its
"depends on" column every workspace crate those crates depend on (normal dependencies, optional
ones included; short names: `protocol` for highrise-protocol, `examples` for the example crates)
and nothing else of the workspace; every other name it lists must be a real dependency of one of
them (the table names the notable outside crates, not all). And the document stays short: no
bullet runs over MAX_BULLET_LINES lines (its own lines, not its sub-bullets'); tuning detail
belongs in module docs and BENCHMARKS.md.

Usage: scripts/check-architecture.py   (exit status 1 on a mismatch, each one printed)
"""
import json
import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
MAX_BULLET_LINES = 10


def long_bullets(lines):
    """(line number, lines) of each bullet longer than MAX_BULLET_LINES: a bullet's lines are its
    first and the indented lines after it, up to a blank line, a heading or the next bullet."""
    found = []
    i = 0
    while i < len(lines):
        start = re.match(r"^(\s*)[-*] ", lines[i])
        if not start:
            i += 1
            continue
        indent, j = len(start.group(1)), i + 1
        while (j < len(lines) and lines[j].strip() and not re.match(r"^\s*[-*] ", lines[j])
               and len(lines[j]) - len(lines[j].lstrip()) > indent):
            j += 1
        if j - i > MAX_BULLET_LINES:
            found.append((i + 1, j - i))
        i = j
    return found


def main():
    metadata = json.loads(subprocess.run(
        ["cargo", "metadata", "--no-deps", "--format-version", "1", "--offline"],
        cwd=ROOT, check=True, capture_output=True, text=True).stdout)
    packages = {p["name"]: p for p in metadata["packages"]}
    workspace = set(packages)
    problems = []
    rows = 0
    for line in (ROOT / "ARCHITECTURE.md").read_text().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 4 or not line.startswith("| `"):
            continue
        crates = [name for name in re.findall(r"`([^`]+)`", cells[0]) if name in workspace]
        if not crates:
            continue
        rows += 1
        internal, outside = set(), set()
        for dep in (d for c in crates for d in packages[c]["dependencies"]):
            if dep["kind"] is None:
                (internal if dep["name"] in workspace else outside).add(dep["name"])
        every_dep = {d["name"] for c in crates for d in packages[c]["dependencies"]}
        internal -= set(crates)  # a row of two crates (the agent and its macros)
        listed_internal, listed_outside = set(), set()
        for item in re.split(r"[,;]", re.sub(r"\([^)]*\)", "", cells[3])):
            name = item.strip()
            if not name:
                continue
            if name == "examples":
                listed_internal |= {n for n in workspace if n.startswith("highrise-example-")}
            elif "highrise-" + name in workspace:
                listed_internal.add("highrise-" + name)
            elif name in workspace:
                listed_internal.add(name)
            else:
                listed_outside.add(name)
        row = " + ".join(crates)
        for name in sorted(internal - listed_internal):
            problems.append(f"{row}: depends on {name}, which the table does not list")
        for name in sorted(listed_internal - internal):
            problems.append(f"{row}: the table lists {name}, which it does not depend on")
        for name in sorted(listed_outside - every_dep):
            problems.append(f"{row}: the table lists {name}, which is not among its dependencies")
    document = (ROOT / "ARCHITECTURE.md").read_text().splitlines()
    for number, length in long_bullets(document):
        problems.append(f"ARCHITECTURE.md:{number}: a bullet of {length} lines (at most {MAX_BULLET_LINES})")
    for problem in problems:
        print(problem)
    if rows == 0:
        print("no crate rows found in ARCHITECTURE.md's table")
        return 1
    if not problems:
        print(f"ARCHITECTURE.md's crate table matches cargo metadata ({rows} rows); "
              f"no bullet over {MAX_BULLET_LINES} lines")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
