import Foundation
import Testing
import MediaCodecs
@testable import SimulcastCLI

@Suite struct EncodeCommandTests {
    @Test func writesOneDecodableIVFPerLayerAndAFrameLog() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("encode-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try EncodeCommand.run(["--frames", "8", "--max-layer", "2", "--out", directory])
        let files = try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
        #expect(files == ["frames.jsonl", "layer0_320x180.ivf", "layer1_1280x720.ivf"])
        let log = try String(contentsOfFile: directory + "/frames.jsonl", encoding: .utf8)
        #expect(log.split(separator: "\n").count == 16)
        #expect(log.hasPrefix(#"{"frame":0,"layer":0,"width":320,"height":180,"temporalId":0,"layerSync":true,"keyFrame":true"#))
        var ivf = try IVFReader(bytes: [UInt8](Data(contentsOf: URL(fileURLWithPath: directory + "/layer1_1280x720.ivf"))))
        let decoder = try VP8Decoder()
        var decoded = 0
        while let frame = try ivf.nextFrame() {
            if let picture = try decoder.decode(frame.data), picture.width == 1280, picture.height == 720 { decoded += 1 }
        }
        #expect(decoded == 8)
    }

    @Test func impossibleConfigsAreErrorsNotCrashes() {
        #expect(throws: (any Error).self) { try EncodeCommand.run(["--size", "8x8", "--out", "/tmp/never"]) }
        #expect(throws: (any Error).self) { try EncodeCommand.run(["--max-layer", "4"]) }
        #expect(throws: (any Error).self) { try EncodeCommand.run(["--frames", "0"]) }
        #expect(throws: (any Error).self) { try EncodeCommand.run(["--input", "/nonexistent.y4m"]) }
        #expect(throws: (any Error).self) { try EncodeCommand.run(["--bogus"]) }
    }
}
