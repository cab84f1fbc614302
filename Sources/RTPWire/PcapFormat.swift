/// Constants of the classic libpcap file format (draft-ietf-opsawg-pcap §4–5) and the link-layer
/// header types this module reads (tcpdump.org LINKTYPE_ registry).
public enum PcapFormat {
    /// Magic number of files with microsecond timestamps.
    public static let microsecondMagic: UInt32 = 0xA1B2_C3D4
    /// Magic number of files with nanosecond timestamps.
    public static let nanosecondMagic: UInt32 = 0xA1B2_3C4D
    /// Block type that opens a pcapng file (not supported here).
    public static let pcapngMagic: UInt32 = 0x0A0D_0D0A
    /// Size of the file header.
    public static let fileHeaderSize = 24
    /// Size of each record header.
    public static let recordHeaderSize = 16

    /// LINKTYPE_NULL: BSD loopback, 4-octet address family in the writer's byte order.
    public static let linkTypeNull: UInt32 = 0
    /// LINKTYPE_ETHERNET: IEEE 802.3 (optionally 802.1Q tagged).
    public static let linkTypeEthernet: UInt32 = 1
    /// LINKTYPE_RAW: a bare IPv4 or IPv6 packet.
    public static let linkTypeRaw: UInt32 = 101
    /// LINKTYPE_LINUX_SLL: Linux "cooked" capture v1.
    public static let linkTypeLinuxSLL: UInt32 = 113
    /// LINKTYPE_IPV4: a bare IPv4 packet.
    public static let linkTypeIPv4: UInt32 = 228
    /// LINKTYPE_IPV6: a bare IPv6 packet.
    public static let linkTypeIPv6: UInt32 = 229
    /// LINKTYPE_LINUX_SLL2: Linux "cooked" capture v2.
    public static let linkTypeLinuxSLL2: UInt32 = 276

    /// Link types `PcapReader` understands.
    public static let supportedLinkTypes: Set<UInt32> = [
        linkTypeNull, linkTypeEthernet, linkTypeRaw, linkTypeLinuxSLL, linkTypeIPv4, linkTypeIPv6, linkTypeLinuxSLL2,
    ]

    static let etherTypeIPv4: UInt16 = 0x0800
    static let etherTypeIPv6: UInt16 = 0x86DD
    /// 802.1Q, 802.1ad and the legacy QinQ tag protocol identifiers.
    static let etherTypeVLANTags: Set<UInt16> = [0x8100, 0x88A8, 0x9100]
    static let ipProtocolUDP: UInt8 = 17
}

/// Timestamp precision of a pcap file, chosen by its magic number.
public enum PcapTimestampResolution: Sendable, Equatable {
    /// Magic 0xA1B2C3D4: the fraction field counts microseconds.
    case microseconds
    /// Magic 0xA1B23C4D: the fraction field counts nanoseconds.
    case nanoseconds
}
