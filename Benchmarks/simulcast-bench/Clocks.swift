import Glibc

/// CPU time consumed by the calling thread (`clock_gettime(CLOCK_THREAD_CPUTIME_ID)`), in ns.
/// The encoder runs with `g_threads = 1` on the calling thread, so this is the encode cost.
@inline(__always) func threadCPUNanoseconds() -> Int64 {
    var ts = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
    return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
}

/// Monotonic wall-clock time (`CLOCK_MONOTONIC`), in ns.
@inline(__always) func wallNanoseconds() -> Int64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
}
