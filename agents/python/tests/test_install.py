"""Installation: the C extension is optional. With a compiler that always fails the package still
installs (pure-Python recorder) and runs a program against the real listener."""

import os
import pathlib
import shutil
import subprocess
import sys

from conftest import WORKLOADS, Probe

SOURCE = pathlib.Path(__file__).resolve().parents[1]


def test_failed_extension_build_still_installs_pure_python(tmp_path):
    source = tmp_path / "src"
    shutil.copytree(SOURCE, source, ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__", "*.so"))
    target = tmp_path / "site"
    env = dict(os.environ, CC="false", LDSHARED="false")
    done = subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", "--no-build-isolation", "--no-deps",
         "--disable-pip-version-check", "--target", str(target), str(source)],
        env=env, capture_output=True, text=True,
    )
    assert done.returncode == 0, done.stderr
    installed = target / "highrise_agent"
    assert (installed / "_pyhook.py").exists()
    assert not list(installed.glob("_native*.so"))
    probe = Probe()
    try:
        run_env = dict(os.environ, PYTHONPATH=str(target))
        run = subprocess.run(
            [sys.executable, "-m", "highrise_agent", "--addr", probe.addr, "mt_workload.py"],
            cwd=str(WORKLOADS), env=run_env, capture_output=True, text=True,
        )
        assert run.returncode == 0, run.stderr
        [session] = probe.sessions()
    finally:
        probe.close()
    assert session["end"] == "goodbye"
    assert session["agent"].endswith(", python)")  # the pure-Python recorder
    assert session["calls"]["mt_workload.<module>.fib"] == 177 * 5
