internal import CShims
import Foundation
import MediaCodecs

/// Deterministic cost: instructions executed per frame, counted by valgrind's callgrind.
///
/// Why callgrind: this machine is a VM without a hardware PMU (`perf stat -e instructions` says
/// "not supported", `perf_event_open(PERF_COUNT_HW_INSTRUCTIONS)` fails with ENOENT), so the
/// counter cannot be read in-process next to the thread CPU time. Instead the timed process
/// starts one child per clip under `valgrind --tool=callgrind --instr-atstart=no
/// --collect-atstart=no`: the child generates the frames uninstrumented, then for each
/// configuration (in the same seeded order as the timed run) collects only around each
/// `EncodePipeline.encode` call (`CALLGRIND_TOGGLE_COLLECT`) and ends the configuration with
/// `CALLGRIND_DUMP_STATS_AT(name)`; the parent reads one dump file per configuration.
/// Frame 0 (the key frame) is not counted: the counts are the steady state.
enum CallgrindCounter {
    /// The subcommand the parent runs under valgrind.
    static let subcommand = "encode-instructions"

    struct Failed: Error, CustomStringConvertible {
        var description: String
    }

    /// Instructions per counted frame of each configuration in `names`, for each of `inputs`
    /// (one valgrind child per clip, all at once: the counts do not depend on what else runs).
    static func count(inputs: [EncodeInput], frames: Int, size: (width: Int, height: Int), names: [String],
                      seed: UInt64) throws -> [[String: Double]] {
        guard frames >= 2 else { throw Failed(description: "--instruction-frames must be at least 2 (frame 0 is not counted)") }
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("simulcast-bench-callgrind-\(getpid())")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        let executable = try strippedCopyOfSelf(in: root)
        var children: [(directory: URL, child: Child)] = []
        for (index, input) in inputs.enumerated() {
            let directory = root.appendingPathComponent("clip\(index)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            children.append((directory, try Child(
                ["valgrind", "--tool=callgrind", "--instr-atstart=no", "--collect-atstart=no",
                 "--callgrind-out-file=\(directory.path)/callgrind.out",
                 executable, subcommand, "--input", input.argument,
                 "--frames", "\(frames)", "--size", "\(size.width)x\(size.height)",
                 "--only", names.joined(separator: ","), "--seed", "\(seed)"],
                log: directory.appendingPathComponent("valgrind.log"))))
        }
        var results: [[String: Double]] = []
        for (directory, child) in children {
            try child.wait()
            var counts: [String: Double] = [:]
            for file in try FileManager.default.contentsOfDirectory(atPath: directory.path) where file.hasPrefix("callgrind.out") {
                let text = try String(contentsOf: directory.appendingPathComponent(file), encoding: .utf8)
                guard let (label, instructions) = parseDump(text), names.contains(label) else { continue }
                counts[label] = Double(instructions) / Double(frames - 1)
            }
            for name in names where counts[name] == nil {
                throw Failed(description: "callgrind wrote no dump for \(name)")
            }
            results.append(counts)
        }
        return results
    }

    /// The label of a `CALLGRIND_DUMP_STATS_AT` dump and its total instruction count.
    static func parseDump(_ text: String) -> (String, Int)? {
        var label: String?
        var total: Int?
        for line in text.split(separator: "\n") {
            if line.hasPrefix("desc: Trigger: Client Request: ") {
                label = String(line.dropFirst("desc: Trigger: Client Request: ".count))
            } else if line.hasPrefix("summary: ") || line.hasPrefix("totals: ") {
                total = Int(line.split(separator: " ")[1])
            }
        }
        guard let label, let total else { return nil }
        return (label, total)
    }

    /// Child side, inside valgrind: encode every frame with each configuration, counting only
    /// the encode calls of frames 1... .
    static func measure(_ configurations: [EncodeBenchmark.Configuration], frames: [VideoFrame]) throws {
        guard cshim_running_on_valgrind() != 0 else {
            throw Failed(description: "\(subcommand) only makes sense under valgrind --tool=callgrind")
        }
        cshim_callgrind_start_instrumentation()
        for configuration in configurations {
            let pipeline = try configuration.make(configuration.plan)
            for (index, frame) in frames.enumerated() {
                if index > 0 { cshim_callgrind_toggle_collect() }
                _ = try pipeline.encode(frame)
                if index > 0 { cshim_callgrind_toggle_collect() }
            }
            cshim_callgrind_dump_stats_at(configuration.name)
        }
    }

    /// valgrind 3.19 cannot read the Swift toolchain's debug info ("Possibly corrupted debuginfo
    /// file ... Giving up"): it runs a copy of this executable without it (symbol names stay).
    private static func strippedCopyOfSelf(in directory: URL) throws -> String {
        let copy = directory.appendingPathComponent("simulcast-bench").path
        try FileManager.default.copyItem(atPath: try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"),
                                         toPath: copy)
        try Child(["strip", "--strip-debug", copy], log: directory.appendingPathComponent("strip.log")).wait()
        return copy
    }

    /// A program found on PATH, running with its output going into `log`.
    private final class Child {
        let process = Process()
        let arguments: [String]
        let log: URL
        let handle: FileHandle

        init(_ arguments: [String], log: URL) throws {
            self.arguments = arguments
            self.log = log
            _ = FileManager.default.createFile(atPath: log.path, contents: nil)
            handle = try FileHandle(forWritingTo: log)
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = arguments
            process.standardOutput = handle
            process.standardError = handle
            try process.run()
        }

        /// Waits for the exit; a non-zero exit is an error quoting the log.
        func wait() throws {
            process.waitUntilExit()
            try? handle.close()
            guard process.terminationStatus == 0 else {
                let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
                throw Failed(description: "\(arguments[0]) exited with \(process.terminationStatus) "
                    + "(valgrind and strip come from `make bench`'s scripts/install-bench-deps.sh):\n\(text.suffix(2000))")
            }
        }
    }
}
