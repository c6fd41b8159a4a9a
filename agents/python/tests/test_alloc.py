"""Allocation counting against the real listener (highrise-probe, whose per-thread `allocations`
list every memory record by the stack it arrived on and its class): exact counts per calling
context and class under threads, recursion, exceptions and generators; drops that lose counts and
say so, never moving them; the off switch; the pure-Python recorder (counts nothing).

What is counted depends on the interpreter (README.md, "Allocations"): 3.13+ every object by its
type (the reference tracer); 3.11/3.12 object-allocator blocks and bytes, untyped, except the
instances of classes defined in Python, which are named. Every expectation below is derived from
what alloc_workload.py does (its docstring lists it)."""

import sys

import pytest

from conftest import backends, native_available, run_with_agent

TYPES = sys.version_info >= (3, 13)
# The C recorder's mechanism: the profile hook on 3.11 (it makes a frame object per call, which
# the agent leaves out, so a frame that raises has one already), sys.monitoring on 3.12+.
PROFILE_HOOK = sys.version_info < (3, 12)
SIZE = 100  # alloc_workload.py's bytes objects: b"x" * SIZE


class Boom(Exception):
    pass


class Node:
    __slots__ = ("value", "next")


class Link:  # gc_busy.py's
    __slots__ = ("next",)


# Allocation sizes in this interpreter (sys.getsizeof counts the GC header, as the allocator does).
NODE = sys.getsizeof(Node())
LINK = sys.getsizeof(Link())
BOOM = sys.getsizeof(Boom())
BLOB = sys.getsizeof(b"x" * SIZE)  # 33 + SIZE


def run_stacks(thread):
    """{(stack below `run`, class): (count, bytes)} for one thread; stacks are tuples of method
    names (`alloc_workload.<module>.make_nodes` -> `make_nodes`), outermost first."""
    out = {}
    for entry in thread["allocations"]:
        names = [name.rsplit(".", 1)[-1] for name in entry["stack"]]
        if "run" not in names:
            continue
        stack = tuple(names[names.index("run") :])
        key = (stack, entry["class"])
        count, nbytes = out.get(key, (0, 0))
        out[key] = (count + entry["count"], nbytes + entry["bytes"])
        assert entry["frees"] == 0 and entry["freed_bytes"] == 0, entry  # frees are not counted
    return out


def expected_counts(mode):
    """{(stack, class): count} for one run of alloc_workload.run, in counting mode `mode`."""
    run = ("run",)
    node, boom = "alloc_workload.Node", "alloc_workload.Boom"
    counts = {
        (run + ("make_nodes",), node): 10,
        (run + ("build",), node): 1,
        (run + ("build",) * 2, node): 1,
        (run + ("build",) * 3, node): 1,
        (run + ("build",) * 4, node): 1,
        (run + ("guarded", "fail"), boom): 3,
    }
    if mode == "types":
        counts.update(
            {
                (run + ("make_blobs",), "builtins.bytes"): 5,
                (run + ("guarded",), "builtins.traceback"): 3,
                (run + ("guarded",), "builtins.frame"): 1,
                (run + ("guarded", "fail"), "builtins.bytes"): 9,
                (run + ("guarded", "fail"), "builtins.traceback"): 3,
                (run + ("guarded", "fail"), "builtins.frame"): 3,
                (run + ("consume",), "builtins.generator"): 1,
                (run + ("consume",), "builtins.int"): 2,
                (run + ("consume", "blob_gen"), "builtins.bytes"): 4,
            }
        )
    else:  # blocks: the same objects, untyped (frame objects: see PROFILE_HOOK)
        frames = 0 if PROFILE_HOOK else 1
        counts.update(
            {
                (run + ("make_blobs",), "(untyped)"): 5,
                (run + ("guarded",), "(untyped)"): 3 + frames,
                (run + ("guarded", "fail"), "(untyped)"): 9 + 3 + 3 * frames,
                (run + ("consume",), "(untyped)"): 1 + 2,
                (run + ("consume", "blob_gen"), "(untyped)"): 4,
            }
        )
    return counts


def assert_no_memory(session):
    stats = session["stats"]
    assert stats["memory_records"] == 0 and stats["allocations"] == 0, stats
    assert stats["class_definitions"] == 0 and session["classes"] == []
    assert all(thread["allocations"] == [] for thread in session["threads"])


@pytest.mark.skipif(not native_available(), reason="allocation counting needs the C recorder")
@pytest.mark.parametrize("alloc", ["on", "blocks"] if TYPES else ["on"])
def test_counts_per_context_and_class_are_exact(probe, alloc):
    done, session = run_with_agent(probe, ["alloc_workload.py", str(SIZE)], ["--alloc", alloc])
    assert done.returncode == 0, done.stderr
    assert done.stdout == "done\n"
    assert session["end"] == "goodbye" and session["errors"] == []
    stats = session["stats"]
    assert stats["agent_events_dropped"] == 0 and stats["skipped_records"] == 0, stats
    assert stats["agent_allocations_dropped"] == 0, stats
    mode = "types" if (TYPES and alloc == "on") else "blocks"
    assert session["agent"].endswith("alloc=%s)" % mode), session["agent"]
    expected = expected_counts(mode)
    threads = {thread["name"]: thread for thread in session["threads"]}
    assert sorted(threads) == ["MainThread"] + ["worker-%d" % i for i in range(4)], sorted(threads)
    for name, thread in threads.items():
        assert thread["balanced"], thread
        got = run_stacks(thread)
        assert {key: value[0] for key, value in got.items()} == expected, name
        # Bytes: the allocator's sizes of what the code made on purpose.
        assert got[(("run", "make_nodes"), "alloc_workload.Node")][1] == 10 * NODE
        assert got[(("run", "build", "build"), "alloc_workload.Node")][1] == NODE
        assert got[(("run", "guarded", "fail"), "alloc_workload.Boom")][1] == 3 * BOOM
        blobs = "builtins.bytes" if mode == "types" else "(untyped)"
        assert got[(("run", "make_blobs"), blobs)][1] == 5 * BLOB
        assert got[(("run", "consume", "blob_gen"), blobs)][1] == 4 * BLOB
        if mode == "types":
            assert got[(("run", "guarded", "fail"), "builtins.bytes")][1] == 9 * BLOB
    # Classes are defined once, named like the methods' blocks (the script is `alloc_workload`,
    # not `__main__`); 3.11/3.12 untyped blocks are one class of kind Untyped.
    classes = {c["display"]: c for c in session["classes"]}
    assert classes["alloc_workload.Node"]["kind"] == "Class"
    assert classes["alloc_workload.Boom"]["kind"] == "Class"
    if mode == "blocks":
        assert classes["(untyped)"]["kind"] == "Untyped"
    else:
        assert "(untyped)" not in classes
        assert classes["builtins.bytes"]["kind"] == "Class"
    assert len(classes) == len(session["classes"])
    # Nothing of the agent's: no thread of its own, no class or method of its package.
    assert not [c for c in classes if c.startswith("highrise_agent")], sorted(classes)
    assert not [m for m in session["calls"] if "highrise_agent" in m]


@pytest.mark.skipif(not native_available(), reason="allocation counting needs the C recorder")
@pytest.mark.parametrize("how", ["flag", "env"])
def test_off_sends_no_memory_records(probe, how):
    if how == "flag":
        done, session = run_with_agent(probe, ["alloc_workload.py"], ["--alloc", "off"])
    else:
        done, session = run_with_agent(probe, ["alloc_workload.py"], env_extra={"HIGHRISE_ALLOC": "off"})
    assert done.returncode == 0, done.stderr
    assert_no_memory(session)
    assert "alloc=" not in session["agent"]
    assert session["calls"]["alloc_workload.<module>.make_nodes"] == 5


@pytest.mark.skipif(not native_available(), reason="allocation counting needs the C recorder")
def test_on_by_default_and_by_environment(probe):
    done, session = run_with_agent(probe, ["alloc_workload.py"], env_extra={"HIGHRISE_ALLOC": "on"})
    assert done.returncode == 0, done.stderr
    assert session["stats"]["allocations"] > 0
    assert session["agent"].endswith("alloc=%s)" % ("types" if TYPES else "blocks"))


def test_pure_python_recorder_counts_nothing(probe):
    """The pure-Python recorder has no allocation hook: it sends events only, and says so once
    when counting was asked for."""
    done, session = run_with_agent(probe, ["alloc_workload.py"], ["--alloc", "on"], backend="python")
    assert done.returncode == 0, done.stderr
    assert_no_memory(session)
    assert done.stderr.count("allocation counting needs the C recorder") == 1, done.stderr
    assert session["calls"]["alloc_workload.<module>.build"] == 4 * 5


@pytest.mark.parametrize("backend", backends())
def test_default_on_stays_quiet_without_the_c_recorder(probe, backend):
    done, session = run_with_agent(probe, ["alloc_workload.py"], backend=backend)
    assert done.returncode == 0, done.stderr
    assert "allocation" not in done.stderr, done.stderr
    if backend == "python":
        assert_no_memory(session)
    else:
        assert session["stats"]["allocations"] > 0


@pytest.mark.skipif(not native_available(), reason="allocation counting needs the C recorder")
def test_drops_lose_counts_and_say_so_never_moving_them():
    """A tiny buffer drops records: what arrives plus what the agent reports dropped is exactly
    what a run without drops counts, and no count ever lands on a stack or class where the full
    run has less (a dropped record is lost, never attributed elsewhere)."""
    from conftest import Probe

    def run(buffer_args):
        probe = Probe()
        try:
            done, session = run_with_agent(probe, ["alloc_workload.py", str(SIZE), "solo"], buffer_args)
        finally:
            probe.close()
        assert done.returncode == 0, done.stderr
        return session

    full = run([])
    assert full["stats"]["agent_events_dropped"] == 0
    tiny = run(["--buffer-events", "24"])
    stats = tiny["stats"]
    assert stats["agent_events_dropped"] > 0 and stats["agent_allocations_dropped"] > 0, stats

    def by_stack(session):
        out = {}
        for thread in session["threads"]:
            for entry in thread["allocations"]:
                key = (thread["name"], tuple(entry["stack"]), entry["class"])
                count, nbytes = out.get(key, (0, 0))
                out[key] = (count + entry["count"], nbytes + entry["bytes"])
        return out

    truth, got = by_stack(full), by_stack(tiny)
    for key, (count, nbytes) in got.items():
        assert key in truth and count <= truth[key][0] and nbytes <= truth[key][1], key
    total = sum(count for count, _ in truth.values())
    total_bytes = sum(nbytes for _, nbytes in truth.values())
    assert sum(count for count, _ in got.values()) + stats["agent_allocations_dropped"] == total
    assert sum(nbytes for _, nbytes in got.values()) + stats["agent_allocation_bytes_dropped"] == total_bytes
    assert stats["agent_frees_dropped"] == 0


@pytest.mark.skipif(not native_available(), reason="allocation counting needs the C recorder")
def test_start_api_takes_alloc(probe):
    from conftest import run_python

    code = (
        "import highrise_agent, sys\n"
        "agent = highrise_agent.start(addr=sys.argv[1], program='api', alloc=False)\n"
        "assert agent.alloc is None, agent.alloc\n"
        "def work():\n"
        "    return [bytes(10) for _ in range(3)]\n"
        "work()\n"
    )
    done = run_python(["-c", code, probe.addr])
    assert done.returncode == 0, done.stderr
    (session,) = probe.sessions()
    assert_no_memory(session)


def test_a_bad_environment_value_warns_and_keeps_the_default(probe):
    done, session = run_with_agent(probe, ["alloc_workload.py"], env_extra={"HIGHRISE_ALLOC": "maybe"})
    assert done.returncode == 0, done.stderr
    assert "HIGHRISE_ALLOC" in done.stderr and done.stdout == "done\n"
    assert (session["stats"]["allocations"] > 0) == native_available()


@pytest.mark.skipif(not native_available(), reason="allocation counting needs the C recorder")
@pytest.mark.parametrize("callback", [False, True])
def test_collections_inside_a_method_add_nothing_to_it(probe, callback):
    """What the collector makes for gc.callbacks (3.12+: a phase string at each collection's
    start and stop, even with none registered; with callbacks, an info dict) is not counted in the
    method a collection interrupts, whether or not the program registered a callback of its own.
    3.11 makes the phase string anew for each callback it calls: the program's callbacks' strings
    still count (README.md, "Allocations")."""
    if callback and sys.version_info < (3, 12):
        pytest.skip("3.11 makes a phase string per callback called (README.md)")
    done, session = run_with_agent(probe, ["gc_busy.py"] + (["callback"] if callback else []))
    assert done.returncode == 0, done.stderr
    collections, starts, stops = map(int, done.stdout.split())
    assert collections > 50, done.stdout  # most of chain's 200 links started one
    if callback:
        assert starts == stops and starts >= collections - 1, done.stdout
    (thread,) = session["threads"]
    got = {}
    for entry in thread["allocations"]:
        if entry["stack"][-1].endswith(".chain"):
            got[entry["class"]] = (entry["count"], entry["bytes"])
    assert got == {"gc_busy.Link": (200, 200 * LINK)}, got
