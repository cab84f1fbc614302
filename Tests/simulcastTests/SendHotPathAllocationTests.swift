import Foundation
import Testing

/// The send hot path allocates nothing per packet in steady state (ARCHITECTURE "Rules of the
/// house"): `simulcast-bench allocations` counts heap allocations with glibc mtrace, split into
/// the engine's own and those inside libsrtp2's crypto backend (Debian builds libsrtp2 on NSS,
/// whose HMAC allocates in every srtp_protect — the C reference loop shows the same count).
@Suite struct SendHotPathAllocationTests {
    struct Window: Decodable {
        var packets: Int
        var engineAllocations: Int
        var cryptoLibraryAllocations: Int
    }

    struct Report: Decodable {
        var rtpSend: Window
        var vp8Frame: Window
        var cSRTPProtect: Window
    }

    @Test func packetizeAndSendAllocateNothingPerPacket() throws {
        // The bench executable is built next to the test bundle by `swift build --build-tests`.
        let testBinary = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        let bench = testBinary.deletingLastPathComponent().appendingPathComponent("simulcast-bench")
        let candidates = [bench, testBinary.deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("simulcast-bench")]
        guard let executable = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0.path) }) else {
            Issue.record("simulcast-bench not found next to \(testBinary.path): run `swift build --build-tests` first")
            return
        }
        let process = Process()
        process.executableURL = executable
        process.arguments = ["allocations"]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(output)")
        let json = try #require(output.split(separator: "\n").last { $0.hasPrefix("{") }, "\(output)")
        let report = try JSONDecoder().decode(Report.self, from: Data(json.utf8))
        #expect(report.rtpSend.packets > 0 && report.vp8Frame.packets > 0)
        #expect(report.rtpSend.engineAllocations == 0, "\(output)")
        #expect(report.vp8Frame.engineAllocations == 0, "\(output)")
        // Whatever libsrtp allocates, the Swift path adds nothing on top of the direct C loop.
        #expect(report.rtpSend.cryptoLibraryAllocations * report.cSRTPProtect.packets
                == report.cSRTPProtect.cryptoLibraryAllocations * report.rtpSend.packets, "\(output)")
    }
}
