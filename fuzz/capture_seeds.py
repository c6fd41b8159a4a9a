#!/usr/bin/env python3
"""Captures what a real program's agent sends, as seeds for the session fuzz targets.

Listens on 127.0.0.1:PORT as a viewer would (answers the Hello with the golden Welcome), keeps
the first LIMIT bytes of whole frames the agent sends, and writes them to OUT (a `.frames`
file under fuzz/recorded/); then `fuzz/make_seeds.py` puts them in the corpora. Run it, then
the program under its agent pointed at PORT, e.g.:

    python3 fuzz/capture_seeds.py 7999 fuzz/recorded/maven.frames &
    MAVEN_OPTS=-javaagent:agents/java/build/highrise-agent.jar=addr=127.0.0.1:7999 mvn -o -q validate
"""

import socket
import struct
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WELCOME = (ROOT / "agent-protocol" / "golden" / "welcome.bin").read_bytes()


def main():
    port, out = int(sys.argv[1]), Path(sys.argv[2])
    limit = int(sys.argv[3]) if len(sys.argv) > 3 else 64 * 1024
    server = socket.create_server(("127.0.0.1", port))
    connection, _ = server.accept()
    received, answered = b"", False
    while True:
        chunk = connection.recv(65536)
        if not chunk:
            break
        if len(received) < 4 * limit:
            received += chunk
        if not answered and len(received) >= 4:
            (length,) = struct.unpack_from("<I", received)
            if len(received) >= 4 + length:
                connection.sendall(WELCOME)
                answered = True
    # Whole frames only, up to the limit.
    at = 0
    while at + 4 <= len(received):
        (length,) = struct.unpack_from("<I", received, at)
        if at + 4 + length > min(len(received), limit) and at > 0:
            break
        at += 4 + length
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_bytes(received[:at])
    print(f"{out}: {at} bytes of frames")


if __name__ == "__main__":
    main()
