"""Memory prediction from sample runs (Murphy & Saenko 1998; `highrise predict`) as a user does
it: examples/python-parser (a small compiler front end with the phases `Parser.parse` and
`Resolver.resolve`) runs under the agent at three input sizes against the real `highrise
record`, then at a fourth, larger one; `highrise classes --json` must count the phases' objects
exactly as the program made them, and `highrise predict --json --vs-measured` must predict the
large run from the three small ones, by the paper's ratio method and by the linear fit.

Skipped when the `highrise` binary is not built (see conftest.highrise_bin)."""

import json
import os
import pathlib
import subprocess
import tempfile

import pytest

from conftest import highrise_bin, native_available, record_under_agent

EXAMPLE = pathlib.Path(__file__).resolve().parents[3] / "examples" / "python-parser"
SAMPLE_PROCS = (50, 100, 200)
TARGET_PROCS = 400


def record(out, procs, live=False):
    """Runs minilang with `procs` procedures under the agent (allocation counting on, live-object
    snapshots at its phase marks' ends if `live`) against `highrise record`; returns (its output,
    the recording)."""
    done, recording = record_under_agent(
        ["--backend", "native", "--alloc", "on"] + (["--live"] if live else []) + ["-m", "minilang", "--procs", str(procs)],
        out,
        cwd=EXAMPLE,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout, recording


def record_sizes(tmp, live=False):
    """The samples and the target size, each recorded into its own folder under `tmp`:
    {procs: (output, recording)}."""
    runs = {}
    for procs in SAMPLE_PROCS + (TARGET_PROCS,):
        out = pathlib.Path(tmp) / str(procs)
        out.mkdir()
        runs[procs] = record(out, procs, live=live)
    return runs


def cli_json(highrise, *args):
    done = subprocess.run([highrise, *args, "--json"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def printed(line):
    """'minilang: 50 procs, 147 calls, 50 scopes, 1277 references' -> {"procs": 50, ...}"""
    words = line.split(":", 1)[1].replace(",", " ").split()
    return {name: int(count) for count, name in zip(words[::2], words[1::2])}


@pytest.mark.skipif(not os.path.exists(highrise_bin()), reason="the highrise binary is not built")
@pytest.mark.skipif(not native_available(), reason="_native not built (the Python recorder counts no allocations)")
def test_predicts_a_larger_run_from_three_small_ones():
    highrise = highrise_bin()
    with tempfile.TemporaryDirectory() as tmp:
        runs = record_sizes(tmp)

        # The class table counts what the program made, phase by phase.
        line, recording = runs[100]
        made = printed(line)
        table = cli_json(highrise, "classes", "--phase", "Parser.parse", "--phase", "Resolver.resolve", str(recording))
        assert table["unknown_phases"] == [] and table["interrupted"] is None
        phases = {run["phase"]: run for run in table["phases"]}
        assert set(phases) == {"minilang.parser.Parser.parse", "minilang.resolver.Resolver.resolve"}
        parse = {c["class"]: c for c in phases["minilang.parser.Parser.parse"]["classes"]}
        resolve = {c["class"]: c for c in phases["minilang.resolver.Resolver.resolve"]["classes"]}
        assert parse["minilang.tree.Call"]["created"] == made["calls"]
        assert parse["minilang.tree.Proc"]["created"] == made["procs"]
        assert parse["minilang.tree.Program"]["created"] == 1
        assert "minilang.resolver.Symbol" not in parse
        # One scope per procedure, plus the builtins and the program's.
        assert resolve["minilang.resolver.Scope"]["created"] == made["scopes"] + 2
        assert resolve["minilang.resolver.Reference"]["created"] == made["references"]
        assert "minilang.tree.Call" not in resolve
        # The resolve phase's basis pool: the calls the parse phase made before it.
        assert phases["minilang.resolver.Resolver.resolve"]["created_by_exit"]["minilang.tree.Call"] == made["calls"]
        for entry in parse.values():
            assert entry["created_bytes"] > 0 and entry["max_size_bytes"] >= entry["mean_size_bytes"] > 0

        # Predict the large run from the three small ones, for its number of calls.
        target = printed(runs[TARGET_PROCS][0])
        samples = [str(runs[procs][1]) for procs in SAMPLE_PROCS]
        errors = {}
        for phase in ("Parser.parse", "Resolver.resolve"):
            result = cli_json(
                highrise,
                "predict", "--basis", "Call=%d" % target["calls"], "--phase", phase,
                *samples, "--vs-measured", str(runs[TARGET_PROCS][1]),
            )
            prediction = result["prediction"]
            assert prediction["basis"] == "minilang.tree.Call"
            assert prediction["basis_count"] == target["calls"]
            assert [d["basis_count"] for d in prediction["data_sets"]] == [
                printed(runs[procs][0])["calls"] for procs in SAMPLE_PROCS
            ]
            assert prediction["maximum_bytes"] >= prediction["average_bytes"] > 0
            measured = result["measured"]
            assert measured["basis_count"] == target["calls"]
            errors[phase] = (measured["average_error_pct"], measured["fit_error_pct"])
        print("prediction errors (ratio average, fit), %:", errors)
        # The parse phase grows with its input: both methods land close.
        ratio, fit = errors["Parser.parse"]
        assert abs(ratio) < 10 and abs(fit) < 5, errors
        # The resolve phase has a fixed cost (the builtin scope): the ratio method, which
        # scales it too, over-predicts; the fit, which separates it, does not.
        ratio, fit = errors["Resolver.resolve"]
        assert abs(fit) < 5 and ratio > fit, errors


@pytest.mark.skipif(not os.path.exists(highrise_bin()), reason="the highrise binary is not built")
@pytest.mark.skipif(not native_available(), reason="_native not built (the Python recorder counts no allocations)")
def test_live_objects_predict_what_the_resolve_phase_retains():
    """With `--live`, the example's phase marks ("parse", "resolve") end with the objects live on
    the heap: at the resolve mark's end the syntax tree the parse phase made is still live (every
    call node), and so is every reference the resolver keeps. `highrise predict --phase
    phase.resolve` scales those into retained memory; the live-bytes fit, which keeps the
    program's fixed part (classes, modules) apart, lands close to the larger run's measured live
    bytes, where the ratio method scales the fixed part too and over-predicts."""
    highrise = highrise_bin()
    with tempfile.TemporaryDirectory() as tmp:
        runs = record_sizes(tmp, live=True)

        line, recording = runs[100]
        made = printed(line)
        table = cli_json(highrise, "classes", "--phase", "phase.parse", "--phase", "phase.resolve", str(recording))
        phases = {run["phase"]: run for run in table["phases"]}
        assert set(phases) == {"highrise.phase.parse", "highrise.phase.resolve"}
        assert all(run["live_snapshot"] for run in phases.values())
        resolve = {c["class"]: c for c in phases["highrise.phase.resolve"]["classes"]}
        assert resolve["minilang.tree.Call"]["created"] == 0
        assert resolve["minilang.tree.Call"]["live_at_exit"] == made["calls"]
        assert resolve["minilang.resolver.Reference"]["live_at_exit"] == made["references"]
        assert resolve["minilang.resolver.Reference"]["live_measured"]
        parse = {c["class"]: c for c in phases["highrise.phase.parse"]["classes"]}
        assert parse["minilang.tree.Call"]["live_at_exit"] == made["calls"] == parse["minilang.tree.Call"]["created"]

        # The class diagram: bases as classes are defined, attributes as the snapshots saw them
        # (a list of Procs: many), and the objects made with each owner.
        relations = {
            (r["from"], r["kind"], r["field"], r["to"]): r for r in table["diagram"]["relations"]
        }
        procs = relations[("minilang.tree.Program", "field", "procs", "minilang.tree.Proc")]
        assert procs["many"] and (procs["owners"], procs["parts"]) == (1, made["procs"]), procs
        assert ("minilang.tree.Call", "extends", "", "minilang.tree.Node") in relations, sorted(relations)
        target = relations[("minilang.tree.Assign", "field", "target", "minilang.tree.Name")]
        assert not target["many"] and target["per_owner"] >= 1, target
        symbols = relations[("minilang.resolver.Scope", "field", "symbols", "minilang.resolver.Symbol")]
        assert symbols["many"] and symbols["parts"] == symbols["parts_total"] > 0, symbols

        target = printed(runs[TARGET_PROCS][0])
        result = cli_json(
            highrise,
            "predict", "--basis", "Call=%d" % target["calls"], "--phase", "phase.resolve",
            *[str(runs[procs][1]) for procs in SAMPLE_PROCS], "--vs-measured", str(runs[TARGET_PROCS][1]),
        )
        measured = result["measured"]
        assert measured["live_bytes"] > 0
        ratio, fit = measured["retained_error_pct"], measured["retained_fit_error_pct"]
        print("retained at resolve's end vs measured live bytes (ratio, fit), %:", ratio, fit)
        assert abs(fit) < 10 and ratio > fit, (ratio, fit)

