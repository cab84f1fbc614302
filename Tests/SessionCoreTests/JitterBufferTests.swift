import RTPWire
import Testing
@testable import SessionCore

private func packet(_ seq: UInt16) -> RTPPacket {
    RTPPacket(header: RTPHeader(payloadType: 96, sequenceNumber: seq, timestamp: 0, ssrc: 1), payload: [UInt8(truncatingIfNeeded: seq)])
}

private func released(_ buffer: inout JitterBuffer, at now: Int64) -> [UInt16] {
    var out: [UInt16] = []
    buffer.release(nowMilliseconds: now) { out.append($0.header.sequenceNumber) }
    return out
}

@Suite struct JitterBufferTests {
    @Test func releasesReorderedPacketsInSequenceOrder() {
        var buffer = JitterBuffer(configuration: .init(maxDelayMilliseconds: 100))
        _ = buffer.insert(packet(1), arrivalMilliseconds: 0)
        #expect(released(&buffer, at: 0) == [1])
        _ = buffer.insert(packet(3), arrivalMilliseconds: 1)
        _ = buffer.insert(packet(4), arrivalMilliseconds: 2)
        #expect(released(&buffer, at: 2) == [])
        _ = buffer.insert(packet(2), arrivalMilliseconds: 5)
        #expect(released(&buffer, at: 5) == [2, 3, 4])
        #expect(buffer.packetsGivenUp == 0)
    }

    @Test func givesUpOnAGapAfterTheMaximumDelay() {
        var buffer = JitterBuffer(configuration: .init(maxDelayMilliseconds: 100))
        _ = buffer.insert(packet(1), arrivalMilliseconds: 0)
        _ = buffer.insert(packet(3), arrivalMilliseconds: 10)
        #expect(released(&buffer, at: 109) == [1])
        #expect(released(&buffer, at: 110) == [3])
        #expect(buffer.packetsGivenUp == 1)
    }

    @Test func packetArrivingAfterItsGapWasGivenUpIsLate() {
        var buffer = JitterBuffer(configuration: .init(maxDelayMilliseconds: 50))
        _ = buffer.insert(packet(1), arrivalMilliseconds: 0)
        _ = buffer.insert(packet(3), arrivalMilliseconds: 0)
        _ = released(&buffer, at: 50)
        let late = buffer.insert(packet(2), arrivalMilliseconds: 60)
        #expect(late.result == .late)
        #expect(buffer.latePackets == 1)
    }

    @Test func duplicateOfAHeldPacketIsReported() {
        var buffer = JitterBuffer()
        _ = buffer.insert(packet(1), arrivalMilliseconds: 0)
        _ = buffer.insert(packet(3), arrivalMilliseconds: 0)
        let again = buffer.insert(packet(3), arrivalMilliseconds: 1)
        #expect(again.result == .duplicate)
        #expect(buffer.count == 2)
    }

    @Test func reordersAcrossTheSequenceNumberWrap() {
        var buffer = JitterBuffer()
        _ = buffer.insert(packet(65534), arrivalMilliseconds: 0)
        _ = buffer.insert(packet(0), arrivalMilliseconds: 0)
        _ = buffer.insert(packet(65535), arrivalMilliseconds: 0)
        #expect(released(&buffer, at: 0) == [65534, 65535, 0])
    }

    @Test func packetBeyondTheRingForcesTheOldestOutInOrder() {
        var buffer = JitterBuffer(configuration: .init(maxDelayMilliseconds: 1000, capacity: 16))
        _ = buffer.insert(packet(0), arrivalMilliseconds: 0)
        _ = released(&buffer, at: 0)
        _ = buffer.insert(packet(2), arrivalMilliseconds: 0)
        _ = buffer.insert(packet(5), arrivalMilliseconds: 0)
        var forced: [UInt16] = []
        _ = buffer.insert(packet(20), arrivalMilliseconds: 0) { forced.append($0.header.sequenceNumber) }
        #expect(forced == [2])  // 1, 3, 4 given up; 5 is inside the new window (5...20)
        #expect(buffer.packetsGivenUp == 3)
        #expect(buffer.count == 2)
        let rest = released(&buffer, at: 1)
        #expect(rest == [5])
    }

    @Test func packetReorderedBeforeTheFirstOneIsReportedBeforeStartNotLate() {
        var buffer = JitterBuffer()
        _ = buffer.insert(packet(101), arrivalMilliseconds: 0)
        _ = released(&buffer, at: 0)
        let early = buffer.insert(packet(100), arrivalMilliseconds: 1)
        #expect(early.result == .beforeStart)
        #expect(buffer.latePackets == 0)
    }

    @Test func backwardsJumpOfTheSenderRestartsTheBufferAfterEnoughLatePackets() {
        var buffer = JitterBuffer()
        _ = buffer.insert(packet(30_000), arrivalMilliseconds: 0)
        _ = released(&buffer, at: 0)
        for seq in UInt16(10_000)..<(10_000 + UInt16(JitterBuffer.restartThreshold)) {
            _ = buffer.insert(packet(seq), arrivalMilliseconds: 1)
        }
        #expect(buffer.restarts == 1)
        _ = buffer.insert(packet(20_000), arrivalMilliseconds: 2)
        #expect(released(&buffer, at: 2) == [20_000])
    }

    @Test func skipToAKeyFrameDropsWhatIsBeforeIt() {
        var buffer = JitterBuffer()
        for seq: UInt16 in [1, 3, 4, 6] { _ = buffer.insert(packet(seq), arrivalMilliseconds: 0) }
        _ = released(&buffer, at: 0)
        let skipped = buffer.skip(to: 6)
        #expect(skipped == 4)  // 2, 3, 4, 5
        #expect(released(&buffer, at: 0) == [6])
    }

    @Test func missingSequencesListsTheGapsBeingWaitedFor() {
        var buffer = JitterBuffer()
        for seq: UInt16 in [10, 11, 14, 16] { _ = buffer.insert(packet(seq), arrivalMilliseconds: 0) }
        _ = released(&buffer, at: 0)
        #expect(buffer.missingSequences() == [12, 13, 15])
    }
}
