/// Reads UDP datagrams out of a classic libpcap file (draft-ietf-opsawg-pcap): either byte
/// order, microsecond or nanosecond magic; link types null/loopback, Ethernet (with 802.1Q/QinQ
/// tags), raw IP, IPv4, IPv6, Linux cooked v1 and v2; IPv4 and IPv6 (skipping hop-by-hop,
/// routing and destination-options headers) carrying UDP (RFC 768).
///
/// Records that are not unfragmented UDP are skipped. Records are views into the bytes given to
/// `init`, so reading copies nothing.
public struct PcapReader: Sendable {
    /// Link-layer header type (low 16 bits of the header's LinkType field).
    public let linkType: UInt32
    /// Maximum captured length per record, as declared by the file.
    public let snapLength: UInt32
    /// Whether record timestamps carry micro- or nanoseconds.
    public let timestampResolution: PcapTimestampResolution
    /// Whether the file's header fields are big-endian.
    public let isBigEndian: Bool

    private var reader: ByteReader

    /// Reads the 24-octet file header. Throws `.truncated` for a short header, `.invalidValue`
    /// for an unknown magic number and `.unsupported` for pcapng, other major versions or link
    /// types this reader does not decode.
    public init(_ bytes: ArraySlice<UInt8>) throws(WireError) {
        var reader = ByteReader(bytes)
        let magic = try reader.readUInt32("pcap magic")
        switch magic {
        case PcapFormat.microsecondMagic: (isBigEndian, timestampResolution) = (true, .microseconds)
        case PcapFormat.nanosecondMagic: (isBigEndian, timestampResolution) = (true, .nanoseconds)
        case PcapFormat.microsecondMagic.byteSwapped: (isBigEndian, timestampResolution) = (false, .microseconds)
        case PcapFormat.nanosecondMagic.byteSwapped: (isBigEndian, timestampResolution) = (false, .nanoseconds)
        case PcapFormat.pcapngMagic: throw .unsupported("pcapng file (only classic pcap is read)")
        default: throw .invalidValue(field: "pcap magic", value: Int(magic))
        }
        let major = try reader.readUInt16("pcap major version", bigEndian: isBigEndian)
        _ = try reader.readUInt16("pcap minor version", bigEndian: isBigEndian)
        guard major == 2 else { throw .unsupported("pcap major version \(major)") }
        try reader.skip(8, "pcap reserved fields")
        snapLength = try reader.readUInt32("pcap snap length", bigEndian: isBigEndian)
        // The upper 16 bits hold FCS information, not the link type.
        linkType = try reader.readUInt32("pcap link type", bigEndian: isBigEndian) & 0xFFFF
        guard PcapFormat.supportedLinkTypes.contains(linkType) else {
            throw .unsupported("pcap link type \(linkType)")
        }
        self.reader = reader
    }

    /// Reads the file header of a whole file.
    public init(_ bytes: [UInt8]) throws(WireError) {
        try self.init(bytes[...])
    }

    /// The next UDP datagram, or `nil` at the end of the file.
    ///
    /// A damaged record header or a record running past the end of the file throws `.truncated`
    /// and ends reading (later calls return `nil`). A malformed frame inside a complete record throws too, but the reader
    /// has already moved past that record, so calling `next()` again continues with the next one.
    public mutating func next() throws(WireError) -> PcapRecord? {
        while reader.remaining > 0 {
            let seconds, fraction, capturedLength, originalLength: UInt32
            let frame: ArraySlice<UInt8>
            do throws(WireError) {
                seconds = try reader.readUInt32("pcap record seconds", bigEndian: isBigEndian)
                fraction = try reader.readUInt32("pcap record fraction", bigEndian: isBigEndian)
                capturedLength = try reader.readUInt32("pcap record captured length", bigEndian: isBigEndian)
                originalLength = try reader.readUInt32("pcap record original length", bigEndian: isBigEndian)
                frame = try reader.readSlice(Int(capturedLength), "pcap record data")
            } catch {
                // Without a trustworthy record length there is no next record to resume at.
                _ = reader.readRest()
                throw error
            }

            let nanoseconds: UInt32
            switch timestampResolution {
            case .microseconds:
                guard fraction < 1_000_000 else {
                    throw .invalidValue(field: "pcap record microseconds", value: Int(fraction))
                }
                nanoseconds = fraction * 1000   // < 10^9, fits
            case .nanoseconds:
                guard fraction < 1_000_000_000 else {
                    throw .invalidValue(field: "pcap record nanoseconds", value: Int(fraction))
                }
                nanoseconds = fraction
            }
            var decoder = FrameDecoder(frame: ByteReader(frame), isCut: capturedLength < originalLength)
            if let datagram = try decoder.decode(linkType: linkType) {
                return PcapRecord(timestamp: PcapTimestamp(seconds: seconds, nanoseconds: nanoseconds),
                                  source: datagram.source, destination: datagram.destination,
                                  payload: datagram.payload, isPayloadTruncated: datagram.isTruncated)
            }
        }
        return nil
    }

    /// Every remaining UDP datagram.
    public mutating func readAll() throws(WireError) -> [PcapRecord] {
        var records: [PcapRecord] = []
        while let record = try next() { records.append(record) }
        return records
    }
}

/// Peels link, network and transport headers off one captured frame.
private struct FrameDecoder {
    struct Datagram {
        var source: UDPEndpoint
        var destination: UDPEndpoint
        var payload: ArraySlice<UInt8>
        var isTruncated: Bool
    }

    var frame: ByteReader
    /// The capture kept fewer octets than were on the wire (snap length).
    let isCut: Bool

    mutating func decode(linkType: UInt32) throws(WireError) -> Datagram? {
        switch linkType {
        case PcapFormat.linkTypeNull:
            let family = try frame.readUInt32("loopback address family")
            // Written in the capturing host's byte order; the family numbers are small, so the
            // smaller of the two readings is the right one.
            switch min(family, family.byteSwapped) {
            case 2: return try decodeIPv4()
            case 10, 24, 28, 30: return try decodeIPv6()   // AF_INET6 on Linux, BSDs, macOS
            default: return nil
            }
        case PcapFormat.linkTypeEthernet:
            try frame.skip(12, "Ethernet addresses")
            var etherType = try frame.readUInt16("Ethernet type")
            var tags = 0
            while PcapFormat.etherTypeVLANTags.contains(etherType) {
                tags += 1
                guard tags <= 8 else { throw .invalidValue(field: "Ethernet VLAN tag count", value: tags) }
                try frame.skip(2, "VLAN tag control information")
                etherType = try frame.readUInt16("VLAN encapsulated type")
            }
            return try decode(etherType: etherType)
        case PcapFormat.linkTypeRaw:
            let version = try frame.peekUInt8("IP version") >> 4
            switch version {
            case 4: return try decodeIPv4()
            case 6: return try decodeIPv6()
            default: return nil
            }
        case PcapFormat.linkTypeIPv4:
            return try decodeIPv4()
        case PcapFormat.linkTypeIPv6:
            return try decodeIPv6()
        case PcapFormat.linkTypeLinuxSLL:
            try frame.skip(14, "Linux cooked header")
            return try decode(etherType: try frame.readUInt16("Linux cooked protocol"))
        case PcapFormat.linkTypeLinuxSLL2:
            let protocolType = try frame.readUInt16("Linux cooked v2 protocol")
            try frame.skip(18, "Linux cooked v2 header")
            return try decode(etherType: protocolType)
        default:
            return nil
        }
    }

    mutating func decode(etherType: UInt16) throws(WireError) -> Datagram? {
        switch etherType {
        case PcapFormat.etherTypeIPv4: return try decodeIPv4()
        case PcapFormat.etherTypeIPv6: return try decodeIPv6()
        default: return nil
        }
    }

    /// RFC 791 §3.1.
    mutating func decodeIPv4() throws(WireError) -> Datagram? {
        let versionAndLength = try frame.readUInt8("IPv4 version")
        guard versionAndLength >> 4 == 4 else {
            throw .invalidValue(field: "IPv4 version", value: Int(versionAndLength >> 4))
        }
        let headerLength = Int(versionAndLength & 0x0F) * 4
        guard headerLength >= 20 else { throw .invalidValue(field: "IPv4 header length", value: headerLength) }
        try frame.skip(1, "IPv4 type of service")
        let totalLength = Int(try frame.readUInt16("IPv4 total length"))
        guard totalLength >= headerLength else { throw .invalidValue(field: "IPv4 total length", value: totalLength) }
        try frame.skip(2, "IPv4 identification")
        let flagsAndOffset = try frame.readUInt16("IPv4 fragment offset")
        try frame.skip(1, "IPv4 time to live")
        let protocolNumber = try frame.readUInt8("IPv4 protocol")
        try frame.skip(2, "IPv4 header checksum")
        let source = IPv4Address(try frame.readUInt32("IPv4 source"))
        let destination = IPv4Address(try frame.readUInt32("IPv4 destination"))
        try frame.skip(headerLength - 20, "IPv4 options")
        // Later fragments carry no UDP header and the first alone is not the whole datagram.
        guard flagsAndOffset & 0x3FFF == 0, protocolNumber == PcapFormat.ipProtocolUDP else { return nil }
        return try decodeUDP(ipPayloadLength: totalLength - headerLength,
                             source: .v4(source), destination: .v4(destination))
    }

    /// RFC 8200 §3–4.
    mutating func decodeIPv6() throws(WireError) -> Datagram? {
        let version = try frame.peekUInt8("IPv6 version") >> 4
        guard version == 6 else { throw .invalidValue(field: "IPv6 version", value: Int(version)) }
        try frame.skip(4, "IPv6 version, class and flow label")
        var payloadLength = Int(try frame.readUInt16("IPv6 payload length"))
        var nextHeader = try frame.readUInt8("IPv6 next header")
        try frame.skip(1, "IPv6 hop limit")
        let source = IPv6Address(high: try frame.readUInt64("IPv6 source"), low: try frame.readUInt64("IPv6 source"))
        let destination = IPv6Address(high: try frame.readUInt64("IPv6 destination"),
                                      low: try frame.readUInt64("IPv6 destination"))
        while true {
            switch nextHeader {
            case PcapFormat.ipProtocolUDP:
                return try decodeUDP(ipPayloadLength: payloadLength, source: .v6(source), destination: .v6(destination))
            case 0, 43, 60:   // hop-by-hop, routing, destination options: (length + 1) × 8 octets
                nextHeader = try frame.readUInt8("IPv6 extension next header")
                let length = (Int(try frame.readUInt8("IPv6 extension length")) + 1) * 8
                try frame.skip(length - 2, "IPv6 extension header")
                guard payloadLength >= length else {
                    throw .invalidValue(field: "IPv6 payload length", value: payloadLength)
                }
                payloadLength -= length
            default:
                return nil   // fragments (44), ESP, TCP, ICMPv6, …
            }
        }
    }

    /// RFC 768.
    mutating func decodeUDP(ipPayloadLength: Int, source: IPAddress, destination: IPAddress) throws(WireError) -> Datagram? {
        let sourcePort = try frame.readUInt16("UDP source port")
        let destinationPort = try frame.readUInt16("UDP destination port")
        let length = Int(try frame.readUInt16("UDP length"))
        try frame.skip(2, "UDP checksum")
        guard length >= 8, length <= ipPayloadLength else {
            throw .invalidValue(field: "UDP length", value: length)
        }
        let payloadLength = length - 8
        let payload: ArraySlice<UInt8>
        var isTruncated = false
        if frame.remaining >= payloadLength {
            payload = try frame.readSlice(payloadLength, "UDP payload")
        } else if isCut {
            payload = frame.readRest()
            isTruncated = true
        } else {
            throw .truncated(field: "UDP payload", needed: payloadLength, available: frame.remaining)
        }
        return Datagram(source: UDPEndpoint(address: source, port: sourcePort),
                        destination: UDPEndpoint(address: destination, port: destinationPort),
                        payload: payload, isTruncated: isTruncated)
    }
}

extension ByteReader {
    fileprivate mutating func readUInt16(_ field: String, bigEndian: Bool) throws(WireError) -> UInt16 {
        let value = try readUInt16(field)
        return bigEndian ? value : value.byteSwapped
    }

    fileprivate mutating func readUInt32(_ field: String, bigEndian: Bool) throws(WireError) -> UInt32 {
        let value = try readUInt32(field)
        return bigEndian ? value : value.byteSwapped
    }
}
