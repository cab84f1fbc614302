import RTPWire

/// (a') Receive path through the zero-copy view: `RTPPacketView` over the packet, the typed
/// abs-send-time and transport-cc values looked up by id, and the VP8 payload descriptor — the
/// same work as pion/rtp's `Packet.Unmarshal` + two `GetExtension` calls + `VP8Packet.Unmarshal`
/// (Benchmarks/GoRTPParseComparison/main.go parses the very bytes this operation does). With `allExtensions`,
/// MID and RID are read too (as raw views: comparing them needs no String).
struct ViewParseOperation: WireOperation {
    let packet: [UInt8]
    let absSendTimeID: UInt8
    let transportSequenceID: UInt8
    let midID: UInt8
    let ridID: UInt8
    let allExtensions: Bool
    var checksum = 0

    init(packet: [UInt8], map: RTPHeaderExtensionMap, allExtensions: Bool) throws {
        guard let absSendTime = map.id(for: .absSendTime), let transport = map.id(for: .transportSequenceNumber),
              let mid = map.id(for: .mid), let rid = map.id(for: .rid) else {
            throw WireBenchError(description: "the extension map lacks an id the view operation reads")
        }
        self.packet = packet
        self.absSendTimeID = absSendTime
        self.transportSequenceID = transport
        self.midID = mid
        self.ridID = rid
        self.allExtensions = allExtensions
    }

    mutating func iterate() throws {
        let view = try RTPPacketView(packet[...])
        guard let sendTime = try view.extensionValue(AbsSendTime.self, id: absSendTimeID),
              let sequence = try view.extensionValue(TransportSequenceNumber.self, id: transportSequenceID)
        else { throw WireBenchError(description: "viewed packet lacks an extension") }
        let (descriptor, vp8Data) = try view.vp8Descriptor()
        var sum = Int(view.sequenceNumber) &+ Int(sendTime.rawValue) &+ Int(sequence.value)
            &+ Int(descriptor.pictureID?.value ?? 0) &+ vp8Data.count
        if allExtensions {
            guard let mid = try view.extensionData(id: midID), let rid = try view.extensionData(id: ridID) else {
                throw WireBenchError(description: "viewed packet lacks MID or RID")
            }
            sum &+= mid.count &+ rid.count &+ Int(mid[mid.startIndex]) &+ Int(rid[rid.startIndex])
        }
        checksum &+= sum
    }
}
