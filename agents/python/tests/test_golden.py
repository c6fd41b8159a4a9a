"""The Python encoder reproduces every golden file in agent-protocol/golden/ byte for byte (the
values are the ones agent-protocol/rust/tests/golden.rs builds)."""

import pathlib

import pytest

from highrise_agent import _wire as w

GOLDEN = pathlib.Path(__file__).resolve().parents[3] / "agent-protocol" / "golden"


def events_frame():
    count, packed = w.pack_events(
        1000, [(1000, 0, w.ENTER), (1100, 300, w.ENTER), (1227, 300, w.EXIT), (21227, 0, w.EXIT)]
    )
    return w.events(1, 1000, count, packed)


# golden/records.bin: thread 1, base 30000; enter 0 @30000; 3 main.game.Piece (class 2), 72 bytes, created;
# enter 300 @30100; 2 untyped blocks (class 1), 4096 bytes, freed @30227; exit 300; exit 0 @50227.
GOLDEN_RECORDS = [
    (30000, 0, w.ENTER),
    (30000, 2, w.MEMORY, 3, False, 72),
    (30100, 300, w.ENTER),
    (30227, 1, w.MEMORY, 2, True, 4096),
    (30227, 300, w.EXIT),
    (50227, 0, w.EXIT),
]


def records_frame():
    count, packed = w.pack_records(30000, GOLDEN_RECORDS)
    return w.records(1, 30000, count, packed)


AGENT_FRAMES = [
    (
        "hello",
        lambda: w.hello("highrise-golden 1.0", "tetris", "v1.0", 4242, 1, 1_700_000_000_000_000_000),
    ),
    (
        "define_methods",
        lambda: w.define_methods(
            [
                w.method_def(0, "main.game", "Board", "rotate", "(I)V", "Board.java", 42),
                w.method_def(300, "", "Main", "run"),
            ]
        ),
    ),
    ("thread_start", lambda: w.thread_start(1, "main", 900)),
    (
        "define_classes",
        lambda: w.define_classes(
            [
                w.class_def(1, "", "(untyped)", w.CLASS_KIND_UNTYPED),
                w.class_def(2, "main.game", "Piece", w.CLASS_KIND_CLASS),
            ]
        ),
    ),
    ("events", events_frame),
    ("records", records_frame),
    ("heartbeat", lambda: w.heartbeat(70_000)),
    ("resync", lambda: w.resync(1, 80_000, [0, 300])),
    ("dropped", lambda: w.dropped(1_000_000, 3)),
    ("memory_dropped", lambda: w.memory_dropped(5000, 120_000, 0)),
    ("live_objects", lambda: w.live_objects(1, 85_000, 1_048_576, [(0, 3, 72), (2, 0, 0)])),
    (
        "class_relations",
        lambda: w.class_relations(
            [
                (2, 2, w.RELATION_FIELD, "next", False),
                (2, 1, w.RELATION_EXTENDS, "", False),
                (2, 2, w.RELATION_FIELD, "rotations", True),
            ]
        ),
    ),
    ("thread_end", lambda: w.thread_end(1, 90_000)),
    ("goodbye", lambda: w.goodbye(100_000)),
]

# Not part of session.bin: the same Hello with a token (the session starts with the plain one),
# a sampled session's measure (the golden session is exact), and a notice.
TOKEN = "00112233445566778899aabbccddeeff"
ASIDE_FRAMES = [
    ("measure", lambda: w.measure(w.MEASURE_SAMPLED, 10_000, 0)),
    ("notice", lambda: w.notice("not-instrumented", "2 classes not instrumented: big/Huge (method too large)")),
    (
        "hello_token",
        lambda: w.hello("highrise-golden 1.0", "tetris", "v1.0", 4242, 1, 1_700_000_000_000_000_000, TOKEN),
    ),
]

VIEWER_FRAMES = [
    ("welcome", lambda: w.welcome(2, 7)),
    ("reject", lambda: w.reject(2, "bad magic")),
    ("reject_token", lambda: w.reject(2, "unauthorized: no token")),
]


@pytest.mark.parametrize("name,build", AGENT_FRAMES + ASIDE_FRAMES + VIEWER_FRAMES, ids=lambda x: x if isinstance(x, str) else "")
def test_frame_matches_golden_file(name, build):
    assert build() == (GOLDEN / (name + ".bin")).read_bytes()


def test_session_is_all_agent_frames_in_order():
    assert b"".join(build() for _, build in AGENT_FRAMES) == (GOLDEN / "session.bin").read_bytes()


def test_every_golden_file_is_covered():
    covered = {name for name, _ in AGENT_FRAMES + ASIDE_FRAMES + VIEWER_FRAMES} | {"session"}
    assert {p.stem for p in GOLDEN.glob("*.bin")} == covered


def test_protocol_version_is_2():
    assert w.PROTOCOL_VERSION == 2


def test_native_packer_matches_golden_events():
    native = pytest.importorskip("highrise_agent._native")
    packed = native.pack_events_for_test(1000, [(1000, 0), (1100, 600), (1227, 601), (21227, 1)])
    assert w.events(1, 1000, 4, packed) == (GOLDEN / "events.bin").read_bytes()


def test_native_records_packer_matches_golden_records():
    """The C recorder's packed records (heads id << 2 | kind, a memory record's payload from its
    second slot) are the bytes of golden/records.bin."""
    native = pytest.importorskip("highrise_agent._native")
    packed = native.pack_records_for_test(
        30000,
        [
            (30000, 0 << 2 | w.ENTER),
            (30000, 2 << 2 | w.MEMORY, 3, False, 72),
            (30100, 300 << 2 | w.ENTER),
            (30227, 1 << 2 | w.MEMORY, 2, True, 4096),
            (30227, 300 << 2 | w.EXIT),
            (50227, 0 << 2 | w.EXIT),
        ],
    )
    assert w.records(1, 30000, 6, packed) == (GOLDEN / "records.bin").read_bytes()


def test_native_frames_match_the_reference_framing():
    """drain's frames (made in C around the packed bytes) are what _wire.events / _wire.records
    make: the golden files, and random heads of every varint length."""
    native = pytest.importorskip("highrise_agent._native")
    packed = native.pack_events_for_test(1000, [(1000, 0), (1100, 600), (1227, 601), (21227, 1)])
    assert native.frame_for_test(w.TAG_EVENTS, 1, 1000, 4, packed) == (GOLDEN / "events.bin").read_bytes()
    import random

    rng = random.Random(11)
    for _ in range(200):
        thread_id = rng.choice([1, 127, 128, 2**20, 2**63])
        base = rng.choice([0, 127, 128, 10**9, 2**62])
        count = rng.choice([1, 127, 128, 8192, 2**20])
        packed = bytes(rng.randrange(256) for _ in range(rng.choice([0, 1, 127, 128, 20000])))
        for tag, reference in ((w.TAG_EVENTS, w.events), (w.TAG_RECORDS, w.records)):
            assert native.frame_for_test(tag, thread_id, base, count, packed) == reference(
                thread_id, base, count, packed
            )


def test_native_records_packer_matches_the_reference_encoder():
    native = pytest.importorskip("highrise_agent._native")
    import random

    rng = random.Random(5)
    for _ in range(200):
        timestamp = base = 10**6
        records, native_records = [], []
        for _ in range(rng.randint(1, 40)):
            timestamp += rng.choice([0, 5, 127, 128, 16384, 2**40, -3])
            ident = rng.choice([0, 1, 31, 32, 600, 2**22 - 1])
            kind = rng.choice([w.ENTER, w.EXIT, w.MEMORY])
            if kind == w.MEMORY:
                count, free, nbytes = rng.choice([1, 63, 64, 2**40]), rng.random() < 0.3, rng.choice([0, 48, 2**33])
                records.append((timestamp, ident, kind, count, free, nbytes))
                native_records.append((timestamp, ident << 2 | kind, count, free, nbytes))
            else:
                records.append((timestamp, ident, kind))
                native_records.append((timestamp, ident << 2 | kind))
        count, expected = w.pack_records(base, records)
        assert native.pack_records_for_test(base, native_records) == expected


def test_viewer_answers_decode():
    assert w.decode_viewer_message((GOLDEN / "welcome.bin").read_bytes()[4:]) == ("welcome", 2, 7)
    assert w.decode_viewer_message((GOLDEN / "reject.bin").read_bytes()[4:]) == ("reject", 2, "bad magic")
    assert w.decode_viewer_message((GOLDEN / "reject_token.bin").read_bytes()[4:]) == (
        "reject",
        2,
        "unauthorized: no token",
    )
    with pytest.raises(w.DecodeError):
        w.decode_viewer_message(b"\x05")


@pytest.mark.parametrize(
    "value,encoded",
    [(42, "2a"), (250, "fa"), (300, "fb2c01"), (4242, "fb9210"), (70000, "fc70110100")],
)
def test_varint_examples_from_spec(value, encoded):
    assert w.varint(value).hex() == encoded


@pytest.mark.parametrize(
    "value,encoded", [(0, "00"), (127, "7f"), (128, "8001"), (600, "d804"), (20000, "a09c01")]
)
def test_leb128_examples_from_spec(value, encoded):
    assert w.leb128(value).hex() == encoded


def test_packed_records_worked_example_from_spec():
    count, packed = w.pack_records(30000, GOLDEN_RECORDS)
    assert count == 6
    assert packed.hex(" ") == "00 00 0a 00 06 48 b0 09 64 06 7f 05 80 20 b1 09 00 01 a0 9c 01"


def test_pack_records_clock_back_large_values_and_bad_records():
    """As pack_events: a clock that stepped back writes delta 0 (memory records included); ids,
    counts and sizes beyond 7 bits take more LEB128 bytes; a malformed record is refused."""
    count, packed = w.pack_records(
        100, [(100, 0, w.ENTER), (90, 1, w.MEMORY, 1, False, 0), (95, 0, w.EXIT), (95, 40, w.MEMORY, 64, True, 1 << 20)]
    )
    assert (count, packed.hex(" ")) == (4, "00 00 06 00 02 00 01 00 a2 01 00 81 01 80 80 40")
    for bad in [(0, 0, 3), (0, 0, w.MEMORY), (0, 0, w.ENTER, 1, False, 0)]:
        with pytest.raises(ValueError):
            w.pack_records(0, [bad])
    with pytest.raises(ValueError):
        w.class_def(0, "", "x", 3)


def test_pack_records_without_memory_is_pack_events_with_wider_heads():
    """Enter/exit-only records are events with head id*4+kind instead of id*2+kind."""
    for run in _random_runs(11, count=50):
        evs = [(t, code >> 1, code & 1) for t, code in run]
        base = run[0][0]
        count, packed_records = w.pack_records(base, evs)
        assert count == len(evs)
        _, expected = w.pack_events(base, [(t, (m * 4 + k) >> 1, (m * 4 + k) & 1) for t, m, k in evs])
        assert packed_records == expected


def _random_runs(seed, count=200):
    import random

    rng = random.Random(seed)
    for _ in range(count):
        timestamp = 10**6
        run = []
        for _ in range(rng.randint(1, 60)):
            timestamp += rng.choice([0, 5, 127, 128, 300, 16383, 16384, 10**7, 2**40, -3])
            run.append((timestamp, rng.choice([0, 1, 127, 128, 600, 601, 2**25 - 1])))
        yield run


def test_recorder_packers_match_the_reference_encoder():
    """The pure recorder's vectorised packer and the C packer write what _wire.pack_events writes
    (including a clock that steps back: delta 0)."""
    from highrise_agent import _pyhook

    try:
        from highrise_agent import _native
    except ImportError:
        _native = None
    for run in _random_runs(7):
        zero = 10**6 - 7
        base = run[0][0] - zero
        count, expected = w.pack_events(base, [(t - zero, code >> 1, code & 1) for t, code in run])
        assert _pyhook._pack(run, zero) == (base, count, expected)
        if _native is not None:
            assert _native.pack_events_for_test(base, [(t - zero, code) for t, code in run]) == expected
