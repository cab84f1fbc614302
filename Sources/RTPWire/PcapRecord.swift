/// An IPv4 address (RFC 791 §3.1), held as its 32-bit big-endian value.
public struct IPv4Address: Sendable, Hashable, CustomStringConvertible {
    /// The address as a number, first octet most significant.
    public var value: UInt32

    /// Creates an address from its 32-bit value.
    public init(_ value: UInt32) { self.value = value }

    /// Creates an address from dotted-quad octets, `IPv4Address(192, 0, 2, 1)`.
    public init(_ a: UInt8, _ b: UInt8, _ c: UInt8, _ d: UInt8) {
        self.value = UInt32(a) << 24 | UInt32(b) << 16 | UInt32(c) << 8 | UInt32(d)
    }

    /// Dotted-quad notation.
    public var description: String {
        "\(value >> 24).\(value >> 16 & 0xFF).\(value >> 8 & 0xFF).\(value & 0xFF)"
    }
}

/// An IPv6 address (RFC 8200 §3), held as sixteen octets in two big-endian halves.
public struct IPv6Address: Sendable, Hashable, CustomStringConvertible {
    /// First eight octets.
    public var high: UInt64
    /// Last eight octets.
    public var low: UInt64

    /// Creates an address from its two 64-bit halves.
    public init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// Eight colon-separated groups of hex digits (not compressed).
    public var description: String {
        let groups = (0..<8).map { index -> String in
            let half = index < 4 ? high : low
            return String(UInt16(truncatingIfNeeded: half >> UInt64(48 - 16 * (index % 4))), radix: 16)
        }
        return groups.joined(separator: ":")
    }
}

/// An IPv4 or IPv6 address.
public enum IPAddress: Sendable, Hashable, CustomStringConvertible {
    /// An IPv4 address (RFC 791).
    case v4(IPv4Address)
    /// An IPv6 address (RFC 8200).
    case v6(IPv6Address)

    /// The address in its usual text form.
    public var description: String {
        switch self {
        case let .v4(address): return address.description
        case let .v6(address): return address.description
        }
    }
}

/// One end of a UDP flow (RFC 768): address and port.
public struct UDPEndpoint: Sendable, Hashable, CustomStringConvertible {
    /// IP address of the host.
    public var address: IPAddress
    /// UDP port (RFC 768).
    public var port: UInt16

    /// Creates an endpoint from its parts.
    public init(address: IPAddress, port: UInt16) {
        self.address = address
        self.port = port
    }

    /// `a.b.c.d:port` or `[v6]:port`.
    public var description: String {
        switch address {
        case let .v4(v4): return "\(v4):\(port)"
        case let .v6(v6): return "[\(v6)]:\(port)"
        }
    }
}

/// Capture time of a pcap record (seconds and fraction since the Unix epoch).
public struct PcapTimestamp: Sendable, Hashable, Comparable {
    /// Whole seconds since 1970-01-01T00:00:00Z.
    public var seconds: UInt32
    /// Nanoseconds within the second, 0..<1_000_000_000.
    public var nanoseconds: UInt32

    /// Creates a timestamp from its parts.
    public init(seconds: UInt32, nanoseconds: UInt32) {
        self.seconds = seconds
        self.nanoseconds = nanoseconds
    }

    /// Orders by time.
    public static func < (lhs: PcapTimestamp, rhs: PcapTimestamp) -> Bool {
        (lhs.seconds, lhs.nanoseconds) < (rhs.seconds, rhs.nanoseconds)
    }
}

/// One UDP datagram found in a pcap file.
public struct PcapRecord: Sendable, Equatable {
    /// When it was captured.
    public var timestamp: PcapTimestamp
    /// Sender address and port.
    public var source: UDPEndpoint
    /// Receiver address and port.
    public var destination: UDPEndpoint
    /// The UDP payload: a view into the file's bytes (no copy).
    public var payload: ArraySlice<UInt8>
    /// True when the capture's snap length cut the datagram short, so `payload` is incomplete.
    public var isPayloadTruncated: Bool

    /// Creates a record from its parts.
    public init(timestamp: PcapTimestamp, source: UDPEndpoint, destination: UDPEndpoint,
                payload: ArraySlice<UInt8>, isPayloadTruncated: Bool = false) {
        self.timestamp = timestamp
        self.source = source
        self.destination = destination
        self.payload = payload
        self.isPayloadTruncated = isPayloadTruncated
    }
}
