import AllocationCounter

/// One operation of the wire benchmark: `iterate()` does one unit of work (one packet, or one
/// frame) on state set up beforehand, and folds something of the result into `checksum` so the
/// optimizer cannot drop the work.
protocol WireOperation {
    mutating func iterate() throws
    var checksum: Int { get }
}

/// One row of the wire report.
struct WireResult: Sendable {
    /// Stable identifier, e.g. `rtp_parse`.
    var name: String
    /// What one op is, in words.
    var detail: String
    /// What one op processes: `packet` or `frame`.
    var unit: String
    /// Iterations per timed run (each iteration is `opsPerIteration` ops).
    var iterations: Int
    var opsPerIteration: Int
    var runs: Int
    /// Nanoseconds per op, one sample per timed run.
    var nsPerOp: Distribution
    /// Allocations over every timed run / ops in them (steady state: measured after a warm-up run).
    var allocationsPerOp: Double
    var freesPerOp: Double
    var allocatedBytesPerOp: Double
    /// The raw per-run samples behind `nsPerOp`.
    var nsSamples: [Double]
    /// Thread CPU nanoseconds per op (`CLOCK_THREAD_CPUTIME_ID`), one sample per timed run: what
    /// a comparison on a shared machine uses (time the thread spent preempted is not in it).
    var cpuNsSamples: [Double] = []

    /// The same measurement expressed per sub-unit (e.g. per packet of a frame).
    func divided(by count: Int, name: String, detail: String, unit: String) -> WireResult {
        let scale = 1 / Double(count)
        var result = self
        result.name = name
        result.detail = detail
        result.unit = unit
        result.opsPerIteration = opsPerIteration * count
        result.nsPerOp = Distribution(nsSamples.map { $0 * scale })
        result.allocationsPerOp = allocationsPerOp * scale
        result.freesPerOp = freesPerOp * scale
        result.allocatedBytesPerOp = allocatedBytesPerOp * scale
        result.nsSamples = nsSamples.map { $0 * scale }
        result.cpuNsSamples = cpuNsSamples.map { $0 * scale }
        return result
    }
}

/// Where the checksums of every operation end up, so no measured work is dead code.
nonisolated(unsafe) var wireChecksumSink = 0
/// Holds the self-check's array so the optimizer must really allocate it.
nonisolated(unsafe) var wireAllocationSink: [Int] = []

/// Runs `operation` for one untimed warm-up run, then `runs` timed runs of `iterations` each, timing
/// every run with CLOCK_MONOTONIC and counting heap allocations over all timed runs.
func measureWire<Operation: WireOperation>(
    _ operation: inout Operation, name: String, detail: String, unit: String, iterations: Int,
    opsPerIteration: Int = 1, runs: Int
) throws -> WireResult {
    for _ in 0..<iterations { try operation.iterate() }  // warm-up: buffers and tables reach size
    var samples: [Double] = []
    samples.reserveCapacity(runs)
    var cpuSamples: [Double] = []
    cpuSamples.reserveCapacity(runs)
    var allocations: Int64 = 0, frees: Int64 = 0, bytes: Int64 = 0
    for _ in 0..<runs {
        alloc_counter_reset()
        let cpuStart = threadCPUNanoseconds()
        let start = wallNanoseconds()
        for _ in 0..<iterations { try operation.iterate() }
        let elapsed = wallNanoseconds() - start
        let cpuElapsed = threadCPUNanoseconds() - cpuStart
        // Read the counters before anything here can allocate.
        allocations += alloc_counter_get()
        frees += alloc_counter_frees()
        bytes += alloc_counter_bytes()
        samples.append(Double(elapsed) / Double(iterations * opsPerIteration))
        cpuSamples.append(Double(cpuElapsed) / Double(iterations * opsPerIteration))
    }
    wireChecksumSink &+= operation.checksum
    let ops = Double(iterations * opsPerIteration * runs)
    return WireResult(name: name, detail: detail, unit: unit, iterations: iterations,
                      opsPerIteration: opsPerIteration, runs: runs, nsPerOp: Distribution(samples),
                      allocationsPerOp: Double(allocations) / ops, freesPerOp: Double(frees) / ops,
                      allocatedBytesPerOp: Double(bytes) / ops, nsSamples: samples, cpuNsSamples: cpuSamples)
}

/// Proves the interposed allocator is live: a fresh `[Int](repeating:count:)` must count ≥ 1.
func allocationCounterSelfCheck(count: Int) -> Int64 {
    alloc_counter_reset()
    let array = [Int](repeating: 7, count: count)
    let allocations = alloc_counter_get()
    wireAllocationSink = array
    wireAllocationSink = []
    return allocations
}
