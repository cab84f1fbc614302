/// A `DatagramTransport` that keeps every datagram in memory, for tests and tools: what is sent
/// is appended to `sent`, and `receive` hands out `inbox`, first in first out.
public final class MemoryTransport: DatagramTransport {
    /// One datagram and the peer it went to (sent) or came from (inbox).
    public struct Datagram: Sendable, Equatable {
        public var peer: NetworkEndpoint
        public var bytes: [UInt8]

        public init(peer: NetworkEndpoint, bytes: [UInt8]) {
            self.peer = peer
            self.bytes = bytes
        }

        /// The stream it belongs to, read from its clear header: an RTP packet's SSRC
        /// (RFC 3550 §5.1, octets 8-11), an RTCP compound's first sender SSRC (§6.4.1, octets
        /// 4-7; RFC 5761 §4 tells them apart by the second octet, 192...223 for RTCP); 0 when too
        /// short. SRTP and SRTCP leave both in the clear.
        public var ssrc: UInt32 {
            let isRTCP = bytes.count >= 2 && (192...223).contains(bytes[1])
            let offset = isRTCP ? 4 : 8
            guard bytes.count >= offset + 4 else { return 0 }
            return bytes[offset..<offset + 4].reduce(0) { $0 << 8 | UInt32($1) }
        }
    }

    public let localEndpoint: NetworkEndpoint
    /// Everything sent, in order.
    public private(set) var sent: [Datagram] = []
    /// Datagrams `receive` hands out, first in first out.
    public var inbox: [Datagram] = []

    public init(localEndpoint: NetworkEndpoint = .loopback(port: 5004)) {
        self.localEndpoint = localEndpoint
    }

    public func send(_ bytes: UnsafeRawBufferPointer, to destination: NetworkEndpoint) throws(NetworkError) {
        sent.append(Datagram(peer: destination, bytes: Array(bytes)))
    }

    /// The next `inbox` datagram (nil when empty, never waiting); one longer than `buffer` is
    /// dropped, as a socket drops it.
    public func receive(into buffer: UnsafeMutableRawBufferPointer, timeoutMilliseconds: Int32)
        throws(NetworkError) -> (count: Int, from: NetworkEndpoint)?
    {
        while !inbox.isEmpty {
            let datagram = inbox.removeFirst()
            guard datagram.bytes.count <= buffer.count else { continue }
            buffer.copyBytes(from: datagram.bytes)
            return (datagram.bytes.count, datagram.peer)
        }
        return nil
    }

    /// Forgets what was sent.
    public func removeAll() { sent.removeAll() }
}
