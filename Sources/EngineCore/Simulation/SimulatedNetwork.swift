import SessionCore

/// An in-memory network on simulated time, for evaluating congestion control without sockets or
/// wall-clock waits (RFC 8867 test cases): ports (`SimulatedNetwork.Port`, a `DatagramTransport`)
/// at made-up addresses exchange datagrams through links. Every datagram to one of
/// `bottleneckDestinations` passes the shared `bottleneck` impairment (capacity, tail-drop queue,
/// loss, delay); every other one `otherPaths` (a delay). On a link each datagram also carries 28
/// bytes of IPv4 + UDP header, which the capacity counts, as a router's would. Time moves only
/// with `advance`; `clock` reads it. Not `Sendable`: one thread drives it.
public final class SimulatedNetwork {
    /// An endpoint of the network: what a publisher, node or subscriber uses as its socket.
    public final class Port: DatagramTransport {
        public let localEndpoint: NetworkEndpoint
        unowned let network: SimulatedNetwork
        private var inbox: [(bytes: [UInt8], from: NetworkEndpoint)] = []
        private var next = 0

        init(endpoint: NetworkEndpoint, network: SimulatedNetwork) {
            localEndpoint = endpoint
            self.network = network
        }

        public func send(_ bytes: UnsafeRawBufferPointer, to destination: NetworkEndpoint) throws(NetworkError) {
            network.offer(Array(bytes), from: localEndpoint, to: destination)
        }

        /// What has arrived, oldest first; never waits (time only moves with `advance`).
        public func receive(into buffer: UnsafeMutableRawBufferPointer, timeoutMilliseconds: Int32)
            throws(NetworkError) -> (count: Int, from: NetworkEndpoint)? {
            while next < inbox.count {
                let datagram = inbox[next]
                next += 1
                if next == inbox.count { (inbox, next) = ([], 0) }
                // Longer than the buffer: dropped, never cut short (as UDPSocket does).
                guard datagram.bytes.count <= buffer.count else { continue }
                datagram.bytes.withUnsafeBytes { buffer.copyMemory(from: $0) }
                return (datagram.bytes.count, datagram.from)
            }
            return nil
        }

        func deliver(_ bytes: [UInt8], from source: NetworkEndpoint) { inbox.append((bytes, source)) }
    }

    /// Bytes of IPv4 (20) and UDP (8) header each datagram carries on a link.
    public static let headerBytes = 28

    public private(set) var nowMicroseconds: Int64
    /// The shared bottleneck and where it leads.
    public var bottleneck: NetworkImpairment
    public var bottleneckDestinations: Set<NetworkEndpoint> = []
    /// Every other path.
    public var otherPaths: NetworkImpairment
    /// Paths of their own, by destination (e.g. one flow's longer way back, for RFC 8867 §5.5's
    /// round-trip times): a datagram to one of these addresses that is not for the bottleneck
    /// passes its path instead of `otherPaths`.
    public var pathsByDestination: [NetworkEndpoint: NetworkImpairment] = [:]
    /// Datagrams for an address no port has.
    public private(set) var undeliverable = 0
    /// Bytes delivered to each address (link headers included).
    private var delivered: [NetworkEndpoint: UInt64] = [:]
    /// The queueing delay each datagram entering the bottleneck met, microseconds, in order.
    public private(set) var bottleneckQueueingSamples: [Int64] = []
    private var ports: [NetworkEndpoint: Port] = [:]
    private var nextAddress: UInt32 = 0x0A00_0001  // 10.0.0.1

    public init(bottleneck: NetworkImpairment.Configuration, otherPaths: NetworkImpairment.Configuration,
                startMicroseconds: Int64 = 1_000_000) {
        self.bottleneck = NetworkImpairment(configuration: bottleneck)
        self.otherPaths = NetworkImpairment(configuration: otherPaths)
        nowMicroseconds = startMicroseconds
    }

    /// The simulated time as a `MediaClock` (wall time moves with it).
    public var clock: MediaClock {
        MediaClock(monotonicMicroseconds: { [unowned self] in nowMicroseconds })
    }

    /// A new port at an address of its own.
    public func makePort() -> Port {
        let endpoint = NetworkEndpoint(address: nextAddress, port: 5_000)
        nextAddress += 1
        let port = Port(endpoint: endpoint, network: self)
        ports[endpoint] = port
        return port
    }

    /// Moves time on by `microseconds`, delivering what falls due on the way (in order).
    public func advance(microseconds: Int64) {
        nowMicroseconds += max(0, microseconds)
        bottleneck.releaseDue(nowMicroseconds: nowMicroseconds) { deliver($0) }
        otherPaths.releaseDue(nowMicroseconds: nowMicroseconds) { deliver($0) }
        for destination in pathsByDestination.keys {
            pathsByDestination[destination]?.releaseDue(nowMicroseconds: nowMicroseconds) { deliver($0) }
        }
    }

    /// Bytes delivered to `destination` so far, link headers included.
    public func deliveredBytes(to destination: NetworkEndpoint) -> UInt64 { delivered[destination] ?? 0 }

    /// How long a datagram entering the bottleneck now would queue.
    public var bottleneckQueueingMicroseconds: Int64 { bottleneck.backlogMicroseconds(nowMicroseconds: nowMicroseconds) }

    func offer(_ bytes: [UInt8], from source: NetworkEndpoint, to destination: NetworkEndpoint) {
        // The link's view: header (source, destination, padded to 28 bytes) + payload.
        var framed = [UInt8](repeating: 0, count: Self.headerBytes)
        framed.reserveCapacity(Self.headerBytes + bytes.count)
        for (offset, endpoint) in [(0, source), (6, destination)] {
            let address = endpoint.ipv4 ?? 0  // the simulated network's ports are IPv4 (`makePort`)
            for index in 0..<4 { framed[offset + index] = UInt8(truncatingIfNeeded: address >> (24 - 8 * index)) }
            framed[offset + 4] = UInt8(endpoint.port >> 8)
            framed[offset + 5] = UInt8(endpoint.port & 0xFF)
        }
        framed.append(contentsOf: bytes)
        if bottleneckDestinations.contains(destination) {
            bottleneckQueueingSamples.append(bottleneck.backlogMicroseconds(nowMicroseconds: nowMicroseconds))
            bottleneck.offer(framed, nowMicroseconds: nowMicroseconds)
        } else if pathsByDestination[destination] != nil {
            pathsByDestination[destination]?.offer(framed, nowMicroseconds: nowMicroseconds)
        } else {
            otherPaths.offer(framed, nowMicroseconds: nowMicroseconds)
        }
        // A zero delay is due at once.
        advance(microseconds: 0)
    }

    private func deliver(_ framed: [UInt8]) {
        func endpoint(at offset: Int) -> NetworkEndpoint {
            var address: UInt32 = 0
            for index in 0..<4 { address = address << 8 | UInt32(framed[offset + index]) }
            return NetworkEndpoint(address: address, port: UInt16(framed[offset + 4]) << 8 | UInt16(framed[offset + 5]))
        }
        let destination = endpoint(at: 6)
        guard let port = ports[destination] else {
            undeliverable += 1
            return
        }
        delivered[destination, default: 0] += UInt64(framed.count)
        port.deliver(Array(framed[Self.headerBytes...]), from: endpoint(at: 0))
    }
}
