/// One RTCP packet of a compound packet (RFC 3550 §6.1, RFC 4585 §6.1, RFC 5104 §4.3).
public enum RTCPPacket: Sendable, Equatable {
    /// SR, RFC 3550 §6.4.1.
    case senderReport(SenderReport)
    /// RR, RFC 3550 §6.4.2.
    case receiverReport(ReceiverReport)
    /// SDES, RFC 3550 §6.5.
    case sourceDescription(SourceDescription)
    /// BYE, RFC 3550 §6.6.
    case goodbye(Goodbye)
    /// APP, RFC 3550 §6.7.
    case applicationDefined(ApplicationDefined)
    /// Generic NACK, RFC 4585 §6.2.1.
    case genericNACK(GenericNACK)
    /// Transport-wide CC feedback, draft-holmer-rmcat-transport-wide-cc-extensions-01 §3.1.
    case transportWideFeedback(TransportWideFeedback)
    /// PLI, RFC 4585 §6.3.1.
    case pictureLossIndication(PictureLossIndication)
    /// FIR, RFC 5104 §4.3.1.
    case fullIntraRequest(FullIntraRequest)
    /// REMB, draft-alvestrand-rmcat-remb-03 §2.2.
    case receiverEstimatedMaxBitrate(ReceiverEstimatedMaxBitrate)
    /// Any other PT or feedback FMT, kept raw.
    case unknown(UnknownRTCPPacket)

    /// The PT field this packet is written with.
    public var packetType: UInt8 {
        switch self {
        case .senderReport: return RTCPPacketType.senderReport
        case .receiverReport: return RTCPPacketType.receiverReport
        case .sourceDescription: return RTCPPacketType.sourceDescription
        case .goodbye: return RTCPPacketType.goodbye
        case .applicationDefined: return RTCPPacketType.applicationDefined
        case .genericNACK, .transportWideFeedback: return RTCPPacketType.transportFeedback
        case .pictureLossIndication, .fullIntraRequest, .receiverEstimatedMaxBitrate:
            return RTCPPacketType.payloadSpecificFeedback
        case let .unknown(packet): return packet.packetType
        }
    }
}

extension RTCPPacket {
    /// Interprets a packet body (header and padding already removed) by PT and count/FMT.
    static func parseBody(header: RTCPHeader, body: ArraySlice<UInt8>) throws(WireError) -> RTCPPacket {
        var reader = ByteReader(body)
        let count = header.countOrFormat
        switch (header.packetType, count) {
        case (RTCPPacketType.senderReport, _):
            return .senderReport(try SenderReport.parseBody(count: count, &reader))
        case (RTCPPacketType.receiverReport, _):
            return .receiverReport(try ReceiverReport.parseBody(count: count, &reader))
        case (RTCPPacketType.sourceDescription, _):
            return .sourceDescription(try SourceDescription.parseBody(count: count, &reader))
        case (RTCPPacketType.goodbye, _):
            return .goodbye(try Goodbye.parseBody(count: count, &reader))
        case (RTCPPacketType.applicationDefined, _):
            return .applicationDefined(try ApplicationDefined.parseBody(count: count, &reader))
        case (RTCPPacketType.transportFeedback, RTCPPacketType.genericNACKFormat):
            return .genericNACK(try GenericNACK.parseBody(&reader))
        case (RTCPPacketType.transportFeedback, RTCPPacketType.transportWideFeedbackFormat):
            return .transportWideFeedback(try TransportWideFeedback.parseBody(&reader))
        case (RTCPPacketType.payloadSpecificFeedback, RTCPPacketType.pictureLossIndicationFormat):
            return .pictureLossIndication(try PictureLossIndication.parseBody(&reader))
        case (RTCPPacketType.payloadSpecificFeedback, RTCPPacketType.fullIntraRequestFormat):
            return .fullIntraRequest(try FullIntraRequest.parseBody(&reader))
        case (RTCPPacketType.payloadSpecificFeedback, RTCPPacketType.applicationLayerFeedbackFormat)
            where ReceiverEstimatedMaxBitrate.matches(body):
            return .receiverEstimatedMaxBitrate(try ReceiverEstimatedMaxBitrate.parseBody(&reader))
        default:
            return .unknown(UnknownRTCPPacket(packetType: header.packetType, countOrFormat: count,
                                              body: Array(body)))
        }
    }

    /// The 5-bit count/FMT field this packet is written with.
    func headerCountOrFormat() throws(WireError) -> UInt8 {
        switch self {
        case let .senderReport(packet): return try packet.headerCount()
        case let .receiverReport(packet): return try packet.headerCount()
        case let .sourceDescription(packet): return try packet.headerCount()
        case let .goodbye(packet): return try packet.headerCount()
        case let .applicationDefined(packet): return try packet.headerCount()
        case .genericNACK: return RTCPPacketType.genericNACKFormat
        case .transportWideFeedback: return RTCPPacketType.transportWideFeedbackFormat
        case .pictureLossIndication: return RTCPPacketType.pictureLossIndicationFormat
        case .fullIntraRequest: return RTCPPacketType.fullIntraRequestFormat
        case .receiverEstimatedMaxBitrate: return RTCPPacketType.applicationLayerFeedbackFormat
        case let .unknown(packet):
            guard packet.countOrFormat <= 31 else {
                throw .outOfRange(field: "RTCP count/FMT", value: Int(packet.countOrFormat))
            }
            return packet.countOrFormat
        }
    }

    func serializeBody(into out: inout [UInt8]) throws(WireError) {
        switch self {
        case let .senderReport(packet): try packet.serializeBody(into: &out)
        case let .receiverReport(packet): try packet.serializeBody(into: &out)
        case let .sourceDescription(packet): try packet.serializeBody(into: &out)
        case let .goodbye(packet): try packet.serializeBody(into: &out)
        case let .applicationDefined(packet): try packet.serializeBody(into: &out)
        case let .genericNACK(packet): packet.serializeBody(into: &out)
        case let .transportWideFeedback(packet): try packet.serializeBody(into: &out)
        case let .pictureLossIndication(packet): packet.serializeBody(into: &out)
        case let .fullIntraRequest(packet): packet.serializeBody(into: &out)
        case let .receiverEstimatedMaxBitrate(packet): try packet.serializeBody(into: &out)
        case let .unknown(packet): out.append(contentsOf: packet.body)
        }
    }

    /// Appends header, body, null octets to the 32-bit boundary and, if `paddingLength` > 0,
    /// RFC 3550 padding whose last octet is `paddingLength`; then patches the length field.
    func serialize(into out: inout [UInt8], paddingLength: UInt8) throws(WireError) {
        let start = out.count
        let count = try headerCountOrFormat()
        out.appendUInt8(RTCPHeader.version << 6 | (paddingLength > 0 ? 0x20 : 0) | count)
        out.appendUInt8(packetType)
        out.appendUInt16(0)
        try serializeBody(into: &out)
        // Bodies that end mid-word (BYE reason, TWCC deltas) are completed with null octets so
        // that, together with any padding, the packet is a whole number of words.
        let unaligned = (out.count - start + Int(paddingLength)) % 4
        for _ in 0..<((4 - unaligned) % 4) { out.appendUInt8(0) }
        if paddingLength > 0 {
            for _ in 1..<paddingLength { out.appendUInt8(0) }
            out.appendUInt8(paddingLength)
        }
        let words = (out.count - start) / 4 - 1
        guard words <= Int(UInt16.max) else {
            throw .outOfRange(field: "RTCP length", value: out.count - start)
        }
        out.setUInt16(UInt16(words), at: start + 2)
    }
}
