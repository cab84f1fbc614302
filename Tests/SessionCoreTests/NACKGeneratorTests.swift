import Testing
@testable import SessionCore

@Suite struct NACKGeneratorTests {
    @Test func gapsBecomeTheNACKList() {
        var nack = NACKGenerator()
        nack.packetReceived(1, nowMilliseconds: 0)
        nack.packetReceived(5, nowMilliseconds: 0)
        nack.packetReceived(6, nowMilliseconds: 0)
        nack.packetReceived(8, nowMilliseconds: 0)
        let first = nack.sequencesToRequest(nowMilliseconds: 0)
        #expect(first == [2, 3, 4, 7])
    }

    @Test func retryWaitsTheMinimumInterval() {
        var nack = NACKGenerator(configuration: .init(defaultRetryIntervalMilliseconds: 20))
        nack.packetReceived(1, nowMilliseconds: 0)
        nack.packetReceived(3, nowMilliseconds: 0)
        let first = nack.sequencesToRequest(nowMilliseconds: 0)
        let tooSoon = nack.sequencesToRequest(nowMilliseconds: 19)
        let retry = nack.sequencesToRequest(nowMilliseconds: 20)
        #expect(first == [2])
        #expect(tooSoon == [])
        #expect(retry == [2])
    }

    @Test func roundTripTimeSetsTheRetryInterval() {
        var nack = NACKGenerator()
        nack.packetReceived(1, nowMilliseconds: 0)
        nack.packetReceived(3, nowMilliseconds: 0)
        _ = nack.sequencesToRequest(nowMilliseconds: 0, roundTripMilliseconds: 50)
        let early = nack.sequencesToRequest(nowMilliseconds: 40, roundTripMilliseconds: 50)
        let due = nack.sequencesToRequest(nowMilliseconds: 50, roundTripMilliseconds: 50)
        #expect(early == [])
        #expect(due == [2])
    }

    @Test func eachPacketIsRequestedAtMostMaxRetriesTimes() {
        var nack = NACKGenerator(configuration: .init(maxRetries: 3, defaultRetryIntervalMilliseconds: 10,
                                                       maxAgeMilliseconds: 1000))
        nack.packetReceived(1, nowMilliseconds: 0)
        nack.packetReceived(3, nowMilliseconds: 0)
        var requests = 0
        for step in Int64(0)..<10 {
            requests += nack.sequencesToRequest(nowMilliseconds: step * 10).count
        }
        #expect(requests == 3)
        #expect(nack.packetsAbandonedAfterRetries == 1)
        #expect(nack.missingCount == 0)
    }

    @Test func packetsOlderThanTheMaximumAgeAreNotRequested() {
        var nack = NACKGenerator(configuration: .init(maxAgeMilliseconds: 100))
        nack.packetReceived(1, nowMilliseconds: 0)
        nack.packetReceived(3, nowMilliseconds: 0)
        let tooOld = nack.sequencesToRequest(nowMilliseconds: 101)
        #expect(tooOld == [])
        #expect(nack.packetsTooOld == 1)
    }

    @Test func flushDropsPacketsBeforeTheReleasePointOrKeyFrame() {
        var nack = NACKGenerator()
        nack.packetReceived(1, nowMilliseconds: 0)
        nack.packetReceived(6, nowMilliseconds: 0)
        nack.flush(before: 4)
        let list = nack.sequencesToRequest(nowMilliseconds: 0)
        #expect(list == [4, 5])
        nack.packetReceived(10, nowMilliseconds: 0)  // new gap 7...9 is after the flush point
        let next = nack.sequencesToRequest(nowMilliseconds: 0)
        #expect(next == [7, 8, 9])
    }

    @Test func arrivalOfARequestedPacketCountsAsRecovered() {
        var nack = NACKGenerator()
        nack.packetReceived(1, nowMilliseconds: 0)
        nack.packetReceived(4, nowMilliseconds: 0)
        _ = nack.sequencesToRequest(nowMilliseconds: 0)
        nack.packetReceived(2, nowMilliseconds: 5)
        #expect(nack.packetsRecovered == 1)
        #expect(nack.missingSequences == [3])
    }

    @Test func hugeGapKeepsOnlyTheNewestEntries() {
        var nack = NACKGenerator(configuration: .init(maxListSize: 8))
        nack.packetReceived(0, nowMilliseconds: 0)
        nack.packetReceived(1000, nowMilliseconds: 0)
        #expect(nack.missingSequences == Array(992..<1000))
    }
}
