#!/usr/bin/env python3
"""Checks a `simulcast-bench forward --json` result: runs for 1, 8 and 64 subscribers, each with
a finite positive CPU ns per forwarded packet, packets forwarded to every subscriber, nothing that
failed to send or to unprotect at the receivers, and, for 8 subscribers, no heap allocation per
forwarded packet beyond libsrtp's own (the hot-path rule of ARCHITECTURE.md). No timing threshold."""
import sys

from bench_json import finite, load_report

COUNTS = [1, 8, 64]
ZERO_OVER_BASELINE = [8]


def main(path):
    failures = []
    report = load_report(path, "forward", failures)
    baseline = report.get("libsrtpBaseline", {})
    for field in ["allocationsPerProtect", "allocationsPerUnprotect"]:
        if not finite(baseline.get(field), minimum=0):
            failures.append(f"libsrtpBaseline.{field} = {baseline.get(field)!r} is not a finite non-negative number")
    runs = {run.get("subscribers"): run for run in report.get("runs", [])}
    for count in COUNTS:
        run = runs.get(count)
        if run is None:
            failures.append(f"no run with {count} subscribers")
            continue
        ns = run.get("cpuNsPerForwardedPacket", {}).get("median")
        if not finite(ns, minimum_exclusive=0):
            failures.append(f"{count} subscribers: cpuNsPerForwardedPacket.median = {ns!r}")
        if not finite(run.get("forwardedPackets"), minimum=count):
            failures.append(f"{count} subscribers: forwardedPackets = {run.get('forwardedPackets')!r}")
        if sum(run.get("subscribersPerLayer", [])) != count:
            failures.append(f"{count} subscribers: subscribersPerLayer {run.get('subscribersPerLayer')!r} "
                            "does not place every subscriber on a layer")
        for field in ["sendFailures", "receivedUnprotectFailures"]:
            if run.get(field) != 0:
                failures.append(f"{count} subscribers: {field} = {run.get(field)!r}")
        over = run.get("allocationsPerForwardedPacketOverBaseline")
        if not finite(over):
            failures.append(f"{count} subscribers: allocationsPerForwardedPacketOverBaseline = {over!r}")
        elif count in ZERO_OVER_BASELINE and abs(over) > 1e-9:
            failures.append(f"{count} subscribers: {over:.3f} heap allocations per forwarded packet over libsrtp's own "
                            "(expected 0)")
    if failures:
        print(f"{path}: " + "; ".join(failures), file=sys.stderr)
        return 1
    summary = ", ".join(f"{c}: {runs[c]['allocationsPerForwardedPacketOverBaseline']:.3f}" for c in COUNTS)
    print(f"{path}: forward runs for {COUNTS} subscribers OK (allocations per forwarded packet over libsrtp's: {summary})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "out/forward-smoke.json"))
