#!/usr/bin/env python3
"""The corpus case java/vt-service: the JDK's own HttpServer with a virtual thread per request
(vtsvc/Server.java, compiled for Java 21, run on the newest JDK under /usr/lib/jvm) under the Java
agent (defaults) into `highrise record`, loaded by Apache's `ab` (50 at a time), then `highrise
report --json`. The JVM must print no warning for the agent (JDK 24+ warns about Unsafe's
memory-access methods). `fetch` must be the top method with about 50 threads (virtual threads; the
session folds ended ones, so its threads are the requests running at once), and `handle`,
`fetch` and `checksum` must each count the requests served. Prints one JSON object; exits 1 on a
failed check, 0 with "skipped" when no JDK 21+ is here.

Usage: vt_check.py JAR HIGHRISE [REQUESTS]"""

import glob
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


def newest_jdk():
    best = None
    for home in glob.glob("/usr/lib/jvm/*"):
        release = os.path.join(home, "release")
        if not os.path.exists(os.path.join(home, "bin", "javac")) or not os.path.exists(release):
            continue
        found = re.search(r'JAVA_VERSION="(\d+)', open(release).read())
        if found and int(found.group(1)) >= 21 and (best is None or int(found.group(1)) > best[0]):
            best = (int(found.group(1)), home)
    return best


def main():
    jar, highrise = sys.argv[1], sys.argv[2]
    requests = int(sys.argv[3]) if len(sys.argv) > 3 else 3000
    jdk = newest_jdk()
    if jdk is None:
        print(json.dumps({"skipped": "no JDK 21 or later under /usr/lib/jvm"}))
        return
    work = tempfile.mkdtemp(prefix="highrise-vt-")
    classes = os.path.join(work, "classes")
    subprocess.run([os.path.join(jdk[1], "bin", "javac"), "--release", "21", "-d", classes,
                    os.path.join(HERE, "vtsvc", "Server.java")], check=True)
    record = subprocess.Popen([highrise, "record", "--out", work, "--listen", "127.0.0.1:0", "--sessions", "1"],
                              stdout=subprocess.PIPE, text=True)
    addr = record.stdout.readline().split()[1]
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    service = subprocess.Popen([os.path.join(jdk[1], "bin", "java"), "-javaagent:%s=addr=%s,include=vtsvc,stats" % (jar, addr),
                                "-cp", classes, "vtsvc.Server", str(port)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
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
    hrec = next(os.path.join(work, f) for f in os.listdir(work) if f.endswith(".hrec"))
    report = json.loads(subprocess.run([highrise, "report", "--json", hrec], capture_output=True, text=True,
                                       check=True).stdout)
    ours = {m["method"]: m for m in report["methods"] if m["package"] == "vtsvc"}
    top = max(report["methods"], key=lambda m: m["run_share_pct"])
    result = {
        "jdk": jdk[0], "requests": requests, "complete": complete, "failed": failed, "served": served,
        "requests_per_s": round(complete / load_s, 1),
        "top": top["name"], "top_run_pct": top["run_share_pct"],
        "fetch": {k: ours["fetch"][k] for k in ("run_share_pct", "max_thread_count", "calls")},
        "calls": {name: ours[name]["calls"] for name in ("handle", "fetch", "checksum")},
        "max_threads": report.get("max_threads"),
        "end": report["end"], "events_dropped": report["events_dropped"],
        "agent": [line for line in err.splitlines() if line.startswith("highrise")][-3:],
    }
    print(json.dumps(result, indent=2))
    problems = []
    if failed or complete != requests or served != complete:
        problems.append("requests %d, complete %d, failed %d, served %d" % (requests, complete, failed, served))
    if ours["fetch"]["name"] != top["name"]:
        problems.append("top method %s, not fetch" % top["name"])
    if not 40 <= ours["fetch"]["max_thread_count"] <= 70:
        problems.append("fetch on %d threads, not ~50" % ours["fetch"]["max_thread_count"])
    if any(calls != served for calls in result["calls"].values()):
        problems.append("calls %s != %d served" % (result["calls"], served))
    warnings = [line for line in err.splitlines() if line.startswith("WARNING")]
    if warnings:
        problems.append("the JVM warned: %s" % warnings[:2])
    if report["end"] != "goodbye" or report["events_dropped"]:
        problems.append("session end %s, %d dropped" % (report["end"], report["events_dropped"]))
    if problems:
        print("vt-check: FAILED: " + "; ".join(problems), file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
