/// What a media section says of its codecs and header extensions (RFC 8866 §6.6 `a=rtpmap`,
/// RFC 8285 §5 `a=extmap`, RFC 4585 §4.2 `a=rtcp-fb`).
extension MediaDescription {
    /// The first payload type of the section's formats whose `a=rtpmap` names `codec`
    /// ("vp8/90000", "opus/48000/2"; case-insensitive); nil when none does. Throws
    /// `SDPError.malformedAttribute` for an rtpmap without a payload type below 128.
    public func payloadType(of codec: String) throws(SDPError) -> UInt8? {
        for rtpmap in attributes.values(of: "rtpmap") {
            let parts = rtpmap.split(separator: " ", maxSplits: 1)
            guard parts.count == 2, let number = UInt8(parts[0]), number < 128 else {
                throw .malformedAttribute(attribute: "rtpmap:\(rtpmap)", reason: "needs a payload type below 128 and an encoding")
            }
            if parts[1].lowercased() == codec.lowercased(), formats.contains(String(number)) { return number }
        }
        return nil
    }

    /// The section's `a=extmap` ids for the kinds `accepted` keeps (others are skipped). Throws
    /// `SDPError.malformedAttribute` for an id outside 1...255 (or 15, the one-byte form's stop id).
    public func extensionMap(accepting accepted: (RTPHeaderExtensionKind) -> Bool) throws(SDPError) -> RTPHeaderExtensionMap {
        var map = RTPHeaderExtensionMap()
        for extmap in attributes.values(of: "extmap") {
            let parts = extmap.split(separator: " ")
            // "id[/direction]" (RFC 8285 §8); "/" alone or "/sendonly" has no id.
            let idText = parts.first?.split(separator: "/", omittingEmptySubsequences: false).first ?? ""
            guard parts.count >= 2, let id = UInt8(idText), (1...255).contains(id) else {
                throw .malformedAttribute(attribute: "extmap:\(extmap)", reason: "needs an id in 1...255 and a URI")
            }
            guard let kind = RTPHeaderExtensionKind(rawValue: String(parts[1])), accepted(kind) else { continue }
            do { try map.register(kind, id: id) } catch { throw .malformedAttribute(attribute: "extmap:\(extmap)", reason: "id \(id) is reserved") }
        }
        return map
    }

    /// The `a=rtcp-fb` values for `payloadType` (and `*`), e.g. "nack", "nack pli", "transport-cc".
    public func feedback(for payloadType: UInt8) -> Set<String> {
        let prefix = "\(payloadType) "
        return Set(attributes.values(of: "rtcp-fb").compactMap { value in
            value.hasPrefix(prefix) ? String(value.dropFirst(prefix.count)) : (value.hasPrefix("* ") ? String(value.dropFirst(2)) : nil)
        })
    }

    /// The SSRCs the section's `a=ssrc` lines name (RFC 5576 §4.1), in order, each once.
    public var ssrcs: [UInt32] {
        var seen: [UInt32] = []
        for value in attributes.values(of: "ssrc") {
            guard let number = value.split(separator: " ").first.flatMap({ UInt32($0) }), !seen.contains(number) else { continue }
            seen.append(number)
        }
        return seen
    }
}
