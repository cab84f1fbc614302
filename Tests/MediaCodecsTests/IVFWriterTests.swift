import Testing
#if canImport(Glibc)
import Glibc
#endif
import MediaCodecs
import Simulcast

@Suite struct IVFWriterTests {
    @Test func headerIs32BytesDKIFWithVP80FourccSizeTimebaseAndFrameCount() {
        var writer = IVFWriter(width: 1280, height: 720, timebaseNumerator: 1, timebaseDenominator: 90000)
        writer.append(frame: [1, 2, 3], timestamp: 3000)
        writer.append(frame: [4], timestamp: 0x1_0000_0001)
        let b = writer.bytes
        #expect(Array(b[0..<4]) == Array("DKIF".utf8))
        #expect(b[4] == 0 && b[5] == 0 && b[6] == 32 && b[7] == 0)
        #expect(Array(b[8..<12]) == Array("VP80".utf8))
        #expect(b[12] == 0x00 && b[13] == 0x05 && b[14] == 0xD0 && b[15] == 0x02)   // 1280, 720
        #expect(Array(b[16..<20]) == [0x90, 0x5F, 0x01, 0x00])                       // 90000
        #expect(Array(b[20..<24]) == [1, 0, 0, 0])
        #expect(Array(b[24..<28]) == [2, 0, 0, 0])
        // First frame header: size 3, timestamp 3000, then the payload.
        #expect(Array(b[32..<44]) == [3, 0, 0, 0, 0xB8, 0x0B, 0, 0, 0, 0, 0, 0])
        #expect(Array(b[44..<47]) == [1, 2, 3])
        #expect(Array(b[47..<59]) == [1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0])
        #expect(b.count == 32 + 12 + 3 + 12 + 1)
    }

    @Test func encodedLayerRoundTripsThroughIVFAndDecodes() throws {
        let renderer = try TestScene().renderer(width: 320, height: 180)
        let encoder = try SimulcastEncoder(plan: try LayerPlan(width: 320, height: 180))
        var writer = IVFWriter(width: 320, height: 180, timebaseDenominator: 90000)
        for n in 0..<8 {
            for frame in try encoder.encode(renderer.frame(n)) {
                writer.append(frame: frame.data, timestamp: UInt64(frame.rtpTimestamp))
            }
        }
        let path = "/tmp/mediacodecs-ivf-roundtrip-\(writer.bytes.count).ivf"
        try writer.write(toFile: path)
        defer { _ = remove(path) }
        var reader = try IVFReader(bytes: writer.bytes)
        #expect(reader.fourcc == "VP80" && reader.width == 320 && reader.height == 180)
        #expect(reader.declaredFrameCount == 8 && reader.timebaseDenominator == 90000)
        let decoder = try VP8Decoder()
        var timestamps: [UInt64] = []
        while let frame = try reader.nextFrame() {
            #expect(try decoder.decode(frame.data)?.width == 320)
            timestamps.append(frame.timestamp)
        }
        #expect(timestamps == (0..<8).map { UInt64($0 * 3000) })
    }

    @Test func truncatedOrForeignIVFIsATypedError() throws {
        #expect(throws: IVFError.truncated(field: "file header", needed: 32, available: 4)) {
            _ = try IVFReader(bytes: Array("DKIF".utf8))
        }
        #expect(throws: IVFError.badSignature) { _ = try IVFReader(bytes: [UInt8](repeating: 0, count: 40)) }
        var writer = IVFWriter(width: 16, height: 16)
        writer.append(frame: [1, 2, 3, 4], timestamp: 0)
        var reader = try IVFReader(bytes: Array(writer.bytes.dropLast(2)))
        #expect(throws: IVFError.truncated(field: "frame data", needed: 4, available: 2)) { _ = try reader.nextFrame() }
        #expect(throws: IVFError.io(path: "/nonexistent/dir/x.ivf", errno: 2)) {
            try writer.write(toFile: "/nonexistent/dir/x.ivf")
        }
    }

    @Test func fileWriterStreamsTheSameBytesAndWritesTheFrameCountOnClose() throws {
        var memory = IVFWriter(width: 320, height: 180, timebaseDenominator: 90000)
        let path = "/tmp/mediacodecs-ivf-file-\(getpid()).ivf"
        defer { _ = remove(path) }
        let file = try IVFFileWriter(path: path, width: 320, height: 180, timebaseDenominator: 90000)
        for n in 0..<5 {
            let frame = [UInt8](repeating: UInt8(n), count: 100 + n)
            memory.append(frame: frame, timestamp: UInt64(n) * 3000)
            try file.append(frame: frame, timestamp: UInt64(n) * 3000)
        }
        #expect(file.frameCount == 5 && file.byteCount == memory.bytes.count)
        try file.close()
        try file.close()  // a second close does nothing
        let onDisk = try #require(FileBytes.read(path))
        #expect(onDisk == memory.bytes)
        #expect(try IVFReader(bytes: onDisk).declaredFrameCount == 5)
        #expect(throws: IVFError.io(path: path, errno: EBADF)) { try file.append(frame: [1], timestamp: 9) }
        #expect(throws: IVFError.io(path: "/nonexistent/dir/x.ivf", errno: ENOENT)) {
            _ = try IVFFileWriter(path: "/nonexistent/dir/x.ivf", width: 16, height: 16)
        }
    }
}

extension IVFWriterTests {
    @Test func fileWriterWritesAPictureSizeLearnedAfterTheHeader() throws {
        let path = "/tmp/mediacodecs-ivf-size-\(getpid()).ivf"
        defer { _ = remove(path) }
        let file = try IVFFileWriter(path: path, width: 1280, height: 720, timebaseDenominator: 90000)
        try file.append(frame: [1, 2, 3], timestamp: 0)
        file.setPictureSize(width: 320, height: 180)
        try file.close()
        let reader = try IVFReader(bytes: try #require(FileBytes.read(path)))
        #expect(reader.width == 320 && reader.height == 180 && reader.declaredFrameCount == 1)
    }
}

/// Reads a whole small file with stdio (the test target has no Foundation import).
enum FileBytes {
    static func read(_ path: String) -> [UInt8]? {
        guard let file = fopen(path, "rb") else { return nil }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let got = chunk.withUnsafeMutableBytes { fread($0.baseAddress, 1, 4096, file) }
            bytes += chunk.prefix(got)
            if got < 4096 { return bytes }
        }
    }
}
