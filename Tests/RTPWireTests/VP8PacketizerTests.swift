import Testing
@testable import RTPWire

func makeFrame(length: Int, keyFrame: Bool = false, temporalId: UInt8 = 0, layerSync: Bool = false,
               timestamp: UInt32 = 90_000, seed: UInt64 = 1) -> EncodedFrame {
    var generator = SeededGenerator(seed: seed)
    var data = randomBytes(count: length, using: &generator)
    if !data.isEmpty {
        // The P bit of the first VP8 byte says key (0) or delta (1) frame (RFC 7741 §4.3).
        data[0] = keyFrame ? data[0] & 0xFE : data[0] | 0x01
    }
    return EncodedFrame(spatialIndex: 0, width: 640, height: 360, temporalId: temporalId,
                        layerSync: layerSync, keyFrame: keyFrame, rtpTimestamp: timestamp, data: data)
}

@Suite struct VP8PacketizerTests {
    func packetizer(budget: Int = 1200, pictureID: UInt16 = 100, tl0: UInt8 = 7) -> VP8Packetizer {
        VP8Packetizer(payloadBudget: budget, initialPictureID: pictureID, initialTL0PicIdx: tl0)
    }

    func reassemble(_ payloads: [(payload: [UInt8], isLast: Bool)]) throws -> [UInt8] {
        var data: [UInt8] = []
        for item in payloads { data += try VP8PayloadDescriptor.parse(item.payload[...]).vp8Data }
        return data
    }

    @Test func frameSmallerThanOnePacketIsOnePayload() throws {
        var packetizer = packetizer()
        let frame = makeFrame(length: 100, keyFrame: true)
        let payloads = try packetizer.packetize(frame)
        #expect(payloads.count == 1)
        #expect(payloads[0].isLast)
        #expect(payloads[0].payload.count == 100 + VP8Packetizer.descriptorLength)
        #expect(try reassemble(payloads) == frame.data)
    }

    @Test func frameFillingExactlyOneBudgetIsOnePayload() throws {
        var packetizer = packetizer(budget: 1200)
        let frame = makeFrame(length: 1200 - VP8Packetizer.descriptorLength)
        let payloads = try packetizer.packetize(frame)
        #expect(payloads.count == 1)
        #expect(payloads[0].payload.count == 1200)
    }

    @Test func frameOneByteOverTheBudgetIsTwoNearlyEqualPayloads() throws {
        var packetizer = packetizer(budget: 1200)
        let frame = makeFrame(length: 1200 - VP8Packetizer.descriptorLength + 1)
        let payloads = try packetizer.packetize(frame)
        #expect(payloads.count == 2)
        let sizes = payloads.map { $0.payload.count }
        #expect(sizes.allSatisfy { $0 <= 1200 })
        #expect((sizes.max() ?? 0) - (sizes.min() ?? 0) <= 1)
        #expect(payloads.map(\.isLast) == [false, true])
        #expect(try reassemble(payloads) == frame.data)
    }

    @Test func twoHundredKilobyteKeyFrameSplitsWithinBudgetEvenlyAndReassembles() throws {
        var packetizer = packetizer(budget: 1200)
        let frame = makeFrame(length: 200 * 1024, keyFrame: true)
        let payloads = try packetizer.packetize(frame)
        let sizes = payloads.map { $0.payload.count }
        #expect(payloads.count == (200 * 1024 + 1193) / 1194)
        #expect(sizes.allSatisfy { $0 <= 1200 })
        #expect((sizes.max() ?? 0) - (sizes.min() ?? 0) <= 1)
        let descriptors = try payloads.map { try VP8PayloadDescriptor.parse($0.payload[...]).descriptor }
        #expect(descriptors.map(\.startOfPartition) == [true] + Array(repeating: false, count: payloads.count - 1))
        #expect(descriptors.allSatisfy { $0.partitionIndex == 0 })
        #expect(payloads.map(\.isLast) == Array(repeating: false, count: payloads.count - 1) + [true])
        #expect(try reassemble(payloads) == frame.data)
    }

    @Test func everyPayloadCarriesFifteenBitPictureIDTL0PicIdxTIDAndKeyIdx() throws {
        var packetizer = packetizer(pictureID: 5, tl0: 9)
        let payloads = try packetizer.packetize(makeFrame(length: 3000, temporalId: 0, layerSync: true))
        for item in payloads {
            let descriptor = try VP8PayloadDescriptor.parse(item.payload[...]).descriptor
            #expect(descriptor.pictureID == .fifteenBit(5))
            #expect(descriptor.tl0PicIdx == 9)
            #expect(descriptor.temporalID == 0)
            #expect(descriptor.layerSync)
            #expect(descriptor.keyIndex == 0)
            #expect(descriptor.encodedLength == VP8Packetizer.descriptorLength)
        }
    }

    @Test func pictureIDIncrementsPerFrameAndWrapsAt15Bits() throws {
        var packetizer = packetizer(pictureID: 0x7FFE)
        var ids: [UInt16?] = []
        for _ in 0..<3 {
            let payload = try packetizer.packetize(makeFrame(length: 10))[0].payload
            ids.append(try VP8PayloadDescriptor.parse(payload[...]).descriptor.pictureID?.value)
        }
        #expect(ids == [0x7FFE, 0x7FFF, 0])
        #expect(packetizer.nextPictureID == 1)
    }

    @Test func tl0PicIdxIncrementsOnTL0FramesOnlyAndWraps() throws {
        var packetizer = packetizer(tl0: 254)
        var seen: [UInt8?] = []
        for tid: UInt8 in [0, 2, 1, 2, 0, 2, 1, 2, 0] {
            let payload = try packetizer.packetize(makeFrame(length: 10, temporalId: tid))[0].payload
            seen.append(try VP8PayloadDescriptor.parse(payload[...]).descriptor.tl0PicIdx)
        }
        #expect(seen == [254, 254, 254, 254, 255, 255, 255, 255, 0])
    }

    @Test func keyIdxIncrementsPerKeyFrameAfterTheFirst() throws {
        var packetizer = packetizer()
        var seen: [UInt8?] = []
        for key in [true, false, true, true] {
            let payload = try packetizer.packetize(makeFrame(length: 10, keyFrame: key))[0].payload
            seen.append(try VP8PayloadDescriptor.parse(payload[...]).descriptor.keyIndex)
        }
        #expect(seen == [0, 0, 1, 2])
    }

    @Test func emptyFrameIsRejected() {
        var packetizer = packetizer()
        #expect(throws: PacketizerError.emptyFrame) { try packetizer.packetize(makeFrame(length: 0)) }
        #expect(packetizer.nextPictureID == 100)
    }

    @Test func budgetTooSmallForDescriptorPlusOneByteIsRejected() throws {
        var tooSmall = packetizer(budget: VP8Packetizer.descriptorLength)
        #expect(throws: PacketizerError.payloadBudgetTooSmall(budget: 6, minimum: 7)) {
            try tooSmall.packetize(makeFrame(length: 10))
        }
        var negative = packetizer(budget: Int.min)
        #expect(throws: PacketizerError.self) { try negative.packetize(makeFrame(length: 10)) }
        var smallest = packetizer(budget: VP8Packetizer.descriptorLength + 1)
        let payloads = try smallest.packetize(makeFrame(length: 10))
        #expect(payloads.count == 10)
    }

    @Test func temporalIdAbove3IsRejected() {
        var packetizer = packetizer()
        #expect(throws: PacketizerError.outOfRange(field: "VP8 TID", value: 4)) {
            try packetizer.packetize(makeFrame(length: 10, temporalId: 4))
        }
    }

    @Test func seededGeneratorGivesReproducibleInitialCounters() {
        var first = SeededGenerator(seed: 42)
        var second = SeededGenerator(seed: 42)
        let a = VP8Packetizer(using: &first)
        let b = VP8Packetizer(using: &second)
        #expect(a.nextPictureID == b.nextPictureID)
        #expect(a.currentTL0PicIdx == b.currentTL0PicIdx)
        #expect(a.nextPictureID <= 0x7FFF)
    }

    @Test func payloadsReuseOneBufferInsteadOfAllocatingPerPacket() throws {
        var packetizer = packetizer(budget: 1200)
        var addresses: Set<UInt> = []
        try packetizer.packetize(makeFrame(length: 20_000)) { payload, _ in
            let address = payload.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) }; addresses.insert(address)
        }
        try packetizer.packetize(makeFrame(length: 20_000)) { payload, _ in
            let address = payload.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) }; addresses.insert(address)
        }
        #expect(addresses.count == 1)
    }
}
