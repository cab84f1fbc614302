import Glibc

/// The `sockaddr_in` plumbing every socket type here shares: `bind` to an endpoint, and the
/// endpoint a socket has (`getsockname`) or is connected to (`getpeername`).
enum SocketAddressCalls {
    /// Binds `descriptor` to `endpoint`; false (errno set) when the kernel refused.
    static func bind(_ descriptor: Int32, to endpoint: NetworkEndpoint) -> Bool {
        var address = endpoint.socketAddress
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        } == 0
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
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let result = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { call(descriptor, $0, &length) }
        }
        guard result == 0 else { throw .socketFailed(operation: "getsockname/getpeername", errno: errno) }
        return NetworkEndpoint(address)
    }
}
