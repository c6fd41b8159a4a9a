"""Phase marks (`highrise_agent.phase`) through the real pipeline: the program under
the agent against `highrise record`, then `highrise classes --json`: each mark is a phase run of
`highrise.phase.NAME` on its thread, with the objects made inside it (native recorder), nested
marks included in the enclosing one.

Skipped when the `highrise` binary is not built (see conftest.highrise_bin)."""

import json
import os
import subprocess
import sys
import tempfile

import pytest

from conftest import WORKLOADS, backends, highrise_bin, native_available, record_under_agent


def record_phases(backend, live=False):
    with tempfile.TemporaryDirectory() as out:
        args = ["--backend", backend] + (["--live"] if live else []) + ["phases.py"]
        done, recording = record_under_agent(args, out, cwd=WORKLOADS)
        assert done.returncode == 0, done.stderr
        assert done.stdout == "phases: 150 items\n"
        classes = subprocess.run(
            [highrise_bin(), "classes", "--json", "--phase", "phase.load", "--phase", "phase.save", "--phase", "phase.run"]
            + [str(recording)],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert classes.returncode == 0, classes.stderr
        return json.loads(classes.stdout)


@pytest.mark.skipif(not os.path.exists(highrise_bin()), reason="the highrise binary is not built")
@pytest.mark.parametrize("backend", backends())
def test_phase_marks_are_phase_runs(backend):
    table = record_phases(backend)
    assert table["unknown_phases"] == [] and table["events_dropped"] == 0
    runs = [(run["phase"], run["index"]) for run in table["phases"]]
    assert runs == [
        ("highrise.phase.run", 0),
        ("highrise.phase.load", 0),
        ("highrise.phase.load", 1),
        ("highrise.phase.save", 0),
        ("highrise.phase.load", 2),
    ], runs
    threads = [run["thread_id"] for run in table["phases"]]
    assert len(set(threads[:4])) == 1 and threads[4] != threads[0]
    assert not any(run["unfinished"] for run in table["phases"])
    if backend == "python":  # the pure-Python recorder counts no allocations
        return
    made = [
        {c["class"]: c["created"] for c in run["classes"] if c["class"] in ("phases.Item", "__main__.Item", "phases.Record", "__main__.Record")}
        for run in table["phases"]
    ]
    items = [sum(n for name, n in m.items() if name.endswith("Item")) for m in made]
    records = [sum(n for name, n in m.items() if name.endswith("Record")) for m in made]
    assert items == [150, 100, 50, 0, 7], made
    assert records == [10, 0, 0, 10, 0], made


class _Plain:
    pass


@pytest.mark.skipif(not os.path.exists(highrise_bin()), reason="the highrise binary is not built")
@pytest.mark.skipif(not native_available(), reason="live objects need the C recorder")
def test_live_objects_at_each_mark_end():
    """`--live`: each mark's end carries the objects live per class after a collection, whichever
    phase made them: the 100 items kept, then 150 (the worker's 7 are garbage by its end); the
    10 records live as "save" returns them, none once "run" ends. Bytes are sys.getsizeof's."""
    table = record_phases("native", live=True)
    runs = table["phases"]
    assert [(run["phase"], run["index"]) for run in runs][0] == ("highrise.phase.run", 0)
    assert all(run["live_snapshot"] and run["heap_live_bytes"] is None for run in runs), runs

    def live(run, suffix):
        found = [c for c in run["classes"] if c["class"].endswith(suffix)]
        assert len(found) <= 1, found
        return (found[0]["live_at_exit"], found[0]["live_bytes_at_exit"], found[0]["live_measured"]) if found else None

    size = sys.getsizeof(_Plain())
    items = [live(run, ".Item") for run in runs]
    assert items == [(n, n * size, True) for n in (150, 100, 150, 150, 150)], items
    records = [live(run, ".Record") for run in runs]
    assert records == [(0, 0, True), None, None, (10, 10 * size, True), None], records

