import Glibc

/// Why a network destination or socket operation failed.
public enum NetworkError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Not `HOST:PORT` (or `HOST:P1,P2,P3`), or the host is not an IPv4 address / `localhost`.
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
            return "'\(text)' is not an address: expected IPv4:PORT or localhost:PORT (e.g. 127.0.0.1:5004), "
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

/// An IPv4 endpoint (address in host byte order) on UDP or TCP. Equal only when the transport is
/// equal too: the transport is part of who a peer is (`TransportPath`).
public struct NetworkEndpoint: Sendable, Hashable, CustomStringConvertible {
    public var address: UInt32
    public var port: UInt16
    /// UDP (the default) or a TCP connection.
    public var transport: TransportPath

    public init(address: UInt32, port: UInt16, transport: TransportPath = .udp) {
        self.address = address
        self.port = port
        self.transport = transport
    }

    /// The same address and port on `transport`.
    public func on(_ transport: TransportPath) -> NetworkEndpoint {
        NetworkEndpoint(address: address, port: port, transport: transport)
    }

    /// Whether `other` has the same address and port, whatever its transport.
    public func hasSameAddress(as other: NetworkEndpoint) -> Bool {
        address == other.address && port == other.port
    }

    /// 127.0.0.1 at `port`.
    public static func loopback(port: UInt16) -> NetworkEndpoint {
        NetworkEndpoint(address: 0x7F00_0001, port: port)
    }

    /// Parses `HOST:PORT` where HOST is a dotted IPv4 address or `localhost`.
    public init(parsing text: String) throws(NetworkError) {
        let endpoints = try Self.parseList(text)
        guard endpoints.count == 1 else { throw .invalidAddress(text) }
        self = endpoints[0]
    }

    /// Parses `HOST:PORT` or `HOST:P1,P2,...` into one endpoint per port.
    public static func parseList(_ text: String) throws(NetworkError) -> [NetworkEndpoint] {
        guard let colon = text.lastIndex(of: ":") else { throw .invalidAddress(text) }
        let host = text[..<colon]
        let ports = text[text.index(after: colon)...].split(separator: ",", omittingEmptySubsequences: false)
        guard let address = ipv4Address(host == "localhost" ? "127.0.0.1" : host), !ports.isEmpty else {
            throw .invalidAddress(text)
        }
        var endpoints: [NetworkEndpoint] = []
        for portText in ports {
            guard let port = Int(portText) else { throw .invalidAddress(text) }
            guard (1...65535).contains(port) else { throw .portOutOfRange(port) }
            endpoints.append(NetworkEndpoint(address: address, port: UInt16(port)))
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

    /// A number in host byte order as a dotted IPv4 address (`10.0.0.7`).
    public static func dotted(_ address: UInt32) -> String {
        "\(address >> 24).\(address >> 16 & 0xFF).\(address >> 8 & 0xFF).\(address & 0xFF)"
    }

    /// `10.0.0.7:5004` on UDP, `10.0.0.7:5004/tcp` for a TCP connection.
    public var description: String { "\(Self.dotted(address)):\(port)\(transport == .tcp ? "/tcp" : "")" }

    var socketAddress: sockaddr_in {
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = port.bigEndian
        addr.sin_addr.s_addr = address.bigEndian
        return addr
    }

    init(_ addr: sockaddr_in) {
        self.init(address: UInt32(bigEndian: addr.sin_addr.s_addr), port: UInt16(bigEndian: addr.sin_port))
    }
}
