import Glibc
import RTPWire

/// Why a network destination or socket operation failed.
public enum NetworkError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Not `HOST:PORT` (or `HOST:P1,P2,P3`), or the host is not an IPv4 address, `[IPv6]` or `localhost`.
    case invalidAddress(String)
    /// A port outside 1...65535.
    case portOutOfRange(Int)
    /// `socket`/`bind`/`setsockopt` failed (errno).
    case socketFailed(operation: String, errno: Int32)
    /// `sendto` failed: the destination cannot be reached (errno, e.g. ENETUNREACH, ECONNREFUSED).
    case unreachable(destination: String, errno: Int32)
    /// ICE has not validated the destination (RFC 8445 §7.2.5.3), or its consent expired
    /// (RFC 7675 §5.1): nothing may be sent there.
    case noConsent(destination: String)

    /// What was wrong, with the value involved and what is accepted.
    public var description: String {
        switch self {
        case let .invalidAddress(text):
            return "'\(text)' is not an address: expected IPv4:PORT, [IPv6]:PORT or localhost:PORT (e.g. 127.0.0.1:5004, [2001:db8::1]:5004), "
                + "or IPv4:P1,P2,P3 where a port list is allowed"
        case let .portOutOfRange(port): return "port \(port) is out of range: use 1 to 65535"
        case let .socketFailed(operation, code): return "\(operation) failed: \(String(cString: strerror(code)))"
        case let .noConsent(destination):
            return "\(destination) has not passed ICE connectivity checks or its consent expired: nothing is sent there"
        case let .unreachable(destination, code):
            return "\(destination) unreachable: \(String(cString: strerror(code)))"
        }
    }
}

/// An IPv4 or IPv6 endpoint on UDP or TCP. Equal only when the transport is equal too: the
/// transport is part of who a peer is (`TransportPath`). Its address is RTPWire's `IPAddress`
/// (IPv4 as a 32-bit number in host byte order, IPv6 as two 64-bit halves): an endpoint holds
/// plain integers only, so making one per datagram allocates nothing.
public struct NetworkEndpoint: Sendable, Hashable, CustomStringConvertible {
    public var ip: IPAddress
    public var port: UInt16
    /// UDP (the default) or a TCP connection.
    public var transport: TransportPath

    public init(ip: IPAddress, port: UInt16, transport: TransportPath = .udp) {
        self.ip = ip
        self.port = port
        self.transport = transport
    }

    /// An IPv4 endpoint (`address` in host byte order: 10.0.0.7 is 0x0A000007).
    public init(address: UInt32, port: UInt16, transport: TransportPath = .udp) {
        self.init(ip: .v4(IPv4Address(address)), port: port, transport: transport)
    }

    /// An IPv6 endpoint.
    public init(ipv6: IPv6Address, port: UInt16, transport: TransportPath = .udp) {
        self.init(ip: .v6(ipv6), port: port, transport: transport)
    }

    /// The IPv4 address in host byte order; nil for an IPv6 endpoint.
    public var ipv4: UInt32? {
        if case let .v4(address) = ip { address.value } else { nil }
    }

    /// Whether the address is IPv6.
    public var isIPv6: Bool {
        if case .v6 = ip { true } else { false }
    }

    /// Whether the address is the unspecified one (0.0.0.0 or `::`): a socket bound there
    /// receives on every interface (`::`: of both families, `everyInterface`).
    public var isUnspecified: Bool {
        switch ip {
        case let .v4(address): address.value == 0
        case let .v6(address): address.high == 0 && address.low == 0
        }
    }

    /// Whether the address is a loopback one (127.0.0.0/8, `::1`).
    public var isLoopback: Bool {
        switch ip {
        case let .v4(address): address.value >> 24 == 127
        case let .v6(address): address.high == 0 && address.low == 1
        }
    }

    /// The same address and port on `transport`.
    public func on(_ transport: TransportPath) -> NetworkEndpoint {
        NetworkEndpoint(ip: ip, port: port, transport: transport)
    }

    /// The same address at `port`.
    public func at(port: UInt16) -> NetworkEndpoint {
        NetworkEndpoint(ip: ip, port: port, transport: transport)
    }

    /// Whether `other` has the same address and port, whatever its transport.
    public func hasSameAddress(as other: NetworkEndpoint) -> Bool {
        ip == other.ip && port == other.port
    }

    /// 127.0.0.1 at `port`.
    public static func loopback(port: UInt16) -> NetworkEndpoint {
        NetworkEndpoint(address: 0x7F00_0001, port: port)
    }

    /// `[::]:port`: a UDP socket bound there (`UDPSocket`) receives on every interface, IPv4 and
    /// IPv6 (an `AF_INET6` socket with `IPV6_V6ONLY` off, RFC 3493 §5.3; IPv4 peers are seen
    /// and addressed as IPv4 endpoints). Where the kernel has no IPv6, `UDPSocket` binds 0.0.0.0.
    public static func everyInterface(port: UInt16) -> NetworkEndpoint {
        NetworkEndpoint(ipv6: IPv6Address(high: 0, low: 0), port: port)
    }

    /// Parses `HOST:PORT`: a dotted IPv4 address, `localhost`, or an IPv6 address in brackets
    /// (`[2001:db8::1]:5004`, RFC 3986 §3.2.2).
    public init(parsing text: String) throws(NetworkError) {
        let endpoints = try Self.parseList(text)
        guard endpoints.count == 1 else { throw .invalidAddress(text) }
        self = endpoints[0]
    }

    /// Parses `HOST:PORT` or `HOST:P1,P2,...` into one endpoint per port (HOST as in `init(parsing:)`).
    public static func parseList(_ text: String) throws(NetworkError) -> [NetworkEndpoint] {
        guard let colon = text.lastIndex(of: ":") else { throw .invalidAddress(text) }
        let host = text[..<colon]
        let ports = text[text.index(after: colon)...].split(separator: ",", omittingEmptySubsequences: false)
        let address: IPAddress?
        if host.hasPrefix("["), host.hasSuffix("]"), host.count > 2 {
            address = IPv6Address(host.dropFirst().dropLast()).map(IPAddress.v6)
        } else {
            address = ipv4Address(host == "localhost" ? "127.0.0.1" : host).map { .v4(IPv4Address($0)) }
        }
        guard let address, !ports.isEmpty else { throw .invalidAddress(text) }
        var endpoints: [NetworkEndpoint] = []
        for portText in ports {
            guard let port = Int(portText) else { throw .invalidAddress(text) }
            guard (1...65535).contains(port) else { throw .portOutOfRange(port) }
            endpoints.append(NetworkEndpoint(ip: address, port: UInt16(port)))
        }
        return endpoints
    }

    /// A dotted IPv4 address (`10.0.0.7`) as a number in host byte order; nil for anything else.
    public static func ipv4Address(_ text: some StringProtocol) -> UInt32? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var address: UInt32 = 0
        for part in parts {
            guard part.count <= 3, let octet = UInt8(part) else { return nil }
            address = address << 8 | UInt32(octet)
        }
        return address
    }

    /// A dotted IPv4 address or an IPv6 one (RFC 4291 §2.2, brackets allowed), as in an SDP
    /// candidate line or a URL host; nil for anything else (an mDNS name, garbage).
    public static func ipAddress(_ text: some StringProtocol) -> IPAddress? {
        if let v4 = ipv4Address(text) { return .v4(IPv4Address(v4)) }
        let bare = text.hasPrefix("[") && text.hasSuffix("]") ? Substring(text.dropFirst().dropLast()) : Substring(text)
        return IPv6Address(bare).map(IPAddress.v6)
    }

    /// A number in host byte order as a dotted IPv4 address (`10.0.0.7`).
    public static func dotted(_ address: UInt32) -> String {
        "\(address >> 24).\(address >> 16 & 0xFF).\(address >> 8 & 0xFF).\(address & 0xFF)"
    }

    /// The address as SDP and STUN servers write it: dotted IPv4, RFC 5952 IPv6 (no brackets).
    public var addressText: String { ip.description }

    /// `10.0.0.7:5004` or `[2001:db8::1]:5004` on UDP, with `/tcp` for a TCP connection.
    public var description: String {
        let host = isIPv6 ? "[\(ip)]" : ip.description
        return "\(host):\(port)\(transport == .tcp ? "/tcp" : "")"
    }
}
