"""Fixtures: the real listener (`highrise-probe`, path in $HIGHRISE_PROBE) and a runner that
starts a Python program under the agent against it and returns the probe's session report."""

import json
import os
import pathlib
import subprocess
import sys

import pytest

WORKLOADS = pathlib.Path(__file__).resolve().parent / "workloads"


def _probe_path():
    explicit = os.environ.get("HIGHRISE_PROBE")
    if explicit:
        return explicit
    target = os.environ.get("CARGO_TARGET_DIR") or os.path.expanduser("~/.cache/highrise/target")
    return os.path.join(target, "debug", "highrise-probe")


def highrise_bin():
    """The `highrise` binary: $HIGHRISE_BIN, else $CARGO_TARGET_DIR (or ~/.cache/highrise/target)
    /debug/highrise (built by `cargo test --workspace`)."""
    explicit = os.environ.get("HIGHRISE_BIN")
    if explicit:
        return explicit
    target = os.environ.get("CARGO_TARGET_DIR") or os.path.expanduser("~/.cache/highrise/target")
    return os.path.join(target, "debug", "highrise")


def record_under_agent(agent_args, out, cwd):
    """Runs `python -m highrise_agent --addr ADDR AGENT_ARGS` from `cwd` while `highrise record`
    listens (on a free port, for one session) and writes into the directory `out`; returns (the
    program's completed process, the recording's path)."""
    record = subprocess.Popen(
        [highrise_bin(), "record", "--out", str(out), "--listen", "127.0.0.1:0", "--sessions", "1"],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        first = record.stdout.readline()
        assert first.startswith("LISTENING "), first
        done = run_python(["-m", "highrise_agent", "--addr", first.split()[1]] + list(agent_args), cwd=cwd)
        rest, _ = record.communicate(timeout=60)
        assert record.returncode == 0, rest
    finally:
        if record.poll() is None:
            record.kill()
            record.wait()
    recordings = sorted(pathlib.Path(out).glob("*.hrec"))
    assert len(recordings) == 1, (rest, list(pathlib.Path(out).iterdir()))
    return done, recordings[0]


def native_available():
    try:
        import highrise_agent._native  # noqa: F401
    except ImportError:
        return False
    return True


def backends():
    """Both recorders. The native one is required when HIGHRISE_REQUIRE_NATIVE=1 (the test
    script sets it on CPython 3.11+), otherwise skipped when the extension is not built."""
    params = []
    if native_available():
        params.append("native")
    elif os.environ.get("HIGHRISE_REQUIRE_NATIVE") == "1":
        params.append(pytest.param("native", marks=pytest.mark.xfail(strict=True, reason="_native not built")))
    else:
        params.append(pytest.param("native", marks=pytest.mark.skip(reason="_native not built")))
    params.append("python")
    return params


class Probe:
    """One highrise-probe process expecting `sessions` sessions."""

    def __init__(self, sessions=1, timeout_s=60, listen="127.0.0.1:0", token=None):
        path = _probe_path()
        if not os.path.exists(path):
            pytest.fail("highrise-probe not found at %s (set HIGHRISE_PROBE)" % path)
        extra = ["--token", token] if token else []
        self.process = subprocess.Popen(
            [path, "--listen", listen, "--sessions", str(sessions), "--timeout-s", str(timeout_s)] + extra,
            stdout=subprocess.PIPE,
            text=True,
        )
        first = self.process.stdout.readline().split()
        assert first and first[0] == "LISTENING", first
        self.addr = first[1]

    def sessions(self, timeout_s=60):
        out, _ = self.process.communicate(timeout=timeout_s)
        return [json.loads(line) for line in out.splitlines() if line.strip()]

    def close(self):
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()


@pytest.fixture
def probe():
    probe = Probe()
    yield probe
    probe.close()


def run_python(args, env_extra=None, cwd=WORKLOADS, timeout_s=60):
    """Runs `python ARGS` (the interpreter running the tests) from the workloads directory."""
    env = dict(os.environ)
    env.pop("HIGHRISE_ADDR", None)
    env.pop("HIGHRISE_TOKEN", None)
    # Every call, as these tests count them; test_modes.py asks for the other modes itself.
    env["HIGHRISE_MODE"] = "exact"
    env.update(env_extra or {})
    return subprocess.run(
        [sys.executable] + list(args),
        cwd=str(cwd),
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout_s,
    )


def run_with_agent(probe, program_args, agent_args=(), backend="native", env_extra=None):
    """`python -m highrise_agent --addr PROBE --backend B AGENT_ARGS PROGRAM_ARGS`; returns
    (completed process, the probe's one session)."""
    args = ["-m", "highrise_agent", "--addr", probe.addr, "--backend", backend]
    args += list(agent_args) + list(program_args)
    done = run_python(args, env_extra)
    sessions = probe.sessions()
    assert len(sessions) == 1, (done.stdout, done.stderr, sessions)
    return done, sessions[0]
