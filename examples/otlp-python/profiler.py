"""A program that profiles itself and sends its samples as OpenTelemetry profiles (OTLP
`profiles` signal, v1development), the shape the OpenTelemetry eBPF profiler sends: one sample per
distinct stack with a timestamp per occurrence, the thread as `thread.id` / `thread.name`
attributes, all names in the request's dictionary.

Its main thread runs a small text workload (`tokenize` about two thirds of the time, `checksum`
the rest); a sampler thread reads the main thread's stack every 10 ms (`sys._current_frames`)
and exports once a second over gRPC (grpcio and the generated `ProfilesService` stub) or HTTP
(`/v1development/profiles`, JSON as protobuf's JSON mapping writes it, or protobuf). At the end it
prints what it sampled, as JSON: each function's own samples (the stack's innermost frame).

    python profiler.py --protocol grpc --endpoint http://127.0.0.1:4317 --service demo --seconds 5
"""

import argparse
import gzip
import json
import sys
import threading
import time
import urllib.request

from google.protobuf import json_format
from opentelemetry.proto.collector.profiles.v1development import profiles_service_pb2 as service
from opentelemetry.proto.common.v1 import common_pb2
from opentelemetry.proto.profiles.v1development import profiles_pb2 as profiles
from opentelemetry.proto.resource.v1 import resource_pb2

PERIOD_NS = 10_000_000


def checksum(data):
    total = 0
    for byte in data:
        total = (total * 31 + byte) & 0xFFFFFFFF
    return total


def tokenize(text):
    tokens = []
    word = []
    for char in text:
        if char.isalnum():
            word.append(char)
        elif word:
            tokens.append("".join(word))
            word = []
    return tokens


def work(deadline):
    text = "the quick brown fox, jumps over: the lazy dog; " * 200
    data = text.encode()
    rounds = 0
    while time.monotonic() < deadline:
        tokenize(text)
        tokenize(text)
        checksum(data)
        rounds += 1
    return rounds


class Sampler(threading.Thread):
    """Samples one thread's stack every period; exports what it has once a second."""

    def __init__(self, target, export):
        super().__init__(name="sampler", daemon=True)
        self.target = target
        self.export = export
        self.stop = threading.Event()
        self.pending = []  # (time_ns, stack: tuple of (qualname, file), leaf first)
        self.error = None
        self.own = {}  # qualname of the innermost frame -> samples
        self.samples = 0

    def run(self):
        last_export = time.monotonic()
        next_at = time.monotonic()
        while not self.stop.is_set():
            frame = sys._current_frames().get(self.target.ident)
            if frame is not None:
                stack = []
                while frame is not None:
                    code = frame.f_code
                    stack.append((code.co_qualname, code.co_filename))
                    frame = frame.f_back
                self.pending.append((time.time_ns(), tuple(stack)))
                self.own[stack[0][0]] = self.own.get(stack[0][0], 0) + 1
                self.samples += 1
            if time.monotonic() - last_export >= 1.0:
                if not self.flush():
                    return
                last_export = time.monotonic()
            next_at += PERIOD_NS / 1e9
            time.sleep(max(0.0, next_at - time.monotonic()))
        self.flush()

    def flush(self):
        """Exports what waits; False (the error kept) when the export failed."""
        if self.pending:
            samples, self.pending = self.pending, []
            try:
                self.export(request(samples, self.target))
            except Exception as error:  # an HTTP or gRPC error: the run fails, said below
                body = error.read().decode(errors="replace") if hasattr(error, "read") else ""
                self.error = f"{error} {body}".strip()
                return False
        return True


def request(samples, thread):
    """An ExportProfilesServiceRequest of `samples`, every name in its dictionary (each table's
    entry 0 the zero value, as the specification asks)."""
    d = profiles.ProfilesDictionary()
    strings = {}

    def text(value):
        if value not in strings:
            strings[value] = len(d.string_table)
            d.string_table.append(value)
        return strings[value]

    text("")
    d.function_table.add()
    d.location_table.add()
    d.mapping_table.add()
    d.stack_table.add()
    d.link_table.add()
    d.attribute_table.add()
    locations = {}
    stacks = {}

    def location(frame):
        if frame not in locations:
            d.function_table.add(name_strindex=text(frame[0]), filename_strindex=text(frame[1]))
            locations[frame] = len(d.location_table)
            d.location_table.add().lines.add(function_index=len(d.function_table) - 1)
        return locations[frame]

    thread_attributes = []
    for key, value in (("thread.id", common_pb2.AnyValue(int_value=thread.ident)),
                       ("thread.name", common_pb2.AnyValue(string_value=thread.name))):
        d.attribute_table.add(key_strindex=text(key), value=value)
        thread_attributes.append(len(d.attribute_table) - 1)
    by_stack = {}
    for time_ns, stack in samples:
        if stack not in stacks:
            stacks[stack] = len(d.stack_table)
            d.stack_table.add(location_indices=[location(frame) for frame in stack])
        by_stack.setdefault(stacks[stack], []).append(time_ns)
    first = samples[0][0]
    profile = profiles.Profile(
        sample_type=profiles.ValueType(type_strindex=text("samples"), unit_strindex=text("count")),
        period_type=profiles.ValueType(type_strindex=text("wall"), unit_strindex=text("nanoseconds")),
        period=PERIOD_NS,
        time_unix_nano=first,
        duration_nano=samples[-1][0] - first + PERIOD_NS,
    )
    for stack_index, times in by_stack.items():
        profile.samples.add(stack_index=stack_index, attribute_indices=thread_attributes,
                            timestamps_unix_nano=times)
    resource = resource_pb2.Resource(attributes=[
        common_pb2.KeyValue(key=key, value=common_pb2.AnyValue(string_value=value))
        for key, value in (("service.name", ARGS.service), ("host.name", ARGS.host),
                           ("telemetry.sdk.name", "highrise-example-profiler"),
                           ("telemetry.sdk.language", "python"))
    ])
    out = service.ExportProfilesServiceRequest(dictionary=d)
    resource_profiles = out.resource_profiles.add(resource=resource)
    resource_profiles.scope_profiles.add().profiles.append(profile)
    return out


def exporter():
    headers = {}
    if ARGS.token:
        headers["authorization"] = f"Bearer {ARGS.token}"
    if ARGS.protocol == "grpc":
        import grpc
        from opentelemetry.proto.collector.profiles.v1development import profiles_service_pb2_grpc

        channel = grpc.insecure_channel(ARGS.endpoint.removeprefix("http://"))
        stub = profiles_service_pb2_grpc.ProfilesServiceStub(channel)

        def export(message):
            answer = stub.Export(message, metadata=list(headers.items()), timeout=10,
                                 compression=grpc.Compression.Gzip)
            EXPORTS.append(answer.partial_success.rejected_profiles)
        return export

    def export(message):
        if ARGS.protocol == "json":
            body = json_format.MessageToJson(message).encode()
            content_type = "application/json"
        else:
            body = message.SerializeToString()
            content_type = "application/x-protobuf"
        extra = {}
        if ARGS.compression == "gzip":
            body = gzip.compress(body)
            extra["Content-Encoding"] = "gzip"
        post = urllib.request.Request(ARGS.endpoint + "/v1development/profiles", data=body, method="POST",
                                      headers={"Content-Type": content_type, **headers, **extra})
        with urllib.request.urlopen(post, timeout=10) as answer:
            reply = answer.read()
        if ARGS.protocol == "json":
            partial = json.loads(reply or b"{}").get("partialSuccess") or {}
            rejected = int(partial.get("rejectedProfiles") or 0)
        else:
            parsed = service.ExportProfilesServiceResponse()
            parsed.ParseFromString(reply)
            rejected = parsed.partial_success.rejected_profiles
        EXPORTS.append(rejected)
    return export


EXPORTS = []


def main():
    global ARGS
    parser = argparse.ArgumentParser()
    parser.add_argument("--protocol", choices=["grpc", "http", "json"], default="grpc")
    parser.add_argument("--endpoint", required=True)
    parser.add_argument("--service", default="profiled")
    parser.add_argument("--host", default="")
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--token", default="")
    parser.add_argument("--compression", choices=["none", "gzip"], default="none")
    ARGS = parser.parse_args()
    sampler = Sampler(threading.main_thread(), exporter())
    sampler.start()
    rounds = work(time.monotonic() + ARGS.seconds)
    sampler.stop.set()
    sampler.join()
    if sampler.error:
        sys.exit(f"profiler.py: exporting to {ARGS.endpoint} failed: {sampler.error}")
    print(json.dumps({
        "service": ARGS.service,
        "rounds": rounds,
        "samples": sampler.samples,
        "period_ns": PERIOD_NS,
        "own": sampler.own,
        "exports": len(EXPORTS),
        "rejected_profiles": sum(EXPORTS),
    }))


if __name__ == "__main__":
    main()
