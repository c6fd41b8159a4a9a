"""asyncio tasks as the paper's threads (README "Tasks"): the issue's service (workloads/
asyncio_service.py: requests 50 at a time, each a task awaiting a 50 ms `fetch_user` and then
hashing in `checksum`) run under the agent into a real `highrise record`, read back with
`highrise report --json`. While a task awaits, its coroutine is on top of its task's stack; a
coroutine call is one call however often it resumes; a task leak raises the stuck alert.
CPython 3.11-3.13 with the C recorder (its profile hook on 3.11, sys.monitoring on 3.12+)."""

import json
import subprocess
import sys
import tempfile

import pytest
from conftest import WORKLOADS, highrise_bin, native_available, record_under_agent

pytestmark = pytest.mark.skipif(
    not (3, 11) <= sys.version_info < (3, 14) or not native_available(),
    reason="tasks as threads need the C recorder (CPython 3.11-3.13)",
)


def run_service(*args):
    with tempfile.TemporaryDirectory() as out:
        done, recording = record_under_agent(["asyncio_service.py"] + list(args), out, cwd=WORKLOADS)
        assert done.returncode == 0, done.stderr
        report = subprocess.run(
            [highrise_bin(), "report", "--json", str(recording)], capture_output=True, text=True, timeout=120
        )
        assert report.returncode == 0, report.stderr
        served = int(done.stdout.split()[-1])
        return served, json.loads(report.stdout)


def methods_of(report):
    return {m["method"]: m for m in report["methods"] if m["package"] == "asyncio_service"}


def test_a_request_awaiting_in_fetch_user_is_on_top_of_its_task_with_one_call_each():
    served, report = run_service("4")
    methods = methods_of(report)
    assert served >= 1000, served
    top = max(report["methods"], key=lambda m: m["run_share_pct"])
    assert top["method"] == "fetch_user", [(m["method"], m["run_share_pct"]) for m in report["methods"]]
    fetch_user = methods["fetch_user"]
    assert fetch_user["run_share_pct"] >= 85, fetch_user
    # 50 requests at a time: 50 tasks awaiting in it (the loop's own thread is not one of them).
    assert 45 <= fetch_user["max_thread_count"] <= 60, fetch_user
    # One call per request, however often each coroutine resumed.
    for name in ("handle", "fetch_user", "checksum"):
        assert methods[name]["calls"] == served, (name, methods[name]["calls"], served)
    # The loop's thread carries the tasks: the module that runs the loop is not "busy".
    assert methods["<module>"]["run_share_pct"] < 10, methods["<module>"]
    assert report["end"] == "goodbye" and report["errors"] == [] and report["events_dropped"] == 0, report
    # The session says what its threads are.
    assert [n["key"] for n in report["notices"]] == ["threads"], report["notices"]
    assert report["notices"][0]["text"].startswith("asyncio tasks are threads"), report["notices"]


def test_a_task_leak_raises_the_stuck_alert():
    served, report = run_service("13", "leak")
    alerts = [a for a in report.get("alerts", []) if a["kind"] == "stuck"]
    assert [a["method"] for a in alerts] == ["asyncio_service.<module>.never"], report.get("alerts")
    assert alerts[0]["parked_now"] > alerts[0]["parked_then"] >= 20, alerts
    assert methods_of(report)["fetch_user"]["calls"] == served
