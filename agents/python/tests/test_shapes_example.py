"""The allocation-site paper's running example in Python (examples/python-shapes) as a user runs
it: the real `highrise record` listening, the program under the agent over the real socket, then
`highrise report --json` on the recording. The report must say exactly which method created how
many objects of which class, and give the paper's tree: `ShapeFactory.create` in three branches
(under create_circles, under create_boxes, and under create_shape called from main directly).

Skipped when the `highrise` binary is not built ($HIGHRISE_BIN, else $CARGO_TARGET_DIR or
~/.cache/highrise/target, /debug/highrise)."""

import json
import os
import pathlib
import subprocess
import sys
import tempfile

import pytest

from conftest import backends, highrise_bin, record_under_agent

EXAMPLE = pathlib.Path(__file__).resolve().parents[3] / "examples" / "python-shapes"
RUNS = 3
TYPES = sys.version_info >= (3, 13)


def record_and_report(backend):
    """Runs `python -m highrise_agent -m shapes --repeat RUNS` against `highrise record` and
    returns (the program's completed process, `highrise report --json` of the recording)."""
    with tempfile.TemporaryDirectory() as out:
        done, recording = record_under_agent(
            ["--backend", backend, "-m", "shapes", "--repeat", str(RUNS)], out, cwd=EXAMPLE
        )
        report = subprocess.run(
            [highrise_bin(), "report", "--json", str(recording)], capture_output=True, text=True, timeout=120
        )
        assert report.returncode == 0, report.stderr
        return done, json.loads(report.stdout)


def method(report, name):
    found = [m for m in report["methods"] if m["name"] == name]
    assert len(found) == 1, (name, [m["name"] for m in report["methods"]])
    return found[0]


def direct_classes(report, name):
    """{class: (count, bytes)} created directly by the method, over all its contexts."""
    return {a["class"]: (a["count"], a["bytes"]) for a in method(report, name).get("allocations", [])}


def shape_sizes():
    sys.path.insert(0, str(EXAMPLE))
    try:
        from shapes import Box, Circle

        return sys.getsizeof(Circle()), sys.getsizeof(Box())
    finally:
        sys.path.remove(str(EXAMPLE))


@pytest.mark.skipif(not os.path.exists(highrise_bin()), reason="the highrise binary is not built")
@pytest.mark.parametrize("backend", backends())
def test_report_counts_the_papers_allocation_sites(backend):
    done, report = record_and_report(backend)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "shapes: %d shapes made in %d run(s)\n" % (46 * RUNS, RUNS)
    assert report["end"] == "goodbye" and report["errors"] == [] and report["events_dropped"] == 0
    calls = {m["name"]: m["calls"] for m in report["methods"]}
    assert calls["shapes.canvas.Canvas.main"] == RUNS
    assert calls["shapes.canvas.Canvas.create_shape"] == 4 * RUNS
    assert calls["shapes.factory.ShapeFactory.create"] == 46 * RUNS
    # Who called whom (the call arcs' edges), through the real agent and `highrise report`.
    edges = {}
    for edge in report["call_edges"]:
        pair = (edge["caller"].split("(")[0], edge["callee"].split("(")[0])
        edges[pair] = edges.get(pair, 0) + edge["calls"]
    # Method pairs, not contexts: F (create_shape) is called from A, C and E; D only from F.
    into_f = {caller: n for (caller, callee), n in edges.items() if callee == "shapes.canvas.Canvas.create_shape"}
    assert into_f == {
        "shapes.canvas.Canvas.main": 2 * RUNS,
        "shapes.canvas.Canvas.create_circles": RUNS,
        "shapes.canvas.Canvas.create_boxes": RUNS,
    }, into_f
    into_d = {caller: n for (caller, callee), n in edges.items() if callee == "shapes.factory.ShapeFactory.create"}
    assert into_d == {"shapes.canvas.Canvas.create_shape": 46 * RUNS}, into_d
    assert edges[("shapes.canvas.Canvas.create_shape", "shapes.canvas.Canvas.add")] == 46 * RUNS
    if backend == "python":  # the pure-Python recorder counts no allocations
        memory = report.get("memory") or {}
        assert not memory.get("classes") and not memory.get("allocation_tree"), memory
        return
    memory = report["memory"]

    circle, box = shape_sizes()
    untyped = "(untyped)"
    # ShapeFactory.create (the paper's D) makes every shape, and nothing else.
    assert direct_classes(report, "shapes.factory.ShapeFactory.create") == {
        "shapes.factory.Circle": (30 * RUNS, 30 * RUNS * circle),
        "shapes.factory.Box": (16 * RUNS, 16 * RUNS * box),
    }
    # main (A) makes the canvas; the canvas's __init__ (B) the factory (and, counted on 3.13, its
    # list; 3.11/3.12 reuse a list from CPython's free list: no new block).
    main = direct_classes(report, "shapes.canvas.Canvas.main")
    assert {c: n for c, (n, _) in main.items()} == {"shapes.canvas.Canvas": RUNS}
    init = direct_classes(report, "shapes.canvas.Canvas.__init__")
    expected_init = {"shapes.factory.ShapeFactory": RUNS}
    if TYPES:
        expected_init["builtins.list"] = RUNS
    assert {c: n for c, (n, _) in init.items()} == expected_init
    for amounts in (main, init):
        for count, nbytes in amounts.values():
            assert nbytes > 0 and nbytes % count == 0  # one size per class
    # create_shape (F) makes a range and its iterator per call; C and E make nothing themselves.
    expected_f = (
        {"builtins.range": 4 * RUNS, "builtins.range_iterator": 4 * RUNS} if TYPES else {untyped: 8 * RUNS}
    )
    f = direct_classes(report, "shapes.canvas.Canvas.create_shape")
    assert {c: n for c, (n, _) in f.items()} == expected_f
    for quiet in ("create_circles", "create_boxes", "add"):
        assert direct_classes(report, "shapes.canvas.Canvas." + quiet) == {}, quiet
    # The class list: the shapes as the paper counts them (30 circles, 16 boxes per run).
    classes = {c["class"]: c for c in memory["classes"]}
    assert classes["shapes.factory.Circle"]["count"] == 30 * RUNS
    assert classes["shapes.factory.Box"]["count"] == 16 * RUNS
    assert classes["shapes.canvas.Canvas"]["count"] == RUNS
    assert classes["shapes.factory.ShapeFactory"]["count"] == RUNS
    assert classes["shapes.factory.Circle"]["kind"] == "class"
    assert memory["allocations_dropped"] == 0

    # The allocation-site tree: the module runs `run`, which calls main RUNS times; under main
    # its contexts in order of first call, and `create` at the end of three separate branches.
    roots = {node["method"].split("(")[0]: node for node in memory["allocation_tree"]}
    top = roots["shapes.__main__.<module>.<module>"]
    (run_node,) = top["children"]
    assert run_node["method"].startswith("shapes.__main__.<module>.run(")
    (main_node,) = run_node["children"]
    assert main_node["method"] == "shapes.canvas.Canvas.main()"
    assert main_node["calls"] == RUNS
    children = [child["method"].split("(")[0].rsplit(".", 1)[-1] for child in main_node["children"]]
    assert children == ["__init__", "create_circles", "create_boxes", "create_shape"], children
    by_class = lambda node: {c["class"]: (c["count"], c["direct"]) for c in node["classes"]}  # noqa: E731
    assert by_class(main_node)["shapes.canvas.Canvas"] == (RUNS, True)
    assert by_class(main_node)["shapes.factory.Circle"] == (30 * RUNS, False)

    def create_under(branch):
        node = branch
        while node["children"]:
            (node,) = [c for c in node["children"] if "create" in c["method"]]
        assert node["method"] == "shapes.factory.ShapeFactory.create(self, form)", node["method"]
        return node

    init_node, circles, boxes, direct = main_node["children"]
    assert by_class(init_node)["shapes.factory.ShapeFactory"] == (RUNS, True)
    d = create_under(circles)
    assert (d["calls"], by_class(d)) == (15 * RUNS, {"shapes.factory.Circle": (15 * RUNS, True)})
    d = create_under(boxes)
    assert (d["calls"], by_class(d)) == (8 * RUNS, {"shapes.factory.Box": (8 * RUNS, True)})
    # main -> create_shape twice per run: one context holding both calls' objects.
    assert direct["calls"] == 2 * RUNS
    d = create_under(direct)
    assert d["calls"] == 23 * RUNS
    assert by_class(d) == {
        "shapes.factory.Circle": (15 * RUNS, True),
        "shapes.factory.Box": (8 * RUNS, True),
    }
    assert by_class(direct)["shapes.factory.Circle"] == (15 * RUNS, False)
    assert d["count"] == 23 * RUNS and d["bytes"] == RUNS * (15 * circle + 8 * box)
