"""Measuring by samples (`mode=sampled`, and `mode=auto` once the hooks cost too much): no hook
at all; every period the sender thread reads every thread's Python stack
(`sys._current_frames()`), keeps the profiled frames (nearest profiled frame on top, as the
hooks would see it) and sends each as that thread's `Resync` (SPEC "Resync"), so the time to the
next sample goes to the sampled stack. A thread blocked in a lock, a sleep or I/O is read like a
running one: its waiting frame counts at 100 %, the paper's thread leak.

What a sample cannot give: call counts (a Resync opens frames without counting calls) and
allocations (counting needs the exact frame). The session says so with a `Measure` message.

Two ways to read the stacks:
- **Without the GIL** (CPython 3.11-3.13 with the C extension `_stacks`, the default): a native
  thread reads every thread's chain of frames on its own schedule, as py-spy does from outside,
  and the sender maps the code pointers to methods when it drains them (every DRAIN_INTERVAL_S).
  A sample lands where the program really is, in the middle of a C call too.
- **With the GIL** (`sys._current_frames()`, elsewhere or with HIGHRISE_SAMPLER=gil): the sender
  reads the stacks when it gets the GIL, which a busy thread hands over only at its next check
  (a call into Python code, a loop's back edge, I/O): a function whose time goes in C calls
  reads low. The code-to-method cache makes each frame a dict lookup either way."""

import atexit
import os
import sys
import time
import types

from . import _wire
from ._methods import functions_of
from ._pyhook import _thread_name

_stacks = None  # the GIL-free reader, imported by the first Sampler that uses it

# How often the sender drains the GIL-free sampler's samples (each drain takes the GIL once).
DRAIN_INTERVAL_S = 0.05

# How long a sample waits for the GIL while the program runs Python on one thread. A busy
# thread hands the GIL over at its next switch interval (5 ms by default), or at once where it
# releases it for I/O: with the default, most samples falling due while a program reads a file
# land on the read (docutils: its template and stylesheet reads at 5-7 % of the samples, under 1
# % in py-spy's). With one program thread nobody else waits for the GIL, so a shorter interval
# costs the program nothing but the sampler's own 100 handovers a second; with more, the
# program's own interval is kept (their switching is the program's behaviour).
SAMPLING_SWITCH_INTERVAL_S = 0.0002


def _import_stacks():
    """Whether the GIL-free reader is here (imported on first use: a program measured with hooks
    never loads it)."""
    global _stacks
    if _stacks is None:
        try:
            from . import _stacks as module
        except ImportError:
            return False
        _stacks = module
    return True


class _Track:
    __slots__ = ("thread_id", "stack")

    def __init__(self, thread_id, stack):
        self.thread_id = thread_id
        self.stack = stack  # the last stack sent; None: not known yet (send the next one)


class Sampler:
    """Reads every thread's stack when `sample` is called and returns the frames to send."""

    def __init__(self, methods, period_s, adopted=None, clock_zero_ns=0, gil_free=None):
        """`adopted`: {ident: thread_id} of threads the hooks recorded so far (mode=auto), which
        go on under their ids; their first sample is always sent, even an empty stack.
        `clock_zero_ns`: the session's zero on time.monotonic_ns (GIL-free samples are dated in
        it). `gil_free`: read the stacks without the GIL; None: wherever `_stacks` exists and
        $HIGHRISE_SAMPLER is not "gil". Nothing runs until `start`."""
        if gil_free is None:
            gil_free = os.environ.get("HIGHRISE_SAMPLER", "") != "gil" and _import_stacks()
        self.gil_free = gil_free
        self._clock_zero_ns = clock_zero_ns
        self._methods = methods
        self.period_s = period_s
        self._due = time.monotonic()
        # The period the session announced (Measure), and the samples since it was checked.
        self.announced_period_s = period_s
        self._cycles = 0
        self._cycles_since = time.monotonic()
        # id(code) -> the method id as a wire varint, or None (not profiled). Keyed by id: a code
        # object's own hash reads its bytecode and constants on every call (3 us a frame on
        # docutils); `_kept` holds the codes so that no id is reused.
        self._codes = {}
        self._kept = []
        # GIL-free: id(code) -> (code, module name) of the profiled modules' code not yet seen in
        # a sample, and the modules walked for them (see _learn_modules).
        self._candidates = {}
        self._modules_learnt = set()
        self._tracks = {ident: _Track(thread_id, None) for ident, thread_id in (adopted or {}).items()}
        self._next_thread_id = max((track.thread_id for track in self._tracks.values()), default=0) + 1
        self.samples = 0  # thread stacks sent as Resyncs
        # The program's switch interval while the sampler holds a shorter one (None: it does not).
        self._program_switch_s = None

    def start(self):
        """Starts the GIL-free reader (the GIL-bound one reads when `sample` is called)."""
        if self.gil_free:
            _stacks.start(self.period_s)
            atexit.register(_stacks.stop)  # before the interpreter it reads goes away

    def close(self):
        """The session ends: the reader stops and the program's switch interval is back."""
        if self.gil_free:
            _stacks.stop()
        self.restore_switch_interval()

    def wait_s(self):
        """Seconds to wait for the next sample, on a fixed schedule: the time the last one waited
        for the GIL (up to the switch interval, or a long C call's end) is taken off, and a late
        sample is followed by the next one at once, not by a burst. GIL-free: the time to the next
        drain (the reader keeps its own schedule)."""
        if self.gil_free:
            return DRAIN_INTERVAL_S
        now = time.monotonic()
        self._due = max(self._due + self.period_s, now)
        return self._due - now

    def drifted_period_s(self):
        """The period actually kept, once it differs from the announced one by more than a
        quarter over 100+ samples (so the session's error bars can be restated), else None. The
        GIL-free reader keeps its period."""
        if self.gil_free or self._cycles < 100:
            return None
        now = time.monotonic()
        kept_s = (now - self._cycles_since) / self._cycles
        self._cycles, self._cycles_since = 0, now
        if abs(kept_s / self.announced_period_s - 1) <= 0.25:
            return None
        self.announced_period_s = kept_s
        return kept_s

    def _tune_switch_interval(self, program_threads):
        """A short switch interval while the program has one thread (see
        SAMPLING_SWITCH_INTERVAL_S), its own again as soon as it has more."""
        if program_threads <= 1 and self._program_switch_s is None:
            current = sys.getswitchinterval()
            if current > SAMPLING_SWITCH_INTERVAL_S:
                self._program_switch_s = current
                sys.setswitchinterval(SAMPLING_SWITCH_INTERVAL_S)
        elif program_threads > 1:
            self.restore_switch_interval()

    def restore_switch_interval(self):
        """The program's own switch interval back (unless it set another meanwhile)."""
        if self._program_switch_s is None:
            return
        if abs(sys.getswitchinterval() - SAMPLING_SWITCH_INTERVAL_S) < 1e-9:
            sys.setswitchinterval(self._program_switch_s)
        self._program_switch_s = None

    def _stack(self, frame):
        """The profiled frames of `frame`'s stack, outermost first, as wire varints."""
        codes = self._codes
        stack = []
        while frame is not None:
            code = frame.f_code
            key = id(code)
            if key in codes:
                encoded = codes[key]
            else:
                method_id = self._methods.resolve(code, frame.f_globals.get("__name__"))
                encoded = codes[key] = _wire.varint(method_id) if method_id >= 0 else None
                self._kept.append(code)
            if encoded is not None:
                stack.append(encoded)
            frame = frame.f_back
        stack.reverse()
        return stack

    def sample(self, now_ticks, skip_ident):
        """The samples since the last call, of every thread but `skip_ident` (the caller's): a
        list of frames (ThreadStart for a thread's first profiled frame, Resync, ThreadEnd for a
        thread gone). GIL-bound, one sample read now and dated `now_ticks`. Call
        `methods.take_pending()` after it: the definitions go out first."""
        if self.gil_free:
            return self._drain(skip_ident)
        frames = []
        self._cycles += 1
        current = sys._current_frames()
        for ident, frame in current.items():
            if ident != skip_ident:
                self._put(frames, ident, self._stack(frame), now_ticks)
        self._tune_switch_interval(len(current) - 1)
        alive = set(current)
        current = frame = None  # hold no frame (and its locals) past the sample
        self._end_gone(frames, alive, now_ticks)
        return frames

    def _drain(self, skip_ident):
        """The GIL-free reader's samples as frames. A code pointer is mapped through the cache,
        whose codes are kept alive (so a pointer equal to one of theirs is that code); pointers
        not in it send every thread's current stack through `_stack` once (classifying what runs
        now), and those still unknown are left out of their sample: code that is not profiled,
        or ran only between two drains before it was ever seen running at one."""
        batch = _stacks.drain()
        if not batch and self._reads_fail():
            self.gil_free = False  # this system refuses reads of the process's own memory
            _stacks.stop()
            sys.stderr.write("highrise agent: cannot read the stacks without the GIL here; reading them with it\n")
            return []
        codes = self._codes
        unknown = {pointer for _, _, pointers in batch for pointer in pointers if pointer not in codes}
        if unknown:
            self._learn_modules()
            candidates = self._candidates
            for pointer in unknown & candidates.keys():
                code, module = candidates.pop(pointer)
                method_id = self._methods.resolve(code, module)
                codes[pointer] = _wire.varint(method_id) if method_id >= 0 else None
                self._kept.append(code)
            if any(pointer not in codes for pointer in unknown):
                for frame in sys._current_frames().values():
                    self._stack(frame)
                frame = None
        frames = []
        zero_ns = self._clock_zero_ns
        at_ticks = None
        for timestamp_ns, ident, pointers in batch:
            if ident == skip_ident:
                continue
            at_ticks = timestamp_ns - zero_ns
            stack = []
            for pointer in reversed(pointers):  # outermost first
                encoded = codes.get(pointer)
                if encoded is not None:
                    stack.append(encoded)
            self._put(frames, ident, stack, at_ticks)
        if at_ticks is not None:
            self._end_gone(frames, set(sys._current_frames()), at_ticks)
        return frames

    def _learn_modules(self):
        """Every code object of the profiled modules imported since the last call (their
        functions, methods and, through their constants, nested functions, lambdas and class
        bodies), held as candidates: a sampled pointer equal to one of them is that code (held,
        it cannot have been freed and its address reused), resolved to a method the first time a
        sample names it. Without them, a function seen only between two drains (the sampler
        switched on mid-run, mode=auto) gave its samples to its caller until a drain caught it
        running."""
        for name, module in list(sys.modules.items()):
            if name in self._modules_learnt or module is None:
                continue
            self._modules_learnt.add(name)
            filename = getattr(module, "__file__", None)
            if not isinstance(filename, str):
                continue
            if name == "__main__":
                name = self._methods.real_module_name(name)
            if not self._methods.module_included(name, filename, is_main=module is sys.modules.get("__main__")):
                continue
            code_stack = list(functions_of(module, module.__name__))
            while code_stack:  # with their nested functions, lambdas and class bodies
                code = code_stack.pop()
                if id(code) not in self._candidates and id(code) not in self._codes:
                    self._candidates[id(code)] = (code, name)
                    code_stack.extend(c for c in code.co_consts if isinstance(c, types.CodeType))

    @staticmethod
    def _reads_fail():
        counts = _stacks.counts()
        return counts["taken"] >= 20 and counts["unreadable"] >= counts["taken"]

    def _put(self, frames, ident, stack, at_ticks):
        """Thread `ident`'s sampled `stack` as frames: its ThreadStart first (a thread with no
        profiled frame yet is not a thread of the city), then its Resync."""
        track = self._tracks.get(ident)
        if track is None:
            if not stack:
                return
            track = self._tracks[ident] = _Track(self._next_thread_id, None)
            self._next_thread_id += 1
            frames.append(_wire.thread_start(track.thread_id, _thread_name(ident), at_ticks))
        if stack or track.stack != stack:
            frames.append(_wire.resync_encoded(track.thread_id, at_ticks, stack))
            self.samples += 1
        track.stack = stack

    def _end_gone(self, frames, alive, at_ticks):
        """A ThreadEnd for every thread of the city not in `alive`."""
        tracks = self._tracks
        for ident in [ident for ident in tracks if ident not in alive]:
            frames.append(_wire.thread_end(tracks.pop(ident).thread_id, at_ticks))
