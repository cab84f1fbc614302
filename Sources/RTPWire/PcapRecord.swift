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

    /// Creates an address from its sixteen octets in network order (fewer are zero-filled at the end).
    public init(bytes: some Collection<UInt8>) {
        var octets = Array(bytes.prefix(16))
        octets += [UInt8](repeating: 0, count: 16 - octets.count)
        high = octets[0..<8].reduce(0) { $0 << 8 | UInt64($1) }
        low = octets[8..<16].reduce(0) { $0 << 8 | UInt64($1) }
    }

    /// The sixteen octets in network order.
    public var bytes: [UInt8] {
        (0..<16).map { index in UInt8(truncatingIfNeeded: (index < 8 ? high : low) >> UInt64(56 - 8 * (index % 8))) }
    }

    /// The eight 16-bit groups, first group first.
    public var groups: [UInt16] {
        (0..<8).map { index in UInt16(truncatingIfNeeded: (index < 4 ? high : low) >> UInt64(48 - 16 * (index % 4))) }
    }

    /// Whether this is an IPv4-mapped address (`::ffff:a.b.c.d`, RFC 4291 §2.5.5.2); its IPv4 address.
    public var mappedIPv4: UInt32? {
        high == 0 && low >> 32 == 0xFFFF ? UInt32(truncatingIfNeeded: low) : nil
    }

    /// RFC 5952 text: lower-case hex groups without leading zeros, the longest run of two or
    /// more zero groups (the first of equal runs) written `::` (`2001:db8::1`, `::`).
    public var description: String {
        let groups = self.groups
        var best = (start: -1, count: 0), run = (start: -1, count: 0)
        for (index, group) in groups.enumerated() {
            if group == 0 {
                run = run.start < 0 ? (index, 1) : (run.start, run.count + 1)
                if run.count > best.count { best = run }
            } else {
                run = (-1, 0)
            }
        }
        let text = groups.map { String($0, radix: 16) }
        guard best.count >= 2 else { return text.joined(separator: ":") }
        let head = text[..<best.start].joined(separator: ":"), tail = text[(best.start + best.count)...].joined(separator: ":")
        return head + "::" + tail
    }

    /// Parses RFC 4291 §2.2 text (`2001:db8::1`, `::`, `::ffff:192.0.2.1`); nil for anything else.
    public init?(_ text: some StringProtocol) {
        let text = String(text)
        /// Groups of one side of `::`: 1-4 hex digits each, the last one possibly dotted IPv4.
        func groups(_ side: Substring) -> [UInt16]? {
            guard !side.isEmpty else { return [] }
            var result: [UInt16] = []
            let parts = side.split(separator: ":", omittingEmptySubsequences: false)
            for (index, part) in parts.enumerated() {
                if index == parts.count - 1, part.contains(".") {
                    let octets = part.split(separator: ".", omittingEmptySubsequences: false).compactMap { $0.count <= 3 ? UInt8($0) : nil }
                    guard octets.count == 4, part.split(separator: ".", omittingEmptySubsequences: false).count == 4 else { return nil }
                    result += [UInt16(octets[0]) << 8 | UInt16(octets[1]), UInt16(octets[2]) << 8 | UInt16(octets[3])]
                } else {
                    guard (1...4).contains(part.count), let group = UInt16(part, radix: 16) else { return nil }
                    result.append(group)
                }
            }
            return result
        }
        var values: [UInt16]
        if let gap = text.firstRange(of: "::") {
            let tailText = text[gap.upperBound...]
            guard tailText.firstRange(of: "::") == nil, !tailText.hasPrefix(":"),
                  let head = groups(text[..<gap.lowerBound]), let tail = groups(tailText), head.count + tail.count <= 7 else { return nil }
            values = head + [UInt16](repeating: 0, count: 8 - head.count - tail.count) + tail
        } else {
            guard let all = groups(text[...]) else { return nil }
            values = all
        }
        guard values.count == 8 else { return nil }
        high = values[0..<4].reduce(0) { $0 << 16 | UInt64($1) }
        low = values[4..<8].reduce(0) { $0 << 16 | UInt64($1) }
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
