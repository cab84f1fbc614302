import CommandLineSupport
import EngineCore
import Foundation
import Testing
@testable import SimulcastCLI

/// `simulcast inspect` on what `simulcast send --pcap` records: a call sent with `--insecure`
/// and the same call sent with SRTP (fixed SSRCs, the same frames) report the same key frames,
/// key-frame sizes, temporal ids and PictureID continuity once the SRTP capture is opened with
/// its key; without the key the SRTP capture says its payload is encrypted, reports none of the
/// payload's facts, and counts SRTCP as SRTCP rather than as "not RTP or RTCP".
@Suite struct InspectSRTPCaptureTests {
    /// The facts only the payload tells, per SSRC.
    private static let payloadFacts = ["keyFrames", "keyFrameSizes", "temporalIds", "pictureIDJumps", "vp8ParseErrors"]

    @Test(arguments: [("AES_CM_128_HMAC_SHA1_80", 30), ("AEAD_AES_128_GCM", 28)])
    func srtpCaptureOpenedWithItsKeyReportsWhatTheInsecureCaptureReports(suite: String, keyLength: Int) async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let key = Data((0..<keyLength).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }).base64EncodedString()
        let plainPath = directory.appendingPathComponent("insecure.pcap").path
        let srtpPath = directory.appendingPathComponent("srtp.pcap").path
        let common = ["--size", "640x360", "--frames", "40", "--fast", "--ssrc", "7000", "--rtcp-interval", "200"]
        let sink = try UDPSocket()
        try await SendCommand.run(["--to", "\(sink.localEndpoint)", "--insecure", "--pcap", plainPath] + common, output: { _ in })
        try await SendCommand.run(["--to", "\(sink.localEndpoint)", "--key", key, "--srtp-suite", suite, "--pcap", srtpPath] + common,
                                  output: { _ in })
        let plain = try summary(plainPath, [])
        let opened = try summary(srtpPath, ["--key", key, "--srtp-suite", suite])
        let sealed = try summary(srtpPath, [])

        let plainStreams = try streams(plain), openedStreams = try streams(opened), sealedStreams = try streams(sealed)
        #expect(plainStreams.count == 2)
        #expect(openedStreams.map { $0.field("ssrc") } == plainStreams.map { $0.field("ssrc") })
        for (clear, decrypted) in zip(plainStreams, openedStreams) {
            #expect(clear.field("payload") == "clear" && decrypted.field("payload") == "decrypted")
            for fact in Self.payloadFacts + ["frames", "packets", "sequenceGaps"] {
                #expect(clear.field(fact) == decrypted.field(fact), "\(fact) of \(clear.field("ssrc")?.serialized() ?? "?")")
            }
            #expect(clear.field("keyFrames") == 1)
            #expect(clear.field("temporalIds") == [0, 1, 2])
            #expect(clear.field("pictureIDJumps") == 0)
        }
        // Reports go out on a timer, so their number differs between runs; every kind opened.
        for kind in ["SR", "SDES", "BYE"] { #expect(opened.field("rtcp")?.field(kind) != nil, "no \(kind) opened") }
        #expect(opened.field("notOpened") == 0)

        // Without the key: header facts only, a warning, SRTCP counted as such.
        #expect(sealedStreams.map { $0.field("ssrc") } == plainStreams.map { $0.field("ssrc") })
        for (clear, encrypted) in zip(plainStreams, sealedStreams) {
            #expect(encrypted.field("payload") == "encrypted")
            for fact in Self.payloadFacts { #expect(encrypted.field(fact) == nil, "\(fact) reported from ciphertext") }
            #expect(encrypted.field("frames") == clear.field("frames"))
        }
        #expect(sealed.field("warning") != nil)
        #expect(sealed.field("notRTPOrRTCP") == 0)
        #expect(sealed.field("srtcp")?.serialized().contains("\"SR\":") == true)
        #expect(plain.field("warning") == nil)
    }

    @Test func aWrongKeyOpensNothingAndSaysSo() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("srtp.pcap").path
        let sink = try UDPSocket()
        try await SendCommand.run(["--to", "\(sink.localEndpoint)", "--size", "320x180", "--frames", "5", "--fast", "--pcap", path],
                                  output: { _ in })
        let wrong = Data(repeating: 7, count: 30).base64EncodedString()
        let json = try summary(path, ["--key", wrong])
        #expect(json.field("streams") == [])
        #expect(json.field("srtp")?.field("opened") == 0)
        #expect(json.field("warning") != nil)
    }

    private func summary(_ path: String, _ arguments: [String]) throws -> JSONValue {
        let parsed = try CommandLineArguments(arguments, valueOptions: ["key", "srtp-suite"])
        let (json, ok) = InspectCommand.summarize(pcap: [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))),
                                                  options: try InspectOptions(parsed),
                                                  decryption: try CaptureDecryption.from(parsed))
        #expect(ok)
        return json
    }

    private func streams(_ json: JSONValue) throws -> [JSONValue] {
        guard case let .array(streams)? = json.field("streams") else { throw CommandError("no streams in \(json.serialized())") }
        return streams
    }
}
