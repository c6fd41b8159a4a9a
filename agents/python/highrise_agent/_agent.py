"""The agent: connects to the viewer, installs a recorder (native or pure Python), and runs the
background sender thread that drains the per-thread buffers into frames.

The host program never waits on the socket: hooks only append to bounded per-thread buffers; the
sender thread alone talks to the viewer. With no viewer the program runs normally (one warning
on stderr, no hooks installed).
"""

import atexit
import collections
import os
import select
import socket
import sys
import threading
import time

from . import _wire
from ._methods import Methods
from ._sampler import Sampler

try:  # the sampler's wait, dated before the GIL is back (README "Measuring by samples")
    from ._native import sleep_then_clock as _sleep_then_clock
except ImportError:
    _sleep_then_clock = None

__version__ = "0.1.0"

DEFAULT_ADDR = "127.0.0.1:%d" % _wire.DEFAULT_PORT
# The session's notice once an asyncio task ran profiled code (README "asyncio tasks as threads").
TASKS_NOTICE = (
    "asyncio tasks are threads: each task runs in a task slot ('asyncio task N'), where a coroutine "
    "awaiting stays on top; a coroutine call is one call"
)
FLUSH_INTERVAL_S = 0.01
HEARTBEAT_INTERVAL_S = 0.25
CONNECT_TIMEOUT_S = 1.0
ANSWER_TIMEOUT_S = 2.0
EXIT_FLUSH_TIMEOUT_S = 5.0
# Per thread, grown on demand. A CPU-bound thread holds the GIL for up to the switch interval
# (5 ms) before the sender can drain it, and a tight loop under the C recorder makes ~20 M
# events/s: 512 Ki events (16 bytes each, 8 MiB) cover two switch intervals. The pure-Python
# recorder is ~15x slower and its events are Python tuples (~90 bytes): 64 Ki.
DEFAULT_BUFFER_EVENTS = {"native": 1 << 19, "python": 1 << 16}
# Allocation counting (`--alloc`, $HIGHRISE_ALLOC): on by default where it is cheap (see
# README.md, "Allocations"); the pure-Python recorder never counts.
DEFAULT_ALLOC = "on"
ALLOC_VALUES = ("on", "off", "types", "blocks")
ANSWER_POLL_EVERY = 50  # flushes between non-blocking looks at the viewer's answer
# How the session measures (`--mode`, $HIGHRISE_MODE): every call through the hooks (exact),
# stacks read every `sample_ms` (sampled), or exact until the hooks cost too much (auto).
MODES = ("auto", "exact", "sampled")
DEFAULT_MODE = "auto"
DEFAULT_SAMPLE_MS = 10
# mode=auto leaves the hooks when the program makes more than this many enter and exit events a
# second (over AUTO_RATE_SPAN_S), or one thread's buffer held a quarter of its capacity at a
# drain (the sender is not keeping up: the next ones would drop). On docutils (every function profiled) an event
# costs about 120 ns with allocation counting, CPython's dispatch included (BENCHMARKS.md
# "Python agent: measuring by samples"): 1 M events/s is about an eighth of the program's time.
AUTO_EVENTS_PER_S = 1_000_000
AUTO_RATE_SPAN_S = 0.1
# Which functions the city holds (`--functions`, $HIGHRISE_FUNCTIONS): those that ran, or every
# function and method of the profiled modules once imported (read on the sender thread, at
# most FUNCTIONS_ALL_BUDGET_S of each flush).
FUNCTIONS = ("run", "all")
FUNCTIONS_ALL_BUDGET_S = 0.02


def _warn(message):
    try:
        sys.stderr.write("highrise-agent: %s\n" % message)
        sys.stderr.flush()
    except Exception:
        pass


def parse_addr(addr):
    host, sep, port = addr.rpartition(":")
    if not sep or not port.isdigit():
        raise ValueError("address must be HOST:PORT, got %r" % addr)
    return host.strip("[]") or "127.0.0.1", int(port)


def parse_alloc(alloc):
    """`alloc` (True/False or "on"/"off"/"types"/"blocks"; None: $HIGHRISE_ALLOC, else the
    default) -> (setting, asked): `asked` when the user chose it rather than the default."""
    asked = True
    if alloc is None:
        alloc = os.environ.get("HIGHRISE_ALLOC", "").strip().lower() or None
        if alloc is None:
            alloc, asked = DEFAULT_ALLOC, False
        else:
            try:
                return parse_alloc(alloc)
            except ValueError as error:  # a bad environment never stops the program
                _warn("HIGHRISE_ALLOC: %s; using %s" % (error, DEFAULT_ALLOC))
                return DEFAULT_ALLOC, False
    if alloc is True:
        alloc = "on"
    elif alloc is False:
        alloc = "off"
    alloc = {"1": "on", "true": "on", "yes": "on", "0": "off", "false": "off", "no": "off"}.get(
        str(alloc).lower(), str(alloc).lower()
    )
    if alloc not in ALLOC_VALUES:
        raise ValueError("alloc must be one of %s, got %r" % ("/".join(ALLOC_VALUES), alloc))
    return alloc, asked


def parse_stats(stats):
    """The `stats` option: True/False, or None for `HIGHRISE_STATS` (on/1/true; default off)."""
    if stats is None:
        stats = os.environ.get("HIGHRISE_STATS", "")
    if isinstance(stats, str):
        return stats.strip().lower() in ("on", "true", "1", "yes")
    return bool(stats)


def parse_live(live):
    """The `live` option: True/False, "on"/"off", or None for `HIGHRISE_LIVE` (default off)."""
    if live is None:
        live = os.environ.get("HIGHRISE_LIVE", "off")
    if isinstance(live, str):
        value = live.strip().lower()
        if value in ("on", "true", "1", "yes"):
            return True
        if value in ("off", "false", "0", "no", ""):
            return False
        _warn("live=%s is not on or off; live is off" % live)
        return False
    return bool(live)


def parse_functions(functions):
    """`functions` ("run"/"all"; None: $HIGHRISE_FUNCTIONS, else "run"); a bad value warns and
    keeps the default."""
    if functions is None:
        functions = os.environ.get("HIGHRISE_FUNCTIONS", "").strip().lower() or "run"
    functions = str(functions).lower()
    if functions not in FUNCTIONS:
        _warn("functions=%s is not one of %s; using run" % (functions, "/".join(FUNCTIONS)))
        functions = "run"
    return functions


def parse_mode(mode, sample_ms):
    """(mode, sample period in seconds, asked) from the `mode`/`sample_ms` options (None:
    $HIGHRISE_MODE / $HIGHRISE_SAMPLE_MS, else auto and 10 ms); `asked` when the user chose the
    mode. A bad environment never stops the program: it warns and keeps the default."""
    asked = mode is not None
    if mode is None:
        mode = os.environ.get("HIGHRISE_MODE", "").strip().lower() or None
        asked = mode is not None
    mode = (mode or DEFAULT_MODE).lower()
    if mode not in MODES:
        _warn("mode=%s is not one of %s; using %s" % (mode, "/".join(MODES), DEFAULT_MODE))
        mode, asked = DEFAULT_MODE, False
    if sample_ms is None:
        sample_ms = os.environ.get("HIGHRISE_SAMPLE_MS", "").strip() or DEFAULT_SAMPLE_MS
    try:
        sample_ms = float(sample_ms)
        if not 1 <= sample_ms <= 1000:
            raise ValueError
    except ValueError:
        _warn("sample=%s is not a period of 1 to 1000 ms; sampling every %d ms" % (sample_ms, DEFAULT_SAMPLE_MS))
        sample_ms = DEFAULT_SAMPLE_MS
    return mode, sample_ms / 1000.0, asked


def _make_recorder(backend, methods, clock_zero_ns, buffer_events, alloc="off", alloc_asked=False):
    backend = backend or os.environ.get("HIGHRISE_BACKEND", "auto")
    if buffer_events is not None:
        buffer_events = max(2, int(buffer_events))
    if backend in ("auto", "native"):
        try:
            from ._native_recorder import NativeRecorder
        except ImportError as error:
            if backend == "native":
                _warn("the C extension is not built (%s); using the pure-Python recorder" % error)
        else:
            try:
                return NativeRecorder(
                    methods, clock_zero_ns, buffer_events or DEFAULT_BUFFER_EVENTS["native"], alloc
                )
            except ValueError as error:  # alloc=types before 3.13
                _warn("%s; allocations are not counted" % error)
                return NativeRecorder(methods, clock_zero_ns, buffer_events or DEFAULT_BUFFER_EVENTS["native"])
    from ._pyhook import PythonRecorder

    if alloc != "off" and alloc_asked:
        _warn("allocation counting needs the C recorder (the pure-Python one is in use); allocations are not counted")
    return PythonRecorder(methods, clock_zero_ns, buffer_events or DEFAULT_BUFFER_EVENTS["python"])


class Agent:
    def __init__(
        self,
        addr=None,
        include=(),
        exclude=(),
        program=None,
        version_label=None,
        buffer_events=None,
        backend=None,
        token=None,
        alloc=None,
        live=None,
        stats=None,
        mode=None,
        sample_ms=None,
        functions=None,
    ):
        self.addr = addr or os.environ.get("HIGHRISE_ADDR") or DEFAULT_ADDR
        # Only a viewer listening beyond loopback asks for it, and only of agents on other
        # machines; it is sent in the Hello and kept nowhere else.
        self._token = (token if token is not None else os.environ.get("HIGHRISE_TOKEN", "")).strip()
        if program is None:
            argv0 = sys.argv[0] if sys.argv and sys.argv[0] else "python"
            program = os.path.splitext(os.path.basename(argv0))[0] or "python"
        self.program = program
        self.version_label = (
            version_label if version_label is not None else os.environ.get("HIGHRISE_VERSION_LABEL", "")
        )
        if buffer_events is None and os.environ.get("HIGHRISE_BUFFER_EVENTS"):
            buffer_events = int(os.environ["HIGHRISE_BUFFER_EVENTS"])
        self.methods = Methods(include, exclude)
        self.functions = parse_functions(functions)
        self.clock_zero_ns = time.monotonic_ns()
        self.clock_zero_unix_ns = time.time_ns()
        alloc, alloc_asked = parse_alloc(alloc)
        self.mode, self.sample_period_s, _ = parse_mode(mode, sample_ms)
        if self.mode == "sampled" and alloc != "off":
            if alloc_asked:
                _warn("mode=sampled counts no allocations (they need every call); alloc is off")
            alloc = "off"
        # The hooks record every call: until mode=auto switches, never in mode=sampled.
        self.hooks = self.mode != "sampled"
        self._sampler = None
        self._tasks_noticed = False  # the session was told that asyncio tasks are its threads
        self._rate_calls = 0
        self._switch_reason = None
        self._sample_ticks = None  # when the coming sample fell due (see _wait)
        self._rate_since = time.monotonic()
        # A phase mark was used (`_phase`): mode=auto keeps the hooks, which time phases exactly.
        self.phase_used = False
        self.recorder = _make_recorder(
            backend, self.methods, self.clock_zero_ns, buffer_events, alloc, alloc_asked
        )
        self.buffer_events = self.recorder.buffer_events
        # What the memory records count: "types" (3.13+), "blocks" (3.11/3.12) or None (off).
        self.alloc = self.recorder.alloc
        self._memory_dropped_sent = (0, 0, 0)
        # Live-object snapshots at phase marks' ends (README "Live objects").
        self.live = parse_live(live)
        if self.live and not self.alloc and self.mode != "sampled":
            _warn("live objects need allocation counting (alloc=on and the C recorder); live is off")
            self.live = False
        self._live_snapshots = collections.deque()
        # The class diagram (README "Class diagram"): relations sent, and each class id's type.
        self._relations_sent = set()
        self._class_types = {}
        self._sock = None
        self._stop = threading.Event()
        self._thread = None
        self._started_threads = set()
        self._dropped_sent = 0
        # Enter and exit events written to the viewer (what its session counts as `events`);
        # `stats` (HIGHRISE_STATS=on) prints it, and the events dropped, after the Goodbye.
        self.events_sent = 0
        self.stats = parse_stats(stats)
        self._last_send = 0.0
        self._answer = bytearray()
        self.answer = None  # ("welcome", version, session) / ("reject", version, reason)
        self.running = False
        self._closed = False

    def now_ticks(self):
        return time.monotonic_ns() - self.clock_zero_ns

    @property
    def agent_name(self):
        return "highrise-agent-python %s (%s %s, %s%s)" % (
            __version__,
            sys.implementation.name,
            ".".join(map(str, sys.version_info[:3])),
            self.recorder.kind,
            ", alloc=%s" % self.alloc if self.alloc else "",
        ) + (", sampled" if self.mode == "sampled" else "")

    # -- lifecycle ----------------------------------------------------------------------------

    def start(self):
        """Connect, say Hello, install the hooks and start the sender. Returns False (after one
        warning on stderr) when there is no viewer; the program then runs unprofiled."""
        try:
            host, port = parse_addr(self.addr)
            sock = socket.create_connection((host, port), timeout=CONNECT_TIMEOUT_S)
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            sock.settimeout(None)
            sock.sendall(
                _wire.hello(
                    self.agent_name,
                    self.program,
                    self.version_label,
                    os.getpid(),
                    1,
                    self.clock_zero_unix_ns,
                    self._token,
                )
            )
        except (OSError, ValueError) as error:
            _warn("no viewer at %s (%s); the program runs without profiling" % (self.addr, error))
            return False
        try:
            if self.hooks:
                self.recorder.install()
            else:
                self._sampler = Sampler(self.methods, self.sample_period_s, clock_zero_ns=self.clock_zero_ns)
                self._send_measure(sock, self.sample_period_s)
                self._sampler.start()
        except Exception as error:  # never let the agent break the program
            _warn("could not install the hooks (%r); the program runs without profiling" % (error,))
            try:
                self.recorder.uninstall()
            except Exception:
                pass
            sock.close()
            return False
        self._sock = sock
        self._last_send = time.monotonic()
        self.running = True
        self._thread = threading.Thread(target=self._run, name="highrise-agent-sender", daemon=True)
        self._thread.start()
        atexit.register(self.stop)
        if hasattr(os, "register_at_fork"):
            os.register_at_fork(after_in_child=self._after_fork_in_child)
        return True

    def _after_fork_in_child(self):
        # The sender thread does not exist in the child; stop recording there.
        if self.running:
            self.running = False
            try:
                self.recorder.uninstall()
            except Exception:
                pass

    def stop(self, timeout_s=EXIT_FLUSH_TIMEOUT_S):
        """Uninstall the hooks, flush everything, send Goodbye, read the viewer's answer and close.
        Idempotent; registered with atexit."""
        if not self.running:
            return
        self.running = False
        self.hooks = False
        try:
            self.recorder.uninstall()
        except Exception:
            pass
        self._stop.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout_s)

    # -- sender thread ------------------------------------------------------------------------

    def _run(self):
        sock = self._sock
        sys.setprofile(None)  # this thread is the agent's own: no profile hook (3.11) at all
        try:
            wait_s = FLUSH_INTERVAL_S if self._sampler is None else self._sampler.wait_s()
            rounds = 0
            while not self._wait(wait_s):
                rounds += 1
                if rounds % ANSWER_POLL_EVERY == 1:  # each look costs a GIL round trip
                    self._poll_answer(sock)
                if self.answer is not None and self.answer[0] == "reject":
                    _warn("the viewer rejected this agent: %s" % self.answer[2])
                    self._shutdown_after_failure()
                    return
                busiest = self._flush(sock)
                if self._sampler is not None:
                    self._restate_period(sock)
                    wait_s = self._sampler.wait_s()
                elif self._hooks_cost_too_much(busiest):
                    self._switch_to_samples(sock)
                    wait_s = self._sampler.wait_s()
                else:
                    # Buffers filling up: drain again soon instead of letting them drop.
                    wait_s = FLUSH_INTERVAL_S if busiest < self.buffer_events // 4 else FLUSH_INTERVAL_S / 10
            self._flush(sock, final=True)
            sock.sendall(_wire.goodbye(self.now_ticks()))
            if self.stats:
                _warn("sent %d events, dropped %d" % (self.events_sent, self._dropped_sent))
                if self._sampler is not None:
                    _warn("sent %d samples" % self._sampler.samples)
            self._close_gracefully(sock)
        except Exception as error:  # the socket failed (OSError), or a bug: stop, never crash
            try:  # a viewer that rejected us has said why before closing
                if self.answer is None:
                    self._take_answer(sock.recv(4096, socket.MSG_DONTWAIT))
            except OSError:
                pass
            if self.answer is not None and self.answer[0] == "reject":
                _warn("the viewer rejected this agent: %s" % self.answer[2])
            else:
                _warn("lost the viewer at %s (%s); profiling stopped" % (self.addr, error))
            self._shutdown_after_failure()
        finally:
            if self._sampler is not None:
                self._sampler.close()

    def _wait(self, wait_s):
        """Waits `wait_s` (less when stopping); True when the agent stops. Sampling, with the C
        extension, the wait ends in C and its clock dates the sample (`_sample_ticks`) before
        the GIL is back: a busy program hands it over only at its next switch interval or
        after a long C call, while its stack stays the one that ran when the sample fell due."""
        if self._sampler is None or self._sampler.gil_free or _sleep_then_clock is None:
            return self._stop.wait(wait_s)
        self._sample_ticks = _sleep_then_clock(wait_s) - self.clock_zero_ns
        return self._stop.is_set()

    def _restate_period(self, sock):
        """A sample waits for the GIL: where the program keeps it longer than the period allows
        (long C calls), the session is told the period really kept, so its error bars hold."""
        kept_s = self._sampler.drifted_period_s()
        if kept_s is not None:
            self._send_measure(sock, kept_s)

    def _send_measure(self, sock, period_s):
        """The session's Measure: sampled from the start, or adaptive with the methods defined
        when the hooks went (mode=auto)."""
        if self.mode == "sampled":
            sock.sendall(_wire.measure(_wire.MEASURE_SAMPLED, int(period_s * 1e6), 0))
        else:
            sock.sendall(_wire.measure(_wire.MEASURE_ADAPTIVE, int(period_s * 1e6), self._sampled_methods))

    def _hooks_cost_too_much(self, busiest):
        """mode=auto, on the sender after a flush that drained at most `busiest` events of one
        thread: whether the program makes events faster than AUTO_EVENTS_PER_S (over the last
        AUTO_RATE_SPAN_S), or a buffer is filling faster than the sender drains it."""
        if self.mode != "auto" or self.phase_used or self.live:
            return False
        if self.recorder.dropped_total or busiest >= self.buffer_events // 4:
            self._switch_reason = "a buffer filled faster than it was drained"
            return True
        elapsed_s = time.monotonic() - self._rate_since
        if elapsed_s < AUTO_RATE_SPAN_S:
            return False
        calls, self._rate_calls = self.events_sent - self._rate_calls, self.events_sent
        self._rate_since += elapsed_s
        self._switch_reason = "%.1f M events/s" % (calls / elapsed_s / 1e6)
        return calls / elapsed_s > AUTO_EVENTS_PER_S

    def _switch_to_samples(self, sock):
        """mode=auto: the hooks go (every thread at its next event), what they recorded is sent,
        and the threads go on under their ids, described by samples from now on."""
        self.hooks = False
        try:
            self.recorder.uninstall()
        except Exception:
            pass
        self._flush(sock, final=True)
        adopted = self.recorder.thread_ids()
        self._sampler = Sampler(self.methods, self.sample_period_s, adopted, self.clock_zero_ns)
        self._sampler.start()
        self._started_threads.clear()
        self._sampled_methods = len(self.methods.definitions)
        self._send_measure(sock, self.sample_period_s)
        _warn(
            "mode=auto: %s after %.1f s, more than the hooks can record cheaply; measuring by "
            "samples every %g ms from here on (every call: --mode exact)"
            % (self._switch_reason, self.now_ticks() / 1e9, self.sample_period_s * 1000)
        )

    def _shutdown_after_failure(self):
        self.running = False
        try:
            self.recorder.uninstall()
        except Exception:
            pass
        try:
            self._sock.close()
        except OSError:
            pass

    def snapshot_live(self):
        """On a program thread, as a phase mark ends: queue a snapshot of the live objects per
        class (sent by the next flush). Never raises."""
        try:
            snapshot = self.recorder.live_snapshot()
        except Exception as error:  # never let the agent break the program
            _warn("could not take a live-object snapshot (%r)" % (error,))
            return
        if snapshot is not None:
            self._live_snapshots.append(snapshot)

    def _flush(self, sock, final=False):
        # Snapshots first: every class one names was registered before it was queued, so the
        # take_classes below defines it before the snapshot is sent.
        snapshots = []
        while self._live_snapshots:
            snapshots.append(self._live_snapshots.popleft())
        now = self.now_ticks()
        sampled = []
        if self._sampler is None:
            calls_before = self.recorder.calls_drained
            drained = self.recorder.drain(now, final)
            calls = self.recorder.calls_drained - calls_before
        else:  # the hooks are gone (mode=sampled, or auto after the switch): read the stacks
            drained, calls = [], 0
            at = now if final or self._sample_ticks is None else min(self._sample_ticks, now)
            self._sample_ticks = None
            sampled = self._sampler.sample(at, threading.get_ident())
        if self.functions == "all":
            self.methods.define_loaded(float("inf") if final else FUNCTIONS_ALL_BUDGET_S)
        definitions = self.methods.take_pending()
        classes = self.recorder.take_classes()  # after drain: every class its records name
        relations = self._new_relations(classes, snapshots)  # may register more classes
        frames = []
        if definitions:
            for start in range(0, len(definitions), 4096):
                frames.append(
                    _wire.define_methods(
                        [_wire.method_def(*definition) for definition in definitions[start : start + 4096]]
                    )
                )
        if classes:
            for start in range(0, len(classes), 4096):
                frames.append(
                    _wire.define_classes(
                        [
                            _wire.class_def(*self.methods.class_definition(class_id, cls))
                            for class_id, cls in classes[start : start + 4096]
                        ]
                    )
                )
        if relations:
            frames.append(_wire.class_relations(relations))
        if not self._tasks_noticed and self._sampler is None and self.recorder.task_slots():
            self._tasks_noticed = True
            frames.append(_wire.notice("threads", TASKS_NOTICE))
        frames.extend(sampled)
        packed_frame = _wire.records if self.recorder.records else _wire.events
        framed = self.recorder.framed  # the native drain's segments are frames already
        dropped_total = self.recorder.dropped_total
        busiest = 0
        for thread_id, name, ended, segments in drained:
            busiest = max(busiest, sum(segment[1] for segment in segments if len(segment) == 3))
            if thread_id not in self._started_threads:
                self._started_threads.add(thread_id)
                first = segments[0][0] if segments else now
                frames.append(_wire.thread_start(thread_id, name, first))
            for segment in segments:
                if len(segment) == 3:
                    base, count, packed = segment
                    frames.append(packed if framed else packed_frame(thread_id, base, count, packed))
                else:
                    timestamp, stack = segment
                    if dropped_total != self._dropped_sent:
                        frames.append(_wire.dropped(dropped_total, 0))
                        self._dropped_sent = dropped_total
                    frames.append(_wire.resync(thread_id, timestamp, stack))
            if ended:
                self._started_threads.discard(thread_id)
                frames.append(_wire.thread_end(thread_id, now))
        if dropped_total != self._dropped_sent:
            frames.append(_wire.dropped(dropped_total, 0))
            self._dropped_sent = dropped_total
        for thread_id, timestamp, live, _ in snapshots:
            frames.append(_wire.live_objects(thread_id, timestamp, None, live))
        memory_dropped = tuple(self.recorder.memory_dropped)
        if memory_dropped != self._memory_dropped_sent:
            frames.append(_wire.memory_dropped(*memory_dropped))
            self._memory_dropped_sent = memory_dropped
        clock = time.monotonic()
        if not frames and clock - self._last_send >= HEARTBEAT_INTERVAL_S:
            frames.append(_wire.heartbeat(now))
        if frames:
            sock.sendall(b"".join(frames))
            self._last_send = clock
        self.events_sent += calls
        return busiest

    def _new_relations(self, classes, snapshots):
        """Class relations not sent yet, between the program's classes: each new class's bases
        (registering a base the program never instantiated, and its bases in turn: `classes`
        grows with them, so they are defined first), and the attributes the snapshots saw."""
        found = []
        program = self.methods.class_of_program
        index = 0
        registered = False  # a base was registered since `classes` was last extended
        while index < len(classes) or registered:
            if index == len(classes):
                classes.extend(self.recorder.take_classes())
                registered = False
                continue
            class_id, cls = classes[index]
            index += 1
            if cls is None:
                continue
            self._class_types[class_id] = cls
            if not program(cls):
                continue
            for base in getattr(cls, "__bases__", ()):
                if base is object or not program(base):
                    continue
                base_id = self.recorder.class_id(base, True)
                if base_id is not None:
                    registered = True
                    found.append((class_id, base_id, _wire.RELATION_EXTENDS, "", False))
        for snapshot in snapshots:
            for from_id, to_id, attribute, many in snapshot[3]:
                types = (self._class_types.get(from_id), self._class_types.get(to_id))
                if all(cls is not None and program(cls) for cls in types):
                    found.append((from_id, to_id, _wire.RELATION_FIELD, attribute, bool(many)))
        new = []
        for relation in found:
            if relation not in self._relations_sent:
                self._relations_sent.add(relation)
                new.append(relation)
        return new

    def _poll_answer(self, sock):
        if self.answer is not None:
            return
        readable, _, _ = select.select([sock], [], [], 0)
        if readable:
            chunk = sock.recv(4096)
            if not chunk:
                raise OSError("the viewer closed the connection")
            self._take_answer(chunk)

    def _take_answer(self, chunk):
        self._answer += chunk
        if len(self._answer) >= 4:
            length = int.from_bytes(self._answer[:4], "little")
            if length > _wire.MAX_FRAME_BYTES:
                self.answer = ("invalid", 0, "frame too long")
            elif len(self._answer) >= 4 + length:
                try:
                    self.answer = _wire.decode_viewer_message(bytes(self._answer[4 : 4 + length]))
                except _wire.DecodeError as error:
                    self.answer = ("invalid", 0, str(error))

    def _close_gracefully(self, sock):
        """SPEC rule 8: shut down the sending side, read until end of stream (bounded), close."""
        try:
            sock.shutdown(socket.SHUT_WR)
            deadline = time.monotonic() + ANSWER_TIMEOUT_S
            while True:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    break
                sock.settimeout(remaining)
                chunk = sock.recv(4096)
                if not chunk:
                    break
                if self.answer is None:
                    self._take_answer(chunk)
        except OSError:
            pass
        finally:
            sock.close()
        if self.answer is not None and self.answer[0] == "reject":
            _warn("the viewer rejected this agent: %s" % self.answer[2])


_agent = None
_agent_lock = threading.Lock()


def start(
    addr=None,
    include=(),
    exclude=(),
    program=None,
    version_label=None,
    buffer_events=None,
    backend=None,
    token=None,
    alloc=None,
    live=None,
    stats=None,
    mode=None,
    sample_ms=None,
    functions=None,
):
    """Start profiling this process and stream to the viewer at `addr` (default `HIGHRISE_ADDR`,
    else 127.0.0.1:7878). `token`: the viewer's token, which a viewer listening beyond loopback
    asks of agents on other machines (default `HIGHRISE_TOKEN`, else none). `alloc`: count the
    objects each profiled function creates ("on"/"off", True/False; default `HIGHRISE_ALLOC`,
    else on; see README.md "Allocations"). `live`: at each phase mark's end, count the objects
    live per class after a collection (True/False; default `HIGHRISE_LIVE`, else off; README.md
    "Live objects"). `stats`: after the Goodbye, print the events sent and dropped on stderr
    (True/False; default `HIGHRISE_STATS`, else off). `mode`: "auto" (default `HIGHRISE_MODE`, else
auto: every call, until the program makes more than 1 M events/s; then samples), "exact" or
"sampled" (no hook: every thread's stack read each `sample_ms`, default `HIGHRISE_SAMPLE_MS`,
else 10; README.md "Measuring by samples"). `functions`: "run" (the functions that ran; default
`HIGHRISE_FUNCTIONS`, else run) or "all" (also every function and method of the profiled modules
once imported, so the city holds code that has not run). Returns the Agent, or None when no viewer answered
    (the program runs on unprofiled). Calling it again while running returns the running agent."""
    global _agent
    with _agent_lock:
        if _agent is not None and _agent.running:
            return _agent
        agent = Agent(
            addr, include, exclude, program, version_label, buffer_events, backend, token, alloc, live, stats, mode, sample_ms,
            functions=functions,
        )
        if not agent.start():
            return None
        _agent = agent
        return agent


def stop():
    """Flush, say Goodbye and stop profiling (also done automatically at exit)."""
    global _agent
    with _agent_lock:
        agent, _agent = _agent, None
    if agent is not None:
        agent.stop()
