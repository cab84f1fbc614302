import Foundation
import Testing

/// Issue 25, items 1 and 2, as an attacker on the same host would probe them: `simulcast demo`
/// runs under a descriptor limit of 24 (its own sockets and files take about 15) while
/// `scripts/tcp-attacker.py` opens a TCP connection to the room's node from every UDP port of
/// the process (each viewer's and the publisher's) and floods the node with 300 idle, stalled and
/// dripping connections. No stranger gets a byte, the node runs out of descriptors and keeps
/// serving, and every viewer decodes the whole call without a freeze. Real time, real sockets.
@Suite(.serialized) struct HostileTCPPeerTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    @Test func impostorsAndAFloodUnderADescriptorLimitGetNothingAndStopNoViewer() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hostile-tcp-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let jsonPath = directory.appendingPathComponent("demo.json").path
        let executable = try SimulcastExecutable().path
        // No throttle worth the name: every viewer should get every frame.
        let demo = Process()
        demo.executableURL = URL(fileURLWithPath: "/usr/bin/prlimit")
        demo.arguments = ["--nofile=24", executable, "demo", "--seconds", "12", "--size", "640x360",
                          "--throttle-kbps", "100000", "--quiet", "--json", jsonPath]
        let demoOutput = Pipe()
        demo.standardOutput = demoOutput
        demo.standardError = demoOutput
        try demo.run()
        // prlimit execs the demo: the same process, found by its pid once its node listens.
        let attacker = Process()
        attacker.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        attacker.arguments = ["python3", Self.repository.appendingPathComponent("scripts/tcp-attacker.py").path,
                              "--pid", "\(demo.processIdentifier)", "--impostor", "--connections", "300", "--seconds", "7"]
        let attackerOutput = Pipe()
        attacker.standardOutput = attackerOutput
        try attacker.run()
        let attack = attackerOutput.fileHandleForReading.readDataToEndOfFile()
        attacker.waitUntilExit()
        let printed = String(decoding: demoOutput.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        demo.waitUntilExit()
        print(String(decoding: attack, as: UTF8.self))
        print(printed)
        #expect(attacker.terminationStatus == 0 && demo.terminationStatus == 0)

        let strangers = try #require(try JSONSerialization.jsonObject(with: attack) as? [String: Any])
        let udpPorts = (strangers["udpPorts"] as? [Int] ?? []).count
        #expect(udpPorts >= 4)  // three viewers and the publisher at least
        #expect((strangers["impostorConnectionsOpened"] as? Int ?? 0) >= udpPorts)
        #expect(strangers["impostorBytesReceived"] as? Int == 0)
        #expect((strangers["floodConnectionsOpened"] as? Int ?? 0) >= 300)
        #expect(strangers["floodBytesReceived"] as? Int == 0)

        let report = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: jsonPath))) as? [String: Any])
        let tcp = try #require((report["node"] as? [String: Any])?["tcp"] as? [String: Any])
        #expect((tcp["accepted"] as? Int ?? 0) >= 50 && tcp["proven"] as? Int == 0)
        #expect((tcp["acceptFailuresForResources"] as? Int ?? 0) >= 1)  // the limit was reached, and survived
        let frames = try #require((report["publisher"] as? [String: Any])?["framesEncoded"] as? Int)
        let subscribers = try #require(report["subscribers"] as? [[String: Any]])
        #expect(subscribers.count == 3 && frames >= 300)
        for subscriber in subscribers {
            let decoded = subscriber["framesDecoded"] as? Int ?? 0
            #expect(decoded >= frames * 95 / 100, "\(subscriber["id"] ?? "?") decoded \(decoded) of \(frames)")
            #expect((subscriber["longestFreezeMs"] as? Int ?? .max) < 500)
            #expect(subscriber["decoderErrors"] as? Int == 0)
        }
    }
}
