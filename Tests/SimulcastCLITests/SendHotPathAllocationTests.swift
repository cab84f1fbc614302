import Foundation
import Testing

/// The send hot path allocates nothing per packet in steady state (ARCHITECTURE "Rules of the
/// house"): `simulcast-bench allocations` counts heap allocations with an interposed allocator;
/// whatever libsrtp2's crypto backend allocates (Debian builds it on NSS) shows in the direct C
/// srtp_protect loop too, and the Swift path must add nothing on top of it. The audio receive path
/// (`AudioReceiver.receive` into the playout jitter buffer, no SRTP) allocates nothing at all.
@Suite struct SendHotPathAllocationTests {
    struct Window: Decodable {
        var packets: Int
        var allocations: Int
    }

    struct Report: Decodable {
        var rtpSend: Window
        var vp8Frame: Window
        var audioReceive: Window
        var cSRTPProtect: Window
        var counterSelfCheck: Int
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
        #expect(report.counterSelfCheck >= 1, "the allocation counter must be live: \(output)")
        #expect(report.rtpSend.packets > 0 && report.vp8Frame.packets > 0)
        // Whatever libsrtp allocates per packet, the Swift path adds nothing on top of the C loop.
        #expect(report.rtpSend.allocations * report.cSRTPProtect.packets
                == report.cSRTPProtect.allocations * report.rtpSend.packets, "\(output)")
        #expect(report.vp8Frame.allocations * report.cSRTPProtect.packets
                == report.cSRTPProtect.allocations * report.vp8Frame.packets, "\(output)")
        // Issue 28: remote audio's receive path (into the playout jitter buffer) allocates nothing.
        #expect(report.audioReceive.packets > 0 && report.audioReceive.allocations == 0, "\(output)")
    }
}
