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


def test_attach_profiles_a_running_program(probe, tmp_path):
    _needs()
    stop = tmp_path / "stop"
    env = dict(os.environ)
    env.pop("HIGHRISE_ADDR", None)
    target = subprocess.Popen(
        [sys.executable, str(WORKLOADS / "attach_target.py"), str(stop)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        assert target.stdout.readline().strip() == "READY"
        attach = subprocess.run(
            [highrise_bin(), "attach", str(target.pid), "--addr", probe.addr, "--label", "attached"],
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
