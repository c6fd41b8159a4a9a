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


if __name__ == "__main__":
    main()
