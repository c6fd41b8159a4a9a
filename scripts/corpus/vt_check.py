#!/usr/bin/env python3
"""The corpus case java/vt-service: the JDK's own HttpServer with a virtual thread per request
(vtsvc/Server.java, compiled for Java 21, run on the newest JDK under /usr/lib/jvm) under the Java
agent (defaults) into `highrise record`, loaded by Apache's `ab` (50 at a time), then `highrise
report --json` (service_load.py). The JVM must print no warning for the agent (JDK 24+ warns
about Unsafe's memory-access methods). `fetch` must be the top method with about 50 threads
(virtual threads; the session folds ended ones, so its threads are the requests running at
once), and `handle`, `fetch` and `checksum` must each count the requests served. Prints one JSON
object; exits 1 on a failed check, 0 with "skipped" when no JDK 21+ is here.

Usage: vt_check.py JAR HIGHRISE [REQUESTS]"""

import glob
import json
import os
import re
import subprocess
import sys
import tempfile

import service_load

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

    def start(addr, port):
        return subprocess.Popen([os.path.join(jdk[1], "bin", "java"),
                                 "-javaagent:%s=addr=%s,include=vtsvc,stats" % (jar, addr),
                                 "-cp", classes, "vtsvc.Server", str(port)],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    load, report, err = service_load.run(highrise, start, requests, work)
    load["jdk"] = jdk[0]
    service_load.check(load, report, err, "vtsvc", "fetch", ("handle", "fetch", "checksum"), threads=(40, 70))


if __name__ == "__main__":
    main()
