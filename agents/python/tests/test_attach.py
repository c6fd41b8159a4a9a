"""`highrise attach PID` on a running CPython: gdb queues the agent's start in the process, which
then streams both of its running threads to the real listener (highrise-probe)."""

import os
import shutil
import subprocess
import sys
import time

import pytest

from conftest import WORKLOADS, highrise_bin


def _needs():
    if shutil.which(os.environ.get("HIGHRISE_GDB", "gdb")) is None:
        pytest.skip("gdb is not installed")
    if not os.path.exists(highrise_bin()):
        pytest.skip("the highrise binary is not built (%s)" % highrise_bin())


def _start_target(stop):
    """attach_target.py, started without the agent (no HIGHRISE_ADDR or HIGHRISE_MODE from the
    tests' environment); it runs until `stop` exists."""
    env = dict(os.environ)
    env.pop("HIGHRISE_ADDR", None)
    env.pop("HIGHRISE_MODE", None)
    return subprocess.Popen(
        [sys.executable, str(WORKLOADS / "attach_target.py"), str(stop)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )


def test_attach_profiles_a_running_program(probe, tmp_path):
    _needs()
    stop = tmp_path / "stop"
    target = _start_target(stop)
    try:
        assert target.stdout.readline().strip() == "READY"
        attach = subprocess.run(
            [highrise_bin(), "attach", str(target.pid), "--addr", probe.addr, "--label", "attached",
             "--mode", "exact"],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert attach.returncode == 0, attach.stderr
        assert "queued the highrise agent in Python process %d" % target.pid in attach.stdout
        time.sleep(3)
        stop.touch()
        _, err = target.communicate(timeout=60)
        assert target.returncode == 0, err
        assert "highrise:" not in err, err
    finally:
        if target.poll() is None:
            target.kill()
            target.wait()
    sessions = probe.sessions()
    assert len(sessions) == 1, sessions
    session = sessions[0]
    assert session["end"] == "goodbye"
    assert session["program"] == "attach_target"
    assert session["version_label"] == "attached"
    assert session["pid"] == target.pid
    calls = session["calls"]
    assert calls["attach_target.<module>.work"] > 10, calls
    assert calls["attach_target.<module>.helper"] > 500, calls
    threads = {t["name"] for t in session["threads"]}
    assert {"MainThread", "attach-worker"} <= threads, threads
    # The script that started the agent deleted itself.
    leftovers = [p for p in os.listdir("/tmp") if p.startswith("highrise-attach-%d-" % target.pid)]
    assert leftovers == [], leftovers


def test_attach_samples_by_default_and_detach_stops_it(probe, tmp_path):
    """Without --mode the agent samples (no hook: what py-spy costs); `highrise detach` ends the
    session with its Goodbye while the program runs on, unprofiled."""
    _needs()
    stop = tmp_path / "stop"
    target = _start_target(stop)
    try:
        assert target.stdout.readline().strip() == "READY"
        attach = subprocess.run(
            [highrise_bin(), "attach", str(target.pid), "--addr", probe.addr],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert attach.returncode == 0, attach.stderr
        assert "sampled every 10 ms, no hooks" in attach.stdout, attach.stdout
        time.sleep(2)
        detach = subprocess.run([highrise_bin(), "detach", str(target.pid)], capture_output=True, text=True,
                                timeout=60)
        assert detach.returncode == 0, detach.stderr
        # The session ends at the detach, while the program still runs.
        sessions = probe.sessions(timeout_s=30)
        assert target.poll() is None, "the program ended with the detach"
        stop.touch()
        _, err = target.communicate(timeout=60)
        assert target.returncode == 0, err
        assert "highrise-agent: detached" in err, err
    finally:
        if target.poll() is None:
            target.kill()
            target.wait()
    assert len(sessions) == 1, sessions
    session = sessions[0]
    assert session["end"] == "goodbye"
    assert session["stats"]["events"] == 0 and session["stats"]["resyncs"] > 10, session["stats"]
    assert {t["name"] for t in session["threads"]} >= {"MainThread", "attach-worker"}
    names = {m["name"] for m in session["methods"]}
    assert "attach_target.<module>.work" in names or "attach_target.work" in names, names


def test_attach_says_why_it_cannot(tmp_path):
    _needs()
    # A process that is neither CPython nor a JVM.
    sleeper = subprocess.Popen(["sleep", "30"])
    try:
        done = subprocess.run(
            [highrise_bin(), "attach", str(sleeper.pid), "--addr", "127.0.0.1:9"],
            capture_output=True,
            text=True,
            timeout=60,
        )
    finally:
        sleeper.kill()
        sleeper.wait()
    assert done.returncode != 0
    assert "is neither a JVM nor CPython" in done.stderr, done.stderr
    gone = subprocess.run(
        [highrise_bin(), "attach", "999999999", "--addr", "127.0.0.1:9"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert gone.returncode != 0 and "no process 999999999" in gone.stderr, gone.stderr
