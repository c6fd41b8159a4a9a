#!/usr/bin/env python3
"""Writes the seed corpora (fuzz/corpus/<target>/) from the golden files and the sample
recordings. Deterministic; rerun after the golden files change. Seeds only: a fuzz run grows
its corpus in fuzz/corpus-grown/<target>/ (ignored by git; BENCHMARKS.md, "Fuzzing")."""

import os
import struct
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "agent-protocol" / "golden"
RECORDINGS = ROOT / "assets" / "recordings"
CORPUS = ROOT / "fuzz" / "corpus"

ANSWERS = ("welcome", "reject", "reject_token")
HELLOS = ("hello", "hello_token")


def golden(name):
    return (GOLDEN / f"{name}.bin").read_bytes()


def write(target, name, data):
    directory = CORPUS / target
    directory.mkdir(parents=True, exist_ok=True)
    (directory / name).write_bytes(data)


def v1_frames(recording):
    """The wire frames of an uncompressed (format 1) recording, in order."""
    frames, at = [], 28
    while at + 5 <= len(recording):
        kind, length = recording[at], struct.unpack_from("<I", recording, at + 1)[0]
        body = recording[at + 5 : at + 5 + length]
        if kind == 1:
            frames.append(body[8:])
        elif kind == 3:
            break
        at += 5 + length + 4
    return frames


# OTLP export requests (opentelemetry.proto.collector.trace.v1), encoded by hand: seeds only,
# so the fuzz crate's corpus needs no protobuf tooling here.
def pb_varint(value):
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def pb_len(tag, payload):
    return pb_varint(tag << 3 | 2) + pb_varint(len(payload)) + payload


def pb_fixed64(tag, value):
    return pb_varint(tag << 3 | 1) + struct.pack("<Q", value)


def pb_int(tag, value):
    return pb_varint(tag << 3) + pb_varint(value & (2**64 - 1))


def otlp_text(key, value):
    return pb_len(1, key.encode()) + pb_len(2, pb_len(1, value.encode()))


def otlp_number(key, value):
    return pb_len(1, key.encode()) + pb_len(2, pb_int(3, value))


def otlp_span(trace, span, parent, name, start_ms, end_ms, attributes, kind=1):
    zero_ns = 1_800_000_000 * 10**9
    fields = pb_len(1, bytes([trace]) * 16) + pb_len(2, bytes([span]) * 8)
    if parent:
        fields += pb_len(4, bytes([parent]) * 8)
    fields += pb_len(5, name.encode()) + pb_int(6, kind)
    fields += pb_fixed64(7, zero_ns + start_ms * 10**6) + pb_fixed64(8, zero_ns + end_ms * 10**6)
    return fields + b"".join(pb_len(9, attribute) for attribute in attributes)


def otlp_request(service, spans):
    resource = pb_len(1, pb_len(1, otlp_text("service.name", service)) + pb_len(1, otlp_text("host.name", "h1")))
    scope_spans = pb_len(1, pb_len(1, b"shop")) + b"".join(pb_len(2, span) for span in spans)
    return pb_len(1, resource + pb_len(2, scope_spans))


def main():
    messages = sorted(
        path.stem
        for path in GOLDEN.glob("*.bin")
        if path.stem not in ANSWERS + HELLOS + ("session",)
    )
    # session_frames: whole streams, a Hello then each kind of message, a Hello alone.
    write("session_frames", "session", golden("session"))
    for hello in HELLOS:
        write("session_frames", hello, golden(hello))
    for message in messages:
        write("session_frames", f"hello+{message}", golden("hello") + golden(message))
    synthetic = (RECORDINGS / "synthetic.hrec").read_bytes()
    write("session_frames", "synthetic", b"".join(v1_frames(synthetic)))
    # session_messages: structured input (arbitrary); a few byte strings to start from.
    write("session_messages", "session", golden("session"))
    write("session_messages", "zeros", bytes(64))
    write("session_messages", "ramp", bytes(range(256)))
    # recording_reader: both formats, whole, cut mid-file, cut before the footer.
    for name in ("synthetic", "synthetic-compressed"):
        recording = (RECORDINGS / f"{name}.hrec").read_bytes()
        write("recording_reader", name, recording)
        write("recording_reader", f"{name}-half", recording[: len(recording) // 2])
        write("recording_reader", f"{name}-no-trailer", recording[:-16])
        write("recording_reader", f"{name}-header", recording[:28])
    # agent_answer: the viewer's answers.
    for answer in ANSWERS:
        write("agent_answer", answer, golden(answer))
    # otlp_request: a trace of nested spans on a thread, spans to reject, an OTLP/JSON body.
    code = lambda name: otlp_text("code.function.name", name)
    write("otlp_request", "nested", otlp_request("shop", [
        otlp_span(1, 2, 1, "query", 10, 80, [code("shop.db.Repository.query"), otlp_number("thread.id", 7)]),
        otlp_span(1, 1, 0, "handle", 0, 100, [code("shop.api.Handler.handle"), otlp_text("thread.name", "w-7")], kind=2),
    ]))
    write("otlp_request", "rejects", otlp_request("shop", [
        otlp_span(2, 3, 0, "no end", 10, 0, []),
        otlp_span(0, 4, 0, "zero trace", 0, 5, []),
    ]))
    write("otlp_request", "json", b'{"resourceSpans":[{"resource":{"attributes":[{"key":"service.name",'
          b'"value":{"stringValue":"j"}}]},"scopeSpans":[{"scope":{"name":"s"},"spans":[{"traceId":'
          b'"5B8EFFF798038103D269B633813FC60C","spanId":"EEE19B7EC3C1B174","name":"run","kind":2,'
          b'"startTimeUnixNano":"1544712660000000000","endTimeUnixNano":"1544712661000000000"}]}]}]}')
    # adaptive_maps: arbitrary bytes become operations; a few deterministic patterns (runs of
    # small ids, far jumps, bursts) so the first inputs already switch the per-thread maps.
    import random
    for seed in range(4):
        draw = random.Random(seed)
        write("adaptive_maps", f"mixed-{seed}", bytes(draw.randrange(256) for _ in range(2048)))
    write("adaptive_maps", "ramp", bytes(range(256)) * 8)
    # session_frames / session_messages: streams that real programs sent (fuzz/recorded/, made
    # by fuzz/capture_seeds.py from the real-program corpus): method ids as class loading
    # allocates them, which synthetic streams never did.
    for stream in sorted((ROOT / "fuzz" / "recorded").glob("*.frames")):
        write("session_frames", f"real-{stream.stem}", stream.read_bytes())
        write("session_messages", f"real-{stream.stem}", stream.read_bytes()[: 16 * 1024])

if __name__ == "__main__":
    main()
