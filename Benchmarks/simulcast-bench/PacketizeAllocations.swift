import CReference
import Foundation
import MediaEngine
import RTPWire
import SRTP

/// `simulcast-bench allocations`: counts heap allocations on the send hot path in steady state,
/// per packet, with glibc's `mtrace` (CONVENTIONS "count allocations on hot paths").
///
/// The command re-runs itself with `LD_PRELOAD=libc_malloc_debug.so.0` (since glibc 2.34 mtrace
/// only works with that library loaded from the start) and `MALLOC_TRACE=<file>`; the child warms
/// the path up, calls `mtrace()`, sends packets, calls `muntrace()`; the parent counts the
/// allocation records (`+` malloc, `>` realloc result) in the trace, split by the caller's
/// library: Debian's libsrtp2 is built on NSS, whose HMAC allocates inside every `srtp_protect`
/// (the C reference loop shows the same count), so those are reported apart from the engine's own.
enum AllocationCount {
    static let childVariable = "SIMULCAST_BENCH_ALLOCATION_CHILD"
    static let debugLibrary = "/lib/x86_64-linux-gnu/libc_malloc_debug.so.0"

    struct Window: Codable {
        var packets: Int
        /// Allocations whose caller is the engine (Swift code, Swift runtime, Foundation).
        var engineAllocations: Int
        /// Allocations inside libsrtp2 and its crypto backend (NSS/NSPR/freebl, OpenSSL).
        var cryptoLibraryAllocations: Int
    }

    struct Report: Codable {
        /// `RTPStreamSender.send` of 1100-byte payloads.
        var rtpSend: Window
        /// `VP8Packetizer.packetize` + `RTPStreamSender.send` of a 9000-byte frame.
        var vp8Frame: Window
        /// libsrtp's `srtp_protect` called directly from C on 1200-byte packets.
        var cSRTPProtect: Window
    }

    static func run(_ arguments: ArraySlice<String>) throws {
        if ProcessInfo.processInfo.environment[childVariable] != nil {
            try child()
            return
        }
        guard FileManager.default.fileExists(atPath: debugLibrary) else {
            throw ValidationError(message: "\(debugLibrary) not found (glibc's malloc debug library is needed for mtrace)")
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("alloc-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        process.arguments = ["allocations"]
        var environment = ProcessInfo.processInfo.environment
        environment["LD_PRELOAD"] = debugLibrary
        environment[childVariable] = directory.path
        process.environment = environment
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw ValidationError(message: "allocation child failed: \(output)") }
        let counts = output.split(separator: " ").compactMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        guard counts.count == 3 else { throw ValidationError(message: "unexpected child output: \(output)") }
        func window(_ index: Int) throws -> Window {
            let (engine, crypto) = try allocations(in: directory.appendingPathComponent("\(index).trace").path)
            return Window(packets: counts[index], engineAllocations: engine, cryptoLibraryAllocations: crypto)
        }
        let report = Report(rtpSend: try window(0), vp8Frame: try window(1), cSRTPProtect: try window(2))
        print("Steady-state heap allocations per packet (glibc mtrace), engine / inside libsrtp2 + crypto backend:")
        for (name, w) in [("RTPStreamSender.send (header + extensions, history, SRTP, transport)", report.rtpSend),
                          ("VP8Packetizer.packetize + send, 9 KB frames", report.vp8Frame),
                          ("C loop calling srtp_protect directly", report.cSRTPProtect)] {
            let engine = Double(w.engineAllocations) / Double(w.packets)
            let crypto = Double(w.cryptoLibraryAllocations) / Double(w.packets)
            print("  \(name): \(MarkdownTable.fmt(engine, 2)) / \(MarkdownTable.fmt(crypto, 2)) (\(w.packets) packets)")
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        print(String(decoding: try encoder.encode(report), as: UTF8.self))
    }

    static let cryptoLibraries = ["libsrtp2", "libnss", "libnspr", "libfreebl", "libsoftokn", "libcrypto", "libssl"]

    /// (engine, crypto library) allocation records in one trace file.
    private static func allocations(in path: String) throws -> (Int, Int) {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        var engine = 0, crypto = 0
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard fields.count >= 3, fields[2] == "+" || fields[2] == ">" else { continue }
            if cryptoLibraries.contains(where: { fields[1].contains($0) }) { crypto += 1 } else { engine += 1 }
        }
        return (engine, crypto)
    }

    private static func child() throws {
        guard let directory = ProcessInfo.processInfo.environment[childVariable] else {
            throw ValidationError(message: "\(childVariable) not set")
        }
        let startTrace = cref_mtrace_start
        let stopTrace = cref_mtrace_stop

        let key = (0..<30).map { UInt8(truncatingIfNeeded: $0 &* 3 &+ 1) }
        let path = try SendPath(transport: DiscardTransport(),
                                security: .srtp(local: try SRTPKeyingMaterial(keyAndSalt: key)), clock: .system)
        let sender = try RTPStreamSender(configuration: .init(ssrc: 1, payloadType: 96, clockRate: 90_000, mid: "0",
                                                              rid: "f", initialSequenceNumber: 1), path: path)
        let payload = [UInt8](repeating: 0x42, count: 1100)
        var frame = EncodedFrame(spatialIndex: 0, width: 1280, height: 720, temporalId: 0, layerSync: false,
                                 keyFrame: false, rtpTimestamp: 0, data: [UInt8](repeating: 0x10, count: 9000))
        frame.data[0] = 0x11
        var packetizer = VP8Packetizer(initialPictureID: 1, initialTL0PicIdx: 1)
        var failure: PublisherError?
        func sendFrame() throws {
            try packetizer.packetize(frame) { piece, isLast in
                do throws(PublisherError) { try sender.send(payload: piece, timestamp: frame.rtpTimestamp, marker: isLast) }
                catch { failure = error }
            }
            if let failure { throw failure }
        }
        // Warm up: fill the 512-slot history twice, grow every reused buffer.
        for index in 0..<1024 { try sender.send(payload: payload[...], timestamp: UInt32(index), marker: true) }
        for _ in 0..<64 { try sendFrame() }

        let packets = 2000
        setenv("MALLOC_TRACE", directory + "/0.trace", 1)
        startTrace()
        for index in 0..<packets { try sender.send(payload: payload[...], timestamp: UInt32(index), marker: true) }
        stopTrace()

        let before = sender.packetCount
        setenv("MALLOC_TRACE", directory + "/1.trace", 1)
        startTrace()
        for _ in 0..<200 { try sendFrame() }
        stopTrace()

        guard let reference = key.withUnsafeBufferPointer({ cref_srtp_create($0.baseAddress) }) else {
            throw ValidationError(message: "cref_srtp_create failed")
        }
        defer { cref_srtp_destroy(reference) }
        var packet = [UInt8](repeating: 0x33, count: 1200)
        packet[0] = 0x80; packet[1] = 96
        var scratch = [UInt8](repeating: 0, count: 1200 + SRTPSession.maxTrailerLength)
        let capacity = Int32(scratch.count)
        func cLoop(_ count: Int) -> Int32 {
            packet.withUnsafeBufferPointer { source in
                scratch.withUnsafeMutableBufferPointer { buffer in
                    cref_srtp_protect_loop(reference, source.baseAddress, 1200, buffer.baseAddress, capacity, Int32(count))
                }
            }
        }
        _ = cLoop(64)
        setenv("MALLOC_TRACE", directory + "/2.trace", 1)
        startTrace()
        let status = cLoop(packets)
        stopTrace()
        guard status == 0 else { throw ValidationError(message: "srtp_protect failed: \(status)") }
        print("\(packets) \(sender.packetCount - before) \(packets)")
    }
}
