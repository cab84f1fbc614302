/// A `DatagramTransport` that drops everything it is given and receives nothing (benchmarks
/// measure the work before the socket). Counts what it was handed.
public final class DiscardTransport: DatagramTransport {
    /// Datagrams and bytes handed over.
    public private(set) var datagrams = 0
    public private(set) var bytes = 0
    /// A placeholder: the discard port (RFC 863) on loopback (no socket is opened).
    public let localEndpoint = NetworkEndpoint.loopback(port: 9)

    public init() {}

    public func send(_ bytes: UnsafeRawBufferPointer, to destination: NetworkEndpoint) throws(NetworkError) {
        datagrams += 1
        self.bytes += bytes.count
    }

    public func receive(into buffer: UnsafeMutableRawBufferPointer, timeoutMilliseconds: Int32)
        throws(NetworkError) -> (count: Int, from: NetworkEndpoint)?
    {
        nil
    }
}
