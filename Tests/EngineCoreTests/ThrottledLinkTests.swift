import Testing
@testable import EngineCore

@Suite struct ThrottledLinkTests {
    @Test func throttledLinkCountsWhatItDrops() {
        let link = ThrottledLink(bitsPerSecond: 8_000, burstBytes: 1500)
        var delivered = 0
        for _ in 0..<3 { link.transmit([UInt8](repeating: 0, count: 1000)[...], nowMilliseconds: 0) { _ in delivered += 1 } }
        #expect(delivered == 1 && link.delivered == 1 && link.dropped == 2 && link.droppedBytes == 2000)
    }
}
