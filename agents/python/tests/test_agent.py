"""The agent against the real listener (highrise-probe): every thread balanced, exact call counts,
the naming scheme, library exclusion and --include, -m mode, the start() API, no listener, drops.
Each test runs with both recorders (native C hook and pure Python)."""

import re
import sys

import pytest

from conftest import backends, run_python, run_with_agent

WORKERS = 5  # four threads plus the main thread

EXPECTED_CALLS = {
    "mt_workload.<module>.main": 1,
    "mt_workload.<module>.worker": WORKERS,
    "mt_workload.<module>.fib": 177 * WORKERS,
    "mt_workload.<module>.fail": 7 * WORKERS,
    "mt_workload.<module>.outer": 2 * WORKERS,
    "mt_workload.<module>.inner": 2 * WORKERS,
    "citylib.geometry.Circle.__init__": 5 * WORKERS,
    "citylib.geometry.Circle.area": 5 * WORKERS,
    "citylib.geometry.<module>.scale": 3 * WORKERS,
    "citylib.geometry.Circle.Unit.side": WORKERS,
}


def assert_clean(session):
    assert session["end"] == "goodbye", session["end"]
    assert session["errors"] == []
    assert session["stats"]["errors_total"] == 0
    assert session["stats"]["skipped_records"] == 0
    assert session["stats"]["agent_events_dropped"] == 0
    for thread in session["threads"]:
        assert thread["balanced"], thread
        assert thread["backwards_timestamps"] == 0, thread
        # Event times (TSC-converted or not) lie within the session's clock, which ends at the
        # Goodbye (read from time.monotonic_ns by the sender).
        if thread["events"]:
            assert 0 < thread["first_timestamp_ns"] <= thread["last_timestamp_ns"], thread
            assert thread["last_timestamp_ns"] <= session["stats"]["last_timestamp_ns"], thread


@pytest.mark.parametrize("backend", backends())
def test_multithreaded_recursion_and_exceptions(probe, backend):
    done, session = run_with_agent(probe, ["mt_workload.py", "5"], backend=backend)
    assert done.returncode == 5, done.stderr
    assert done.stdout == "done\n"
    assert_clean(session)
    assert session["program"] == "mt_workload"
    assert backend in session["agent"] and session["agent"].startswith("highrise-agent-python ")
    calls = session["calls"]
    for name, count in EXPECTED_CALLS.items():
        assert calls.get(name) == count, (name, calls)
    # Every thread ran the worker; each worker thread saw exactly one worker's calls.
    workers = {t["name"]: t for t in session["threads"] if t["name"].startswith("worker-")}
    assert sorted(workers) == ["worker-%d" % i for i in range(4)]
    for thread in workers.values():
        assert thread["started"] and thread["ended"]
        assert thread["calls"]["mt_workload.<module>.fib"] == 177
        assert thread["calls"]["mt_workload.<module>.worker"] == 1
        assert thread["max_depth"] >= 11  # worker -> fib(10) .. fib(1)
    main = [t for t in session["threads"] if t["name"] == "MainThread"]
    assert len(main) == 1 and main[0]["calls"]["mt_workload.<module>.main"] == 1
    # The standard library is excluded by default; the agent never shows itself.
    assert not [name for name in calls if name.startswith(("json.", "threading.", "runpy."))], calls
    assert not [name for name in calls if "highrise_agent" in name], calls


@pytest.mark.parametrize("backend", backends())
def test_package_class_method_mapping(probe, backend):
    _, session = run_with_agent(probe, ["mt_workload.py"], backend=backend)
    by_name = {m["name"]: m for m in session["methods"]}
    area = by_name["citylib.geometry.Circle.area"]
    assert (area["package"], area["class"], area["method"]) == ("citylib.geometry", "Circle", "area")
    assert area["signature"] == "(self)"
    assert area["file"].endswith("citylib/geometry.py")
    scale = by_name["citylib.geometry.<module>.scale"]  # module-level function: the <module> block
    assert (scale["package"], scale["class"], scale["method"]) == ("citylib.geometry", "<module>", "scale")
    assert scale["signature"] == "(value, factor)"
    side = by_name["citylib.geometry.Circle.Unit.side"]
    assert (side["package"], side["class"], side["method"]) == ("citylib.geometry", "Circle.Unit", "side")
    fib = by_name["mt_workload.<module>.fib"]  # the script: a module named after its file
    assert (fib["package"], fib["class"], fib["method"]) == ("mt_workload", "<module>", "fib")
    ids = sorted(m["id"] for m in session["methods"])
    assert ids == list(range(len(ids)))  # dense from 0


@pytest.mark.parametrize("backend", backends())
def test_same_named_classes_nested_and_local_classes_get_their_own_blocks(probe, backend):
    done, session = run_with_agent(probe, ["naming.py"], backend=backend)
    assert done.returncode == 0, done.stderr
    assert_clean(session)
    calls = session["calls"]
    # citylib.geometry.Circle and citylib.render.Circle: two modules of one package, two blocks.
    assert calls["citylib.geometry.Circle.area"] == 3
    assert calls["citylib.render.Circle.draw"] == 3
    assert calls["citylib.render.Circle.Style.stroke"] == 3
    # Module-level functions share the module's <module> block; nested ones carry their path.
    assert calls["citylib.render.<module>.outline"] == 3
    assert calls["citylib.render.<module>.traced.wrapper"] == 2
    assert calls["citylib.render.<module>.shade"] == 2
    # A class made by a function keeps the function's name.
    assert calls["citylib.render.make_sprite.Sprite.__init__"] == 2
    assert calls["citylib.render.make_sprite.Sprite.blit"] == 2
    assert calls["naming.<module>.main"] == 1
    methods = {m["name"]: m for m in session["methods"]}
    draw = methods["citylib.render.Circle.draw"]
    assert (draw["package"], draw["class"], draw["method"], draw["signature"]) == (
        "citylib.render",
        "Circle",
        "draw",
        "(self, canvas, *, color, **style)",
    )
    blocks = {(m["package"], m["class"]) for m in session["methods"]}
    assert {("citylib.geometry", "Circle"), ("citylib.render", "Circle")} <= blocks
    assert ("citylib.render", "make_sprite.Sprite") in blocks
    assert ("citylib", "Circle") not in blocks


@pytest.mark.parametrize("backend", backends())
def test_include_adds_standard_library_back(probe, backend):
    _, session = run_with_agent(probe, ["mt_workload.py"], ["--include", "json"], backend=backend)
    assert_clean(session)
    assert session["calls"]["json.<module>.dumps"] == WORKERS
    assert session["calls"]["json.encoder.JSONEncoder.encode"] == WORKERS
    assert session["calls"]["mt_workload.<module>.fib"] == 177 * WORKERS


@pytest.mark.parametrize("backend", backends())
def test_exclude_removes_a_package(probe, backend):
    _, session = run_with_agent(probe, ["mt_workload.py"], ["--exclude", "citylib"], backend=backend)
    assert_clean(session)
    assert not [name for name in session["calls"] if name.startswith("citylib.")]
    assert session["calls"]["mt_workload.<module>.fib"] == 177 * WORKERS


@pytest.mark.parametrize("backend", backends())
def test_module_mode(probe, backend):
    done, session = run_with_agent(
        probe, ["-m", "citylib.cli", "3"], ["--program", "cli-demo", "--version-label", "abc123"], backend=backend
    )
    assert done.returncode == 3, done.stderr
    assert done.stdout.startswith("total ")
    assert_clean(session)
    assert (session["program"], session["version_label"]) == ("cli-demo", "abc123")
    calls = session["calls"]
    assert calls["citylib.cli.<module>.main"] == 1  # -m citylib.cli: its real module name
    assert calls["citylib.geometry.<module>.scale"] == 4
    assert calls["citylib.geometry.Circle.area"] == 4


@pytest.mark.parametrize("backend", backends())
def test_start_api(probe, backend):
    done = run_python(["start_api.py"], {"HIGHRISE_ADDR": probe.addr, "HIGHRISE_BACKEND": backend})
    assert done.returncode == 0, done.stderr
    assert done.stdout == "agent on\n"
    [session] = probe.sessions()
    assert_clean(session)
    assert (session["program"], session["version_label"]) == ("start-api-demo", "v-test")
    assert session["calls"] == {"start_api.<module>.ping": 50}  # run() began before the agent: not seen
    # sys.monitoring where the interpreter has it, the profile hook before.
    expected = "sys.monitoring" if sys.version_info >= (3, 12) else "profile"
    assert "mechanism %s\n" % expected in done.stderr
    assert "answer welcome\n" in done.stderr  # the viewer's Welcome was read before closing


@pytest.mark.parametrize("backend", backends())
def test_uncaught_exception_keeps_exit_code_and_session(probe, backend):
    done, session = run_with_agent(probe, ["crash.py"], backend=backend)
    assert done.returncode == 1
    assert "RuntimeError: boom" in done.stderr
    assert_clean(session)
    assert session["calls"]["crash.<module>.explode"] == 1


@pytest.mark.parametrize("backend", backends())
def test_no_listener_program_runs_normally(backend):
    plain = run_python(["mt_workload.py", "4"])
    done = run_python(
        ["-m", "highrise_agent", "--addr", "127.0.0.1:9", "--backend", backend, "mt_workload.py", "4"]
    )
    assert (done.returncode, done.stdout) == (plain.returncode, plain.stdout) == (4, "done\n")
    warnings = [line for line in done.stderr.splitlines() if line.startswith("highrise-agent:")]
    assert len(warnings) == 1 and "no viewer at 127.0.0.1:9" in warnings[0], done.stderr
    api = run_python(["start_api.py"], {"HIGHRISE_ADDR": "127.0.0.1:9"})
    assert (api.returncode, api.stdout) == (0, "agent off\n")


@pytest.mark.parametrize("backend", backends())
def test_tiny_buffer_drops_are_counted_and_resynced(probe, backend):
    _, session = run_with_agent(probe, ["busy.py"], ["--buffer-events", "16"], backend=backend)
    assert session["end"] == "goodbye"
    assert session["errors"] == []
    stats = session["stats"]
    assert stats["agent_events_dropped"] > 0
    assert stats["resyncs"] > 0
    # After every resync the stream continues exactly: nothing left open, no exit mismatches.
    for thread in session["threads"]:
        assert thread["open_frames"] == [], thread
        assert thread["mismatched_exits"] == 0 and thread["orphan_exits"] == 0, thread
    total_calls = 2 * (200 + 200 * 100 + 1)  # two threads of work: branch + leaf + work
    recorded = sum(session["calls"].values())
    assert 0 < recorded < total_calls


STATS_LINE = re.compile(r"^highrise-agent: sent (\d+) events, dropped (\d+)$", re.M)


@pytest.mark.parametrize("backend", backends())
@pytest.mark.parametrize("drops", [False, True])
def test_stats_line_says_what_the_session_counted(probe, backend, drops):
    """HIGHRISE_STATS=on / --stats: one line after the Goodbye with the enter and exit events
    written (memory records not among them) and those dropped, exactly what the session got."""
    if drops:
        done, session = run_with_agent(probe, ["busy.py"], ["--stats", "--buffer-events", "16"], backend=backend)
    else:
        done, session = run_with_agent(
            probe, ["mt_workload.py", "5"], backend=backend, env_extra={"HIGHRISE_STATS": "on"}
        )
    said = STATS_LINE.findall(done.stderr)
    assert len(said) == 1, done.stderr
    sent, dropped = map(int, said[0])
    assert session["end"] == "goodbye"
    assert sent == session["stats"]["events"] > 0
    assert dropped == session["stats"]["agent_events_dropped"]
    assert (dropped > 0) == drops


def test_no_stats_line_by_default(probe):
    done, session = run_with_agent(probe, ["mt_workload.py", "5"])
    assert session["end"] == "goodbye"
    assert not STATS_LINE.search(done.stderr), done.stderr


def test_idle_threads_give_their_buffers_back(probe):
    """The native drain gives a busy thread its drained buffer back (two warm buffers instead of
    a new one per drain) and frees both once the thread has been idle for a while."""
    if "native" not in [b for b in backends() if isinstance(b, str)]:
        pytest.skip("_native not built")
    done, session = run_with_agent(probe, ["idle_buffers.py"], backend="native")
    assert done.returncode == 0, done.stderr
    assert_clean(session)
    assert session["calls"]["idle_buffers.<module>.leaf"] == 20_000
    busy, idle = (int(value) for value in done.stdout.split("BUFFERED")[1].split())
    assert busy >= 40_000 * 16, busy  # the burst's 40k events at least, in its buffers
    assert idle == 0, (busy, idle)


@pytest.mark.parametrize("backend", backends())
def test_generators_coroutines_and_restart(backend):
    from conftest import Probe

    probe = Probe(sessions=2)
    try:
        done = run_python(["gen_async.py"], {"HIGHRISE_ADDR": probe.addr, "HIGHRISE_BACKEND": backend})
        assert done.returncode == 0, done.stderr
        sessions = sorted(probe.sessions(), key=lambda s: s["program"])
    finally:
        probe.close()
    assert [s["program"] for s in sessions] == ["gen-async-0", "gen-async-1"]
    for session in sessions:
        assert_clean(session)
        calls = session["calls"]
        assert calls["gen_async.<module>.session"] == 1
        # A generator frame is entered at each resume: 20 values + the final StopIteration.
        assert calls["gen_async.<module>.counter"] == 21
        assert calls["gen_async.<module>.catcher"] == 1 + 3 + 1  # next, three throws, close
        assert calls["gen_async.<module>.gather"] >= 1
        assert calls["gen_async.<module>.tick"] >= 10


@pytest.mark.parametrize("backend", backends())
def test_heartbeats_while_idle(probe, backend):
    _, session = run_with_agent(probe, ["idle.py"], backend=backend)
    assert_clean(session)
    assert session["calls"]["idle.<module>.work"] == 1
    assert session["stats"]["heartbeats"] >= 2  # one per 250 ms without events
    assert session["stats"]["last_timestamp_ns"] >= 900_000_000


def test_rejecting_viewer_leaves_the_program_alone():
    """A viewer that answers Reject (here a socket that sends the golden reject frame, since the
    real listener accepts every valid agent): the program runs on, its exit code unchanged."""
    import pathlib
    import socket
    import threading

    reject = (pathlib.Path(__file__).resolve().parents[3] / "agent-protocol" / "golden" / "reject.bin").read_bytes()
    server = socket.create_server(("127.0.0.1", 0))
    addr = "127.0.0.1:%d" % server.getsockname()[1]

    def answer():
        conn, _ = server.accept()
        with conn:
            conn.recv(4096)
            conn.sendall(reject)

    thread = threading.Thread(target=answer)
    thread.start()
    done = run_python(["-m", "highrise_agent", "--addr", addr, "mt_workload.py", "6"])
    thread.join()
    server.close()
    assert (done.returncode, done.stdout) == (6, "done\n")
    assert "highrise-agent: the viewer rejected this agent: bad magic" in done.stderr, done.stderr


@pytest.mark.parametrize("clock", ["monotonic", "auto"])
def test_native_event_clocks(probe, clock):
    """The C recorder's two event clocks (RDTSC converted at drain time where the kernel trusts
    the TSC, else CLOCK_MONOTONIC) give the same counts and clean, ordered timestamps."""
    if "native" not in [b for b in backends() if isinstance(b, str)]:
        pytest.skip("_native not built")
    done, session = run_with_agent(
        probe, ["idle.py"], backend="native", env_extra={"HIGHRISE_CLOCK": clock}
    )
    assert done.returncode == 0, done.stderr
    assert_clean(session)
    [thread] = [t for t in session["threads"] if t["events"]]
    # The module body is entered at the start and left after its 1 s sleep: the converted
    # event times must show that second.
    span_ns = thread["last_timestamp_ns"] - thread["first_timestamp_ns"]
    assert 1_000_000_000 <= span_ns < 1_500_000_000, span_ns


@pytest.mark.parametrize("backend", backends())
def test_many_threads_pool_and_deep_recursion(probe, backend):
    # A Python-level hook cannot run at the recursion limit: CPython then removes the pure
    # recorder's profile function on that thread (3.11) or raises from its callback (3.12+).
    # The C recorder has no such limit.
    args = ["stress.py"] if backend == "native" else ["stress.py", "--no-recursion-error"]
    done, session = run_with_agent(probe, args, backend=backend)
    assert (done.returncode, done.stdout) == (0, "ok\n"), done.stderr
    assert_clean(session)
    calls = session["calls"]
    assert calls["stress.<module>.short_lived"] == 300
    assert calls["stress.<module>.tiny"] == 900 + 200
    assert calls["stress.<module>.deep"] == 3001
    if backend == "native":
        assert calls["stress.<module>.dive"] >= 900  # until the recursion limit (1000 minus frames below)
    short = [t for t in session["threads"] if t["calls"].get("stress.<module>.short_lived")]
    assert len(short) == 300 and all(t["ended"] for t in short)
    assert max(t["max_depth"] for t in session["threads"]) >= 3000


def test_command_line_passes_the_program_its_arguments(probe):
    import json

    done, session = run_with_agent(
        probe, ["show_argv.py", "-m", "x", "--addr", "y", "--", "z"], ["--include=json", "--program=argv-demo"]
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {
        "argv": ["show_argv.py", "-m", "x", "--addr", "y", "--", "z"],
        "name": "__main__",
    }
    assert session["program"] == "argv-demo"
    assert session["calls"]["json.<module>.dumps"] == 1  # --include=json took effect


def test_example_shop_demo(probe):
    """examples/python/shop_demo.py, the documented example, under the agent for one second."""
    import pathlib

    example = pathlib.Path(__file__).resolve().parents[3] / "examples" / "python" / "shop_demo.py"
    done, session = run_with_agent(probe, [str(example), "--seconds", "1", "--customers", "2"])
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("orders placed: ")
    assert_clean(session)
    calls = session["calls"]
    for name in (
        "shop.catalog.Catalog.search",
        "shop.orders.Database.save",
        "shop.shipping.RoutePlanner.shortest",
        "shop.orders.<module>.discount",
    ):
        assert calls.get(name, 0) > 0, (name, calls)
    names = {t["name"] for t in session["threads"]}
    assert {"MainThread", "dispatcher", "customer-0", "customer-1"} <= names


@pytest.mark.parametrize("backend", backends())
def test_thread_running_before_start(probe, backend):
    done = run_python(["early_thread.py"], {"HIGHRISE_ADDR": probe.addr, "HIGHRISE_BACKEND": backend})
    assert done.returncode == 0, done.stderr
    [session] = probe.sessions()
    assert_clean(session)
    if backend == "python" and sys.version_info < (3, 12):
        pytest.skip("the pure recorder on 3.11 sees only threads started after start()")
    early = [t for t in session["threads"] if t["name"] == "early"]
    assert len(early) == 1 and early[0]["calls"] == {"early_thread.<module>.early_work": 25}


@pytest.mark.skipif(sys.version_info < (3, 12), reason="sys.monitoring is 3.12+")
@pytest.mark.parametrize("backend", backends())
def test_profile_hook_when_no_monitoring_tool_id_is_free(probe, backend):
    done = run_python(["tools_taken.py"], {"HIGHRISE_ADDR": probe.addr, "HIGHRISE_BACKEND": backend})
    assert done.returncode == 0, done.stderr
    assert "mechanism profile\n" in done.stderr
    [session] = probe.sessions()
    assert_clean(session)
    calls = session["calls"]
    for name, count in EXPECTED_CALLS.items():
        if name != "mt_workload.<module>.main":
            assert calls.get(name) == count, (name, calls)


def test_example_textshop_lazy(probe):
    """examples/python-lazy (textshop): phases import modules late, same-named classes in one
    package are separate blocks, every restart leaks a thread in Session._await_ack."""
    import pathlib

    example = pathlib.Path(__file__).resolve().parents[3] / "examples" / "python-lazy" / "textshop_demo.py"
    args = [str(example), "--seconds", "3", "--phase-s", "0.5", "--restart-s", "0.4", "--quiet"]
    done, session = run_with_agent(probe, args)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("textshop: phase 1 start-up at 0.00 s"), lines
    assert [line.split()[3] for line in lines if line.startswith("textshop: phase ")] == [
        "start-up",
        "render",
        "index",
        "sessions",
    ]
    assert lines[-1].startswith("textshop: done after "), lines
    assert_clean(session)
    calls = session["calls"]
    for name in (
        "textshop.parse.lexer.Lexer.tokens",
        "textshop.parse.lexer.Lexer.State.advance_while",
        "textshop.parse.tree.Parser.parse",
        "textshop.parse.tree.Token.__init__",
        "textshop.parse.lexer.Token.__init__",
        "textshop.render.html.Renderer.render",
        "textshop.render.term.Renderer.render",
        "textshop.render.theme.make_style.Style.__init__",
        "textshop.index.search.InvertedIndex.add",
        "textshop.util.cache.<module>.memoize.decorate.cached",
        "textshop.util.text.<module>.words",
        "textshop.work.session.Session._await_ack",
    ):
        assert calls.get(name, 0) > 0, (name, sorted(calls))
    blocks = {(m["package"], m["class"]) for m in session["methods"]}
    assert {("textshop.render.html", "Renderer"), ("textshop.render.term", "Renderer")} <= blocks
    # One leaked ack thread per restart, plus the current session's.
    ack_threads = [t for t in session["threads"] if t["calls"].get("textshop.work.session.Session._await_ack")]
    assert len(ack_threads) >= 3, [t["name"] for t in session["threads"]]
    names = {t["name"] for t in session["threads"]}
    assert {"MainThread", "worker-0", "worker-1", "worker-2", "indexer"} <= names


def _non_loopback_address():
    """An address of this machine that is not loopback (where a UDP socket would send from;
    nothing is sent), or None. Connecting to it, an agent looks to the viewer like one on
    another machine."""
    import socket

    for target in ("192.0.2.1", "10.255.255.1"):
        try:
            with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as udp:
                udp.connect((target, 9))
                ip = udp.getsockname()[0]
        except OSError:
            continue
        if not ip.startswith("127.") and ip != "0.0.0.0":
            return ip
    return None


def test_token_for_a_viewer_listening_beyond_loopback():
    """A viewer with a token on all interfaces: from "another machine" (this machine's own
    non-loopback address) the agent gets in with HIGHRISE_TOKEN, is turned away without it or
    with a wrong --token (the program runs on, told why), and a local agent needs no token."""
    from conftest import Probe

    ip = _non_loopback_address()
    if ip is None:
        pytest.skip("this machine has no non-loopback address to connect from")
    token = "0123456789abcdef0123456789abcdef"
    probe = Probe(sessions=4, listen="0.0.0.0:0", token=token)
    try:
        port = probe.addr.rsplit(":", 1)[1]
        remote = "%s:%s" % (ip, port)
        program = ["mt_workload.py", "5"]
        with_token = run_python(["-m", "highrise_agent", "--addr", remote] + program, {"HIGHRISE_TOKEN": token})
        without = run_python(["-m", "highrise_agent", "--addr", remote] + program)
        wrong = run_python(["-m", "highrise_agent", "--addr", remote, "--token", "not-it"] + program)
        local = run_python(["-m", "highrise_agent", "--addr", "127.0.0.1:%s" % port] + program)
        sessions = probe.sessions()
    finally:
        probe.close()
    for done in (with_token, without, wrong, local):
        assert (done.returncode, done.stdout) == (5, "done\n"), done.stderr
    assert "rejected this agent: unauthorized: no token" in without.stderr, without.stderr
    assert "rejected this agent: unauthorized: wrong token" in wrong.stderr, wrong.stderr
    assert len(sessions) == 4, sessions
    served = [s for s in sessions if s["end"] == "goodbye"]
    refused = sorted(s["end"] for s in sessions if s["end"] != "goodbye")
    assert sorted(s["peer"].rsplit(":", 1)[0] for s in served) == sorted([ip, "127.0.0.1"]), served
    for session in served:
        assert_clean(session)
        assert session["calls"]["mt_workload.<module>.fib"] == 177 * WORKERS
    assert [end.split(";")[0] for end in refused] == [
        "failed: unauthorized: no token",
        "failed: unauthorized: wrong token",
    ], refused
