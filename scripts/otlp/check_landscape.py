"""Checks what `highrise record --otlp…` recorded against what each OpenTelemetry client says
it made (scripts/test-otlp.sh): one recording per service, every span placed exactly once as
a call, nested as the client nested them, each session named after its resource, nothing
dropped, and nothing recorded from an exporter without the token."""

import argparse
import glob
import json
import os
import subprocess
import sys

# (caller, callee) pairs the shop makes (examples/otlp-python/shop.py, examples/otlp-node/shop.js).
EDGES = [
    ("shop.api.Handler.handle", "shop.cache.Cache.get"),
    ("shop.api.Handler.handle", "shop.db.Repository.query"),
    ("shop.db.Repository.query", "shop.db.Pool.borrow"),
]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--highrise", required=True)
    parser.add_argument("--recordings", required=True)
    parser.add_argument("--record-log", required=True)
    parser.add_argument("made", nargs="+")
    args = parser.parse_args()
    failures = []

    def check(condition, message):
        if not condition:
            failures.append(message)

    recordings = sorted(glob.glob(os.path.join(args.recordings, "*.hrec")))
    programs = {}
    for path in recordings:
        report = json.loads(
            subprocess.run([args.highrise, "report", "--json", path], check=True,
                           capture_output=True, text=True).stdout
        )
        programs[report["program"]] = report
    check("intruder" not in programs, "the exporter without the token was recorded")
    for made_path in args.made:
        with open(made_path) as f:
            text = f.read().strip()
        check(text, f"{made_path}: the client printed nothing (did it fail?)")
        if not text:
            continue
        made = json.loads(text.splitlines()[-1])
        service = made["service"]
        report = programs.get(service)
        check(report is not None, f"{service}: no recording (have {sorted(programs)})")
        if report is None:
            continue
        host = "host-" + {"checkout": "1", "cart": "2", "payments": "3", "catalog": "4", "ledger": "5", "search": "7"}[service]
        check(f"host={host}" in report["agent"], f"{service}: agent {report['agent']!r} names no {host}")
        check(report["events_dropped"] == 0, f"{service}: {report['events_dropped']} events dropped")
        check(report["end"] == "goodbye", f"{service}: ended {report['end']}")
        # No false alarm: a steady service raises no alert (its busiest function once
        # "jumped 2 % to 69 %" as it started).
        check(not report.get("alerts"), f"{service}: alerts {[a['text'] for a in report.get('alerts', [])]}")
        # 5 s of requests and a 3 s delay: a host 40 s off would stretch its session's time.
        check(report["duration_ns"] < 20e9,
              f"{service}: {report['duration_ns'] / 1e9:.1f} s of program time (skew not corrected?)")
        calls = {m["name"]: m["calls"] for m in report["methods"]}
        for function, count in made["spans"].items():
            check(calls.get(function) == count,
                  f"{service}: {function} placed {calls.get(function)} times, made {count}")
        edges = {(e["caller"], e["callee"]): e["calls"] for e in report.get("call_edges", [])}
        for caller, callee in EDGES:
            check(edges.get((caller, callee)) == made["spans"].get(callee),
                  f"{service}: {caller} → {callee} {edges.get((caller, callee))} calls, "
                  f"{callee} made {made['spans'].get(callee)}")
        query = next((m for m in report["methods"] if m["name"] == "shop.db.Repository.query"), None)
        # About 22 ms on top in every ~60 ms request that queries (2 of 3): ~30 % at the peak (half
        # that for the 1.5 s runs, which fill half the 3 s window); loaded machines stretch it.
        check(query is not None and 7 <= query["max_elevation_pct"] <= 60,
              f"{service}: query's peak elevation {query and query['max_elevation_pct']}")
        print(f"{service}: {sum(made['spans'].values())} spans placed exactly, query peak "
              f"{query['max_elevation_pct'] if query else None} %, agent {report['agent']}")
    # Calls between services: the shop's reserves, each the parent of an inventory request.
    made_checkout = {}
    for made_path in args.made:
        with open(made_path) as f:
            lines = f.read().strip().splitlines()
        if lines and json.loads(lines[-1])["service"] == "checkout":
            made_checkout = json.loads(lines[-1])["spans"]
    reserves = made_checkout.get("shop.api.Inventory.reserve", 0)
    check(reserves > 0, "the shop made no call to the inventory")
    inventory = programs.get("inventory")
    check(inventory is not None and "host=host-6" in inventory["agent"],
          f"no inventory session from host-6 (have {sorted(programs)})")
    if inventory is not None:
        served = sum(m["calls"] for m in inventory["methods"] if "/reserve" in m["name"])
        check(served == reserves, f"inventory: {served} reserve requests placed, the shop made {reserves}")
    links_path = os.path.join(args.recordings, "links.json")
    check(os.path.exists(links_path), "no links.json beside the recordings")
    if os.path.exists(links_path):
        with open(links_path) as f:
            links = json.load(f)["links"]
        check(len(links) == 1, f"expected one call between services, got {links}")
        for link in links[:1]:
            check(link["caller"]["service"] == "checkout"
                  and link["caller"]["method"] == "shop.api.Inventory.reserve",
                  f"link's caller {link['caller']}")
            check(link["callee"]["service"] == "inventory" and "/reserve" in link["callee"]["method"],
                  f"link's callee {link['callee']}")
            check(link["calls"] == reserves, f"link: {link['calls']} calls, the shop made {reserves}")
            # The calls over time (what replays draw): each second once, ascending, adding up.
            seconds = [second for second, _ in link.get("calls_by_second", [])]
            check(seconds == sorted(set(seconds)) and len(seconds) >= 3,
                  f"link: calls_by_second seconds {seconds}")
            by_second = sum(calls for _, calls in link.get("calls_by_second", []))
            check(by_second == reserves, f"link: {by_second} calls by second, the shop made {reserves}")
            print(f"checkout → inventory: {link['calls']} calls between services across hosts, "
                  f"callee {link['callee']['method']}")
    with open(args.record_log) as f:
        log = f.read()
    check("refused" in log, "the recorder printed no OTLP counts")
    if failures:
        print("FAILED:\n  " + "\n  ".join(failures), file=sys.stderr)
        sys.exit(1)
    print("OTLP landscape: all checks passed")


if __name__ == "__main__":
    main()
