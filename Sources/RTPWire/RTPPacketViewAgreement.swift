/// The invariant of `RTPPacketView` on any input, with `RTPPacket(parsing:)` as the oracle
/// (RFC 3550 §5.1, RFC 8285): the fuzz target `rtpview` and the unit tests run this one check.
///
/// - What `RTPPacket` accepts, the view accepts, with the same fixed fields, CSRCs, payload
///   (same indices: no copy), padding, extension block and elements, typed extension values and
///   VP8 descriptor (RFC 7741 §4.2).
/// - What `RTPPacket` rejects, the view rejects too: at creation, or (a malformed extension
///   element, which the view does not walk until asked) in `validateExtensions()`.
public enum RTPPacketViewAgreement {
    /// The first disagreement between the view and `RTPPacket` on `bytes`, or nil.
    public static func violation(in bytes: ArraySlice<UInt8>) -> String? {
        let packet: RTPPacket
        do {
            packet = try RTPPacket(parsing: bytes)
        } catch {
            guard let view = try? RTPPacketView(bytes) else { return nil }
            if (try? view.validateExtensions()) != nil { return "view accepts a packet RTPPacket rejects (\(error))" }
            return nil
        }
        let view: RTPPacketView
        do {
            view = try RTPPacketView(bytes)
            try view.validateExtensions()
        } catch {
            return "view rejects a packet RTPPacket accepts: \(error)"
        }
        let header = packet.header
        guard view.marker == header.marker, view.payloadType == header.payloadType,
              view.sequenceNumber == header.sequenceNumber, view.timestamp == header.timestamp,
              view.ssrc == header.ssrc else { return "fixed header fields differ" }
        guard view.fixedFields == (try? RTPFixedFields(reading: bytes)) else { return "fixed fields differ from RTPFixedFields" }
        guard view.csrcCount == header.csrcs.count, view.csrc(header.csrcs.count) == nil, view.csrc(-1) == nil
        else { return "CSRC count differs" }
        for index in header.csrcs.indices where view.csrc(index) != header.csrcs[index] {
            return "CSRC \(index) differs"
        }
        guard view.payloadRange == packet.payload.startIndex..<packet.payload.endIndex,
              view.payload == packet.payload, view.paddingLength == packet.paddingLength
        else { return "payload or padding differs" }
        if let violation = extensionViolation(view, header.extensions) { return violation }
        let oracleVP8 = try? VP8PayloadDescriptor.parse(packet.payload)
        let viewVP8 = try? view.vp8Descriptor()
        guard oracleVP8?.descriptor == viewVP8?.descriptor,
              oracleVP8.map({ $0.vp8Data.startIndex..<$0.vp8Data.endIndex }) == viewVP8?.vp8DataRange
        else { return "VP8 descriptor differs" }
        guard (try? view.decoded()) == packet else { return "decoded view differs" }
        return nil
    }

    private static func extensionViolation(_ view: RTPPacketView, _ extensions: RTPHeaderExtensions?) -> String? {
        guard let extensions else {
            guard !view.hasExtension, view.extensionProfile == nil, view.extensionBody.isEmpty else {
                return "view has an extension block RTPPacket lacks"
            }
            for id in UInt8(0)...UInt8(255) where (try? view.extensionData(id: id)) != nil {
                return "view finds element \(id) without an extension block"
            }
            return nil
        }
        guard view.extensionProfile == extensions.form.profile, view.extensionBody == extensions.body,
              view.extensionBody.startIndex == extensions.body.startIndex else { return "extension block differs" }
        for id in UInt8(0)...UInt8(255) {
            let oracle = extensions.element(id: id)
            let viewed: ArraySlice<UInt8>?
            do { viewed = try view.extensionData(id: id) } catch { return "element \(id) lookup throws after validation: \(error)" }
            guard viewed == oracle, viewed?.startIndex == oracle?.startIndex else { return "element \(id) differs" }
        }
        let map = RTPHeaderExtensionMap.defaults
        guard same(AudioLevel.self, view, extensions, map), same(AbsSendTime.self, view, extensions, map),
              same(TransportSequenceNumber.self, view, extensions, map), same(MediaIdentifier.self, view, extensions, map),
              same(RTPStreamID.self, view, extensions, map), same(RepairedRTPStreamID.self, view, extensions, map)
        else { return "a typed extension value differs" }
        return nil
    }

    /// Whether the view and the block give the same typed value or the same error.
    private static func same<Value: RTPHeaderExtensionValue>(
        _ type: Value.Type, _ view: RTPPacketView, _ extensions: RTPHeaderExtensions, _ map: RTPHeaderExtensionMap
    ) -> Bool {
        let viewed = Result { () throws(WireError) in try view.extensionValue(type, map: map) }
        let oracle = Result { () throws(WireError) in try extensions.value(type, map: map) }
        return viewed == oracle
    }
}
