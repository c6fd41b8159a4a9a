"""The corpus's services under load (aiohttp_check.py, vt_check.py): a service runs under a
highrise agent into `highrise record`, Apache's `ab` loads it (50 requests at a time), SIGTERM
stops it, and `highrise report --json` is checked against the requests it served: the method the
requests wait in on top, about 50 threads (tasks, virtual threads) in it, and every method of the
request path called once per request."""

import json
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run(highrise, start, requests, work=None):
    """`start(addr, port)`: the service's Popen (text pipes), which prints "LISTENING" once it
    serves and "SERVED N" when stopped. Returns the load's numbers, the report and its stderr."""
    work = work or tempfile.mkdtemp(prefix="highrise-service-")
    record = subprocess.Popen([highrise, "record", "--out", work, "--listen", "127.0.0.1:0", "--sessions", "1"],
                              stdout=subprocess.PIPE, text=True)
    addr = record.stdout.readline().split()[1]
    port = free_port()
    service = start(addr, port)
    line = service.stdout.readline()
    assert line.startswith("LISTENING"), (line, service.stderr.read() if service.poll() is not None else "")
    started = time.monotonic()
    ab = subprocess.run(["ab", "-q", "-n", str(requests), "-c", "50", "http://127.0.0.1:%d/user/7" % port],
                        capture_output=True, text=True, timeout=300)
    load_s = time.monotonic() - started
    service.send_signal(signal.SIGTERM)
    rest, err = service.communicate(timeout=60)
    record.communicate(timeout=60)
    hrec = next(os.path.join(work, f) for f in os.listdir(work) if f.endswith(".hrec"))
    report = json.loads(subprocess.run([highrise, "report", "--json", hrec], capture_output=True, text=True,
                                       check=True).stdout)
    complete = int(re.search(r"Complete requests:\s+(\d+)", ab.stdout).group(1))
    return {
        "requests": requests,
        "complete": complete,
        "failed": int(re.search(r"Failed requests:\s+(\d+)", ab.stdout).group(1)),
        "served": int(re.search(r"SERVED (\d+)", rest).group(1)),
        "requests_per_s": round(complete / load_s, 1),
    }, report, err


def check(load, report, err, package, waits_in, path, threads=(40, 70)):
    """Prints the summary as JSON and exits 1 with the problems on stderr when a check fails:
    `waits_in` on top with `threads` threads, each method of `path` called once per request."""
    ours = {m["method"]: m for m in report["methods"] if m["package"] == package}
    top = max(report["methods"], key=lambda m: m["run_share_pct"])
    summary = dict(load)
    summary.update({
        "top": top["name"], "top_run_pct": top["run_share_pct"],
        "waits_in": {k: ours[waits_in][k] for k in ("name", "run_share_pct", "max_thread_count", "calls")},
        "calls": {name: ours[name]["calls"] for name in path},
        "end": report["end"], "events_dropped": report["events_dropped"],
        "notices": [notice["text"] for notice in report.get("notices", [])],
        "agent": [line for line in err.splitlines() if line.startswith("highrise")][-3:],
    })
    print(json.dumps(summary, indent=2))
    problems = []
    served = load["served"]
    if load["failed"] or load["complete"] != load["requests"] or served != load["complete"]:
        problems.append("requests %(requests)d, complete %(complete)d, failed %(failed)d, served %(served)d" % load)
    if ours[waits_in]["name"] != top["name"]:
        problems.append("top method %s, not %s" % (top["name"], waits_in))
    if not threads[0] <= ours[waits_in]["max_thread_count"] <= threads[1]:
        problems.append("%s on %d threads, not %d-%d" % (waits_in, ours[waits_in]["max_thread_count"], *threads))
    if any(calls != served for calls in summary["calls"].values()):
        problems.append("calls %s != %d served" % (summary["calls"], served))
    warnings = [line for line in err.splitlines() if line.startswith("WARNING")]
    if warnings:
        problems.append("the runtime warned: %s" % warnings[:2])
    if report["end"] != "goodbye" or report["events_dropped"]:
        problems.append("session end %s, %d dropped" % (report["end"], report["events_dropped"]))
    if problems:
        print("service check: FAILED: " + "; ".join(problems), file=sys.stderr)
        sys.exit(1)
