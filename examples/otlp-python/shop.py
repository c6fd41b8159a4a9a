"""A small shop service instrumented with the OpenTelemetry SDK only (no highrise agent), to
watch through `highrise --otlp`. Each request is a trace: `shop.api.Handler.handle` calls
`shop.cache.Cache.get` and `shop.db.Repository.query`, which calls `shop.db.Pool.borrow`.
Spans carry the semantic conventions' `code.function.name`, so each lands on its own building.
With `--inventory URL`, every fifth request also reserves an item from the inventory service
(`inventory.py`, auto-instrumented) over HTTP, in a client span whose context travels in the
W3C `traceparent` header: a call between services, drawn by highrise as an arc between cities.

    python shop.py --seconds 30                      # gRPC to 127.0.0.1:4317
    python shop.py --protocol http --seconds 30      # HTTP/protobuf to 127.0.0.1:4318

At the end it prints, as JSON, how many spans of each function it made (the tests compare
them with what highrise placed).
"""

import argparse
import functools
import json
import sys
import threading
import time
from collections import Counter

from opentelemetry import propagate, trace
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor

made = Counter()
made_lock = threading.Lock()


def exporter_for(args):
    headers = {"authorization": f"Bearer {args.token}"} if args.token else {}
    if args.protocol == "grpc":
        from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter

        from opentelemetry.exporter.otlp.proto.grpc.exporter import Compression

        endpoint = args.endpoint or "http://127.0.0.1:4317"
        compression = Compression.Gzip if args.compression == "gzip" else Compression.NoCompression
        return OTLPSpanExporter(endpoint=endpoint, insecure=True, headers=tuple(headers.items()),
                                compression=compression)
    from opentelemetry.exporter.otlp.proto.http import Compression
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

    endpoint = (args.endpoint or "http://127.0.0.1:4318").rstrip("/") + "/v1/traces"
    compression = Compression.Gzip if args.compression == "gzip" else Compression.NoCompression
    return OTLPSpanExporter(endpoint=endpoint, headers=headers, compression=compression)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--protocol", choices=["grpc", "http"], default="grpc")
    parser.add_argument("--endpoint", help="e.g. http://127.0.0.1:4317")
    parser.add_argument("--service", default="shop")
    parser.add_argument("--host", default="", help="host.name (default: the SDK's detection)")
    parser.add_argument("--version", default="1.0")
    parser.add_argument("--token", default="", help="highrise's token, for a viewer on another machine")
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--inventory", default="", help="the inventory service, e.g. http://127.0.0.1:8081")
    parser.add_argument("--compression", choices=["none", "gzip"], default="none")
    parser.add_argument("--export-delay-ms", type=int, default=200,
                        help="the batch processor's schedule delay (SDK default 5000)")
    args = parser.parse_args()

    attributes = {"service.name": args.service, "service.version": args.version}
    if args.host:
        attributes["host.name"] = args.host
    provider = TracerProvider(resource=Resource.create(attributes))
    provider.add_span_processor(
        BatchSpanProcessor(exporter_for(args), schedule_delay_millis=args.export_delay_ms)
    )
    tracer = provider.get_tracer("shop")

    def traced(qualified_name):
        def wrap(function):
            @functools.wraps(function)
            def run(*a, **k):
                with tracer.start_as_current_span(
                    qualified_name.rsplit(".", 2)[-2] + "." + function.__name__,
                    attributes={"code.function.name": qualified_name},
                ):
                    with made_lock:
                        made[qualified_name] += 1
                    return function(*a, **k)
            return run
        return wrap

    @traced("shop.db.Pool.borrow")
    def borrow():
        time.sleep(0.004)

    @traced("shop.db.Repository.query")
    def query(n):
        borrow()
        time.sleep(0.02 + 0.001 * (n % 5))

    @traced("shop.cache.Cache.get")
    def get(n):
        time.sleep(0.003)
        return n % 3 == 0

    def reserve(n):
        import urllib.request

        name = "shop.api.Inventory.reserve"
        with tracer.start_as_current_span(
            "Inventory.reserve", kind=trace.SpanKind.CLIENT,
            attributes={"code.function.name": name},
        ):
            with made_lock:
                made[name] += 1
            headers = {}
            propagate.inject(headers)
            request = urllib.request.Request(f"{args.inventory}/reserve/{n}", headers=headers)
            with urllib.request.urlopen(request, timeout=10) as answer:
                answer.read()

    @traced("shop.api.Handler.handle")
    def handle(n):
        if not get(n):
            query(n)
        if args.inventory and n % 5 == 0:
            reserve(n)
        time.sleep(0.01)

    deadline = time.monotonic() + args.seconds

    def serve(worker):
        n = worker
        while time.monotonic() < deadline:
            handle(n)
            n += args.threads
            time.sleep(0.02)

    workers = [threading.Thread(target=serve, args=(i,)) for i in range(args.threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    provider.shutdown()
    json.dump({"service": args.service, "spans": dict(made)}, sys.stdout)
    print()


if __name__ == "__main__":
    main()
