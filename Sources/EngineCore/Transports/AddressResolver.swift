import Glibc
import RTPWire

/// Host names to addresses through the system resolver (`getaddrinfo(3)`, `AF_UNSPEC`): the
/// first address it returns, IPv4 or IPv6 (its order follows RFC 6724 and /etc/gai.conf).
enum AddressResolver {
    /// The first address of `host` for sockets of `socketType`; nil when it has none.
    static func resolve(_ host: String, socketType: Int32) -> IPAddress? {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = socketType
        var results: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &results) == 0 else { return nil }
        defer { freeaddrinfo(results) }
        var entry = results
        while let current = entry {
            if let address = current.pointee.ai_addr, let endpoint = SocketAddress.endpoint(UnsafeRawPointer(address)) {
                return endpoint.ip
            }
            entry = current.pointee.ai_next
        }
        return nil
    }
}
