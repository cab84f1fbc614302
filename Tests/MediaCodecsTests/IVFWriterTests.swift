import Testing
import MediaCodecs

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
}
