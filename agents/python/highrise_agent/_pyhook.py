"""The pure-Python recorder: the fallback when the `_native` extension is not built.

Python 3.12+: `sys.monitoring` (all threads; excluded code is switched off per code object with
DISABLE, so it costs nothing after its first call). Older: `sys.setprofile` for the current
thread plus `threading.setprofile` for threads started later.

Each thread appends `(timestamp, method_id * 2 + kind)` to its own bounded list and keeps a
shadow stack of the method ids it entered. A full list drops (and counts) events; the first event
recorded after drops is preceded by a resync marker `(timestamp, -1, stack)` taken by the thread
itself, so the stack the viewer gets is exactly the one the following events continue from.
"""

import sys
import threading
import time
from operator import sub as _sub

from . import _wire


class ThreadBuffer:
    __slots__ = ("thread_id", "ident", "name", "events", "stack", "dropped", "dropping", "ended")

    def __init__(self, thread_id, ident, name):
        self.thread_id = thread_id
        self.ident = ident
        self.name = name
        self.events = []
        self.stack = []
        self.dropped = 0
        self.dropping = False
        self.ended = False


class _EndOfThread:
    """Lives in the thread's `threading.local`; freed when the thread ends."""

    __slots__ = ("buffer",)

    def __init__(self, buffer):
        self.buffer = buffer

    def __del__(self):
        self.buffer.ended = True


def _thread_name(ident):
    thread = threading._active.get(ident)  # no side effects (current_thread() may create one)
    return thread.name if thread is not None else "thread-%d" % ident


class PythonRecorder:
    kind = "python"
    # Allocation counting needs the C extension (the allocator hook, the reference tracer): this
    # recorder counts nothing and sends v1 events only.
    alloc = None
    records = False
    memory_dropped = (0, 0, 0)
    framed = False  # drain's segments are packed events; the agent frames them

    def take_classes(self):
        return []

    def live_snapshot(self):
        return None  # no allocation counting, so no classes to measure

    def class_id(self, cls, register):
        return None

    def __init__(self, methods, clock_zero_ns, buffer_events):
        self._methods = methods
        self._zero = clock_zero_ns
        self._cap = self.buffer_events = max(2, int(buffer_events))
        self._local = threading.local()
        self._codes = {}
        self._buffers = []
        self._lock = threading.Lock()
        self._next_thread_id = 1
        self._installed = None
        self._live = []  # non-empty while installed (a cheap flag the profile function reads)
        self._tool_id = None
        self.dropped_total = 0
        self.calls_drained = 0  # events drained into segments so far (all of them enters and exits)
        self._dropped_ended = 0

    # -- per-thread buffers -------------------------------------------------------------------

    def _new_buffer(self):
        ident = threading.get_ident()
        with self._lock:
            buffer = ThreadBuffer(self._next_thread_id, ident, _thread_name(ident))
            self._next_thread_id += 1
            self._buffers.append(buffer)
        self._local.buffer = buffer
        self._local.end = _EndOfThread(buffer)
        return buffer

    # -- hooks --------------------------------------------------------------------------------

    def _record_slow(self, buffer, value, timestamp):
        """The buffer is full or was dropping: drop and count, or write the resync marker (the
        stack before this event) followed by the event."""
        events = buffer.events
        if len(events) >= self._cap:
            buffer.dropped += 1
            buffer.dropping = True
            return
        events.append((timestamp, -1, tuple(buffer.stack)))
        buffer.dropping = False
        events.append((timestamp, value))

    def phase_enter(self, code):
        """A phase mark opens (see `_phase`): a frame of its method, as a call would."""
        method_id = self._methods.resolve(code, None)
        if method_id < 0:
            return
        try:
            buffer = self._local.buffer
        except AttributeError:
            buffer = self._new_buffer()
        value, timestamp = method_id << 1, time.monotonic_ns()
        if len(buffer.events) < self._cap and not buffer.dropping:
            buffer.events.append((timestamp, value))
        else:
            self._record_slow(buffer, value, timestamp)
        buffer.stack.append(method_id)

    def phase_exit(self, code):
        """It closes, if its frame is the innermost."""
        try:
            buffer = self._local.buffer
        except AttributeError:
            return
        method_id = self._methods.resolve(code, None)
        if not buffer.stack or buffer.stack[-1] != method_id:
            return
        value, timestamp = (method_id << 1) | 1, time.monotonic_ns()
        if len(buffer.events) < self._cap and not buffer.dropping:
            buffer.events.append((timestamp, value))
        else:
            self._record_slow(buffer, value, timestamp)  # needs the stack before the pop
        buffer.stack.pop()

    def install(self):
        # The hooks below are written out flat (no helper calls on the fast path): every Python
        # call costs tens of nanoseconds here. Timestamps are raw time.monotonic_ns(); drain
        # subtracts the clock zero.
        local = self._local
        codes = self._codes
        codes_get = codes.get
        resolve = self._methods.resolve
        cap = self._cap
        clock = time.monotonic_ns
        new_buffer = self._new_buffer
        slow = self._record_slow
        live = self._live
        live.append(True)

        monitoring = getattr(sys, "monitoring", None)
        if monitoring is not None and self._install_monitoring(monitoring):
            self._installed = "sys.monitoring"
            return

        def profile(frame, event, arg):
            if event == "call":
                if not live:
                    sys.setprofile(None)  # a leftover on another thread after uninstall
                    return
                code = frame.f_code
                method_id = codes_get(code)
                if method_id is None:
                    method_id = codes[code] = resolve(code, frame.f_globals.get("__name__"))
                if method_id < 0:
                    return
                try:
                    buffer = local.buffer
                except AttributeError:
                    buffer = new_buffer()
                events = buffer.events
                if len(events) < cap and not buffer.dropping:
                    events.append((clock(), method_id << 1))
                else:
                    slow(buffer, method_id << 1, clock())
                buffer.stack.append(method_id)
            elif event == "return":
                try:
                    buffer = local.buffer
                except AttributeError:
                    return
                stack = buffer.stack
                if not stack or stack[-1] != codes_get(frame.f_code):
                    return
                events = buffer.events
                if len(events) < cap and not buffer.dropping:
                    events.append((clock(), (stack.pop() << 1) | 1))
                else:
                    slow(buffer, (stack[-1] << 1) | 1, clock())  # needs the stack before the pop
                    stack.pop()

        threading.setprofile(profile)
        sys.setprofile(profile)
        self._installed = "profile"

    def _install_monitoring(self, monitoring):
        tool_id = None
        for candidate in (monitoring.PROFILER_ID, 3, 4, 5):
            try:
                monitoring.use_tool_id(candidate, "highrise")
            except ValueError:
                continue
            tool_id = candidate
            break
        if tool_id is None:
            return False
        self._tool_id = tool_id
        events_ = monitoring.events
        DISABLE = monitoring.DISABLE
        local = self._local
        codes = self._codes
        codes_get = codes.get
        resolve = self._methods.resolve
        cap = self._cap
        clock = time.monotonic_ns
        new_buffer = self._new_buffer
        slow = self._record_slow
        getframe = sys._getframe

        def module_of(code):
            # The monitored frame is just above the callback.
            try:
                frame = getframe(1)
                for _ in range(4):
                    if frame is None:
                        break
                    if frame.f_code is code:
                        return frame.f_globals.get("__name__")
                    frame = frame.f_back
            except Exception:
                pass
            return None

        def enter(code):
            method_id = codes_get(code)
            if method_id is None:
                method_id = codes[code] = resolve(code, module_of(code))
            if method_id < 0:
                return False
            try:
                buffer = local.buffer
            except AttributeError:
                buffer = new_buffer()
            events = buffer.events
            if len(events) < cap and not buffer.dropping:
                events.append((clock(), method_id << 1))
            else:
                slow(buffer, method_id << 1, clock())
            buffer.stack.append(method_id)
            return True

        def on_start(code, offset):
            method_id = codes_get(code)
            if method_id is None:
                method_id = codes[code] = resolve(code, module_of(code))
            if method_id < 0:
                return DISABLE
            try:
                buffer = local.buffer
            except AttributeError:
                buffer = new_buffer()
            events = buffer.events
            if len(events) < cap and not buffer.dropping:
                events.append((clock(), method_id << 1))
            else:
                slow(buffer, method_id << 1, clock())
            buffer.stack.append(method_id)

        def on_throw(code, offset, exception):
            enter(code)

        def on_return(code, offset, value):
            try:
                buffer = local.buffer
            except AttributeError:
                buffer = None
            method_id = codes_get(code)
            if buffer is None or not buffer.stack or buffer.stack[-1] != method_id:
                if method_id is not None and method_id < 0:
                    return DISABLE
                return
            stack = buffer.stack
            events = buffer.events
            if len(events) < cap and not buffer.dropping:
                events.append((clock(), (stack.pop() << 1) | 1))
            else:
                slow(buffer, (method_id << 1) | 1, clock())  # needs the stack before the pop
                stack.pop()

        def on_unwind(code, offset, exception):
            on_return(code, offset, None)

        register = monitoring.register_callback
        register(tool_id, events_.PY_START, on_start)
        register(tool_id, events_.PY_RESUME, on_start)
        register(tool_id, events_.PY_THROW, on_throw)
        register(tool_id, events_.PY_RETURN, on_return)
        register(tool_id, events_.PY_YIELD, on_return)
        register(tool_id, events_.PY_UNWIND, on_unwind)
        monitoring.restart_events()
        monitoring.set_events(
            tool_id,
            events_.PY_START
            | events_.PY_RESUME
            | events_.PY_THROW
            | events_.PY_RETURN
            | events_.PY_YIELD
            | events_.PY_UNWIND,
        )
        return True

    def uninstall(self):
        self._live.clear()
        if self._installed == "profile":
            sys.setprofile(None)
            threading.setprofile(None)
        elif self._installed == "sys.monitoring":
            monitoring = sys.monitoring
            try:
                monitoring.set_events(self._tool_id, 0)
                for event in (
                    monitoring.events.PY_START,
                    monitoring.events.PY_RESUME,
                    monitoring.events.PY_THROW,
                    monitoring.events.PY_RETURN,
                    monitoring.events.PY_YIELD,
                    monitoring.events.PY_UNWIND,
                ):
                    monitoring.register_callback(self._tool_id, event, None)
                monitoring.free_tool_id(self._tool_id)
            except Exception:
                pass
        self._installed = None

    @property
    def mechanism(self):
        return self._installed or "none"

    @staticmethod
    def task_slots():
        """Tasks are not threads here (the C recorder's feature): none."""
        return 0

    def thread_ids(self):
        """{ident: thread_id} of the recorded threads that still exist (a sampler taking over
        goes on under the same ids)."""
        with self._lock:
            return {buffer.ident: buffer.thread_id for buffer in self._buffers if not buffer.ended}

    # -- draining (sender thread) ---------------------------------------------------------------

    def drain(self, now_ticks, final=False):
        """[(thread_id, name, ended, segments)], segments in order: (base, count, packed) for
        events, (timestamp, stack) for a resync."""
        out = []
        zero = self._zero
        with self._lock:
            buffers = list(self._buffers)
        total = self._dropped_ended
        for buffer in buffers:
            ended = buffer.ended
            events = buffer.events
            n = len(events)
            taken = events[:n]
            del events[:n]
            segments = []
            if taken and min([item[1] for item in taken]) >= 0:  # no resync marker: the fast way
                for start in range(0, len(taken), BATCH_EVENTS):
                    segments.append(_pack(taken[start : start + BATCH_EVENTS], zero))
            else:
                run = []
                for item in taken:
                    if item[1] < 0:
                        if run:
                            segments.append(_pack(run, zero))
                            run = []
                        segments.append((max(0, item[0] - zero), list(item[2])))
                    else:
                        run.append(item)
                        if len(run) >= BATCH_EVENTS:
                            segments.append(_pack(run, zero))
                            run = []
                if run:
                    segments.append(_pack(run, zero))
            self.calls_drained += sum(segment[1] for segment in segments if len(segment) == 3)
            if (ended or final) and buffer.dropping:
                # The thread is gone (or recording has stopped): its stack can no longer change,
                # so it can be sent as is.
                segments.append((now_ticks, list(buffer.stack)))
                buffer.dropping = False
            total += buffer.dropped
            if ended:
                with self._lock:
                    self._buffers.remove(buffer)
                self._dropped_ended += buffer.dropped
            if segments or ended:
                out.append((buffer.thread_id, buffer.name, ended, segments))
        self.dropped_total = total
        return out


BATCH_EVENTS = 8192


_LEB128_SMALL = 1 << 14
_LEB128 = [_wire.leb128(value) for value in range(_LEB128_SMALL)]  # 1- and 2-byte encodings


def _pack(run, zero):
    """A run of one thread's events (raw monotonic_ns timestamps) -> (base_timestamp in ticks
    since the clock zero, count, packed). Vectorised with C-level list operations; per-event
    Python code only for values of 2^14 and more."""
    timestamps = [event[0] for event in run]
    first = timestamps[0]
    deltas = list(map(_sub, timestamps, [first] + timestamps[:-1]))
    if min(deltas) < 0:
        return _pack_clamped(run, zero)
    flat = [0] * (2 * len(run))
    flat[0::2] = [event[1] for event in run]
    flat[1::2] = deltas
    try:
        packed = b"".join(map(_LEB128.__getitem__, flat))
    except IndexError:
        leb128 = _wire.leb128
        packed = b"".join([_LEB128[v] if v < _LEB128_SMALL else leb128(v) for v in flat])
    return (max(0, first - zero), len(run), packed)


def _pack_clamped(run, zero):
    """The slow way, for a clock that stepped back: such a delta is written as 0 (SPEC)."""
    previous = run[0][0]
    base = max(0, previous - zero)
    out = bytearray()
    for timestamp, code in run:
        delta = timestamp - previous
        if delta < 0:
            delta = 0
        else:
            previous = timestamp
        out += _wire.leb128(code)
        out += _wire.leb128(delta)
    return (base, len(run), bytes(out))
