#!/usr/bin/env python3
"""Compares the deterministic (instruction-count) ratios of two `simulcast-bench encode
--instructions callgrind --json` results, clip by clip, and the timed ratios for contrast.
Exit 1 if any instruction ratio differs by more than --tolerance (default 0.01 = 1 %).
Usage: scripts/compare-bench-ratios.py A.json B.json [--tolerance 0.01]"""
import json
import sys


def clips(path):
    report = json.load(open(path))
    return [report] + report.get("otherInputs", [])


def main(args):
    tolerance = 0.01
    if "--tolerance" in args:
        at = args.index("--tolerance")
        tolerance = float(args[at + 1])
        del args[at:at + 2]
    a, b = clips(args[0]), clips(args[1])
    worst = 0.0
    failures = 0
    print("| clip | ratio | instructions A | instructions B | difference | timed median A | timed median B |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for clip_a, clip_b in zip(a, b):
        ia, ib = clip_a.get("instructionRatios") or {}, clip_b.get("instructionRatios") or {}
        if not ia or not ib:
            print(f"compare-bench-ratios: {clip_a['input']}: no instruction ratios (run with --instructions callgrind)")
            failures += 1
            continue
        for name in sorted(ia):
            if name not in ib:
                failures += 1
                continue
            difference = abs(ia[name] / ib[name] - 1)
            worst = max(worst, difference)
            if difference > tolerance:
                failures += 1
            ta = clip_a["ratios"].get(name, {}).get("median", float("nan"))
            tb = clip_b["ratios"].get(name, {}).get("median", float("nan"))
            print(f"| {clip_a['input']} | {name} | {ia[name]:.5f} | {ib[name]:.5f} | {difference * 100:.4f}% | {ta:.3f} | {tb:.3f} |")
    print(f"\nlargest instruction-ratio difference: {worst * 100:.4f}% (tolerance {tolerance * 100:g}%); "
          + ("PASS" if failures == 0 else f"FAIL ({failures})"))
    return 0 if failures == 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
