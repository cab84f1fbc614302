import Glibc
import RTPWire

/// The host's interface addresses (`getifaddrs(3)`), where host candidates come from (RFC 8445
/// §5.1.1.1): every address of an interface that is up, IPv4 and IPv6, in the kernel's order,
/// marked loopback (127.0.0.0/8, ::1, IFF_LOOPBACK) and link-local (169.254.0.0/16, fe80::/10).
/// ICE skips both unless asked (`usable`): a loopback address reaches no other machine, and a
/// link-local one only its own link, without a scope the peer could name.
public enum NetworkInterfaces {
    /// One address of one interface.
    public struct Address: Sendable, Hashable, CustomStringConvertible {
        public enum IP: Sendable, Hashable {
            /// Host byte order, as `NetworkEndpoint` keeps it.
            case v4(UInt32)
            /// 16 bytes, network order.
            case v6([UInt8])

            /// As an endpoint's address.
            public var address: IPAddress {
                switch self {
                case let .v4(value): .v4(IPv4Address(value))
                case let .v6(bytes): .v6(IPv6Address(bytes: bytes))
                }
            }
        }

        public var interface: String
        public var ip: IP
        public var isLoopback: Bool
        public var isLinkLocal: Bool

        public var description: String {
            switch ip {
            case let .v4(address): return "\(interface) \(NetworkEndpoint.dotted(address))"
            case let .v6(bytes): return "\(interface) \(Self.text(ipv6: bytes))"
            }
        }

        /// RFC 5952 text of an IPv6 address (`inet_ntop`).
        static func text(ipv6 bytes: [UInt8]) -> String {
            var address = in6_addr()
            withUnsafeMutableBytes(of: &address) { raw in
                for index in 0..<min(16, bytes.count) { raw[index] = bytes[index] }
            }
            var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
            guard inet_ntop(AF_INET6, &address, &buffer, socklen_t(buffer.count)) != nil else { return "?" }
            return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
    }

    /// Every address of every interface that is up. Throws when `getifaddrs` fails.
    public static func all() throws(NetworkError) -> [Address] {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0 else { throw .socketFailed(operation: "getifaddrs", errno: errno) }
        defer { freeifaddrs(list) }
        var addresses: [Address] = []
        var entry = list
        while let current = entry {
            defer { entry = current.pointee.ifa_next }
            let flags = Int32(bitPattern: current.pointee.ifa_flags)
            guard flags & Int32(IFF_UP) != 0, let socketAddress = current.pointee.ifa_addr else { continue }
            let name = String(cString: current.pointee.ifa_name)
            let loopbackInterface = flags & Int32(IFF_LOOPBACK) != 0
            switch Int32(socketAddress.pointee.sa_family) {
            case AF_INET:
                let address = socketAddress.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { UInt32(bigEndian: $0.pointee.sin_addr.s_addr) }
                addresses.append(Address(interface: name, ip: .v4(address), isLoopback: loopbackInterface || address >> 24 == 127,
                                         isLinkLocal: address >> 16 == 0xA9FE))
            case AF_INET6:
                let bytes = socketAddress.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { pointer in
                    withUnsafeBytes(of: pointer.pointee.sin6_addr) { Array($0) }
                }
                let isLoopback = loopbackInterface || bytes == [UInt8](repeating: 0, count: 15) + [1]
                addresses.append(Address(interface: name, ip: .v6(bytes), isLoopback: isLoopback,
                                         isLinkLocal: bytes[0] == 0xFE && bytes[1] & 0xC0 == 0x80))
            default:
                continue
            }
        }
        return addresses
    }

    /// The addresses ICE gathers host candidates on: loopback and link-local only when asked.
    public static func usable(includingLoopback: Bool = false, includingLinkLocal: Bool = false) throws(NetworkError) -> [Address] {
        try all().filter { (includingLoopback || !$0.isLoopback) && (includingLinkLocal || !$0.isLinkLocal) }
    }
}
