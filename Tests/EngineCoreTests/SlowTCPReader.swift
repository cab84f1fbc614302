import SessionCore
@testable import EngineCore

/// A subscriber's end of a TCP connection (RFC 4571) that takes datagrams only as fast as a path of
/// `bitsPerSecond` would deliver them, in simulated time: what it has not taken waits in the
/// kernel's socket buffers and then in the sender's queue, as on a slow TCP path (head-of-line
/// blocking: nothing is lost, everything behind waits).
final class SlowTCPReader: DatagramTransport {
    let connection: TCPFramedConnection
    var bitsPerSecond: Int
    private let clock: MediaClock
    private var budgetBits = 0.0
    private var lastMicroseconds: Int64

    init(connection: TCPFramedConnection, bitsPerSecond: Int, clock: MediaClock) {
        self.connection = connection
        self.bitsPerSecond = bitsPerSecond
        self.clock = clock
        lastMicroseconds = clock.monotonicMicroseconds()
    }

    var localEndpoint: NetworkEndpoint { connection.localEndpoint }

    func isReliableStream(to peer: NetworkEndpoint) -> Bool { true }

    func send(_ bytes: UnsafeRawBufferPointer, to destination: NetworkEndpoint) throws(NetworkError) {
        try connection.send(bytes, to: destination)
    }

    /// The next datagram if the path has delivered it by now (a budget of at most 10 ms of the
    /// rate builds up while idle); never waits.
    func receive(into buffer: UnsafeMutableRawBufferPointer, timeoutMilliseconds: Int32)
        throws(NetworkError) -> (count: Int, from: NetworkEndpoint)? {
        let now = clock.monotonicMicroseconds()
        budgetBits = min(budgetBits + Double(bitsPerSecond) * Double(now - lastMicroseconds) / 1_000_000,
                         Double(bitsPerSecond) / 100)
        lastMicroseconds = now
        guard budgetBits > 0, let received = try connection.receive(into: buffer, timeoutMilliseconds: 0) else { return nil }
        budgetBits -= Double(received.count * 8)
        return received
    }
}
