import RTPWire

struct WireBenchError: Error, CustomStringConvertible {
    var description: String
}

/// The synthetic media every wire operation works on: one 1280x720 VP8 key frame with a valid
/// key-frame header (RFC 6386 §9.1) followed by deterministic pseudo-random bytes, and the RTP
/// packets a publisher would send for it (one-byte extensions: MID, RID, abs-send-time,
/// transport-cc; VP8 payload descriptor with PictureID/TL0PICIDX/TID/KEYIDX).
struct WireFixtures {
    static let frameWidth = 1280, frameHeight = 720
    static let frameBytes = 120_000
    static let payloadBudget = VP8Packetizer.defaultPayloadBudget

    let map = RTPHeaderExtensionMap.defaults
    let mid: MediaIdentifier
    let rid: RTPStreamID
    let frame: EncodedFrame
    /// The frame's RTP payloads (descriptor + VP8 data), in order.
    let payloads: [[UInt8]]
    /// The frame's first packet, serialized with its header extensions.
    let packet: [UInt8]

    init() throws {
        mid = try MediaIdentifier("0")
        rid = try RTPStreamID("h")
        var data: [UInt8] = []
        data.reserveCapacity(WireFixtures.frameBytes)
        let header = VP8PayloadHeader(version: 0, showFrame: true, firstPartitionSize: 18_000,
                                      keyFrameInfo: .init(width: UInt16(WireFixtures.frameWidth),
                                                          height: UInt16(WireFixtures.frameHeight)))
        try header.serialize(into: &data)
        var random = SplitMix64(seed: 0x5EED_0F_F1AE)  // stands in for entropy-coded VP8 data
        while data.count < WireFixtures.frameBytes {
            let z = random.next()
            for shift in stride(from: 0, to: 64, by: 8) where data.count < WireFixtures.frameBytes {
                data.append(UInt8(truncatingIfNeeded: z >> UInt64(shift)))
            }
        }
        frame = EncodedFrame(spatialIndex: 2, width: WireFixtures.frameWidth, height: WireFixtures.frameHeight,
                             temporalId: 0, layerSync: false, keyFrame: true, rtpTimestamp: 90_000, data: data)

        // The synthetic frame must read back as a 1280x720 key frame.
        let parsed = try VP8PayloadHeader(parsing: frame.data[...])
        guard parsed.keyFrameInfo?.width == UInt16(WireFixtures.frameWidth),
              parsed.keyFrameInfo?.height == UInt16(WireFixtures.frameHeight) else {
            throw WireBenchError(description: "synthetic VP8 key frame header does not parse back")
        }

        var packetizer = VP8Packetizer(payloadBudget: WireFixtures.payloadBudget, initialPictureID: 1234,
                                       initialTL0PicIdx: 7)
        payloads = try packetizer.packetize(frame).map(\.payload)

        var operation = try SerializeOperation(mid: mid, rid: rid, map: map, payload: payloads[0][...])
        try operation.iterate()
        packet = operation.buffer
        try check()
    }

    /// The operations' inputs round-trip: the packet parses back to what was written, and the
    /// payloads reassemble into the frame. Run once, outside any timing.
    private func check() throws {
        let parsed = try RTPPacket(parsing: packet)
        let extensions = parsed.header.extensions
        guard try extensions?.value(MediaIdentifier.self, map: map) == mid,
              try extensions?.value(RTPStreamID.self, map: map) == rid,
              try VP8PayloadDescriptor.parse(parsed.payload).descriptor.pictureID == .fifteenBit(1234),
              parsed.payload.elementsEqual(payloads[0])
        else { throw WireBenchError(description: "fixture packet does not parse back to what was written") }
        var assembler = VP8FrameAssembler()
        var frames: [VP8AssembledFrame] = []
        for (index, payload) in payloads.enumerated() {
            frames += try assembler.insert(sequenceNumber: UInt16(index), timestamp: frame.rtpTimestamp,
                                           marker: index == payloads.count - 1, payload: payload[...])
        }
        guard frames.count == 1, frames[0].data == frame.data, frames[0].keyFrame, frames[0].decodable else {
            throw WireBenchError(description: "fixture payloads do not reassemble into the key frame")
        }
    }

    /// Packets per frame under the payload budget.
    var packetsPerFrame: Int { payloads.count }
}

/// (a) Receive path: parse the RTP packet, read the four typed extension values and the VP8
/// payload descriptor. Everything is a view of `packet`.
struct ParseOperation: WireOperation {
    let packet: [UInt8]
    let map: RTPHeaderExtensionMap
    var checksum = 0

    mutating func iterate() throws {
        let parsed = try RTPPacket(parsing: packet[...])
        guard let extensions = parsed.header.extensions,
              let mid = try extensions.value(MediaIdentifier.self, map: map),
              let rid = try extensions.value(RTPStreamID.self, map: map),
              let sendTime = try extensions.value(AbsSendTime.self, map: map),
              let sequence = try extensions.value(TransportSequenceNumber.self, map: map)
        else { throw WireBenchError(description: "parsed packet lacks an extension") }
        let (descriptor, vp8Data) = try VP8PayloadDescriptor.parse(parsed.payload)
        checksum &+= Int(parsed.header.sequenceNumber) &+ mid.value.utf8.count &+ rid.value.utf8.count
            &+ Int(sendTime.rawValue) &+ Int(sequence.value) &+ Int(descriptor.pictureID?.value ?? 0)
            &+ vp8Data.count
    }
}

/// (b) Send path: serialize header + extensions (through the appender) + VP8 descriptor + data
/// into one reused buffer, advancing sequence number, abs-send-time and transport-cc per packet.
struct SerializeOperation: WireOperation {
    var buffer: [UInt8] = []
    var header = RTPHeader(marker: false, payloadType: 96, sequenceNumber: 4321, timestamp: 90_000,
                           ssrc: 0x1234_5678)
    var descriptor = VP8PayloadDescriptor(startOfPartition: true, pictureID: .fifteenBit(1234), tl0PicIdx: 7,
                                          temporalID: 0, keyIndex: 0)
    var transportSequence: UInt16 = 100
    var sendTimeMicroseconds: UInt64 = 1_000_000
    let mid: MediaIdentifier
    let rid: RTPStreamID
    let map: RTPHeaderExtensionMap
    /// The VP8 data after the descriptor.
    let vp8Data: ArraySlice<UInt8>
    var checksum = 0

    init(mid: MediaIdentifier, rid: RTPStreamID, map: RTPHeaderExtensionMap,
         payload: ArraySlice<UInt8>) throws {
        self.mid = mid
        self.rid = rid
        self.map = map
        let (descriptor, data) = try VP8PayloadDescriptor.parse(payload)
        self.descriptor = descriptor
        self.vp8Data = data
        buffer.reserveCapacity(1500)
    }

    init(fixtures: WireFixtures) throws {
        try self.init(mid: fixtures.mid, rid: fixtures.rid, map: fixtures.map,
                      payload: fixtures.payloads[0][...])
    }

    mutating func iterate() throws {
        buffer.removeAll(keepingCapacity: true)
        let sendTime = AbsSendTime(microseconds: sendTimeMicroseconds)
        let sequence = TransportSequenceNumber(transportSequence)
        try header.serialize(into: &buffer, extensionForm: .oneByte) {
            [mid, rid, map] (appender: inout RTPHeaderExtensionAppender) throws(WireError) in
            try appender.append(mid, map: map)
            try appender.append(rid, map: map)
            try appender.append(sendTime, map: map)
            try appender.append(sequence, map: map)
        }
        try descriptor.serialize(into: &buffer)
        buffer.append(contentsOf: vp8Data)
        checksum &+= buffer.count
        header.sequenceNumber &+= 1
        transportSequence &+= 1
        sendTimeMicroseconds &+= 33
    }
}

/// (c) Packetize the whole key frame into ≤1200-byte payloads (views of the packetizer's buffer).
struct PacketizeOperation: WireOperation {
    var packetizer = VP8Packetizer(payloadBudget: WireFixtures.payloadBudget, initialPictureID: 1,
                                   initialTL0PicIdx: 0)
    let frame: EncodedFrame
    var checksum = 0

    mutating func iterate() throws {
        var sum = 0
        try packetizer.packetize(frame) { payload, isLast in
            sum &+= payload.count &+ Int(payload[payload.startIndex]) &+ (isLast ? 1 : 0)
        }
        checksum &+= sum
    }
}

/// (d) Receive path: feed the assembler every packet of one key frame (sequence numbers and
/// timestamps advancing frame to frame, as from a live sender); each frame completes on its last packet.
struct AssembleOperation: WireOperation {
    var assembler = VP8FrameAssembler()
    let payloads: [ArraySlice<UInt8>]
    var sequenceNumber: UInt16 = 60_000  // wraps during the run
    var timestamp: UInt32 = 90_000
    var checksum = 0

    init(fixtures: WireFixtures) {
        payloads = fixtures.payloads.map { $0[...] }
    }

    mutating func iterate() throws {
        let last = payloads.count - 1
        var completed = 0
        for index in payloads.indices {
            let frames = try assembler.insert(sequenceNumber: sequenceNumber, timestamp: timestamp,
                                              marker: index == last, payload: payloads[index])
            sequenceNumber &+= 1
            for frame in frames where frame.decodable {
                completed += 1
                checksum &+= frame.data.count
            }
        }
        guard completed == 1 else {
            throw WireBenchError(description: "assembler completed \(completed) decodable frames, expected 1")
        }
        timestamp &+= 3000
    }
}
