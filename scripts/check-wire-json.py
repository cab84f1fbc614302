#!/usr/bin/env python3
"""Checks a `simulcast-bench wire --json` result is complete: every operation is present with a
finite positive ns/op (median, min) and a finite non-negative allocations/op, and the allocation
counter self-check counted. No timing or allocation thresholds (debug builds allocate more)."""
import sys

from bench_json import finite, load_report

OPERATIONS = ["rtp_parse", "rtp_view_parse", "rtp_view_parse_4ext", "rtp_serialize", "vp8_packetize_frame", "vp8_packetize_packet",
              "vp8_assemble_frame", "vp8_assemble_packet"]


def main(path):
    failures = []
    report = load_report(path, "wire", failures)
    operations = {op.get("name"): op for op in report.get("operations", [])}
    for name in OPERATIONS:
        op = operations.get(name)
        if op is None:
            failures.append(f"missing operation {name}")
            continue
        for field in ["median", "min"]:
            value = op.get("nsPerOp", {}).get(field)
            if not finite(value, minimum_exclusive=0):
                failures.append(f"{name}.nsPerOp.{field} = {value!r} is not a finite positive number")
        value = op.get("allocationsPerOp")
        if not finite(value, minimum=0):
            failures.append(f"{name}.allocationsPerOp = {value!r} is not a finite non-negative number")
    if failures:
        print(f"{path}: " + "; ".join(failures), file=sys.stderr)
        return 1
    print(f"{path}: {len(OPERATIONS)} wire operations OK")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "out/wire-smoke.json"))
