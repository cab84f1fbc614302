/// A demo length or moment in seconds as monotonic-clock microseconds, saturating at
/// `Int64.max`: any positive finite `--seconds` is accepted, and a call of 10^300 s simply never
/// ends instead of trapping on the conversion.
func microseconds(seconds: Double) -> Int64 {
    let value = seconds * 1_000_000
    guard value.isFinite, value < 9.2e18 else { return value > 0 ? .max : 0 }
    return value > 0 ? Int64(value) : 0
}

/// A default throttle window's edge, `seconds` × `share` of the call, to a tenth of a second:
/// a 6 s call is throttled from 1.2 s, not from 1.2000000000000002 s (in the header and the JSON).
func throttleMoment(seconds: Double, share: Double) -> Double {
    (seconds * share * 10).rounded() / 10
}

/// Seconds as a person writes them: `3`, `1.2`, `2.5` (no `3.0`, no binary noise).
func secondsText(_ seconds: Double) -> String {
    String(format: "%g", seconds)
}
