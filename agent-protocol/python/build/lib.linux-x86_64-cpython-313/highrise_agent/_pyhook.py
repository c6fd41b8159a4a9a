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

from . import _wire


class ThreadBuffer:
    __slots__ = ("thread_id", "name", "events", "stack", "dropped", "dropping", "ended")

    def __init__(self, thread_id, name):
        self.thread_id = thread_id
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

    def __init__(self, methods, clock_zero_ns, buffer_events):
        self._methods = methods
        self._zero = clock_zero_ns
        self._cap = max(2, int(buffer_events))
        self._local = threading.local()
        self._codes = {}
        self._buffers = []
        self._lock = threading.Lock()
        self._next_thread_id = 1
        self._installed = None
        self._live = []  # non-empty while installed (a cheap flag the profile function reads)
        self._tool_id = None
        self.dropped_total = 0
        self._dropped_ended = 0

    # -- per-thread buffers -------------------------------------------------------------------

    def _new_buffer(self):
        ident = threading.get_ident()
        with self._lock:
            buffer = ThreadBuffer(self._next_thread_id, _thread_name(ident))
            self._next_thread_id += 1
            self._buffers.append(buffer)
        self._local.buffer = buffer
        self._local.end = _EndOfThread(buffer)
        return buffer

    # -- hooks --------------------------------------------------------------------------------

    def _make_enter_exit(self):
        local = self._local
        codes = self._codes
        resolve = self._methods.resolve
        cap = self._cap
        clock = time.monotonic_ns
        zero = self._zero
        new_buffer = self._new_buffer

        def enter(code, module_of):
            method_id = codes.get(code)
            if method_id is None:
                method_id = codes[code] = resolve(code, module_of(code))
            if method_id < 0:
                return False
            try:
                buffer = local.buffer
            except AttributeError:
                buffer = new_buffer()
            events = buffer.events
            if len(events) < cap:
                now = clock() - zero
                if buffer.dropping:
                    events.append((now, -1, tuple(buffer.stack)))
                    buffer.dropping = False
                events.append((now, method_id << 1))
            else:
                buffer.dropped += 1
                buffer.dropping = True
            buffer.stack.append(method_id)
            return True

        def exit_(code):
            try:
                buffer = local.buffer
            except AttributeError:
                return
            stack = buffer.stack
            if not stack:
                return
            method_id = codes.get(code)
            if method_id is None or method_id < 0 or stack[-1] != method_id:
                return
            events = buffer.events
            if len(events) < cap:
                now = clock() - zero
                if buffer.dropping:
                    events.append((now, -1, tuple(stack)))
                    buffer.dropping = False
                events.append((now, (method_id << 1) | 1))
            else:
                buffer.dropped += 1
                buffer.dropping = True
            stack.pop()

        return enter, exit_

    def install(self):
        enter, exit_ = self._make_enter_exit()
        monitoring = getattr(sys, "monitoring", None)
        if monitoring is not None and self._install_monitoring(monitoring, enter, exit_):
            self._installed = "monitoring"
            return
        codes = self._codes

        live = self._live

        def profile(frame, event, arg):
            if not live:
                sys.setprofile(None)  # a leftover on another thread after uninstall
            elif event == "call":
                enter(frame.f_code, lambda code: frame.f_globals.get("__name__"))
            elif event == "return":
                exit_(frame.f_code)

        live.append(True)
        threading.setprofile(profile)
        sys.setprofile(profile)
        self._installed = "profile"
        del codes

    def _install_monitoring(self, monitoring, enter, exit_):
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
        events = monitoring.events
        DISABLE = monitoring.DISABLE
        codes = self._codes
        getframe = sys._getframe

        def module_of(code):
            # The monitored frame is a few frames up (callback, enter, this function).
            try:
                frame = getframe(1)
                for _ in range(8):
                    if frame is None:
                        break
                    if frame.f_code is code:
                        return frame.f_globals.get("__name__")
                    frame = frame.f_back
            except Exception:
                pass
            return None

        def on_start(code, offset):
            if not enter(code, module_of):
                return DISABLE

        def on_throw(code, offset, exception):
            enter(code, module_of)

        def on_return(code, offset, value):
            if codes.get(code, 0) < 0:
                return DISABLE
            exit_(code)

        def on_unwind(code, offset, exception):
            exit_(code)

        register = monitoring.register_callback
        register(tool_id, events.PY_START, on_start)
        register(tool_id, events.PY_RESUME, on_start)
        register(tool_id, events.PY_THROW, on_throw)
        register(tool_id, events.PY_RETURN, on_return)
        register(tool_id, events.PY_YIELD, on_return)
        register(tool_id, events.PY_UNWIND, on_unwind)
        monitoring.set_events(
            tool_id,
            events.PY_START
            | events.PY_RESUME
            | events.PY_THROW
            | events.PY_RETURN
            | events.PY_YIELD
            | events.PY_UNWIND,
        )
        return True

    def uninstall(self):
        self._live.clear()
        if self._installed == "profile":
            sys.setprofile(None)
            threading.setprofile(None)
        elif self._installed == "monitoring":
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

    # -- draining (sender thread) ---------------------------------------------------------------

    def drain(self, now_ticks, final=False):
        """[(thread_id, name, ended, segments)], segments in order: (base, count, packed) for
        events, (timestamp, stack) for a resync."""
        out = []
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
            run = []
            for item in taken:
                if item[1] < 0:
                    if run:
                        segments.append(_pack(run))
                        run = []
                    segments.append((item[0], list(item[2])))
                else:
                    run.append(item)
                    if len(run) >= BATCH_EVENTS:
                        segments.append(_pack(run))
                        run = []
            if run:
                segments.append(_pack(run))
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


def _pack(run):
    """A run of one thread's events -> (base_timestamp, count, packed)."""
    base = run[0][0]
    previous = base
    out = bytearray()
    append = out.append
    for timestamp, code in run:
        delta = timestamp - previous
        if delta < 0:
            delta = 0
        else:
            previous = timestamp
        if code < 128:
            append(code)
        else:
            out += _wire.leb128(code)
        if delta < 128:
            append(delta)
        else:
            out += _wire.leb128(delta)
    return (base, len(run), bytes(out))
