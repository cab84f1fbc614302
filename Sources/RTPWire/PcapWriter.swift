/// Writes UDP-over-IPv4 datagrams as a classic little-endian libpcap file
/// (draft-ietf-opsawg-pcap §4–5) that `PcapReader`, tcpdump and Wireshark read.
///
/// Stateless: write the file header once with `writeFileHeader(into:)`, then one
/// `writeUDP(...)` per datagram, appending to any buffer (e.g. one flushed to disk periodically).
public struct PcapWriter: Sendable {
    /// The link-layer framing written around each IPv4 packet.
    public enum LinkType: Sendable, Equatable {
        /// LINKTYPE_ETHERNET (1) with fixed locally administered MAC addresses.
        case ethernet
        /// LINKTYPE_RAW (101): the IPv4 packet alone.
        case rawIPv4

        /// The LINKTYPE_ value written to the file header.
        public var value: UInt32 {
            switch self {
            case .ethernet: return PcapFormat.linkTypeEthernet
            case .rawIPv4: return PcapFormat.linkTypeRaw
            }
        }
    }

    /// Largest UDP payload that fits one IPv4 packet: 65535 − 20 (IPv4) − 8 (UDP).
    public static let maxPayload = 65_507
    /// Snap length declared in the header; large enough that nothing written is ever cut.
    public static let snapLength: UInt32 = 262_144
    /// Source MAC 02:00:00:00:00:01 and destination MAC 02:00:00:00:00:02 for Ethernet framing.
    static let sourceMAC: [UInt8] = [0x02, 0, 0, 0, 0, 0x01]
    static let destinationMAC: [UInt8] = [0x02, 0, 0, 0, 0, 0x02]

    /// Framing written around each IPv4 packet and declared in the file header.
    public let linkType: LinkType
    /// Precision of the timestamps written (selects the magic number).
    public let timestampResolution: PcapTimestampResolution

    /// Creates a writer for the given framing and timestamp precision.
    public init(linkType: LinkType = .ethernet, timestampResolution: PcapTimestampResolution = .microseconds) {
        self.linkType = linkType
        self.timestampResolution = timestampResolution
    }

    /// Appends the 24-octet file header.
    public func writeFileHeader(into out: inout [UInt8]) {
        out.appendLittleEndian(timestampResolution == .microseconds
                               ? PcapFormat.microsecondMagic : PcapFormat.nanosecondMagic)
        out.appendLittleEndian(UInt16(2))     // major version
        out.appendLittleEndian(UInt16(4))     // minor version
        out.appendLittleEndian(UInt32(0))     // reserved (was thiszone)
        out.appendLittleEndian(UInt32(0))     // reserved (was sigfigs)
        out.appendLittleEndian(PcapWriter.snapLength)
        out.appendLittleEndian(linkType.value)
    }

    /// Appends one record: `payload` in a UDP datagram (RFC 768, checksum filled in) inside an
    /// IPv4 packet (RFC 791: DF set, TTL 64, header checksum filled in), framed per `linkType`.
    /// Throws `.outOfRange` for a payload over `maxPayload` octets; `out` is then unchanged.
    public func writeUDP(_ payload: ArraySlice<UInt8>,
                         from source: IPv4Address, port sourcePort: UInt16,
                         to destination: IPv4Address, port destinationPort: UInt16,
                         at timestamp: PcapTimestamp, into out: inout [UInt8]) throws(WireError) {
        guard payload.count <= PcapWriter.maxPayload else {
            throw .outOfRange(field: "UDP payload length", value: payload.count)
        }
        guard timestamp.nanoseconds < 1_000_000_000 else {
            throw .outOfRange(field: "pcap timestamp nanoseconds", value: Int(timestamp.nanoseconds))
        }
        let udpLength = 8 + payload.count
        let ipLength = 20 + udpLength
        let frameLength = ipLength + (linkType == .ethernet ? 14 : 0)

        out.appendLittleEndian(timestamp.seconds)
        out.appendLittleEndian(timestampResolution == .microseconds
                               ? timestamp.nanoseconds / 1000 : timestamp.nanoseconds)
        out.appendLittleEndian(UInt32(frameLength))   // captured
        out.appendLittleEndian(UInt32(frameLength))   // original

        if linkType == .ethernet {
            out.append(contentsOf: PcapWriter.destinationMAC)
            out.append(contentsOf: PcapWriter.sourceMAC)
            out.appendUInt16(PcapFormat.etherTypeIPv4)
        }

        let ipStart = out.count
        out.appendUInt8(0x45)                  // version 4, 5-word header
        out.appendUInt8(0)                     // DSCP/ECN
        out.appendUInt16(UInt16(ipLength))
        out.appendUInt16(0)                    // identification: unused with DF
        out.appendUInt16(0x4000)               // DF, offset 0
        out.appendUInt8(64)                    // TTL
        out.appendUInt8(PcapFormat.ipProtocolUDP)
        out.appendUInt16(0)                    // checksum, patched below
        out.appendUInt32(source.value)
        out.appendUInt32(destination.value)
        out.setUInt16(~PcapWriter.onesComplementSum(out[ipStart..<out.count], initial: 0), at: ipStart + 10)

        let udpStart = out.count
        out.appendUInt16(sourcePort)
        out.appendUInt16(destinationPort)
        out.appendUInt16(UInt16(udpLength))
        out.appendUInt16(0)                    // checksum, patched below
        out.append(contentsOf: payload)
        // Pseudo-header: addresses, protocol, UDP length (RFC 768).
        var pseudo: UInt32 = source.value >> 16 + source.value & 0xFFFF
        pseudo += destination.value >> 16 + destination.value & 0xFFFF
        pseudo += UInt32(PcapFormat.ipProtocolUDP) + UInt32(udpLength)
        let checksum = ~PcapWriter.onesComplementSum(out[udpStart..<out.count], initial: pseudo)
        out.setUInt16(checksum == 0 ? 0xFFFF : checksum, at: udpStart + 6)
    }

    /// Appends one record for a whole datagram payload.
    public func writeUDP(_ payload: [UInt8],
                         from source: IPv4Address, port sourcePort: UInt16,
                         to destination: IPv4Address, port destinationPort: UInt16,
                         at timestamp: PcapTimestamp, into out: inout [UInt8]) throws(WireError) {
        try writeUDP(payload[...], from: source, port: sourcePort, to: destination, port: destinationPort,
                     at: timestamp, into: &out)
    }

    /// RFC 1071 sum of 16-bit big-endian words (odd tail padded with zero), folded to 16 bits.
    /// At most 65 535 octets are summed, so the 32-bit accumulator cannot overflow.
    static func onesComplementSum(_ bytes: ArraySlice<UInt8>, initial: UInt32) -> UInt16 {
        var sum = initial
        var index = bytes.startIndex
        while index + 1 < bytes.endIndex {
            sum += UInt32(bytes[index]) << 8 | UInt32(bytes[index + 1])
            index += 2
        }
        if index < bytes.endIndex { sum += UInt32(bytes[index]) << 8 }
        while sum > 0xFFFF { sum = sum & 0xFFFF + sum >> 16 }
        return UInt16(sum)
    }
}

extension Array where Element == UInt8 {
    fileprivate mutating func appendLittleEndian(_ value: UInt16) {
        append(UInt8(truncatingIfNeeded: value))
        append(UInt8(truncatingIfNeeded: value >> 8))
    }

    fileprivate mutating func appendLittleEndian(_ value: UInt32) {
        append(UInt8(truncatingIfNeeded: value))
        append(UInt8(truncatingIfNeeded: value >> 8))
        append(UInt8(truncatingIfNeeded: value >> 16))
        append(UInt8(truncatingIfNeeded: value >> 24))
    }
}
