import Glibc

/// CPU time consumed by the calling thread (`clock_gettime(CLOCK_THREAD_CPUTIME_ID)`), in ns.
/// libvpx runs with `g_threads = 1` on the calling thread, so around an encode call this is the
/// encode's cost, whatever else the machine runs. Used by `EncoderAdvisor` and the benchmark.
public enum ThreadCPUClock {
    @inline(__always) public static func nanoseconds() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
        return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
    }
}
