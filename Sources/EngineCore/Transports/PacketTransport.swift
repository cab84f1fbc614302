/// Where the publish path hands finished (protected) datagrams. One transport serves every
/// stream of a publisher; `ssrc` says which stream a datagram belongs to so a transport can
/// route layers to different destinations.
public protocol PacketTransport: AnyObject {
    /// Sends one datagram of the stream `ssrc` (RTP or RTCP). The bytes are valid only during the call.
    func send(_ datagram: UnsafeRawBufferPointer, ssrc: UInt32) throws(PublisherError)
    /// Receives one datagram (e.g. RTCP feedback) into `buffer`, waiting at most
    /// `timeoutMilliseconds`; nil on timeout or when the transport cannot receive.
    func receive(into buffer: UnsafeMutableRawBufferPointer, timeoutMilliseconds: Int32) throws(PublisherError) -> Int?
}

extension PacketTransport {
    /// Default: this transport does not receive.
    public func receive(into buffer: UnsafeMutableRawBufferPointer, timeoutMilliseconds: Int32) throws(PublisherError) -> Int? {
        nil
    }
}

/// A transport that keeps every datagram in memory, for tests and tools.
public final class MemoryTransport: PacketTransport {
    /// One sent datagram.
    public struct Datagram: Sendable, Equatable {
        public var ssrc: UInt32
        public var bytes: [UInt8]
    }

    /// Everything sent, in order.
    public private(set) var sent: [Datagram] = []
    /// Datagrams `receive` hands out, first in first out.
    public var inbox: [[UInt8]] = []

    public init() {}

    public func send(_ datagram: UnsafeRawBufferPointer, ssrc: UInt32) throws(PublisherError) {
        sent.append(Datagram(ssrc: ssrc, bytes: Array(datagram)))
    }

    public func receive(into buffer: UnsafeMutableRawBufferPointer, timeoutMilliseconds: Int32) throws(PublisherError) -> Int? {
        guard !inbox.isEmpty else { return nil }
        let datagram = inbox.removeFirst()
        let count = min(datagram.count, buffer.count)
        for index in 0..<count { buffer[index] = datagram[index] }
        return count
    }

    /// Forgets what was sent.
    public func removeAll() { sent.removeAll() }
}

/// A transport that drops everything (benchmarks measure the work before the socket).
public final class DiscardTransport: PacketTransport {
    /// Datagrams and bytes handed over.
    public private(set) var datagrams = 0
    public private(set) var bytes = 0

    public init() {}

    public func send(_ datagram: UnsafeRawBufferPointer, ssrc: UInt32) throws(PublisherError) {
        datagrams += 1
        bytes += datagram.count
    }
}
