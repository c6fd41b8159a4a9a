#!/usr/bin/env python3
"""The corpus case python/aiohttp-tasks: a real aiohttp service (aiohttp_service.py) under the
Python agent (defaults) into `highrise record`, loaded by Apache's `ab` (50 requests at a time),
then `highrise report --json` (service_load.py). The service's requests are asyncio tasks:
`fetch_user` must be the top method with about 50 tasks awaiting in it, and `handle`,
`fetch_user` and `checksum` must each count exactly the requests served (ab's complete requests,
the service's own count). Prints one JSON object; exits 1 on a failed check.

Usage: aiohttp_check.py PYTHON HIGHRISE [REQUESTS]   (PYTHON: CPython 3.12+ with aiohttp and the agent)"""

import os
import subprocess
import sys

import service_load

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    python, highrise = sys.argv[1], sys.argv[2]
    requests = int(sys.argv[3]) if len(sys.argv) > 3 else 3000

    def start(addr, port):
        return subprocess.Popen([python, "-m", "highrise_agent", "--addr", addr, "--stats",
                                 os.path.join(HERE, "aiohttp_service.py"), str(port)],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                env=dict(os.environ, HIGHRISE_ADDR="", HIGHRISE_MODE=""))

    load, report, err = service_load.run(highrise, start, requests)
    service_load.check(load, report, err, "aiohttp_service", "fetch_user", ("handle", "fetch_user", "checksum"),
                       threads=(40, 60))


if __name__ == "__main__":
    main()
