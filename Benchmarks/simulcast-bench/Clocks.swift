import Glibc
import MediaCodecs

/// CPU time consumed by the calling thread, in ns (`ThreadCPUClock`, shared with `EncoderAdvisor`).
@inline(__always) func threadCPUNanoseconds() -> Int64 { ThreadCPUClock.nanoseconds() }

/// Monotonic wall-clock time (`CLOCK_MONOTONIC`), in ns.
@inline(__always) func wallNanoseconds() -> Int64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
}
