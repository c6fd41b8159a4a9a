"""Checks what `highrise record --otlp…` recorded from the OTLP profiles clients of
scripts/test-otlp.sh (examples/otlp-python/profiler.py) against what each says it sampled: one
sampled session per service, every sample placed, no call counted, and each of the two
busiest functions' time on top within 5 points of the client's own share of its samples."""

import argparse
import glob
import json
import os
import subprocess
import sys


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--highrise", required=True)
    parser.add_argument("--recordings", required=True)
    parser.add_argument("--record-log", required=True)
    parser.add_argument("sampled", nargs="+")
    args = parser.parse_args()
    failures = []

    def check(condition, message):
        if not condition:
            failures.append(message)

    programs = {}
    for path in sorted(glob.glob(os.path.join(args.recordings, "*.hrec"))):
        report = json.loads(subprocess.run([args.highrise, "report", "--json", path], check=True,
                                           capture_output=True, text=True).stdout)
        programs[report["program"]] = report
    with open(args.record_log) as f:
        log = f.read()
    sampled_total = 0
    for path in args.sampled:
        with open(path) as f:
            text = f.read().strip()
        check(text, f"{path}: the client printed nothing (did it fail?)")
        if not text:
            continue
        sampled = json.loads(text.splitlines()[-1])
        service = sampled["service"]
        sampled_total += sampled["samples"]
        check(sampled["exports"] >= 3 and sampled["rejected_profiles"] == 0,
              f"{service}: {sampled['exports']} exports, {sampled['rejected_profiles']} profiles rejected")
        report = programs.get(service)
        check(report is not None, f"{service}: no recording (have {sorted(programs)})")
        if report is None:
            continue
        check(report["agent"].endswith("signal=profiles"), f"{service}: agent {report['agent']!r}")
        check(report["measure"]["mode"] == "sampled", f"{service}: measure {report['measure']}")
        check(report["end"] == "goodbye", f"{service}: ended {report['end']}")
        check(all(m["calls"] in (0, None) for m in report["methods"]), f"{service}: calls counted from samples")
        # The run's share × its duration is each function's time on top; the client sampled for
        # samples × period of it.
        sampled_ns = sampled["samples"] * sampled["period_ns"]
        on_top = sorted(((m["run_share_pct"] * report["duration_ns"] / sampled_ns, m["name"])
                         for m in report["methods"]), reverse=True)
        own = sorted(((100.0 * count / sampled["samples"], name) for name, count in sampled["own"].items()),
                     reverse=True)
        for (share, name), (expected, function) in zip(on_top[:2], own[:2]):
            check(name.endswith("." + function), f"{service}: highrise's {name} where the client has {function}")
            check(abs(share - expected) <= 5.0,
                  f"{service}: {function} {share:.1f} % on top, the client sampled it {expected:.1f} %")
        print(f"{service}: {sampled['samples']} samples, on top "
              + ", ".join(f"{name} {share:.1f} %" for share, name in on_top[:2])
              + "; the client's own " + ", ".join(f"{name} {share:.1f} %" for share, name in own[:2]))
    placed = next((line for line in log.splitlines() if line.startswith("otlp profiles:")), "")
    check(f"{sampled_total} samples: {sampled_total} placed, 0 late, 0 invalid" in placed,
          f"the receiver's count {placed!r}, the clients sampled {sampled_total}")
    if failures:
        print("check_profiles: " + "\n  ".join(["FAILED:"] + failures), file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
