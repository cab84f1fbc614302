/// Where one process's CPU time went, by shared object, as `perf report --sort dso -n` counts
/// samples of the software CPU clock (`PerfRecording`): "libvpx.so.7", "[kernel.kallsyms]",
/// the executable's own name, and so on.
struct PerfProfile: Codable, Sendable {
    var recordCommand: String
    var reportCommand: String
    /// Samples a second of a thread's CPU time (`-F`).
    var frequency: Int
    var samplesByObject: [String: Int]
    var totalSamples: Int

    /// Reads `perf report -n -q --sort dso --stdio` output: one line per object, "  75.29%
    /// 512  libvpx.so.7". Blank lines are skipped; any other line is an error (the format moved).
    init(report: String, recordCommand: String, reportCommand: String, frequency: Int) throws(PerfError) {
        var samples: [String: Int] = [:]
        for line in report.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard !fields.isEmpty else { continue }
            guard fields.count >= 3, fields[0].hasSuffix("%"), Double(fields[0].dropLast()) != nil,
                  let count = Int(fields[1]), count >= 0 else {
                throw .unreadableReport(line: String(line))
            }
            samples[fields[2...].joined(separator: " "), default: 0] += count
        }
        let total = samples.values.reduce(0, +)
        guard total > 0 else { throw .noSamples(command: recordCommand) }
        self.recordCommand = recordCommand
        self.reportCommand = reportCommand
        self.frequency = frequency
        samplesByObject = samples
        totalSamples = total
    }
}
