import SessionCore
/// Sends a publisher's datagrams over one `DatagramTransport` (a UDP socket by default): every stream to `defaultDestination`
/// (all layers on one port, told apart by SSRC/RID) unless a per-SSRC route says otherwise (one
/// port per layer, as Janus's streaming plugin expects). Optionally records every sent datagram
/// in a pcap file (`PcapFile`). Receives feedback on the sending socket.
///
/// RTCP goes to the stream's RTP port with `rtcpMux` (RFC 5761), otherwise to RTP port + 1
/// (RFC 3550 §11), so a receiver that only expects RTP on its port (GStreamer's
/// `udpsrc ! srtpdec` without an RTCP branch, a Janus mountpoint without rtcpport) is not
/// disturbed by sender reports. With `rtcpDestination` every RTCP datagram (all streams) goes to
/// that one address instead, from the same socket, so a receiver that keeps RTCP apart (a Janus
/// mountpoint's `videortcpport`) learns where to send its feedback, which `receive` then reads.
/// Whether that RTCP is protected is the publisher's `PublisherSecurity`, not the transport's.
///
/// Feedback is taken only from the peer: a datagram whose source is not one of the addresses
/// this transport sends to (each destination, its RTCP port, the RTCP destination) is dropped
/// and counted in `datagramsFromUnknownSources`, plain RTCP or not, so nobody else who can reach
/// the port can pause layers with a REMB or force key frames.
public final class UDPTransport: PacketTransport {
    public let socket: any DatagramTransport
    /// Where streams without a route go.
    public var defaultDestination: NetworkEndpoint { didSet { updatePeers() } }
    private var routes: [UInt32: NetworkEndpoint] = [:] { didSet { updatePeers() } }
    /// Whether RTCP shares the RTP port (RFC 5761) or goes to port + 1 (RFC 3550 §11).
    public let rtcpMux: Bool
    /// Where all RTCP goes when set (overrides routes and `rtcpMux` for RTCP only).
    public var rtcpDestination: NetworkEndpoint? { didSet { updatePeers() } }
    /// Datagrams received from an address that is not a peer (dropped).
    public private(set) var datagramsFromUnknownSources = 0
    private var peers: Set<NetworkEndpoint> = []
    private var pcap: PcapFile?
    private let clock: MediaClock
    /// Datagrams and bytes sent.
    public private(set) var datagramsSent = 0
    public private(set) var bytesSent = 0

    /// - Parameters:
    ///   - socket: the socket to send from (default: a free port on the local address that routes
    ///     to `destination`: 127.0.0.1 for a loopback destination).
    ///   - destination: where unrouted streams go.
    ///   - clock: its wall time stamps pcap records (injectable).
    ///   - rtcpMux: RTCP on the RTP port (true) or on RTP port + 1 (false; then no destination
    ///     port may be 65535).
    ///   - rtcpDestination: one address for every stream's RTCP (nil: per stream, as above).
    public init(socket: (any DatagramTransport)? = nil, destination: NetworkEndpoint, rtcpMux: Bool = true,
                rtcpDestination: NetworkEndpoint? = nil,
                clock: MediaClock = .system) throws(PublisherError) {
        if let socket {
            self.socket = socket
        } else {
            do {
                // No route (e.g. a broadcast address): any interface, and the send reports the error.
                let local = (try? UDPSocket.localAddress(toward: destination)) ?? 0
                self.socket = try UDPSocket(bindingTo: NetworkEndpoint(address: local, port: 0))
            } catch {
                throw .network(error)
            }
        }
        guard rtcpMux || destination.port < UInt16.max else { throw .network(.portOutOfRange(65536)) }
        defaultDestination = destination
        self.rtcpMux = rtcpMux
        self.rtcpDestination = rtcpDestination
        self.clock = clock
        updatePeers()
    }

    /// Whether `source` is an address this transport sends to (so its feedback is taken).
    public func isPeer(_ source: NetworkEndpoint) -> Bool { peers.contains(source) }

    private func updatePeers() {
        var peers: Set<NetworkEndpoint> = []
        for destination in [defaultDestination] + Array(routes.values) {
            peers.insert(destination)
            if !rtcpMux, destination.port < UInt16.max { peers.insert(NetworkEndpoint(address: destination.address, port: destination.port + 1)) }
        }
        if let rtcpDestination { peers.insert(rtcpDestination) }
        self.peers = peers
    }

    /// Sends stream `ssrc` (its RTP and its RTCP) to `destination`.
    /// Throws `.portOutOfRange` when RTCP would need port 65536.
    public func route(ssrc: UInt32, to destination: NetworkEndpoint) throws(PublisherError) {
        guard rtcpMux || destination.port < UInt16.max else { throw .network(.portOutOfRange(65536)) }
        routes[ssrc] = destination
    }

    /// Where stream `ssrc` goes.
    public func destination(for ssrc: UInt32) -> NetworkEndpoint {
        routes[ssrc] ?? defaultDestination
    }

    /// Records every datagram sent from now on into a new pcap file at `path`.
    public func recordPcap(to path: String) throws(PublisherError) {
        pcap = try PcapFile(path: path)
    }

    /// Flushes and closes the pcap file, if any.
    public func finishPcap() throws(PublisherError) {
        try pcap?.close()
        pcap = nil
    }

    public func send(_ datagram: UnsafeRawBufferPointer, ssrc: UInt32) throws(PublisherError) {
        var destination = routes[ssrc] ?? defaultDestination
        // RFC 5761 §4: the second octet of RTCP is 192...223; an SRTCP header is not encrypted.
        if datagram.count >= 2, (192...223).contains(datagram[1]) {
            if let rtcpDestination {
                destination = rtcpDestination
            } else if !rtcpMux {
                destination.port &+= 1  // < 65535 by the checks in init and route
            }
        }
        do {
            try socket.send(datagram, to: destination)
        } catch {
            throw .network(error)
        }
        datagramsSent += 1
        bytesSent += datagram.count
        if let pcap {
            var source = socket.localEndpoint
            if source.address == 0 { source.address = destination.address >> 24 == 127 ? 0x7F00_0001 : 0 }
            try pcap.record(datagram, from: source, to: destination, unixMicroseconds: UInt64(clamping: clock.wallMicroseconds()))
        }
    }

    /// Receives the next datagram from a peer; others are dropped and counted (without waiting
    /// again for the next).
    public func receive(into buffer: UnsafeMutableRawBufferPointer, timeoutMilliseconds: Int32) throws(PublisherError) -> Int? {
        var timeout = timeoutMilliseconds
        while true {
            let received: (count: Int, from: NetworkEndpoint)?
            do {
                received = try socket.receive(into: buffer, timeoutMilliseconds: timeout)
            } catch {
                throw .network(error)
            }
            guard let received else { return nil }
            if peers.contains(received.from) { return received.count }
            datagramsFromUnknownSources += 1
            timeout = 0
        }
    }
}
