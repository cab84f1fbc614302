import Testing
@testable import Simulcast

private func header(_ result: RewriteResult) -> RewrittenHeader? {
    if case .forward(let header) = result { return header }
    return nil
}

/// Forwards every packet of `packets` and returns the headers (nil for refused packets).
private func forwardAll(_ packets: [SourcePacket], through rewriter: inout StreamRewriter) -> [RewrittenHeader?] {
    packets.map { header(rewriter.rewrite($0)) }
}

private func packet(_ source: UInt32, seq: UInt16, ts: UInt32 = 0, pid: UInt16 = 0, tl0: UInt8 = 0, tid: UInt8 = 0,
                    key: Bool = false, first: Bool = true, switching: Bool = false, at time: Int64 = 0) -> SourcePacket {
    SourcePacket(sourceId: source, sequenceNumber: seq, timestamp: ts, pictureId: pid, tl0PicIdx: tl0, temporalId: tid,
                 isKeyFrame: key, isFirstPacketOfFrame: first, startsNewSource: switching, arrivalMilliseconds: time)
}

@Suite struct StreamRewriterTests {
    @Test func continuityAcrossSixSwitchesAndTemporalDrops() {
        var sources = [
            FakeSource(id: 1, sequence: 65_500, timestamp: 4_294_960_000, pictureId: 32_760, tl0PicIdx: 250),
            FakeSource(id: 2, sequence: 100, timestamp: 1_000, pictureId: 5, tl0PicIdx: 3),
            FakeSource(id: 3, sequence: 40_000, timestamp: 2_147_483_648, pictureId: 20_000, tl0PicIdx: 128),
        ]
        var rewriter = StreamRewriter()
        let order = [0, 1, 2, 0, 2, 1, 0]  // 7 segments: the start and 6 switches
        var frames: [(tid: UInt8, headers: [RewrittenHeader])] = []
        var time: Int64 = 0
        for (segment, current) in order.enumerated() {
            for frameNumber in 0..<12 {
                time += 33
                for index in sources.indices {
                    let isSwitchFrame = index == current && frameNumber == 0
                    let packets = sources[index].nextFrame(key: isSwitchFrame, at: time, startsNewSource: isSwitchFrame)
                    guard index == current else { continue }
                    // Odd segments drop TL2 (15 fps); the packets are reported as left out.
                    if segment % 2 == 1, packets[0].temporalId == 2 {
                        for packet in packets {
                            rewriter.packetLeftOut(sourceId: packet.sourceId, sequenceNumber: packet.sequenceNumber,
                                                   pictureId: packet.pictureId)
                        }
                        continue
                    }
                    let headers = forwardAll(packets, through: &rewriter).compactMap { $0 }
                    #expect(headers.count == packets.count)
                    frames.append((packets[0].temporalId, headers))
                }
            }
        }
        #expect(rewriter.switchCount == 7)
        #expect(frames.count == 4 * 12 + 3 * 6)  // odd segments lost their 6 TL2 frames each
        let all = frames.flatMap(\.headers)
        for (a, b) in zip(all, all.dropFirst()) {
            #expect(b.sequenceNumber == a.sequenceNumber &+ 1)
        }
        var lastTl0 = frames.first?.headers[0].tl0PicIdx
        for (previous, next) in zip(frames, frames.dropFirst()) {
            let a = previous.headers[0], b = next.headers[0]
            #expect(b.pictureId == (a.pictureId &+ 1) & 0x7FFF)
            let step = b.timestamp &- a.timestamp
            #expect(step > 0 && step < 1 << 31)
            #expect(Set(next.headers.map(\.timestamp)).count == 1)
            if next.tid == 0 {
                if let lastTl0 { #expect(b.tl0PicIdx == lastTl0 &+ 1) }
                lastTl0 = b.tl0PicIdx
            } else {
                #expect(b.tl0PicIdx == lastTl0)
            }
        }
    }

    @Test func realLossStaysAGap() {
        var rewriter = StreamRewriter()
        let first = rewriter.rewrite(packet(1, seq: 10, switching: true))
        let afterLoss = rewriter.rewrite(packet(1, seq: 12, first: false))
        #expect(header(first)?.sequenceNumber == 10)
        #expect(header(afterLoss)?.sequenceNumber == 12)
    }

    @Test func lateArrivalOfLostPacketFillsItsGap() {
        var rewriter = StreamRewriter()
        _ = rewriter.rewrite(packet(1, seq: 10, switching: true))
        rewriter.packetLeftOut(sourceId: 1, sequenceNumber: 11, pictureId: 1)
        _ = rewriter.rewrite(packet(1, seq: 14, pid: 2))  // 12, 13 lost so far → output 13
        let late = rewriter.rewrite(packet(1, seq: 12, pid: 2, first: false))
        #expect(header(late)?.sequenceNumber == 11)
    }

    @Test func outOfOrderPacketsMapByOffsetWithoutReordering() {
        var rewriter = StreamRewriter()
        _ = rewriter.rewrite(packet(1, seq: 10, switching: true))
        rewriter.packetLeftOut(sourceId: 1, sequenceNumber: 11, pictureId: 1)
        let outputs = [13, 12].map { header(rewriter.rewrite(packet(1, seq: UInt16($0), pid: 2)))?.sequenceNumber }
        #expect(outputs == [12, 11])
    }

    @Test func leftOutPacketArrivingAgainIsRefused() {
        var rewriter = StreamRewriter()
        _ = rewriter.rewrite(packet(1, seq: 10, switching: true))
        rewriter.packetLeftOut(sourceId: 1, sequenceNumber: 11, pictureId: 1)
        _ = rewriter.rewrite(packet(1, seq: 12, pid: 2))
        let result1 = rewriter.rewrite(packet(1, seq: 11, pid: 1))
        #expect(result1 == .drop(.leftOut))
    }

    @Test func sequencePictureIdAndTl0WrapAcrossSwitch() {
        var rewriter = StreamRewriter()
        _ = rewriter.rewrite(packet(1, seq: 65_533, pid: 32_766, tl0: 254, switching: true))
        _ = rewriter.rewrite(packet(1, seq: 65_534, pid: 32_767, tl0: 255))
        rewriter.packetLeftOut(sourceId: 1, sequenceNumber: 65_535, pictureId: 0)
        let wrapped = header(rewriter.rewrite(packet(1, seq: 0, pid: 1, tl0: 0)))
        #expect(wrapped?.sequenceNumber == 65_535)
        #expect(wrapped?.pictureId == 0)
        #expect(wrapped?.tl0PicIdx == 0)
        let switched = header(rewriter.rewrite(packet(2, seq: 7_000, pid: 900, tl0: 77, key: true, switching: true)))
        #expect(switched?.sequenceNumber == 0)
        #expect(switched?.pictureId == 1)
        #expect(switched?.tl0PicIdx == 1)
    }

    @Test func timestampContinuesByElapsedWallTime() {
        var rewriter = StreamRewriter()
        _ = rewriter.rewrite(packet(1, seq: 1, ts: 4_294_967_000, switching: true, at: 1_000))
        let switched = header(rewriter.rewrite(packet(2, seq: 50, ts: 123, key: true, switching: true, at: 1_040)))
        #expect(switched?.timestamp == UInt32(4_294_967_000) &+ 40 * 90)  // wraps to 3304
        let same = header(rewriter.rewrite(packet(2, seq: 51, ts: 123, first: false, at: 1_041)))
        #expect(same?.timestamp == switched?.timestamp)
    }

    @Test func timestampAdvancesAtLeastOneTickOnInstantSwitch() {
        var rewriter = StreamRewriter()
        _ = rewriter.rewrite(packet(1, seq: 1, ts: 500, switching: true, at: 1_000))
        let switched = header(rewriter.rewrite(packet(2, seq: 9, ts: 7, key: true, switching: true, at: 990)))
        #expect(switched?.timestamp == 501)
    }

    @Test func tl0PicIdxContinuesAtNewSourcesFirstTL0() {
        var rewriter = StreamRewriter()
        _ = rewriter.rewrite(packet(1, seq: 1, tl0: 40, switching: true))
        let nonBase = header(rewriter.rewrite(packet(2, seq: 100, pid: 0, tl0: 200, tid: 1, switching: true)))
        let base = header(rewriter.rewrite(packet(2, seq: 101, pid: 1, tl0: 201, tid: 0)))
        #expect(nonBase?.tl0PicIdx == 40)
        #expect(base?.tl0PicIdx == 41)
    }

    @Test func latePacketsFromPreviousSourceAreDroppedAndCounted() {
        var rewriter = StreamRewriter()
        _ = rewriter.rewrite(packet(1, seq: 1, switching: true))
        _ = rewriter.rewrite(packet(2, seq: 500, key: true, switching: true))
        let result2 = rewriter.rewrite(packet(1, seq: 2))
        #expect(result2 == .drop(.lateFromPreviousSource))
        #expect(rewriter.lateFromPreviousSourceCount == 1)
        let result3 = rewriter.rewrite(packet(9, seq: 2))
        #expect(result3 == .drop(.notCurrentSource))
    }

    @Test func packetsPrecedingTheSwitchPointAreRefused() {
        var rewriter = StreamRewriter()
        _ = rewriter.rewrite(packet(2, seq: 500, pid: 10, key: true, switching: true))
        let result4 = rewriter.rewrite(packet(2, seq: 499, pid: 9))
        #expect(result4 == .drop(.leftOut))
    }

    @Test func nothingIsForwardedBeforeTheFirstSource() {
        var rewriter = StreamRewriter()
        let result5 = rewriter.rewrite(packet(1, seq: 1))
        #expect(result5 == .drop(.notStarted))
    }

    @Test func packetsTooFarBehindLeftOutHistoryAreRefused() {
        var rewriter = StreamRewriter()
        _ = rewriter.rewrite(packet(1, seq: 1_000, switching: true))
        _ = rewriter.rewrite(packet(1, seq: 1_001))
        for seq in UInt16(1_003)...1_602 { rewriter.packetLeftOut(sourceId: 1, sequenceNumber: seq, pictureId: 1) }
        let result6 = rewriter.rewrite(packet(1, seq: 1_002))
        #expect(result6 == .drop(.tooOld))
    }

    @Test func leftOutReportsForOtherSourcesAreIgnored() {
        var rewriter = StreamRewriter()
        _ = rewriter.rewrite(packet(1, seq: 10, switching: true))
        let accepted = rewriter.packetLeftOut(sourceId: 2, sequenceNumber: 11, pictureId: 1)
        #expect(!accepted)
        let next = header(rewriter.rewrite(packet(1, seq: 11, pid: 1)))
        #expect(next?.sequenceNumber == 11)
    }

    @Test func nackMapsRewrittenSequenceToOriginalSource() {
        var rewriter = StreamRewriter()
        _ = rewriter.rewrite(packet(1, seq: 10, switching: true))
        let sent = header(rewriter.rewrite(packet(2, seq: 5_000, ts: 77, key: true, switching: true, at: 20)))
        let origin = sent.flatMap { rewriter.origin(ofSequenceNumber: $0.sequenceNumber) }
        #expect(origin?.sourceId == 2)
        #expect(origin?.originalSequenceNumber == 5_000)
        #expect(origin?.header == sent)
        #expect(rewriter.origin(ofSequenceNumber: 12) == nil)
    }

    @Test func nackMapIsBounded() {
        var rewriter = StreamRewriter(nackHistoryCapacity: 16)
        _ = rewriter.rewrite(packet(1, seq: 0, switching: true))
        for seq in UInt16(1)...40 { _ = rewriter.rewrite(packet(1, seq: seq, first: false)) }
        #expect(rewriter.origin(ofSequenceNumber: 40)?.originalSequenceNumber == 40)
        #expect(rewriter.origin(ofSequenceNumber: 24) == nil)
        #expect(rewriter.origin(ofSequenceNumber: 25)?.originalSequenceNumber == 25)
    }
}
