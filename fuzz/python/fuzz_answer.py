#!/usr/bin/env python3
"""Fuzzes the Python agent's reading of the viewer's answer (atheris, Python 3.11): bytes as
they come off the socket, in one or two chunks, through `Agent._take_answer` (the framing) and
`_wire.decode_viewer_message` (the payload). Must hold: no exception escapes but the agent's
own `DecodeError` (which it turns into an "invalid" answer); an answer is welcome, reject or
invalid, and a welcome or reject only comes from a whole frame.

    pip install atheris   # a binary wheel for CPython 3.11 on x86-64 Linux
    python3.11 fuzz/python/fuzz_answer.py fuzz/corpus-grown/python_answer fuzz/corpus/agent_answer \
        -max_total_time=600
"""

import os
import sys

import atheris

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "agents", "python"))

with atheris.instrument_imports():
    from highrise_agent import _agent, _wire


def take(chunks):
    agent = _agent.Agent.__new__(_agent.Agent)
    agent._answer = bytearray()
    agent.answer = None
    for chunk in chunks:
        if agent.answer is None:
            agent._take_answer(chunk)
    return agent.answer


def test_one_input(data):
    whole = take([data])
    # The same bytes cut in two where the first byte says: the same answer.
    cut = data[0] % (len(data) + 1) if data else 0
    assert take([data[:cut], data[cut:]]) == whole, (whole, cut)
    if whole is None:
        return
    kind = whole[0]
    assert kind in ("welcome", "reject", "invalid"), whole
    if kind != "invalid":
        length = int.from_bytes(data[:4], "little")
        assert length <= _wire.MAX_FRAME_BYTES and len(data) >= 4 + length, whole
    # Direct decoding of any payload: a value or DecodeError, nothing else.
    try:
        _wire.decode_viewer_message(data[4:])
    except _wire.DecodeError:
        pass


def main():
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
