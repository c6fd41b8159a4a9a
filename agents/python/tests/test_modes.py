"""How a session measures (README "Measuring by samples"): `--mode sampled` reads every thread's
stack every 10 ms with no hook, `--mode auto` (the default) records every call until the hooks
cost too much and then samples. Each runs a real program under the agent into a real
`highrise record`, read back with `highrise report --json`.

The workload (workloads/sampled.py) spins `hot` and `cool` 3:1 in time on the main thread, in
loops of tiny calls (millions of events a second under the hooks), while a second thread waits
in `stuck` for the whole run: the paper's leak, a thread parked for good."""

import json
import re
import subprocess
import tempfile

import pytest
from conftest import WORKLOADS, highrise_bin, record_under_agent

SAMPLES_LINE = re.compile(r"^highrise-agent: sent (\d+) samples$", re.M)


def report_of(agent_args, seconds="4"):
    with tempfile.TemporaryDirectory() as out:
        done, recording = record_under_agent(["--stats"] + agent_args + ["sampled.py", seconds], out, cwd=WORKLOADS)
        assert done.returncode == 0, done.stderr
        report = subprocess.run(
            [highrise_bin(), "report", "--json", str(recording)], capture_output=True, text=True, timeout=120
        )
        assert report.returncode == 0, report.stderr
        return done, json.loads(report.stdout)


def share(report, *names):
    """The summed share of the run (percent) of methods `sampled.<module>.NAME`."""
    methods = {m["method"]: m for m in report["methods"] if m["package"] == "sampled"}
    return sum(methods[name]["run_share_pct"] for name in names)


def assert_reads_the_workload(report):
    hot = share(report, "hot", "hot_leaf")
    cool = share(report, "cool", "cool_leaf")
    # 3:1 in time; a 4 s run of 10 ms samples leaves a few points of error on each.
    assert 2.0 <= hot / cool <= 4.5, (hot, cool)
    assert 60 <= hot + cool <= 105, (hot, cool)
    stuck = next(m for m in report["methods"] if m["method"] == "stuck")
    assert stuck["run_share_pct"] >= 90, stuck
    assert stuck["max_parked_threads"] == 1, stuck
    assert report["end"] == "goodbye" and report["errors"] == [], report


@pytest.mark.parametrize("sampler", ["gil-free", "gil"])
def test_sampled_mode_reads_running_and_parked_threads_without_hooks(sampler, monkeypatch):
    if sampler == "gil":  # the fallback where the stacks cannot be read without the GIL
        monkeypatch.setenv("HIGHRISE_SAMPLER", "gil")
    done, report = report_of(["--mode", "sampled"])
    measure = report["measure"]
    assert measure["mode"] == "sampled", measure
    assert measure["sample_period_ms"] == 10 and not measure["calls_counted"], measure
    assert report["events"] == 0 and report["events_dropped"] == 0, report
    assert all(m["calls"] == 0 for m in report["methods"])
    samples = SAMPLES_LINE.findall(done.stderr)
    assert len(samples) == 1 and int(samples[0]) >= 300, done.stderr  # 2 threads, ~4 s
    assert_reads_the_workload(report)
    assert report.get("alerts", []) == [], report["alerts"]
    assert all(m["max_elevation_error_pct"] is not None for m in report["methods"])


def test_auto_mode_samples_once_the_hooks_cannot_keep_up():
    done, report = report_of(["--mode", "auto"])
    assert "highrise-agent: mode=auto: " in done.stderr, done.stderr
    assert "measuring by samples every 10 ms from here on" in done.stderr, done.stderr
    measure = report["measure"]
    assert measure["mode"] == "adaptive", measure
    # The calls made before the switch were counted, and the threads kept their ids.
    assert report["events"] > 0, report
    assert report["max_threads"] == 2, report
    assert_reads_the_workload(report)


def test_auto_mode_stays_exact_for_a_program_the_hooks_keep_up_with():
    with tempfile.TemporaryDirectory() as out:
        done, recording = record_under_agent(["--mode", "auto", "mt_workload.py"], out, cwd=WORKLOADS)
        assert done.returncode == 0, done.stderr
        assert "mode=auto" not in done.stderr, done.stderr
        report = subprocess.run(
            [highrise_bin(), "report", "--json", str(recording)], capture_output=True, text=True, timeout=120
        )
        summary = json.loads(report.stdout)
        assert summary["measure"]["mode"] == "exact", summary["measure"]
        fib = next(m for m in summary["methods"] if m["method"] == "fib")
        assert fib["calls"] == 5 * 177, fib
