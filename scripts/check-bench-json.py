#!/usr/bin/env python3
"""Checks a `simulcast-bench encode --json` result is complete: every configuration and ratio
is present and every number in it is finite and positive. No timing thresholds."""
import json
import math
import sys

CONFIGS = ["single", "max_layer_2", "max_layer_3", "max_layer_2_independent",
           "max_layer_3_independent", "c_reference_max_layer_3"]
RATIOS = ["max_layer_2_over_max_layer_3", "max_layer_3_over_single",
          "multi_res_over_independent_max_layer_3", "swift_over_c_reference_max_layer_3"]
LAYERS = {"single": 1, "max_layer_2": 2, "max_layer_3": 3, "max_layer_2_independent": 2,
          "max_layer_3_independent": 3, "c_reference_max_layer_3": 3}

failures = []


def positive(path, value):
    if not isinstance(value, (int, float)) or isinstance(value, bool) or not math.isfinite(value) or value <= 0:
        failures.append(f"{path} = {value!r} is not a finite positive number")


def main(path):
    report = json.load(open(path))
    for key in ["input", "frames", "repeat", "machine", "configs", "ratios"]:
        if key not in report:
            failures.append(f"missing {key}")
    positive("frames", report.get("frames"))
    positive("repeat", report.get("repeat"))
    positive("machine.cpus", report.get("machine", {}).get("cpus"))
    for name in CONFIGS:
        config = report.get("configs", {}).get(name)
        if config is None:
            failures.append(f"missing config {name}")
            continue
        for stat in ["cpuMsPerFrame", "wallMsPerFrame"]:
            for field in ["median", "p95", "min"]:
                positive(f"{name}.{stat}.{field}", config.get(stat, {}).get(field))
        positive(f"{name}.coreShareAt30fps", config.get("coreShareAt30fps"))
        layers = config.get("layers", [])
        if len(layers) != LAYERS[name]:
            failures.append(f"{name} has {len(layers)} layers, expected {LAYERS[name]}")
        for index, layer in enumerate(layers):
            for field in ["width", "height", "kbps", "psnr"]:
                positive(f"{name}.layers[{index}].{field}", layer.get(field))
    for name in RATIOS:
        ratio = report.get("ratios", {}).get(name)
        if ratio is None:
            failures.append(f"missing ratio {name}")
            continue
        for field in ["median", "min", "max"]:
            positive(f"ratios.{name}.{field}", ratio.get(field))
    checks = 1
    for failure in failures:
        print("bench-json:", failure)
    print(f"bench smoke: {checks - (1 if failures else 0)} passed, {1 if failures else 0} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
