"""What the bench JSON checkers share: reading a report and testing its numbers."""
import json
import math


def finite(value, minimum_exclusive=None, minimum=None):
    """Whether `value` is a finite number (not a bool) above `minimum_exclusive` / at least `minimum`."""
    if not isinstance(value, (int, float)) or isinstance(value, bool) or not math.isfinite(value):
        return False
    if minimum_exclusive is not None and value <= minimum_exclusive:
        return False
    return minimum is None or value >= minimum


def load_report(path, benchmark, failures):
    """The report at `path`; notes in `failures` when it is not from `benchmark` or its
    allocation counter did not count."""
    with open(path) as f:
        report = json.load(f)
    if report.get("benchmark") != benchmark:
        failures.append(f"benchmark is not '{benchmark}'")
    if not finite(report.get("allocationCounterSelfCheck"), minimum=1):
        failures.append("allocation counter self-check did not count an allocation")
    return report
