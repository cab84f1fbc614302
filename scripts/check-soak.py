#!/usr/bin/env python3
"""Checks a `simulcast soak --json` report: resident memory stays flat after the warm-up (the
largest sample after it exceeds the first one by at most --max-growth-kib) and every viewer
decoded most of what was pushed. Prints the RSS curve."""
import argparse
import json
import sys

parser = argparse.ArgumentParser()
parser.add_argument("report")
parser.add_argument("--warmup", type=float, default=15.0, help="seconds before the baseline sample")
parser.add_argument("--max-growth-kib", type=int, default=2048)
args = parser.parse_args()

with open(args.report) as f:
    report = json.load(f)
samples = report["samples"]
print("soak RSS curve (s: KiB): " + ", ".join(f"{s['atSeconds']:g}: {s['rssKiB']}" for s in samples))
after = [s for s in samples if s["atSeconds"] >= args.warmup]
if len(after) < 2:
    sys.exit(f"check-soak: fewer than two samples after the {args.warmup:g} s warm-up")
growth = max(s["rssKiB"] for s in after) - after[0]["rssKiB"]
print(f"check-soak: growth after warm-up {growth} KiB (limit {args.max_growth_kib} KiB)")
failures = []
if growth > args.max_growth_kib:
    failures.append(f"RSS grew {growth} KiB after the warm-up")
pushed = report["framesEncoded"]
decoded = report["framesDecoded"]
if len(decoded) != report["subscribers"]:
    failures.append(f"{len(decoded)} of {report['subscribers']} viewers decoded anything")
for viewer, frames in sorted(decoded.items()):
    if frames < 0.9 * pushed:
        failures.append(f"{viewer} decoded {frames} of {pushed} frames")
if failures:
    sys.exit("check-soak: " + "; ".join(failures))
print("check-soak: passed")
