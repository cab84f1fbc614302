#!/usr/bin/env python3
"""Checks a `simulcast-bench encode --json` result is complete: every configuration and ratio
is present and every number in it is finite and positive, for the first clip (top level) and
every clip in `otherInputs`; instruction counts and ratios too when they were counted
(`--instructions callgrind`); the SFrame seal+open cost (issue 16) of the configurations that
measure the stages after the encoder. `--clips N` requires N clips (default 2: the built-in scene and the
generated noisy clip). No timing thresholds."""
import json
import math
import sys

CONFIGS = ["single", "max_layer_2", "max_layer_3", "max_layer_2_independent",
           "max_layer_3_independent", "c_reference_max_layer_3"]
RATIOS = ["max_layer_2_over_max_layer_3", "max_layer_3_over_single",
          "multi_res_over_independent_max_layer_3", "swift_over_c_reference_max_layer_3"]
# Configurations whose encoded layers also go through packetize+protect and SFrame seal+open.
AFTER_ENCODER = ["single", "max_layer_2", "max_layer_3"]
LAYERS = {"single": 1, "max_layer_2": 2, "max_layer_3": 3, "max_layer_2_independent": 2,
          "max_layer_3_independent": 3, "c_reference_max_layer_3": 3}

failures = []


def positive(path, value):
    if not isinstance(value, (int, float)) or isinstance(value, bool) or not math.isfinite(value) or value <= 0:
        failures.append(f"{path} = {value!r} is not a finite positive number")


def check_clip(report, prefix):
    for key in ["input", "frames", "repeat", "machine", "configs", "ratios"]:
        if key not in report:
            failures.append(f"{prefix}missing {key}")
    positive(f"{prefix}frames", report.get("frames"))
    positive(f"{prefix}repeat", report.get("repeat"))
    positive(f"{prefix}machine.cpus", report.get("machine", {}).get("cpus"))
    counted = report.get("instructionRatios") is not None
    for name in CONFIGS:
        config = report.get("configs", {}).get(name)
        if config is None:
            failures.append(f"{prefix}missing config {name}")
            continue
        if counted:
            positive(f"{prefix}{name}.instructionsPerFrame", config.get("instructionsPerFrame"))
        for stat in ["cpuMsPerFrame", "wallMsPerFrame"]:
            for field in ["median", "p95", "min"]:
                positive(f"{prefix}{name}.{stat}.{field}", config.get(stat, {}).get(field))
        positive(f"{prefix}{name}.coreShareAt30fps", config.get("coreShareAt30fps"))
        if name in AFTER_ENCODER:
            positive(f"{prefix}{name}.e2eeMsPerFrame.median", config.get("e2eeMsPerFrame", {}).get("median"))
            positive(f"{prefix}{name}.e2eeShareOfEncode", config.get("e2eeShareOfEncode"))
        layers = config.get("layers", [])
        if len(layers) != LAYERS[name]:
            failures.append(f"{prefix}{name} has {len(layers)} layers, expected {LAYERS[name]}")
        for index, layer in enumerate(layers):
            for field in ["width", "height", "kbps", "psnr"]:
                positive(f"{prefix}{name}.layers[{index}].{field}", layer.get(field))
    for name in RATIOS:
        ratio = report.get("ratios", {}).get(name)
        if ratio is None:
            failures.append(f"{prefix}missing ratio {name}")
            continue
        for field in ["median", "min", "max"]:
            positive(f"{prefix}ratios.{name}.{field}", ratio.get(field))
        if counted:
            positive(f"{prefix}instructionRatios.{name}", report["instructionRatios"].get(name))


def main(path, clips):
    report = json.load(open(path))
    reports = [report] + report.get("otherInputs", [])
    if len(reports) != clips:
        failures.append(f"{len(reports)} clips, expected {clips}")
    for index, clip in enumerate(reports):
        check_clip(clip, f"clip {index + 1}: ")
    checks = 1
    for failure in failures:
        print("bench-json:", failure)
    print(f"bench smoke: {checks - (1 if failures else 0)} passed, {1 if failures else 0} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    args = sys.argv[1:]
    clips = 2
    if "--clips" in args:
        at = args.index("--clips")
        clips = int(args[at + 1])
        del args[at:at + 2]
    sys.exit(main(args[0], clips))
