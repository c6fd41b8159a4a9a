"""The recorder backed by the `_native` C extension. On 3.12+ it registers the extension's C
functions as sys.monitoring callbacks (excluded code is switched off with DISABLE); on 3.11, or
when no monitoring tool id is free, it installs the C-level profile hook. Importing this module
raises ImportError when the extension is not built; the agent then uses `_pyhook`.

With allocation counting on, the extension also counts the objects each profiled frame creates
(3.13+: every object by type, through the reference tracer; 3.11/3.12: object-domain blocks and
bytes, instances of classes defined in Python by class) and writes them into the thread's stream
as memory records; `drain` then returns packed records (protocol v2, tag 10) instead of events,
and `take_classes` the classes to define first."""

import gc
import os
import platform
import sys
import threading

from . import _native, _wire
from ._pyhook import _thread_name


def tsc_is_trusted():
    """True where reading the TSC is safe as the event clock: x86-64 and the kernel itself uses
    the TSC as its clocksource (so it found it invariant and synchronised across CPUs).
    HIGHRISE_CLOCK=monotonic turns it off."""
    if os.environ.get("HIGHRISE_CLOCK", "").lower() == "monotonic":
        return False
    if platform.machine().lower() not in ("x86_64", "amd64"):
        return False
    try:
        with open("/sys/devices/system/clocksource/clocksource0/current_clocksource") as source:
            return source.read().strip() == "tsc"
    except OSError:
        return False


def alloc_mode_for(alloc):
    """The extension's counting mode for the agent's `alloc` setting ("on", "off", "types",
    "blocks"): "on" is "types" where CPython has the reference tracer (3.13+), else "blocks"."""
    if alloc == "off":
        return _native.ALLOC_OFF
    if alloc == "types" or (alloc == "on" and _native.HAS_REFTRACER):
        if not _native.HAS_REFTRACER:
            raise ValueError("alloc=types needs CPython 3.13+ (the reference tracer)")
        return _native.ALLOC_TYPES
    return _native.ALLOC_BLOCKS


def all_classes():
    """Every class that exists now (type.__subclasses__ from object, metaclasses included)."""
    seen = {object}
    pending = [object]
    while pending:
        cls = pending.pop()
        try:
            subclasses = type.__subclasses__(cls)
        except Exception:
            continue
        for sub in subclasses:
            if sub not in seen:
                seen.add(sub)
                pending.append(sub)
    return list(seen)


class NativeRecorder:
    kind = "native"

    def __init__(self, methods, clock_zero_ns, buffer_events, alloc="off"):
        self._methods = methods
        self._zero = clock_zero_ns
        self._cap = self.buffer_events = max(2, int(buffer_events))
        self._installed = None
        self._tool_id = None
        self.alloc_mode = alloc_mode_for(alloc)
        # "types" (3.13+), "blocks" (3.11/3.12) or None: what the memory records count.
        self.alloc = {_native.ALLOC_TYPES: "types", _native.ALLOC_BLOCKS: "blocks"}.get(self.alloc_mode)
        # Packed records (protocol v2) carry memory records; without them, v1 events as before.
        self.records = self.alloc is not None

    @property
    def mechanism(self):
        return self._installed or "none"

    def install(self):
        if self.records and _native.gc_phase not in gc.callbacks:
            # First, so the objects the collector makes for the callbacks are still its last.
            gc.callbacks.insert(0, _native.gc_phase)
        if self.alloc_mode == _native.ALLOC_BLOCKS:
            # Instances of classes that already exist are named too (new ones as they are made).
            _native.patch_types(all_classes())
        monitoring = getattr(sys, "monitoring", None)
        if _native.HAS_MONITORING and monitoring is not None:
            tool_id = self._claim_tool_id(monitoring)
            if tool_id is not None:
                _native.install(
                    self._methods.resolve,
                    _thread_name,
                    self._zero,
                    self._cap,
                    False,
                    monitoring.DISABLE,
                    tsc_is_trusted(),
                    self.alloc_mode,
                )
                events = monitoring.events
                callbacks = self._callbacks(events)
                for event, callback in callbacks.items():
                    monitoring.register_callback(tool_id, event, callback)
                # Events another session switched off (DISABLE) must fire again for this one.
                monitoring.restart_events()
                monitoring.set_events(tool_id, sum(callbacks))
                self._tool_id = tool_id
                self._installed = "sys.monitoring"
                return
        _native.install(
            self._methods.resolve,
            _thread_name,
            self._zero,
            self._cap,
            True,
            None,
            tsc_is_trusted(),
            self.alloc_mode,
        )
        threading.setprofile(_native.bootstrap)
        self._installed = "profile"

    @staticmethod
    def _claim_tool_id(monitoring):
        for candidate in (monitoring.PROFILER_ID, 3, 4, 5):
            try:
                monitoring.use_tool_id(candidate, "highrise")
                return candidate
            except ValueError:
                continue
        return None

    @staticmethod
    def _callbacks(events):
        return {
            events.PY_START: _native.mon_start,
            events.PY_RESUME: _native.mon_resume,
            events.PY_THROW: _native.mon_throw,
            events.PY_RETURN: _native.mon_return,
            events.PY_YIELD: _native.mon_yield,
            events.PY_UNWIND: _native.mon_unwind,
        }

    def uninstall(self):
        if _native.gc_phase in gc.callbacks:
            gc.callbacks.remove(_native.gc_phase)
        if self._installed == "sys.monitoring":
            monitoring = sys.monitoring
            _native.uninstall()
            try:
                monitoring.set_events(self._tool_id, 0)
                for event in self._callbacks(monitoring.events):
                    monitoring.register_callback(self._tool_id, event, None)
                monitoring.free_tool_id(self._tool_id)
            except Exception:
                pass
        elif self._installed == "profile":
            threading.setprofile(None)
            _native.uninstall()
        self._installed = None

    # A phase mark opens and closes (see `_phase`): the C functions themselves, no Python frame.
    phase_enter = staticmethod(_native.phase_enter)
    phase_exit = staticmethod(_native.phase_exit)

    # drain's packed segments are whole Events / Records frames, made in C without the GIL.
    framed = True

    def drain(self, now_ticks, final=False):
        return _native.drain(now_ticks, _wire.TAG_RECORDS if self.records else _wire.TAG_EVENTS)

    def live_snapshot(self):
        """(thread_id, ticks, [(class_id, count, bytes)], [(from_id, to_id, attribute, many)]) of
        the objects live per class defined in Python after a collection, and what a few
        instances' attributes refer to; or None (no allocation counting, or this thread records
        nothing)."""
        if not self.records:
            return None
        return _native.live_snapshot(gc.collect, gc.get_objects, sys.getsizeof)

    def thread_ids(self):
        """{ident: thread_id} of the recorded threads that still exist (a sampler taking over
        goes on under the same ids)."""
        return _native.thread_ids()

    @staticmethod
    def task_slots():
        """How many asyncio task slots (threads of the city that tasks run in) were made."""
        return _native.task_slots()

    @property
    def dropped_total(self):
        return _native.dropped_total()

    @property
    def calls_drained(self):
        """Enter and exit records drained into frames so far (memory records not counted)."""
        return _native.calls_drained()

    def class_id(self, cls, register):
        """The class id of `cls` (registered first when `register`: it is among the next
        take_classes), or None."""
        return _native.class_id(cls, register) if self.records else None

    def take_classes(self):
        """[(class_id, type or None for untyped blocks)] registered since the last call; call it
        after `drain` so every class its records use is among them (or an earlier call's)."""
        return _native.take_classes() if self.records else []

    @property
    def memory_dropped(self):
        """(allocations, bytes, frees) lost with dropped memory records, running totals."""
        return _native.memory_dropped() if self.records else (0, 0, 0)
