import Foundation
import Testing
@testable import RTPWire

/// Our offer read by a WebRTC stack nobody here wrote: aiortc (in .venv-interop, installed by
/// scripts/install-deps.sh) answers it, and the answer must negotiate. Runs inside `unshare -n`.
@Suite struct SDPInteropTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    struct Missing: Error, CustomStringConvertible {
        var description: String { ".venv-interop/bin/python not found: scripts/install-deps.sh creates it (`make test` runs that script)" }
    }

    /// aiortc's answer to `offer`.
    static func aiortcAnswer(to offer: String) throws -> String {
        let python = root.appendingPathComponent(".venv-interop/bin/python")
        guard FileManager.default.isExecutableFile(atPath: python.path) else { throw Missing() }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
        process.arguments = ["-n", python.path, root.appendingPathComponent("Tests/Interop/foreign_sdp_answer.py").path]
        let input = Pipe(), output = Pipe(), errors = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        input.fileHandleForWriting.write(Data(offer.utf8))
        try input.fileHandleForWriting.close()
        // Both pipes end when the script exits (its exit status is not waited for: Foundation's
        // Process can miss a short-lived child's exit under the test runner).
        let answer = output.fileHandleForReading.readDataToEndOfFile()
        let diagnostics = errors.fileHandleForReading.readDataToEndOfFile()
        guard !answer.isEmpty else {
            throw SDPError.unsupported("aiortc gave no answer: \(String(decoding: diagnostics, as: UTF8.self))")
        }
        return String(decoding: answer, as: UTF8.self)
    }

    @Test func aiortcAnswersOurSimulcastOfferAndTheAnswerNegotiates() throws {
        let offer = SDPTests.offer()
        let answerText = try Self.aiortcAnswer(to: offer.sessionDescription.text)
        let answer = try SessionDescription(parsing: answerText)
        let session = try NegotiatedSession(offer: offer, answer: answer)
        #expect(session.remoteSetup == .active || session.remoteSetup == .passive)
        #expect(session.remoteFingerprint.algorithm == "sha-256" && session.remoteFingerprint.digest.count == 32)
        let video = try #require(session.video)
        #expect(video.payloadType == 96)
        #expect(video.feedback.contains("nack") && video.feedback.contains("nack pli"))
        #expect(video.extensionMap.id(for: .mid) == 4)
        let audio = try #require(session.audio)
        #expect(audio.payloadType == 111)
        // What aiortc made of simulcast, for the record: the RIDs it receives (none: one stream).
        print("aiortc answer: setup \(session.remoteSetup.rawValue), video rids \(video.rids), feedback \(video.feedback.sorted()), "
              + "video extensions mid=\(video.extensionMap.id(for: .mid).map(String.init) ?? "-") rid=\(video.extensionMap.id(for: .rid).map(String.init) ?? "-")")
    }
}
