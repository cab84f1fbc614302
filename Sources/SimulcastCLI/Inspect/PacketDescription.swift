import CommandLineSupport
import RTPWire

/// JSON descriptions of parsed packets for `simulcast inspect --hex`.
enum PacketDescription {
    static func rtp(_ packet: RTPPacket, options: InspectOptions) -> JSONValue {
        let header = packet.header
        var fields: [(String, JSONValue)] = [
            ("type", "rtp"), ("marker", .bool(header.marker)), ("payloadType", .int(Int(header.payloadType))),
            ("sequenceNumber", .int(Int(header.sequenceNumber))), ("timestamp", .int(Int(header.timestamp))),
            ("ssrc", .int(Int(header.ssrc))), ("csrcs", .array(header.csrcs.map { .int(Int($0)) })),
            ("paddingLength", .int(Int(packet.paddingLength))), ("payloadLength", .int(packet.payload.count)),
        ]
        if let extensions = header.extensions {
            fields.append(("extensions", headerExtensions(extensions, map: options.extensionMap)))
        }
        if options.vp8PayloadTypes.contains(header.payloadType) {
            fields.append(("vp8", vp8(packet.payload)))
        } else if options.opusPayloadTypes.contains(header.payloadType) {
            fields.append(("opus", opus(packet.payload)))
        }
        return .object(fields)
    }

    static func headerExtensions(_ extensions: RTPHeaderExtensions, map: RTPHeaderExtensionMap) -> JSONValue {
        let form: JSONValue
        switch extensions.form {
        case .oneByte: form = "one-byte"
        case .twoByte: form = "two-byte"
        case let .other(profile): form = .string("profile 0x" + String(profile, radix: 16))
        }
        var elements: [JSONValue] = []
        extensions.forEachElement { element in
            var fields: [(String, JSONValue)] = [("id", .int(Int(element.id))), ("length", .int(element.data.count))]
            if let kind = map.kind(for: element.id) {
                fields.append(("kind", .string(InspectOptions.extensionNames.first { $0.value == kind }?.key ?? kind.uri)))
                fields.append(("value", typedValue(kind, element.data)))
            } else {
                fields.append(("hex", .string(hex(element.data))))
            }
            elements.append(.object(fields))
        }
        return .object([("form", form), ("elements", .array(elements))])
    }

    private static func typedValue(_ kind: RTPHeaderExtensionKind, _ data: ArraySlice<UInt8>) -> JSONValue {
        do {
            switch kind {
            case .audioLevel:
                let value = try AudioLevel(extensionData: data)
                return .object([("voiceActivity", .bool(value.voiceActivity)), ("level", .int(Int(value.level)))])
            case .absSendTime:
                let value = try AbsSendTime(extensionData: data)
                return .object([("raw", .int(Int(value.rawValue))), ("seconds", .double(value.seconds))])
            case .transportSequenceNumber:
                return .int(Int(try TransportSequenceNumber(extensionData: data).value))
            case .mid: return .string(try MediaIdentifier(extensionData: data).value)
            case .rid: return .string(try RTPStreamID(extensionData: data).value)
            case .repairedRid: return .string(try RepairedRTPStreamID(extensionData: data).value)
            }
        } catch {
            return .object([("error", .string(error.name)), ("detail", .string(error.description))])
        }
    }

    static func vp8(_ payload: ArraySlice<UInt8>) -> JSONValue {
        do {
            let (descriptor, data) = try VP8PayloadDescriptor.parse(payload)
            var fields: [(String, JSONValue)] = [
                ("startOfPartition", .bool(descriptor.startOfPartition)),
                ("partitionIndex", .int(Int(descriptor.partitionIndex))),
                ("nonReference", .bool(descriptor.nonReference)),
                ("pictureID", descriptor.pictureID.map { .int(Int($0.value)) } ?? .null),
                ("pictureIDBits", descriptor.pictureID.map { .int($0.bitWidth) } ?? .null),
                ("tl0PicIdx", descriptor.tl0PicIdx.map { .int(Int($0)) } ?? .null),
                ("temporalId", descriptor.temporalID.map { .int(Int($0)) } ?? .null),
                ("layerSync", .bool(descriptor.layerSync)),
                ("keyIdx", descriptor.keyIndex.map { .int(Int($0)) } ?? .null),
                ("dataLength", .int(data.count)),
            ]
            if descriptor.isStartOfFrame, let header = try? VP8PayloadHeader(parsing: data) {
                fields.append(("keyFrame", .bool(header.isKeyFrame)))
                if let info = header.keyFrameInfo {
                    fields.append(("width", .int(Int(info.width))))
                    fields.append(("height", .int(Int(info.height))))
                }
            }
            return .object(fields)
        } catch {
            return .object([("error", .string(error.name)), ("detail", .string(error.description))])
        }
    }

    static func opus(_ payload: ArraySlice<UInt8>) -> JSONValue {
        do {
            let (_, info) = try OpusDepacketizer.depacketize(payload)
            return .object([("toc", .int(Int(info.toc.byte))), ("stereo", .bool(info.toc.stereo)),
                            ("frames", .int(info.frameCount)), ("samples", .int(info.samples))])
        } catch {
            return .object([("error", .string(error.name)), ("detail", .string(error.description))])
        }
    }

    static func rtcp(_ compound: RTCPCompoundPacket) -> JSONValue {
        .object([("type", "rtcp"), ("packets", .array(compound.packets.map(rtcpPacket)))])
    }

    private static func rtcpPacket(_ packet: RTCPPacket) -> JSONValue {
        switch packet {
        case let .senderReport(sr):
            return .object([("type", "SR"), ("ssrc", .int(Int(sr.ssrc))), ("ntpTimestamp", .int(Int(truncatingIfNeeded: sr.ntpTimestamp))),
                            ("rtpTimestamp", .int(Int(sr.rtpTimestamp))), ("packetCount", .int(Int(sr.packetCount))),
                            ("octetCount", .int(Int(sr.octetCount))), ("reportBlocks", .array(sr.reportBlocks.map(reportBlock)))])
        case let .receiverReport(rr):
            return .object([("type", "RR"), ("ssrc", .int(Int(rr.ssrc))), ("reportBlocks", .array(rr.reportBlocks.map(reportBlock)))])
        case let .sourceDescription(sdes):
            return .object([("type", "SDES"), ("chunks", .array(sdes.chunks.map { chunk in
                .object([("ssrc", .int(Int(chunk.ssrc))), ("cname", chunk.cname.map { .string($0) } ?? .null),
                         ("items", .int(chunk.items.count))])
            }))])
        case let .goodbye(bye):
            return .object([("type", "BYE"), ("ssrcs", .array(bye.ssrcs.map { .int(Int($0)) })),
                            ("reason", bye.reasonText.map { .string($0) } ?? .null)])
        case let .applicationDefined(app):
            return .object([("type", "APP"), ("subtype", .int(Int(app.subtype))), ("ssrc", .int(Int(app.ssrc)))])
        case let .genericNACK(nack):
            return .object([("type", "NACK"), ("senderSSRC", .int(Int(nack.senderSSRC))), ("mediaSSRC", .int(Int(nack.mediaSSRC))),
                            ("lost", .array(nack.lostSequenceNumbers.map { .int(Int($0)) }))])
        case let .pictureLossIndication(pli):
            return .object([("type", "PLI"), ("senderSSRC", .int(Int(pli.senderSSRC))), ("mediaSSRC", .int(Int(pli.mediaSSRC)))])
        case let .fullIntraRequest(fir):
            return .object([("type", "FIR"), ("senderSSRC", .int(Int(fir.senderSSRC))), ("entries", .array(fir.entries.map {
                .object([("ssrc", .int(Int($0.ssrc))), ("sequenceNumber", .int(Int($0.sequenceNumber)))])
            }))])
        case let .receiverEstimatedMaxBitrate(remb):
            return .object([("type", "REMB"), ("senderSSRC", .int(Int(remb.senderSSRC))),
                            ("bitrateBps", .int(Int(clamping: remb.bitrate))), ("ssrcs", .array(remb.ssrcs.map { .int(Int($0)) }))])
        case let .transportWideFeedback(twcc):
            let results = (try? twcc.packetResults()) ?? []
            return .object([("type", "TWCC"), ("senderSSRC", .int(Int(twcc.senderSSRC))), ("mediaSSRC", .int(Int(twcc.mediaSSRC))),
                            ("baseSequenceNumber", .int(Int(twcc.baseSequenceNumber))),
                            ("packetStatusCount", .int(Int(twcc.packetStatusCount))),
                            ("received", .int(results.filter(\.isReceived).count)),
                            ("feedbackPacketCount", .int(Int(twcc.feedbackPacketCount)))])
        case let .unknown(unknown):
            return .object([("type", "unknown"), ("packetType", .int(Int(unknown.packetType)))])
        }
    }

    private static func reportBlock(_ block: ReportBlock) -> JSONValue {
        .object([("ssrc", .int(Int(block.ssrc))), ("fractionLost", .int(Int(block.fractionLost))),
                 ("cumulativeLost", .int(Int(block.cumulativeLost))),
                 ("extendedHighestSequenceNumber", .int(Int(block.extendedHighestSequenceNumber))),
                 ("jitter", .int(Int(block.interarrivalJitter))), ("lsr", .int(Int(block.lastSenderReport))),
                 ("dlsr", .int(Int(block.delaySinceLastSenderReport)))])
    }

    static func hex(_ bytes: some Collection<UInt8>) -> String {
        let digits = Array("0123456789abcdef")
        var text = ""
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0xF)])
        }
        return text
    }
}
