"""The highrise wire format (agent-protocol/SPEC.md): bincode-2 varints, LEB128 packed events and
packed records, length-prefixed frames. Pure functions from values to bytes, and a small reader for
the viewer's answer. The golden files in agent-protocol/golden/ pin every byte (tests/test_golden.py)."""

import struct

MAGIC = b"HRSE"
PROTOCOL_VERSION = 2
DEFAULT_PORT = 7878
MAX_FRAME_BYTES = 4 * 1024 * 1024

TAG_HELLO = 0
TAG_DEFINE_METHODS = 1
TAG_THREAD_START = 2
TAG_THREAD_END = 3
TAG_EVENTS = 4
TAG_HEARTBEAT = 5
TAG_RESYNC = 6
TAG_DROPPED = 7
TAG_GOODBYE = 8
# Version 2: class definitions, packed records (enter, exit, memory), memory drop totals.
TAG_DEFINE_CLASSES = 9
TAG_RECORDS = 10
TAG_MEMORY_DROPPED = 11
TAG_LIVE_OBJECTS = 12
TAG_CLASS_RELATIONS = 13
TAG_MEASURE = 14
TAG_NOTICE = 15
MEASURE_EXACT = 0
MEASURE_SAMPLED = 1
MEASURE_ADAPTIVE = 2

# Class relation kinds (SPEC "Class relations").
RELATION_EXTENDS = 0
RELATION_IMPLEMENTS = 1
RELATION_FIELD = 2

# Event kinds; in packed records also the record kinds 0 and 1, with MEMORY the third.
ENTER = 0
EXIT = 1
MEMORY = 2

# ClassDef.kind (a bincode enum: its variant index).
CLASS_KIND_CLASS = 0
CLASS_KIND_ARRAY = 1
CLASS_KIND_UNTYPED = 2

_pack_u16 = struct.Struct("<H").pack
_pack_u32 = struct.Struct("<I").pack
_pack_u64 = struct.Struct("<Q").pack


def varint(value):
    """bincode 2 standard-config unsigned varint (shortest form)."""
    if value < 251:
        return bytes((value,))
    if value < 1 << 16:
        return b"\xfb" + _pack_u16(value)
    if value < 1 << 32:
        return b"\xfc" + _pack_u32(value)
    return b"\xfd" + _pack_u64(value)


def leb128(value):
    """Unsigned LEB128 (used inside packed events)."""
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def string(text):
    data = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else bytes(text)
    # Lone surrogates are not valid UTF-8; replace them so the viewer never rejects the frame.
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        data = text.encode("utf-8", "replace")
    return varint(len(data)) + data


def option_string(text):
    return b"\x00" if text is None else b"\x01" + string(text)


def option_u32(value):
    return b"\x00" if value is None else b"\x01" + varint(value)


def frame(payload):
    """One frame: u32 little-endian payload length, then the payload."""
    if len(payload) > MAX_FRAME_BYTES:
        raise ValueError("frame payload of %d bytes exceeds MAX_FRAME_BYTES" % len(payload))
    return _pack_u32(len(payload)) + payload


def hello(agent, program, version_label, pid, clock_unit_ns, clock_zero_unix_ns, token=None):
    """The Hello; a token (for a viewer listening beyond loopback, SPEC.md "Tokens") is its
    optional last field, left out entirely when there is none (or it is empty)."""
    return frame(
        varint(TAG_HELLO)
        + MAGIC
        + varint(PROTOCOL_VERSION)
        + string(agent)
        + string(program)
        + string(version_label)
        + varint(pid)
        + varint(clock_unit_ns)
        + varint(clock_zero_unix_ns)
        + (string(token) if token else b"")
    )


def method_def(method_id, package, class_, method, signature=None, file=None, line=None):
    return (
        varint(method_id)
        + string(package)
        + string(class_)
        + string(method)
        + option_string(signature)
        + option_string(file)
        + option_u32(line)
    )


def define_methods(encoded_defs):
    """`encoded_defs`: a list of `method_def(...)` byte strings."""
    return frame(varint(TAG_DEFINE_METHODS) + varint(len(encoded_defs)) + b"".join(encoded_defs))


def thread_start(thread_id, name, timestamp):
    return frame(varint(TAG_THREAD_START) + varint(thread_id) + string(name) + varint(timestamp))


def thread_end(thread_id, timestamp):
    return frame(varint(TAG_THREAD_END) + varint(thread_id) + varint(timestamp))


def pack_events(base_timestamp, events):
    """`events`: iterable of (timestamp, method_id, kind). Returns (count, packed bytes).
    A clock that stepped back is written as delta 0 (SPEC: timestamps never decrease)."""
    out = bytearray()
    previous = base_timestamp
    count = 0
    for timestamp, method_id, kind in events:
        delta = timestamp - previous
        if delta < 0:
            delta = 0
        else:
            previous = timestamp
        out += leb128(method_id * 2 + kind)
        out += leb128(delta)
        count += 1
    return count, bytes(out)


def events(thread_id, base_timestamp, event_count, packed):
    return frame(
        varint(TAG_EVENTS)
        + varint(thread_id)
        + varint(base_timestamp)
        + varint(event_count)
        + varint(len(packed))
        + packed
    )


def measure(mode, sample_period_us, sampled_methods):
    """Tag 14: how the session measures (MEASURE_EXACT, MEASURE_SAMPLED, MEASURE_ADAPTIVE)."""
    return frame(varint(TAG_MEASURE) + varint(mode) + varint(sample_period_us) + varint(sampled_methods))


def notice(key, text):
    """Tag 15: a fact the session's user should see (SPEC "Notice"); replaces the last with `key`."""
    return frame(varint(TAG_NOTICE) + string(key) + string(text))


def heartbeat(timestamp):
    return frame(varint(TAG_HEARTBEAT) + varint(timestamp))


def resync(thread_id, timestamp, stack):
    return frame(
        varint(TAG_RESYNC)
        + varint(thread_id)
        + varint(timestamp)
        + varint(len(stack))
        + b"".join(varint(method_id) for method_id in stack)
    )


def resync_encoded(thread_id, timestamp, stack):
    """`resync` of a stack whose method ids are varints already (the sampler caches them)."""
    return frame(varint(TAG_RESYNC) + varint(thread_id) + varint(timestamp) + varint(len(stack)) + b"".join(stack))


def dropped(events_dropped, batches_dropped):
    return frame(varint(TAG_DROPPED) + varint(events_dropped) + varint(batches_dropped))


def goodbye(timestamp):
    return frame(varint(TAG_GOODBYE) + varint(timestamp))


def class_def(class_id, package, name, kind=CLASS_KIND_CLASS):
    """One ClassDef (version 2): `kind` is CLASS_KIND_CLASS, _ARRAY or _UNTYPED."""
    if kind not in (CLASS_KIND_CLASS, CLASS_KIND_ARRAY, CLASS_KIND_UNTYPED):
        raise ValueError("unknown class kind %r" % (kind,))
    return varint(class_id) + string(package) + string(name) + varint(kind)


def define_classes(classes):
    """DefineClasses (version 2). `classes`: a list of `class_def(...)` byte strings."""
    return frame(varint(TAG_DEFINE_CLASSES) + varint(len(classes)) + b"".join(classes))


def pack_records(base_timestamp, records):
    """Packed records (version 2, SPEC "Packed records") for one thread. `records`: iterable of
    (timestamp, method_id, ENTER or EXIT) and (timestamp, class_id, MEMORY, count, free, nbytes),
    `free` true for objects freed, false for objects created; `nbytes` 0 when not measured.
    Returns (count, packed bytes). Deltas as in pack_events: a clock that stepped back is written
    as delta 0."""
    out = bytearray()
    previous = base_timestamp
    count = 0
    for record in records:
        timestamp, id_, kind = record[:3]
        if kind in (ENTER, EXIT):
            if len(record) != 3:
                raise ValueError("an enter or exit record is (timestamp, method_id, kind): %r" % (record,))
        elif kind == MEMORY:
            if len(record) != 6:
                raise ValueError(
                    "a memory record is (timestamp, class_id, MEMORY, count, free, nbytes): %r" % (record,)
                )
        else:
            raise ValueError("unknown record kind %r" % (kind,))
        delta = timestamp - previous
        if delta < 0:
            delta = 0
        else:
            previous = timestamp
        out += leb128(id_ * 4 + kind)
        out += leb128(delta)
        if kind == MEMORY:
            _, _, _, objects, free, nbytes = record
            out += leb128(objects * 2 + (1 if free else 0))
            out += leb128(nbytes)
        count += 1
    return count, bytes(out)


def records(thread_id, base_timestamp, record_count, packed):
    """A Records frame (version 2) around `pack_records` output."""
    return frame(
        varint(TAG_RECORDS)
        + varint(thread_id)
        + varint(base_timestamp)
        + varint(record_count)
        + varint(len(packed))
        + packed
    )


def memory_dropped(allocations_dropped, bytes_dropped, frees_dropped):
    """MemoryDropped (version 2): running totals of the counts lost with dropped memory records."""
    return frame(
        varint(TAG_MEMORY_DROPPED)
        + varint(allocations_dropped)
        + varint(bytes_dropped)
        + varint(frees_dropped)
    )


def live_objects(thread_id, timestamp, heap_live_bytes, classes):
    """LiveObjects (tag 12, a version-2 addition): `classes` is [(class_id, count, bytes)], the
    objects live per class as a phase of `thread_id` ended; `heap_live_bytes` None when unknown."""
    out = bytearray(varint(TAG_LIVE_OBJECTS) + varint(thread_id) + varint(timestamp))
    out += b"\x00" if heap_live_bytes is None else b"\x01" + varint(heap_live_bytes)
    out += varint(len(classes))
    for class_id, count, nbytes in classes:
        out += varint(class_id) + varint(count) + varint(nbytes)
    return frame(bytes(out))


def class_relations(relations):
    """ClassRelations (tag 13, a version-2 addition): `relations` is [(from_class, to_class, kind,
    field, many)], kind one of the RELATION_* constants, field "" unless kind is a field."""
    out = bytearray(varint(TAG_CLASS_RELATIONS) + varint(len(relations)))
    for from_class, to_class, kind, field, many in relations:
        out += varint(from_class) + varint(to_class) + varint(kind) + string(field)
        out += b"\x01" if many else b"\x00"
    return frame(bytes(out))


# Viewer -> agent (used by tests and to read the answer).


def welcome(protocol_version, session_id):
    return frame(varint(0) + varint(protocol_version) + varint(session_id))


def reject(protocol_version, reason):
    return frame(varint(1) + varint(protocol_version) + string(reason))


class DecodeError(ValueError):
    pass


def read_varint(data, pos):
    """Decode a bincode varint at `pos`; returns (value, next position)."""
    if pos >= len(data):
        raise DecodeError("truncated varint")
    first = data[pos]
    if first < 251:
        return first, pos + 1
    width = {251: 2, 252: 4, 253: 8}.get(first)
    if width is None or pos + 1 + width > len(data):
        raise DecodeError("bad varint")
    return int.from_bytes(data[pos + 1 : pos + 1 + width], "little"), pos + 1 + width


def decode_viewer_message(payload):
    """('welcome', version, session_id) or ('reject', version, reason). Never trusts the bytes."""
    tag, pos = read_varint(payload, 0)
    version, pos = read_varint(payload, pos)
    if tag == 0:
        session_id, pos = read_varint(payload, pos)
        return ("welcome", version, session_id)
    if tag == 1:
        length, pos = read_varint(payload, pos)
        if pos + length > len(payload):
            raise DecodeError("truncated reason")
        return ("reject", version, payload[pos : pos + length].decode("utf-8", "replace"))
    raise DecodeError("unknown viewer message tag %d" % tag)
