import CShims
import Glibc

/// Datagrams a UDP socket received in one `recvmmsg(2)` call (`cshim_recvmmsg`) and hands
/// out one at a time: when several wait, one system call takes them all. Sources are IPv4 or
/// IPv6 (room for a `sockaddr_in6` each). Its slots, lengths,
/// source addresses and arrival stamps are allocated once, when the socket first receives; no
/// allocation per datagram. Confined with its socket.
final class DatagramBatch {
    /// Bytes per slot: a datagram longer than this is reported by its real length (and dropped
    /// by the socket as too long for any buffer the engine receives into).
    static let slotBytes = 2048
    /// Datagrams one call takes at most.
    static let capacity = 16

    private let slots: UnsafeMutableRawPointer
    private let lengths: UnsafeMutablePointer<Int>
    private let addresses: UnsafeMutablePointer<sockaddr_in6>
    private let stamps: UnsafeMutablePointer<Int64>
    private var count = 0
    private var next = 0
    private var isStamped = false

    init() {
        slots = .allocate(byteCount: Self.slotBytes * Self.capacity, alignment: 16)
        lengths = .allocate(capacity: Self.capacity)
        addresses = .allocate(capacity: Self.capacity)
        stamps = .allocate(capacity: Self.capacity)
        stamps.initialize(repeating: 0, count: Self.capacity)
    }

    deinit {
        slots.deallocate()
        lengths.deallocate()
        addresses.deallocate()
        stamps.deallocate()
    }

    /// Whether a received datagram waits to be handed out.
    var hasPending: Bool { next < count }

    /// Receives what waits on `descriptor` (nothing: false), with arrival stamps when `stamped`.
    func refill(from descriptor: Int32, stamped: Bool) throws(NetworkError) -> Bool {
        let received = cshim_recvmmsg(descriptor, slots, Self.slotBytes, Int32(Self.capacity), lengths, addresses,
                                           stamped ? stamps : nil)
        guard received >= 0 else { throw .socketFailed(operation: "recvmmsg", errno: errno) }
        (count, next, isStamped) = (Int(received), 0, stamped)
        return received > 0
    }

    /// The next datagram: copied into `buffer` when it fits (else not copied: `fits` false, its
    /// real length in `length`), its source and arrival stamp (0 without stamps).
    func take(into buffer: UnsafeMutableRawBufferPointer) -> (length: Int, fits: Bool, from: NetworkEndpoint, stamp: Int64) {
        let index = next
        next += 1
        let length = lengths[index]
        let fits = length <= buffer.count && length <= Self.slotBytes
        if fits, length > 0 { buffer.baseAddress?.copyMemory(from: slots + index * Self.slotBytes, byteCount: length) }
        let from = SocketAddress.endpoint(UnsafeRawPointer(addresses + index)) ?? NetworkEndpoint(address: 0, port: 0)
        return (length, fits, from, isStamped ? stamps[index] : 0)
    }
}
