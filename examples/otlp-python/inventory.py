"""An inventory web service with no tracing code at all: run it under OpenTelemetry's
auto-instrumentation and its requests show up in highrise as a city, called from the shop
(`shop.py --inventory URL`) across hosts.

    pip install flask opentelemetry-distro opentelemetry-exporter-otlp-proto-http \
        opentelemetry-instrumentation-flask
    OTEL_SERVICE_NAME=inventory OTEL_TRACES_EXPORTER=otlp \
    OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:4318 \
    OTEL_METRICS_EXPORTER=none OTEL_LOGS_EXPORTER=none \
        opentelemetry-instrument python inventory.py --port 8081

With `highrise --otlp` running, each request to /reserve is a server span (Flask's
instrumentation names it after the route); one made by a traced caller has that caller's
span as its parent, which highrise draws as an arc from the caller's building to this one.
"""

import argparse
import signal
import sys
import time

from flask import Flask, jsonify

app = Flask(__name__)
reserved = {"count": 0}


@app.get("/reserve/<int:item>")
def reserve(item):
    time.sleep(0.005 + 0.001 * (item % 3))
    reserved["count"] += 1
    return jsonify(item=item, reserved=True)


@app.get("/count")
def count():
    return jsonify(reserved["count"])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8081)
    args = parser.parse_args()
    # `kill` ends it like Ctrl-C: the SDK's exit handler exports the last spans.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    app.run(host=args.host, port=args.port, threaded=True)


if __name__ == "__main__":
    main()
