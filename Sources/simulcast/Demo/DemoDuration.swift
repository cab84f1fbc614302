/// A demo length or moment in seconds as monotonic-clock microseconds, saturating at
/// `Int64.max`: any positive finite `--seconds` is accepted, and a call of 10^300 s simply never
/// ends instead of trapping on the conversion.
func microseconds(seconds: Double) -> Int64 {
    let value = seconds * 1_000_000
    guard value.isFinite, value < 9.2e18 else { return value > 0 ? .max : 0 }
    return value > 0 ? Int64(value) : 0
}
