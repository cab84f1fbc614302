import Foundation
import Testing
import MediaCodecs

@Suite struct Y4MReaderTests {
    private func stream(header: String, frames: Int, width: Int = 4, height: Int = 2, lastFrameBytes: Int? = nil) -> [UInt8] {
        var bytes = Array((header + "\n").utf8)
        let size = width * height + 2 * ((width + 1) / 2) * ((height + 1) / 2)
        for n in 0..<frames {
            bytes += Array("FRAME\n".utf8)
            let count = n == frames - 1 ? (lastFrameBytes ?? size) : size
            bytes += (0..<count).map { UInt8(truncatingIfNeeded: $0 + n) }
        }
        return bytes
    }

    @Test func parsesHeaderFieldsAndFrames() throws {
        let reader = try Y4MReader(bytes: stream(header: "YUV4MPEG2 W4 H2 F30000:1001 Ip A1:1 C420jpeg XYSCSS=420JPEG", frames: 2))
        #expect(reader.header.width == 4 && reader.header.height == 2)
        #expect(reader.header.frameRateNumerator == 30000 && reader.header.frameRateDenominator == 1001)
        #expect(reader.header.interlacing == "p")
        #expect(reader.header.colorSpace == "420jpeg")
        let first = try #require(try reader.nextFrame())
        #expect(Array(first.yPlane) == [0, 1, 2, 3, 4, 5, 6, 7])
        #expect(Array(first.uPlane) == [8, 9] && Array(first.vPlane) == [10, 11])
        #expect(try reader.nextFrame() != nil)
        #expect(try reader.nextFrame() == nil)
    }

    @Test(arguments: ["C420", "C420paldv", "C420mpeg2", ""])
    func acceptsEvery420ColorSpaceAndNone(tag: String) throws {
        let reader = try Y4MReader(bytes: stream(header: "YUV4MPEG2 W4 H2 F25:1 \(tag)", frames: 1))
        #expect(try reader.nextFrame() != nil)
    }

    @Test(arguments: ["422", "444", "mono", "420p10"])
    func rejectsNon420ColorSpaces(space: String) {
        #expect(throws: Y4MError.unsupportedColorSpace(space)) {
            _ = try Y4MReader(bytes: stream(header: "YUV4MPEG2 W4 H2 F25:1 C\(space)", frames: 1))
        }
    }

    @Test func truncatedFrameIsATypedError() throws {
        let reader = try Y4MReader(bytes: stream(header: "YUV4MPEG2 W4 H2", frames: 2, lastFrameBytes: 5))
        #expect(try reader.nextFrame() != nil)
        #expect(throws: Y4MError.truncatedFrame(frameIndex: 1, needed: 12, available: 5)) { try reader.nextFrame() }
    }

    @Test func truncatedFrameMarkerIsATypedError() throws {
        var bytes = stream(header: "YUV4MPEG2 W4 H2", frames: 1)
        bytes += Array("FRA".utf8)
        let reader = try Y4MReader(bytes: bytes)
        #expect(try reader.nextFrame() != nil)
        #expect(throws: Y4MError.badFrameHeader(frameIndex: 1)) { try reader.nextFrame() }
    }

    @Test func badHeadersAreTypedErrors() {
        #expect(throws: Y4MError.badSignature) { _ = try Y4MReader(bytes: Array("RIFF W4 H2\n".utf8)) }
        #expect(throws: Y4MError.badHeader("the H (height) field is missing")) {
            _ = try Y4MReader(bytes: Array("YUV4MPEG2 W4\n".utf8))
        }
        #expect(throws: Y4MError.badHeader("width 'W0' is not a whole number from 1 to 16384")) {
            _ = try Y4MReader(bytes: Array("YUV4MPEG2 W0 H2\n".utf8))
        }
        #expect(throws: Y4MError.badHeader("width 'Wx' is not a whole number from 1 to 16384")) {
            _ = try Y4MReader(bytes: Array("YUV4MPEG2 Wx H2\n".utf8))
        }
        #expect(throws: Y4MError.badHeader("frame rate 'F30' is not <numerator>:<denominator>, both above 0")) {
            _ = try Y4MReader(bytes: Array("YUV4MPEG2 W4 H2 F30\n".utf8))
        }
        #expect(throws: Y4MError.badHeader("the header line ends without a newline")) {
            _ = try Y4MReader(bytes: Array("YUV4MPEG2 W4 H2".utf8))
        }
        #expect(throws: Y4MError.badHeader("header line longer than 4096 bytes")) {
            _ = try Y4MReader(bytes: Array("YUV4MPEG2 W4 H2 X".utf8) + [UInt8](repeating: 0x41, count: 5000))
        }
        #expect(throws: Y4MError.empty) { _ = try Y4MReader(bytes: []) }
    }

    @Test func missingFileIsATypedError() {
        #expect(throws: Y4MError.self) { _ = try Y4MReader(path: "/nonexistent/clip.y4m") }
    }

    /// A file is read a chunk at a time (a short file declaring a huge frame must not allocate
    /// the declared size): frames larger than a chunk, and a truncated last one, read as in memory.
    @Test func fileFramesLargerThanOneReadMatchTheMemoryReader() throws {
        let bytes = stream(header: "YUV4MPEG2 W1024 H768", frames: 2, width: 1024, height: 768,
                           lastFrameBytes: 1024 * 768 * 3 / 2 - 100)
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("y4m-\(UUID().uuidString).y4m").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let fromFile = try Y4MReader(path: path), fromMemory = try Y4MReader(bytes: bytes)
        #expect(try fromFile.nextFrame() == fromMemory.nextFrame())
        #expect(throws: Y4MError.truncatedFrame(frameIndex: 1, needed: 1024 * 768 * 3 / 2, available: 1024 * 768 * 3 / 2 - 100)) {
            _ = try fromFile.nextFrame()
        }
    }

    /// Writes `bytes` to a scratch file for the length of `body`.
    private func withFile<T>(_ bytes: [UInt8], _ body: (String) throws -> T) throws -> T {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("y4m-\(UUID().uuidString).y4m").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return try body(path)
    }

    // The check every tool runs on a Y4M input before it starts (issue 25, item 4).

    @Test func frameCountCountsCompleteFramesOfAFile() throws {
        #expect(try withFile(stream(header: "YUV4MPEG2 W4 H2", frames: 3)) { try Y4MReader.frameCount(path: $0) } == 3)
        // Frames larger than one read chunk are sought over, not read.
        let large = stream(header: "YUV4MPEG2 W1024 H768", frames: 2, width: 1024, height: 768)
        #expect(try withFile(large) { try Y4MReader.frameCount(path: $0) } == 2)
    }

    @Test func frameCountRefusesAFileCutShortAsPlayingItWould() throws {
        let bytes = stream(header: "YUV4MPEG2 W4 H2", frames: 2, lastFrameBytes: 5)
        #expect(throws: Y4MError.truncatedFrame(frameIndex: 1, needed: 12, available: 5)) {
            try withFile(bytes) { try Y4MReader.frameCount(path: $0) }
        }
        #expect(throws: Y4MError.badFrameHeader(frameIndex: 1)) {
            try withFile(stream(header: "YUV4MPEG2 W4 H2", frames: 1) + Array("FRA".utf8)) { try Y4MReader.frameCount(path: $0) }
        }
    }

    @Test func frameCountRefusesAHeaderAlone() throws {
        #expect(throws: Y4MError.noFrames) { try withFile(Array("YUV4MPEG2 W4 H2\n".utf8)) { try Y4MReader.frameCount(path: $0) } }
        #expect(Y4MError.noFrames.description
                == "the Y4M file holds a header but no frames: expected a 'FRAME' line and the pixels of at least one frame after it")
    }

    @Test func skippingAFrameLeavesTheNextOneToRead() throws {
        let bytes = stream(header: "YUV4MPEG2 W4 H2", frames: 3)
        try withFile(bytes) { path in
            let fromFile = try Y4MReader(path: path), fromMemory = try Y4MReader(bytes: bytes), reference = try Y4MReader(bytes: bytes)
            _ = try reference.nextFrame()
            #expect(try fromFile.skipFrame() && fromMemory.skipFrame())
            let next = try reference.nextFrame()
            #expect(try fromFile.nextFrame() == next)
            #expect(try fromMemory.nextFrame() == next)
            #expect(try fromFile.skipFrame() && fromMemory.skipFrame())
            #expect(try !fromFile.skipFrame() && !fromMemory.skipFrame())
        }
    }
}
