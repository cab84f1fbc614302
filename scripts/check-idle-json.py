#!/usr/bin/env python3
"""Checks a `simulcast-bench idle --json` result: every scenario asked for was measured (finite,
non-negative wake-ups a second, preemptions and CPU %, a window as long as asked, threads read
with their names), the process that only sleeps is near zero, and a scenario with an engine has
more threads than the sleeping process (the engine's own was seen). Issue 27's goal is NOT
checked here: this shows the figures are measured, not that the engine meets it.
usage: check-idle-json.py REPORT.json SCENARIO,..."""
import json
import sys

from bench_json import finite

# A process that only sleeps: measured 0-1 wake-ups a second in all on this machine; a parser
# that read the wrong field (or a window of the wrong length) gives far more.
SLEEP_MAX_WAKEUPS_PER_SECOND = 5.0
SLEEP_MAX_CPU_PERCENT = 1.0


def main(path, names):
    failures = []
    with open(path) as f:
        report = json.load(f)
    if report.get("benchmark") != "idle":
        failures.append("benchmark is not 'idle'")
    seconds = report.get("seconds")
    if not finite(seconds, minimum_exclusive=0):
        failures.append(f"seconds = {seconds!r}")
    for field in ["measuredAt", "hostname", "kernel"]:
        if not report.get(field):
            failures.append(f"{field} is missing")
    scenarios = {s.get("name"): s.get("measurement", {}) for s in report.get("scenarios", [])}
    for name in names:
        m = scenarios.get(name)
        if m is None:
            failures.append(f"scenario {name} is missing")
            continue
        for field in ["wakeupsPerSecond", "preemptionsPerSecond", "cpuPercentOfOneCore"]:
            if not finite(m.get(field), minimum=0):
                failures.append(f"{name}: {field} = {m.get(field)!r}")
        if finite(seconds) and not (finite(m.get("seconds")) and abs(m["seconds"] - seconds) <= 0.1 * seconds + 0.2):
            failures.append(f"{name}: window of {m.get('seconds')!r} s, asked for {seconds} s")
        threads = m.get("threads", [])
        if not threads or not all(t.get("name") and finite(t.get("wakeupsPerSecond"), minimum=0) for t in threads):
            failures.append(f"{name}: threads not read: {threads!r}")
        elif abs(sum(t["wakeupsPerSecond"] for t in threads) - m.get("wakeupsPerSecond", -1)) > 1e-6:
            failures.append(f"{name}: the threads' wake-ups do not add up to wakeupsPerSecond")
    sleep = scenarios.get("sleep")
    if "sleep" in names and sleep:
        if not finite(sleep.get("wakeupsPerSecond"), minimum=0) or sleep["wakeupsPerSecond"] > SLEEP_MAX_WAKEUPS_PER_SECOND:
            failures.append(f"sleep: {sleep.get('wakeupsPerSecond')!r} wake-ups/s, over {SLEEP_MAX_WAKEUPS_PER_SECOND}")
        if not finite(sleep.get("cpuPercentOfOneCore"), minimum=0) or sleep["cpuPercentOfOneCore"] > SLEEP_MAX_CPU_PERCENT:
            failures.append(f"sleep: CPU {sleep.get('cpuPercentOfOneCore')!r} %, over {SLEEP_MAX_CPU_PERCENT}")
        for name in names:
            m = scenarios.get(name)
            if name != "sleep" and m and not m.get("threadsAtEnd", 0) > sleep.get("threadsAtEnd", 0):
                failures.append(f"{name}: {m.get('threadsAtEnd')!r} threads, the sleeping process had "
                                f"{sleep.get('threadsAtEnd')!r}: the engine's thread was not seen")
    for failure in failures:
        print(f"check-idle-json: {failure}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        print(__doc__.splitlines()[-1], file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1], sys.argv[2].split(",")))
