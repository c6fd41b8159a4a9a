#!/usr/bin/env python3
"""The corpus case python/aiohttp-tasks: a real aiohttp service (aiohttp_service.py) under the
Python agent (defaults) into `highrise record`, loaded by a real HTTP load generator (Apache's
`ab`, 50 connections at once), then `highrise report --json`. The service's requests are asyncio
tasks: `fetch_user` must be the top method with about 50 tasks awaiting in it, and `handle`,
`fetch_user` and `checksum` must each count exactly the requests served (ab's complete requests,
the service's own count). Prints one JSON object; exits 1 on a failed check.

Usage: aiohttp_check.py PYTHON HIGHRISE [REQUESTS]   (PYTHON: CPython 3.12+ with aiohttp and the agent)"""

import json
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main():
    python, highrise = sys.argv[1], sys.argv[2]
    requests = int(sys.argv[3]) if len(sys.argv) > 3 else 3000
    out = tempfile.mkdtemp(prefix="highrise-aiohttp-")
    record = subprocess.Popen([highrise, "record", "--out", out, "--listen", "127.0.0.1:0", "--sessions", "1"],
                              stdout=subprocess.PIPE, text=True)
    addr = record.stdout.readline().split()[1]
    port = free_port()
    service = subprocess.Popen([python, "-m", "highrise_agent", "--addr", addr, "--stats",
                                os.path.join(HERE, "aiohttp_service.py"), str(port)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env=dict(os.environ, HIGHRISE_ADDR="", HIGHRISE_MODE=""))
    line = service.stdout.readline()
    assert line.startswith("LISTENING"), (line, service.stderr.read() if service.poll() is not None else "")
    started = time.monotonic()
    ab = subprocess.run(["ab", "-q", "-n", str(requests), "-c", "50", "http://127.0.0.1:%d/user/7" % port],
                        capture_output=True, text=True, timeout=300)
    load_s = time.monotonic() - started
    complete = int(re.search(r"Complete requests:\s+(\d+)", ab.stdout).group(1))
    failed = int(re.search(r"Failed requests:\s+(\d+)", ab.stdout).group(1))
    service.send_signal(signal.SIGTERM)
    rest, err = service.communicate(timeout=60)
    served = int(re.search(r"SERVED (\d+)", rest).group(1))
    record.communicate(timeout=60)
    hrec = next(os.path.join(out, f) for f in os.listdir(out) if f.endswith(".hrec"))
    report = json.loads(subprocess.run([highrise, "report", "--json", hrec], capture_output=True, text=True,
                                       check=True).stdout)
    ours = {m["method"]: m for m in report["methods"] if m["package"] == "aiohttp_service"}
    top = max(report["methods"], key=lambda m: m["run_share_pct"])
    result = {
        "requests": requests, "complete": complete, "failed": failed, "served": served,
        "requests_per_s": round(complete / load_s, 1),
        "top": top["name"], "top_run_pct": top["run_share_pct"],
        "fetch_user": {k: ours["fetch_user"][k] for k in ("run_share_pct", "max_thread_count", "calls")},
        "calls": {name: ours[name]["calls"] for name in ("handle", "fetch_user", "checksum")},
        "end": report["end"], "events_dropped": report["events_dropped"],
        "agent": [line for line in err.splitlines() if line.startswith("highrise-agent")][-3:],
    }
    print(json.dumps(result, indent=2))
    problems = []
    if failed or complete != requests or served != complete:
        problems.append("requests %d, complete %d, failed %d, served %d" % (requests, complete, failed, served))
    if ours["fetch_user"]["name"] != top["name"]:
        problems.append("top method %s, not fetch_user" % top["name"])
    if not 40 <= ours["fetch_user"]["max_thread_count"] <= 60:
        problems.append("fetch_user on %d threads (tasks), not ~50" % ours["fetch_user"]["max_thread_count"])
    if any(calls != served for calls in result["calls"].values()):
        problems.append("calls %s != %d served" % (result["calls"], served))
    if report["end"] != "goodbye" or report["events_dropped"]:
        problems.append("session end %s, %d dropped" % (report["end"], report["events_dropped"]))
    if problems:
        print("aiohttp-check: FAILED: " + "; ".join(problems), file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
