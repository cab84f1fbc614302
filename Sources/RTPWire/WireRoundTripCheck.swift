/// The invariants each parser keeps on arbitrary input, in one place: the libFuzzer targets
/// (`Tests/Fuzz`, `make fuzz`) and the corpus replay unit test run exactly these checks.
///
/// Every check must not trap on any input (that is the first invariant); where a parse
/// succeeds, re-serializing and re-parsing must give the same value.
public enum WireRoundTripCheck: String, CaseIterable, Sendable {
    /// RTP with header extensions (RFC 3550, RFC 8285) and the typed extension values.
    case rtp
    /// `RTPPacketView` against `RTPPacket` as the oracle: same packets accepted, same fields.
    case rtpview
    /// VP8 payload descriptor and header (RFC 7741) and the frame assembler fed a packet sequence.
    case vp8
    /// Opus payload (RFC 7587, RFC 6716 §3 framing).
    case opus
    /// RTCP compound packets (RFC 3550 §6, RFC 4585, RFC 5104, REMB, transport-wide CC).
    case rtcp
    /// Classic pcap files, with `PcapWriter` as the oracle.
    case pcap
    /// STUN messages (RFC 8489, with TURN's methods and attributes, RFC 8656) with MESSAGE-INTEGRITY
    /// and FINGERPRINT checks, and TURN ChannelData (RFC 8656 §12.4) re-framed.
    case stun
    /// Session descriptions (RFC 8866), candidates, fingerprints, and an answer to a fixed offer.
    case sdp
    /// RFC 4571 framing: `StreamDeframer` on a stream cut into pieces, against a whole-stream walk.
    case framing

    /// Runs the check on `bytes`; returns the violated invariant, or nil when all hold.
    public func violation(in bytes: [UInt8]) -> String? {
        switch self {
        case .rtp: return Self.checkRTP(bytes)
        case .rtpview: return RTPPacketViewAgreement.violation(in: bytes[...])
        case .vp8: return Self.checkVP8(bytes)
        case .opus: return Self.checkOpus(bytes)
        case .rtcp: return Self.checkRTCP(bytes)
        case .pcap: return Self.checkPcap(bytes)
        case .stun: return Self.checkSTUN(bytes)
        case .sdp: return Self.checkSDP(bytes)
        case .framing: return StreamDeframerAgreement.violation(in: bytes)
        }
    }

    private static func checkRTP(_ bytes: [UInt8]) -> String? {
        _ = try? RTPOrRTCP.classify(bytes)
        guard let packet = try? RTPPacket(parsing: bytes) else { return nil }
        var serialized: [UInt8] = []
        do { try packet.serialize(into: &serialized) } catch { return "parsed RTP packet does not serialize: \(error)" }
        guard let again = try? RTPPacket(parsing: serialized) else { return "serialized RTP packet does not parse" }
        guard again == packet else { return "re-parsed RTP packet differs" }
        if let extensions = packet.header.extensions {
            let map = RTPHeaderExtensionMap.defaults
            _ = try? extensions.value(AudioLevel.self, map: map)
            _ = try? extensions.value(AbsSendTime.self, map: map)
            _ = try? extensions.value(TransportSequenceNumber.self, map: map)
            _ = try? extensions.value(MediaIdentifier.self, map: map)
            _ = try? extensions.value(RTPStreamID.self, map: map)
            _ = try? extensions.value(RepairedRTPStreamID.self, map: map)
            switch extensions.form {
            case .oneByte, .twoByte:
                guard let rebuilt = try? RTPHeaderExtensions(elements: extensions.elements, form: extensions.form),
                      rebuilt.elements == extensions.elements else { return "extension elements do not rebuild" }
            case .other:
                break  // an unknown profile's body is opaque: nothing to rebuild from
            }
        }
        return nil
    }

    /// Input layout: repeated `[flags, sequence offset, length, payload…]`; flags bit 0 is the
    /// marker, bits 1–2 advance the timestamp. Every payload's descriptor must round-trip, and
    /// every frame the assembler reports must consist of packets that were actually inserted.
    private static func checkVP8(_ bytes: [UInt8]) -> String? {
        var assembler = VP8FrameAssembler(maxPacketAge: 256, maxPacketsPerFrame: 64, maxHistory: 32)
        var inserted: Set<UInt16> = []
        var timestamp: UInt32 = 0
        var index = 0
        while index + 3 <= bytes.count {
            let flags = bytes[index], sequence = UInt16(bytes[index + 1]) &+ 65500
            let length = min(Int(bytes[index + 2]), bytes.count - index - 3)
            let payload = bytes[(index + 3)..<(index + 3 + length)]
            index += 3 + length
            timestamp &+= UInt32(flags >> 1 & 0x3) &* 3000
            if let violation = checkDescriptor(payload) { return violation }
            guard let frames = try? assembler.insert(sequenceNumber: sequence, timestamp: timestamp,
                                                     marker: flags & 1 != 0, payload: payload) else { continue }
            inserted.insert(sequence)
            for frame in frames {
                var sequence = frame.firstSequenceNumber
                while true {
                    guard inserted.contains(sequence) else { return "frame reported with packet \(sequence) never inserted" }
                    if sequence == frame.lastSequenceNumber { break }
                    sequence &+= 1
                }
                if frame.decodable && frame.data.isEmpty { return "decodable frame without data" }
            }
            _ = assembler.missingSequenceNumbers(limit: 64)
        }
        return nil
    }

    private static func checkDescriptor(_ payload: ArraySlice<UInt8>) -> String? {
        guard let (descriptor, data) = try? VP8PayloadDescriptor.parse(payload) else { return nil }
        var serialized: [UInt8] = []
        do { try descriptor.serialize(into: &serialized) } catch { return "parsed VP8 descriptor does not serialize: \(error)" }
        guard let (again, rest) = try? VP8PayloadDescriptor.parse(serialized[...]), again == descriptor, rest.isEmpty else {
            return "re-parsed VP8 descriptor differs"
        }
        if descriptor.isStartOfFrame, let header = try? VP8PayloadHeader(parsing: data) {
            var headerBytes: [UInt8] = []
            do { try header.serialize(into: &headerBytes) } catch { return "parsed VP8 header does not serialize: \(error)" }
            guard (try? VP8PayloadHeader(parsing: headerBytes[...])) == header else { return "re-parsed VP8 header differs" }
        }
        return nil
    }

    private static func checkOpus(_ bytes: [UInt8]) -> String? {
        guard let (packet, info) = try? OpusDepacketizer.depacketize(bytes[...]) else { return nil }
        guard let first = packet.first, OpusTOC(first) == info.toc, info.toc.byte == first else { return "Opus TOC does not round-trip" }
        guard info.frameCount >= 1, info.samples <= 5760 else { return "Opus packet longer than 120 ms accepted" }
        return nil
    }

    private static func checkRTCP(_ bytes: [UInt8]) -> String? {
        _ = try? RTPOrRTCP.classify(bytes)
        guard let packet = try? RTCPCompoundPacket(parsing: bytes) else { return nil }
        let serialized: [UInt8]
        do { serialized = try packet.serialized() } catch { return "parsed RTCP does not serialize: \(error)" }
        guard let reparsed = try? RTCPCompoundPacket(parsing: serialized) else { return "serialized RTCP does not parse" }
        guard reparsed == packet else { return "re-parsed RTCP differs" }
        guard (try? reparsed.serialized()) == serialized else { return "RTCP serialization is not stable" }
        for case let .transportWideFeedback(feedback) in packet.packets {
            guard let results = try? feedback.packetResults() else { return "parsed TWCC has no results" }
            guard let rebuilt = try? TransportWideFeedback(
                senderSSRC: feedback.senderSSRC, mediaSSRC: feedback.mediaSSRC, referenceTime: feedback.referenceTime,
                feedbackPacketCount: feedback.feedbackPacketCount, packets: results),
                  (try? rebuilt.packetResults()) == results else { return "TWCC rebuild differs" }
        }
        for case let .genericNACK(nack) in packet.packets {
            let lost = nack.lostSequenceNumbers
            let repacked = GenericNACK(senderSSRC: 0, mediaSSRC: 0, lostSequenceNumbers: lost)
            guard Set(repacked.lostSequenceNumbers) == Set(lost) else { return "NACK repack differs" }
        }
        return nil
    }

    private static func checkSTUN(_ bytes: [UInt8]) -> String? {
        if TURNChannelData.isChannelData(bytes[...]), let (channel, data) = try? TURNChannelData.parse(bytes[...]) {
            let framed: [UInt8]? = Array(data).withUnsafeBytes { raw in
                var out: [UInt8] = []
                do throws(WireError) { try TURNChannelData.write(channel: channel, data: raw, padded: false, into: &out) } catch { return nil }
                return out
            }
            guard let framed, framed == Array(bytes.prefix(TURNChannelData.headerLength + data.count)) else {
                return "TURN ChannelData does not re-frame to its own bytes"
            }
        }
        let looksLikeSTUN = STUNMessage.isSTUN(bytes[...])
        _ = STUNMessage.checkIntegrity(bytes[...], key: Array("fuzz-password".utf8))
        _ = STUNMessage.checkFingerprint(bytes[...])
        guard let message = try? STUNMessage(parsing: bytes) else { return nil }
        // RFC 7983 demultiplexing claims only first bytes 0–3 (methods below 0x080) for STUN; a
        // message of a higher method parses by RFC 8489 yet belongs to DTLS's range on a shared port.
        guard looksLikeSTUN || bytes[0] > 3 else { return "a parsed STUN message is not recognised as STUN" }
        let serialized: [UInt8]
        do { serialized = try message.serialized(integrityKey: [1, 2, 3], fingerprint: true) } catch {
            return "parsed STUN message does not serialize: \(error)"
        }
        guard let again = try? STUNMessage(parsing: serialized) else { return "serialized STUN message does not parse" }
        guard again == message else { return "re-parsed STUN message differs" }
        guard STUNMessage.checkIntegrity(serialized[...], key: [1, 2, 3]) == .valid,
              STUNMessage.checkFingerprint(serialized[...]) == .valid else { return "serialized STUN message fails its own checks" }
        return nil
    }

    /// The offer the SDP check answers: two sections, three RIDs, one candidate.
    private static let sdpOffer = SimulcastOffer(
        sessionID: 1, ice: try! ICECredentials(usernameFragment: "fuzz", password: "fuzzfuzzfuzzfuzzfuzzfuzz"),
        fingerprint: DTLSFingerprint(algorithm: "sha-256", digest: [UInt8](repeating: 0xAB, count: 32)),
        candidates: [ICECandidate(foundation: "1", priority: 1, address: "10.0.0.1", port: 9, kind: .host)],
        audio: .init(ssrc: 1), video: .init(rids: ["h", "m", "l"]), cname: "fuzz")

    private static func checkSDP(_ bytes: [UInt8]) -> String? {
        guard let description = try? SessionDescription(parsing: String(decoding: bytes, as: UTF8.self)) else { return nil }
        for section in description.media {
            for value in section.attributes.values(of: "candidate") {
                if let candidate = try? ICECandidate(parsing: value), (try? ICECandidate(parsing: candidate.description)) != candidate {
                    return "a candidate does not survive its own text"
                }
            }
        }
        for value in description.attributes.values(of: "fingerprint") {
            if let fingerprint = try? DTLSFingerprint(parsing: value), (try? DTLSFingerprint(parsing: fingerprint.description)) != fingerprint {
                return "a fingerprint does not survive its own text"
            }
        }
        _ = try? NegotiatedSession(offer: sdpOffer, answer: description)
        // The same bytes as an SFU's offer to a subscriber: whatever we answer must parse back.
        if let receiving = try? ReceivingSession(offer: description, ice: sdpOffer.ice, fingerprint: sdpOffer.fingerprint,
                                                 candidates: sdpOffer.candidates, cname: "fuzz"),
           (try? SessionDescription(parsing: receiving.answer.text)) == nil {
            return "the answer to an offer does not parse"
        }
        guard let again = try? SessionDescription(parsing: description.text) else { return "serialized SDP does not parse" }
        guard again == description else { return "re-parsed SDP differs" }
        return nil
    }

    private static func checkPcap(_ bytes: [UInt8]) -> String? {
        guard var reader = try? PcapReader(bytes) else { return nil }
        var steps = 0
        while true {
            steps += 1
            guard steps <= bytes.count + 1 else { return "pcap reader does not make progress" }
            let record: PcapRecord?
            do { record = try reader.next() } catch { continue }
            guard let record else { return nil }
            guard case let .v4(source) = record.source.address, case let .v4(destination) = record.destination.address,
                  !record.isPayloadTruncated else { continue }
            var file: [UInt8] = []
            let writer = PcapWriter(linkType: .ethernet, timestampResolution: reader.timestampResolution)
            writer.writeFileHeader(into: &file)
            do {
                try writer.writeUDP(record.payload, from: source, port: record.source.port, to: destination,
                                    port: record.destination.port, at: record.timestamp, into: &file)
                var again = try PcapReader(file)
                guard let copy = try again.next(), copy == record else { return "pcap write/read differs" }
            } catch {
                return "pcap write/read failed: \(error)"
            }
        }
    }
}
