import Glibc
import RTPWire

/// A `sockaddr_in` or `sockaddr_in6` for one system call, made on the stack from an endpoint
/// (no allocation: the send path makes one per datagram). An IPv4 endpoint given to an
/// `AF_INET6` socket becomes its IPv4-mapped address (`::ffff:a.b.c.d`, RFC 4291 §2.5.5.2), as
/// a dual-stack socket (`IPV6_V6ONLY` off) addresses IPv4 peers.
struct SocketAddress {
    private var storage = sockaddr_in6()  // 28 bytes: room for a sockaddr_in (16) too
    let length: socklen_t

    init(_ endpoint: NetworkEndpoint, family: Int32) {
        let address: IPv6Address
        switch endpoint.ip {
        case let .v4(v4) where family != AF_INET6:
            var ipv4 = sockaddr_in()
            ipv4.sin_family = sa_family_t(AF_INET)
            ipv4.sin_port = endpoint.port.bigEndian
            ipv4.sin_addr.s_addr = v4.value.bigEndian
            withUnsafeMutableBytes(of: &storage) { $0.storeBytes(of: ipv4, as: sockaddr_in.self) }
            length = socklen_t(MemoryLayout<sockaddr_in>.size)
            return
        case let .v4(v4): address = IPv6Address(high: 0, low: 0xFFFF_0000_0000 | UInt64(v4.value))
        case let .v6(v6): address = v6
        }
        storage.sin6_family = sa_family_t(AF_INET6)
        storage.sin6_port = endpoint.port.bigEndian
        withUnsafeMutableBytes(of: &storage.sin6_addr) { raw in
            raw.storeBytes(of: address.high.bigEndian, toByteOffset: 0, as: UInt64.self)
            raw.storeBytes(of: address.low.bigEndian, toByteOffset: 8, as: UInt64.self)
        }
        length = socklen_t(MemoryLayout<sockaddr_in6>.size)
    }

    /// Calls `body` with the address as a `sockaddr` and its length.
    mutating func withPointer<Result>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> Result) -> Result {
        let length = self.length
        return withUnsafePointer(to: &storage) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, length) } }
    }

    /// The endpoint a `sockaddr_in` / `sockaddr_in6` the kernel filled in names; an IPv4-mapped
    /// IPv6 address is its IPv4 endpoint (what a dual-stack socket reports an IPv4 peer as).
    /// Nil for another family.
    static func endpoint(_ address: UnsafeRawPointer) -> NetworkEndpoint? {
        switch Int32(address.load(as: sockaddr.self).sa_family) {
        case AF_INET:
            let v4 = address.loadUnaligned(as: sockaddr_in.self)
            return NetworkEndpoint(address: UInt32(bigEndian: v4.sin_addr.s_addr), port: UInt16(bigEndian: v4.sin_port))
        case AF_INET6:
            let v6 = address.loadUnaligned(as: sockaddr_in6.self)
            let ip = withUnsafeBytes(of: v6.sin6_addr) { raw in
                IPv6Address(high: UInt64(bigEndian: raw.loadUnaligned(fromByteOffset: 0, as: UInt64.self)),
                            low: UInt64(bigEndian: raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self)))
            }
            let port = UInt16(bigEndian: v6.sin6_port)
            if let mapped = ip.mappedIPv4 { return NetworkEndpoint(address: mapped, port: port) }
            return NetworkEndpoint(ipv6: ip, port: port)
        default:
            return nil
        }
    }
}

/// The socket-address plumbing every socket type here shares: the socket family an endpoint
/// needs, `bind` to an endpoint, and the endpoint a socket has (`getsockname`) or is connected
/// to (`getpeername`).
enum SocketAddressCalls {
    /// `AF_INET6` for an IPv6 endpoint, else `AF_INET`.
    static func family(for endpoint: NetworkEndpoint) -> Int32 { endpoint.isIPv6 ? AF_INET6 : AF_INET }

    /// A new socket of `type` for `endpoint`'s family; an IPv6 one with `IPV6_V6ONLY` off (a
    /// socket bound to `::` then takes IPv4 too). -1 with errno set on failure.
    static func socket(for endpoint: NetworkEndpoint, type: Int32) -> Int32 {
        let family = family(for: endpoint)
        let descriptor = Glibc.socket(family, type, 0)
        if descriptor >= 0, family == AF_INET6 {
            var off: Int32 = 0
            setsockopt(descriptor, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &off, socklen_t(MemoryLayout<Int32>.size))
        }
        return descriptor
    }

    /// The family of the socket `descriptor` (`SO_DOMAIN`).
    static func family(of descriptor: Int32) -> Int32 {
        var domain: Int32 = AF_INET
        var length = socklen_t(MemoryLayout<Int32>.size)
        _ = getsockopt(descriptor, SOL_SOCKET, SO_DOMAIN, &domain, &length)
        return domain
    }

    /// Binds `descriptor` to `endpoint`; false (errno set) when the kernel refused.
    static func bind(_ descriptor: Int32, to endpoint: NetworkEndpoint) -> Bool {
        var address = SocketAddress(endpoint, family: family(of: descriptor))
        return address.withPointer { Glibc.bind(descriptor, $0, $1) } == 0
    }

    /// Connects `descriptor` to `endpoint` (`connect(2)`): its result, errno set when not 0.
    static func connect(_ descriptor: Int32, to endpoint: NetworkEndpoint) -> Int32 {
        var address = SocketAddress(endpoint, family: family(of: descriptor))
        return address.withPointer { Glibc.connect(descriptor, $0, $1) }
    }

    /// The socket's own address (`getsockname`).
    static func localEndpoint(of descriptor: Int32) throws(NetworkError) -> NetworkEndpoint {
        try name(of: descriptor, getsockname)
    }

    /// The address a socket being set up got (`getsockname`); when the kernel cannot tell, the
    /// socket is closed before the error is thrown, so a failed initializer leaks no descriptor.
    static func localEndpointClosingOnFailure(of descriptor: Int32) throws(NetworkError) -> NetworkEndpoint {
        do {
            return try localEndpoint(of: descriptor)
        } catch {
            close(descriptor)
            throw error
        }
    }

    /// The connected peer's address (`getpeername`).
    static func peerEndpoint(of descriptor: Int32) throws(NetworkError) -> NetworkEndpoint {
        try name(of: descriptor, getpeername)
    }

    private static func name(of descriptor: Int32,
                             _ call: (Int32, UnsafeMutablePointer<sockaddr>, UnsafeMutablePointer<socklen_t>) -> Int32)
        throws(NetworkError) -> NetworkEndpoint {
        var address = sockaddr_in6()
        var length = socklen_t(MemoryLayout<sockaddr_in6>.size)
        let result = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { call(descriptor, $0, &length) }
        }
        guard result == 0 else { throw .socketFailed(operation: "getsockname/getpeername", errno: errno) }
        guard let endpoint = withUnsafeBytes(of: &address, { SocketAddress.endpoint($0.baseAddress!) }) else {
            throw .socketFailed(operation: "getsockname/getpeername", errno: EAFNOSUPPORT)
        }
        return endpoint
    }
}
