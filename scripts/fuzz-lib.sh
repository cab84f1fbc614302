# Shared by scripts/fuzz.sh and scripts/fuzz-engine.sh (sourced): how one libFuzzer run is read
# and reported.

# record_fuzz_result NAME EXIT_CODE LOG [NOTE]: prints the target's executions and whether it
# found something (with the lines of the log that say what), appends the line to the caller's
# `summary` array and sets the caller's `status` to 1 on a finding.
record_fuzz_result() {
    local name=$1 rc=$2 log=$3 note=${4:-} execs
    execs=$(sed -n 's/^stat::number_of_executed_units: *\([0-9]*\).*/\1/p' "$log" | tail -n 1)
    execs=${execs:-unknown}
    if [ "$rc" -ne 0 ]; then
        echo "== $name: FINDING (exit $rc) after $execs executions; log $log" >&2
        grep -E 'ERROR|Fatal error|SUMMARY|Test unit written|artifact' "$log" | head -n 20 >&2 || true
        summary+=("$name: $execs executions, FINDING (exit $rc)")
        status=1
    else
        echo "== $name: $execs executions, no findings$note"
        summary+=("$name: $execs executions, no findings$note")
    fi
}
