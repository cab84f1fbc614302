import Testing
@testable import RTPWire

/// One RTP packet's worth of input for the assembler.
struct TestPacket {
    var seq: UInt16
    var timestamp: UInt32
    var marker: Bool
    var payload: [UInt8]
}

/// Packetizes frames onto consecutive sequence numbers, like a sender would.
struct TestStream {
    var packetizer: VP8Packetizer
    var nextSeq: UInt16
    var nextTimestamp: UInt32 = 3000
    var budget: Int

    init(firstSeq: UInt16 = 1000, pictureID: UInt16 = 10, tl0: UInt8 = 0, budget: Int = 200) {
        packetizer = VP8Packetizer(payloadBudget: budget, initialPictureID: pictureID, initialTL0PicIdx: tl0)
        nextSeq = firstSeq
        self.budget = budget
    }

    /// Returns the frame's data and its packets.
    mutating func frame(length: Int, keyFrame: Bool = false, temporalId: UInt8 = 0,
                        layerSync: Bool = false, seed: UInt64 = 7) throws -> (data: [UInt8], packets: [TestPacket]) {
        let frame = makeFrame(length: length, keyFrame: keyFrame, temporalId: temporalId, layerSync: layerSync,
                              timestamp: nextTimestamp, seed: seed)
        var packets: [TestPacket] = []
        for item in try packetizer.packetize(frame) {
            packets.append(TestPacket(seq: nextSeq, timestamp: nextTimestamp, marker: item.isLast, payload: item.payload))
            nextSeq &+= 1
        }
        nextTimestamp &+= 3000
        return (frame.data, packets)
    }
}

extension VP8FrameAssembler {
    mutating func feed(_ packets: [TestPacket]) throws -> [VP8AssembledFrame] {
        var frames: [VP8AssembledFrame] = []
        for packet in packets {
            frames += try insert(sequenceNumber: packet.seq, timestamp: packet.timestamp, marker: packet.marker,
                                 payload: packet.payload[...])
        }
        return frames
    }
}

@Suite struct VP8FrameAssemblerTests {
    /// The ring of waiting packets starts small and grows while packets wait: a key frame of 300
    /// packets arriving last-first (its start across the 16-bit wrap) completes whole, and then
    /// a frame whose first packet comes last completes too, with every byte in place.
    @Test func framesLongerThanTheInitialRingCompleteInAnyOrder() throws {
        var stream = TestStream(firstSeq: 65_400, budget: 100)
        let key = try stream.frame(length: 30_000, keyFrame: true)
        #expect(key.packets.count >= 300)
        var assembler = VP8FrameAssembler()
        var frames = try assembler.feed(Array(key.packets.reversed()))
        #expect(frames.map(\.data) == [key.data])
        #expect(frames.first?.decodable == true)
        let delta = try stream.frame(length: 9_000, seed: 11)
        frames = try assembler.feed(Array(delta.packets.dropFirst()) + [delta.packets[0]])
        #expect(frames.map(\.data) == [delta.data])
        #expect(frames.first?.decodable == true)
        #expect(assembler.bufferedPacketCount == 0)
    }

    @Test func inOrderPacketsGiveOneCompleteKeyFrame() throws {
        var stream = TestStream()
        let (data, packets) = try stream.frame(length: 1000, keyFrame: true)
        var assembler = VP8FrameAssembler()
        let frames = try assembler.feed(packets)
        #expect(frames.count == 1)
        let frame = try #require(frames.first)
        #expect(frame.data == data)
        #expect(frame.keyFrame && frame.decodable && frame.isComplete)
        #expect(frame.pictureID == 10)
        #expect(frame.tl0PicIdx == 0)
        #expect(frame.temporalId == 0)
        #expect(frame.timestamp == 3000)
        #expect(frame.firstSequenceNumber == 1000)
        #expect(frame.lastSequenceNumber == packets.last?.seq)
        #expect(assembler.bufferedPacketCount == 0)
        #expect(assembler.missingSequenceNumbers().isEmpty)
    }

    @Test func frameIsReportedOnlyWhenItsLastMissingPacketArrives() throws {
        var stream = TestStream()
        let (_, packets) = try stream.frame(length: 1000, keyFrame: true)
        var assembler = VP8FrameAssembler()
        #expect(try assembler.feed(Array(packets.dropFirst())).isEmpty)
        #expect(try assembler.feed([packets[0]]).count == 1)
    }

    @Test func shuffledPacketsOfSeveralFramesAllComplete() throws {
        var stream = TestStream()
        var expected: [UInt32: [UInt8]] = [:]
        var all: [TestPacket] = []
        for index in 0..<5 {
            let (data, packets) = try stream.frame(length: 700 + index * 50, keyFrame: index == 0, seed: UInt64(index))
            expected[packets[0].timestamp] = data
            all += packets
        }
        var generator = SeededGenerator(seed: 99)
        all.shuffle(using: &generator)
        var assembler = VP8FrameAssembler()
        let frames = try assembler.feed(all)
        #expect(frames.count == 5)
        for frame in frames { #expect(frame.data == expected[frame.timestamp]) }
        #expect(assembler.bufferedPacketCount == 0)
    }

    @Test func duplicatedPacketsReportEachFrameOnce() throws {
        var stream = TestStream()
        var all: [TestPacket] = []
        for index in 0..<3 { all += try stream.frame(length: 600, keyFrame: index == 0).packets }
        var generator = SeededGenerator(seed: 5)
        var doubled = all + all + all.prefix(4)
        doubled.shuffle(using: &generator)
        var assembler = VP8FrameAssembler()
        let frames = try assembler.feed(doubled)
        #expect(frames.count == 3)
        #expect(Set(frames.map(\.timestamp)).count == 3)
        // Replaying everything again after completion reports nothing.
        #expect(try assembler.feed(all).isEmpty)
    }

    @Test func singlePacketFrameDuplicateAfterCompletionIsIgnored() throws {
        var stream = TestStream()
        let (_, packets) = try stream.frame(length: 50, keyFrame: true)
        #expect(packets.count == 1)
        var assembler = VP8FrameAssembler()
        #expect(try assembler.feed(packets).count == 1)
        #expect(try assembler.feed(packets).isEmpty)
    }

    @Test func frameMissingAnyOnePacketIsNeverReported() throws {
        var stream = TestStream()
        let (_, packets) = try stream.frame(length: 1800, keyFrame: true)
        let (_, next) = try stream.frame(length: 300)
        var generator = SeededGenerator(seed: 11)
        for dropped in packets.indices {
            var subset = packets
            subset.remove(at: dropped)
            subset += next  // the following frame's packets must not close the gap either
            subset.shuffle(using: &generator)
            var assembler = VP8FrameAssembler()
            let frames = try assembler.feed(subset)
            #expect(!frames.contains { $0.timestamp == packets[0].timestamp }, "dropped \(dropped)")
            // Nothing before the first packet ever received can be known to be missing.
            let expectedMissing = dropped == 0 ? [] : [packets[dropped].seq]
            #expect(assembler.missingSequenceNumbers() == expectedMissing, "dropped \(dropped)")
        }
    }

    @Test func lossyOrderRecoversWhenRetransmissionArrives() throws {
        var stream = TestStream()
        var all: [TestPacket] = []
        for index in 0..<4 { all += try stream.frame(length: 500, keyFrame: index == 0).packets }
        let lost = [all[2], all[7]]
        let received = all.filter { packet in !lost.contains { $0.seq == packet.seq } }
        var assembler = VP8FrameAssembler()
        let before = try assembler.feed(received)
        #expect(assembler.missingSequenceNumbers() == lost.map(\.seq))
        let after = try assembler.feed(lost)
        #expect(before.count + after.count == 4)
        #expect(assembler.missingSequenceNumbers().isEmpty)
    }

    @Test func sequenceNumberWrapInsideAFrame() throws {
        var stream = TestStream(firstSeq: 65530)
        let (data, packets) = try stream.frame(length: 2000, keyFrame: true)
        #expect(packets.contains { $0.seq == 65535 } && packets.contains { $0.seq == 0 })
        var generator = SeededGenerator(seed: 3)
        var assembler = VP8FrameAssembler()
        let frames = try assembler.feed(packets.shuffled(using: &generator))
        #expect(frames.count == 1)
        #expect(frames.first?.data == data)
        #expect(frames.first?.firstSequenceNumber == 65530)
        #expect(frames.first?.lastSequenceNumber == packets.last?.seq)
    }

    @Test func pictureIDWrapAt0x7FFFKeepsTheChainDecodable() throws {
        var stream = TestStream(pictureID: 0x7FFE)
        var all: [TestPacket] = []
        for index in 0..<4 { all += try stream.frame(length: 400, keyFrame: index == 0).packets }
        var assembler = VP8FrameAssembler()
        let frames = try assembler.feed(all)
        #expect(frames.map(\.pictureID) == [0x7FFE, 0x7FFF, 0, 1])
        #expect(frames.allSatisfy { $0.decodable })
    }

    @Test func temporalLayerFramesAreDecodableWhenTheirReferencesWere() throws {
        var stream = TestStream()
        var all: [TestPacket] = []
        let pattern: [(UInt8, Bool)] = [(0, false), (2, true), (1, true), (2, false), (0, false), (2, false), (1, false), (2, false)]
        for (index, (tid, sync)) in pattern.enumerated() {
            all += try stream.frame(length: 300, keyFrame: index == 0, temporalId: tid, layerSync: sync).packets
        }
        var assembler = VP8FrameAssembler()
        let frames = try assembler.feed(all)
        #expect(frames.count == pattern.count)
        #expect(frames.allSatisfy { $0.decodable })
        #expect(frames.map(\.tl0PicIdx) == [0, 0, 0, 0, 1, 1, 1, 1])
    }

    @Test func lostTL0FrameMakesDependentFramesUndecodableUntilTheNextKeyFrame() throws {
        var stream = TestStream()
        var frames: [[TestPacket]] = []
        for (index, tid) in ([0, 2, 1, 2, 0, 2, 1, 2, 0] as [UInt8]).enumerated() {
            frames.append(try stream.frame(length: 300, keyFrame: index == 0, temporalId: tid).packets)
        }
        let key = try stream.frame(length: 300, keyFrame: true).packets
        let after = try stream.frame(length: 300, temporalId: 0).packets
        var assembler = VP8FrameAssembler()
        var out: [VP8AssembledFrame] = []
        for (index, packets) in frames.enumerated() where index != 4 {  // TL0 #1 lost entirely
            out += try assembler.feed(packets)
        }
        out += try assembler.feed(key)
        out += try assembler.feed(after)
        #expect(out.map(\.decodable) == [true, true, true, true, false, false, false, false, true, true])
    }

    @Test func temporalFrameWithoutSyncNeedsTheFramesBetweenItAndItsTL0() throws {
        var stream = TestStream()
        var frames: [[TestPacket]] = []
        for (index, tid) in ([0, 2, 1, 2] as [UInt8]).enumerated() {
            frames.append(try stream.frame(length: 300, keyFrame: index == 0, temporalId: tid).packets)
        }
        var assembler = VP8FrameAssembler()
        let out = try assembler.feed(frames[0]) + assembler.feed(frames[2]) + assembler.feed(frames[3])
        // The TL1 frame follows a missing TL2 frame and has Y = 0, so it is not decodable; nor is the TL2 after it.
        #expect(out.map(\.decodable) == [true, false, false])
    }

    @Test func deltaFrameBeforeAnyKeyFrameIsNotDecodable() throws {
        var stream = TestStream()
        let packets = try stream.frame(length: 300, keyFrame: false).packets
        var assembler = VP8FrameAssembler()
        let frames = try assembler.feed(packets)
        #expect(frames.count == 1)
        #expect(frames.first?.decodable == false)
        #expect(frames.first?.keyFrame == false)
    }

    @Test func missingSequenceNumbersAreBoundedByTheLimit() throws {
        var assembler = VP8FrameAssembler()
        var stream = TestStream(firstSeq: 0)
        let packets = try stream.frame(length: 300, keyFrame: true).packets
        _ = try assembler.feed([packets[0]])
        var last = packets[0]
        last.seq = 500
        _ = try assembler.feed([last])
        #expect(assembler.missingSequenceNumbers(limit: 10) == Array(1...10))
        #expect(assembler.missingSequenceNumbers().count == 256)
    }

    @Test func memoryStaysBoundedUnderEndlessLoss() throws {
        var assembler = VP8FrameAssembler(maxPacketAge: 256)
        var stream = TestStream(firstSeq: 60000)
        for index in 0..<400 {
            let packets = try stream.frame(length: 500, keyFrame: index == 0).packets
            _ = try assembler.feed(Array(packets.dropLast()))  // the last packet of every frame is lost
        }
        #expect(assembler.bufferedPacketCount <= 256 + 64)  // eviction is amortized over 64 steps
        #expect(assembler.missingSequenceNumbers(limit: 1000).count <= 256)
    }

    @Test func packetsOlderThanTheWindowAreDropped() throws {
        var assembler = VP8FrameAssembler(maxPacketAge: 100)
        var stream = TestStream(firstSeq: 0)
        let old = try stream.frame(length: 500, keyFrame: true).packets
        stream.nextSeq = 1000
        let fresh = try stream.frame(length: 500, keyFrame: true).packets
        _ = try assembler.feed(Array(old.dropFirst()))
        #expect(try assembler.feed(fresh).count == 1)
        #expect(try assembler.feed([old[0]]).isEmpty)
        #expect(assembler.bufferedPacketCount == 0)
    }

    @Test func malformedDescriptorThrowsWireErrorAndIsIgnored() throws {
        var assembler = VP8FrameAssembler()
        #expect(wireError { () throws(WireError) in
            try assembler.insert(sequenceNumber: 1, timestamp: 1, marker: true, payload: [0x80][...])
        }?.name == "truncated")
        #expect(assembler.bufferedPacketCount == 0)
    }

    @Test func acceptsParsedRTPPackets() throws {
        var stream = TestStream()
        let (data, packets) = try stream.frame(length: 500, keyFrame: true)
        var assembler = VP8FrameAssembler()
        var frames: [VP8AssembledFrame] = []
        for packet in packets {
            let rtp = RTPPacket(header: RTPHeader(marker: packet.marker, payloadType: 96, sequenceNumber: packet.seq,
                                                  timestamp: packet.timestamp, ssrc: 1), payload: packet.payload)
            frames += try assembler.insert(RTPPacket(parsing: rtp.serialized()))
        }
        #expect(frames.map(\.data) == [data])
    }
}

@Suite struct VP8FrameAssemblerPropertyTests {
    @Test func underRandomLossDuplicationAndReorderingEveryReportedFrameIsExact() throws {
        var generator = SeededGenerator(seed: 0xC0FFEE)
        for round in 0..<20 {
            var stream = TestStream(firstSeq: UInt16.random(in: 0...UInt16.max, using: &generator),
                                    pictureID: UInt16.random(in: 0...0x7FFF, using: &generator))
            var originals: [UInt32: (data: [UInt8], seqs: [UInt16])] = [:]
            var sent: [TestPacket] = []
            for index in 0..<30 {
                let tid: UInt8 = [0, 2, 1, 2][index % 4]
                let (data, packets) = try stream.frame(length: Int.random(in: 1...1500, using: &generator),
                                                       keyFrame: index % 10 == 0, temporalId: tid,
                                                       seed: UInt64(round * 100 + index))
                originals[packets[0].timestamp] = (data, packets.map(\.seq))
                sent += packets
            }
            var delivered: [TestPacket] = []
            var droppedSeqs: Set<UInt16> = []
            for packet in sent {
                let roll = Int.random(in: 0..<100, using: &generator)
                if roll < 8 { droppedSeqs.insert(packet.seq); continue }
                delivered.append(packet)
                if roll > 92 { delivered.append(packet) }
            }
            // Local reordering: shuffle within windows of 8.
            var reordered: [TestPacket] = []
            var index = 0
            while index < delivered.count {
                let end = min(index + 8, delivered.count)
                reordered += delivered[index..<end].shuffled(using: &generator)
                index = end
            }
            var assembler = VP8FrameAssembler()
            let frames = try assembler.feed(reordered)
            #expect(frames.count > 5, "round \(round) reported too few frames to mean anything")
            var reported: Set<UInt32> = []
            for frame in frames {
                let original = try #require(originals[frame.timestamp])
                #expect(frame.data == original.data)
                #expect(original.seqs.allSatisfy { !droppedSeqs.contains($0) })
                #expect(!reported.contains(frame.timestamp))
                reported.insert(frame.timestamp)
            }
            // A fully delivered frame goes unreported only when a later key frame completed first
            // (the assembler then discards everything older than that key frame).
            let keyTimestamps = frames.filter(\.keyFrame).map(\.timestamp)
            for (timestamp, original) in originals where !reported.contains(timestamp) {
                let lost = original.seqs.contains { droppedSeqs.contains($0) }
                #expect(lost || keyTimestamps.contains { $0 > timestamp })
            }
        }
    }
}

@Suite struct VP8FrameAssemblerRestartTests {
    @Test func senderRestartingSequenceNumbersFarAwayIsFollowedAfterTheThreshold() throws {
        var stream = TestStream(firstSeq: 1000)
        var assembler = VP8FrameAssembler()
        #expect(try assembler.feed(stream.frame(length: 300, keyFrame: true).packets).count == 1)
        stream.nextSeq = 1000 &+ 40000  // more than 2^15 ahead: looks 25536 behind
        var reported: [VP8AssembledFrame] = []
        for index in 0..<40 {
            reported += try assembler.feed(stream.frame(length: 600, keyFrame: index % 10 == 0).packets)
        }
        #expect(!reported.isEmpty)
        #expect(reported.allSatisfy { $0.firstSequenceNumber >= 41000 })
    }

    @Test func lateRetransmissionsWithinTheWindowDoNotResetTheAssembler() throws {
        var stream = TestStream(firstSeq: 0)
        var assembler = VP8FrameAssembler()
        let early = try stream.frame(length: 300, keyFrame: true).packets
        var pending: [TestPacket] = []
        for _ in 0..<30 { pending += try stream.frame(length: 600).packets.dropFirst() }  // every first packet lost
        _ = try assembler.feed(early)
        _ = try assembler.feed(pending)
        let key = try stream.frame(length: 300, keyFrame: true).packets
        #expect(try assembler.feed(key).count == 1)
        // Old packets (before the key frame) replayed in bulk are ignored, not a restart.
        #expect(try assembler.feed(pending + pending).isEmpty)
        let next = try stream.frame(length: 300).packets
        #expect(try assembler.feed(next).map(\.decodable) == [true])
    }
}
