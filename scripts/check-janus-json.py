#!/usr/bin/env python3
"""Checks a janus_viewer.py result against the issue-8 acceptance criteria and prints a summary.

  scripts/check-janus-json.py three-layers RESULT.json [--max-switch-ms 500]
      frames decoded at 320x180, 640x360 and 1280x720 (>= --min-frames each), every non-initial
      substream switch seen within --max-switch-ms, zero decode errors, and, when the run asked for
      temporal 0 and then 2: fps(temporal 0) / fps(temporal 2) within [0.15, 0.40] (about a quarter).
  scripts/check-janus-json.py fallback RESULT.json [--max-gap-ms 1500]
      a run where a requested substream does not exist (e.g. --max-layer 2 publisher, substream 2
      asked for): frames keep coming (largest gap <= --max-gap-ms), zero decode errors, and every
      switch to an existing layer completed.
Exit status 0 when the checks pass, 1 otherwise.
"""
import argparse
import json
import sys


def main():
    p = argparse.ArgumentParser()
    p.add_argument("mode", choices=["three-layers", "fallback"])
    p.add_argument("result")
    p.add_argument("--max-switch-ms", type=float, default=500.0)
    p.add_argument("--max-gap-ms", type=float, default=1500.0)
    p.add_argument("--min-frames", type=int, default=20)
    args = p.parse_args()
    try:
        with open(args.result) as f:
            r = json.load(f)
    except (OSError, ValueError) as e:
        r = {"error": f"no viewer result: {e}"}
    problems = []
    if "error" in r:
        problems.append(r["error"])
    if r.get("decode_errors", 0):
        problems.append(f"{r['decode_errors']} decode errors")
    by_res = r.get("frames_by_resolution", {})
    switches = r.get("switches", [])
    if args.mode == "three-layers":
        for res in ("320x180", "640x360", "1280x720"):
            if by_res.get(res, 0) < args.min_frames:
                problems.append(f"only {by_res.get(res, 0)} frames at {res}")
        for s in switches:
            if s.get("initial"):
                continue
            if s.get("latency_ms") is None:
                problems.append(f"switch to substream {s['substream']} never showed {s['expected']}")
            elif s["latency_ms"] > args.max_switch_ms:
                problems.append(f"switch to substream {s['substream']} took {s['latency_ms']} ms")
        fps = r.get("fps_by_temporal", {})
        if "0" in fps and "2" in fps:
            ratio = fps["0"] / fps["2"] if fps["2"] else 0.0
            if not 0.15 <= ratio <= 0.40:
                problems.append(f"temporal 0 gives {fps['0']} fps vs {fps['2']} at temporal 2 (ratio {ratio:.2f})")
    else:
        if r.get("frames_total", 0) == 0:
            problems.append("no frames")
        if r.get("max_frame_gap_ms", 1e9) > args.max_gap_ms:
            problems.append(f"frames stopped for {r.get('max_frame_gap_ms')} ms")
        for s in switches:
            if s.get("expected") in by_res and s.get("latency_ms") is None:
                problems.append(f"switch to existing substream {s['substream']} never completed")
    summary = {
        "mode": args.mode,
        "ok": not problems,
        "problems": problems,
        "frames_by_resolution": by_res,
        "switch_latency_ms": [(s["substream"], s.get("latency_ms")) for s in switches],
        "fps_by_temporal": r.get("fps_by_temporal"),
        "max_frame_gap_ms": r.get("max_frame_gap_ms"),
        "decode_errors": r.get("decode_errors"),
    }
    print(json.dumps(summary))
    return 0 if not problems else 1


if __name__ == "__main__":
    sys.exit(main())
