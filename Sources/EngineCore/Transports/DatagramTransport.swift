/// What every endpoint (publisher, subscriber, forwarding node) sends and receives datagrams
/// through: one local address, datagrams to and from peers. `UDPSocket` is the transport today;
/// an ICE-checked, bundled port (RFC 8445, RFC 7983 demultiplexing) slots in the same way.
///
/// Implementations write received bytes only into the caller's buffer and allocate nothing per
/// datagram. Not required to be `Sendable`: confined with the endpoint that owns it.
public protocol DatagramTransport: AnyObject {
    /// Where peers send to.
    var localEndpoint: NetworkEndpoint { get }

    /// Sends one datagram to `destination` (`sendto`).
    func send(_ bytes: UnsafeRawBufferPointer, to destination: NetworkEndpoint) throws(NetworkError)

    /// Receives one datagram into `buffer`, waiting at most `timeoutMilliseconds` (negative:
    /// forever); nil on timeout. A datagram longer than `buffer` is dropped, never cut short.
    func receive(into buffer: UnsafeMutableRawBufferPointer, timeoutMilliseconds: Int32)
        throws(NetworkError) -> (count: Int, from: NetworkEndpoint)?

    /// Whether datagrams to `peer` travel on a reliable, ordered stream (TCP with RFC 4571
    /// framing): they arrive unless the connection breaks, so generic NACKs (RFC 4585 §6.2.1)
    /// and retransmissions would only add load; key-frame requests still apply.
    func isReliableStream(to peer: NetworkEndpoint) -> Bool
}

extension DatagramTransport {
    /// Default: datagrams (UDP), which the network may lose.
    public func isReliableStream(to peer: NetworkEndpoint) -> Bool { false }

    /// Sends a slice of bytes as one datagram.
    public func send(_ bytes: ArraySlice<UInt8>, to destination: NetworkEndpoint) throws(NetworkError) {
        let result: Result<Void, NetworkError> = bytes.withUnsafeBytes { buffer in
            Result { () throws(NetworkError) in try send(buffer, to: destination) }
        }
        try result.get()
    }

    /// Sends an array of bytes as one datagram.
    public func send(_ bytes: [UInt8], to destination: NetworkEndpoint) throws(NetworkError) {
        try send(bytes[...], to: destination)
    }

    /// `receive(into:timeoutMilliseconds:)` into a reused array (its whole count is the room).
    public func receive(into buffer: inout [UInt8], timeoutMilliseconds: Int32)
        throws(NetworkError) -> (count: Int, from: NetworkEndpoint)?
    {
        let result = buffer.withUnsafeMutableBytes { bytes in
            Result { () throws(NetworkError) in try receive(into: bytes, timeoutMilliseconds: timeoutMilliseconds) }
        }
        return try result.get()
    }
}
