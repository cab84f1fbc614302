/// Where a publisher's datagrams go over its one `DatagramTransport`, and whose feedback it
/// takes: a value of the publish path (`SendPath.routing`), not a transport of its own.
///
/// Every stream goes to `defaultDestination` (all layers on one port, told apart by SSRC/RID)
/// unless a per-SSRC route says otherwise (one port per layer, as Janus's streaming plugin
/// expects). RTCP goes to the stream's RTP port with `rtcpMux` (RFC 5761), otherwise to RTP
/// port + 1 (RFC 3550 §11), so a receiver that only expects RTP on its port (GStreamer's
/// `udpsrc ! srtpdec` without an RTCP branch, a Janus mountpoint without rtcpport) is not
/// disturbed by sender reports. With `rtcpDestination` every RTCP datagram (all streams) goes to
/// that one address instead, from the same transport, so a receiver that keeps RTCP apart (a
/// Janus mountpoint's `videortcpport`) learns where to send its feedback.
///
/// Feedback is taken only from a peer (`isPeer`): an address the routing sends to (each
/// destination, its RTCP port, the RTCP destination), so nobody else who can reach the port can
/// pause layers with a REMB or force key frames (`SendPath.receiveFeedback`).
public struct PublisherRouting: Sendable, Equatable {
    /// Where streams without a route go.
    public var defaultDestination: NetworkEndpoint { didSet { updatePeers() } }
    private var routes: [UInt32: NetworkEndpoint] = [:] { didSet { updatePeers() } }
    /// Whether RTCP shares the RTP port (RFC 5761) or goes to port + 1 (RFC 3550 §11).
    public let rtcpMux: Bool
    /// Where all RTCP goes when set (overrides routes and `rtcpMux` for RTCP only).
    public var rtcpDestination: NetworkEndpoint? { didSet { updatePeers() } }
    private var peers: Set<NetworkEndpoint> = []

    /// - Parameters:
    ///   - destination: where unrouted streams go.
    ///   - rtcpMux: RTCP on the RTP port (true) or on RTP port + 1 (false; then no destination
    ///     port may be 65535: `.network(.portOutOfRange)`).
    ///   - rtcpDestination: one address for every stream's RTCP (nil: per stream, as above).
    public init(destination: NetworkEndpoint, rtcpMux: Bool = true,
                rtcpDestination: NetworkEndpoint? = nil) throws(PublisherError) {
        guard rtcpMux || destination.port < UInt16.max else { throw .network(.portOutOfRange(65536)) }
        defaultDestination = destination
        self.rtcpMux = rtcpMux
        self.rtcpDestination = rtcpDestination
        updatePeers()
    }

    /// Sends stream `ssrc` (its RTP and its RTCP) to `destination`.
    /// Throws `.portOutOfRange` when RTCP would need port 65536.
    public mutating func route(ssrc: UInt32, to destination: NetworkEndpoint) throws(PublisherError) {
        guard rtcpMux || destination.port < UInt16.max else { throw .network(.portOutOfRange(65536)) }
        routes[ssrc] = destination
    }

    /// Where stream `ssrc`'s RTP goes.
    public func destination(for ssrc: UInt32) -> NetworkEndpoint {
        routes[ssrc] ?? defaultDestination
    }

    /// Where one datagram of stream `ssrc` goes: RTCP (RFC 5761 §4: second octet 192...223; an
    /// SRTCP header is not encrypted) to the RTCP destination or RTP port + 1 without mux.
    public func destination(of datagram: UnsafeRawBufferPointer, ssrc: UInt32) -> NetworkEndpoint {
        // Most publishers have no route: no hashing per packet then.
        var destination = routes.isEmpty ? defaultDestination : routes[ssrc] ?? defaultDestination
        if datagram.count >= 2, (192...223).contains(datagram[1]) {
            if let rtcpDestination {
                destination = rtcpDestination
            } else if !rtcpMux {
                destination.port &+= 1  // < 65535 by the checks in init and route
            }
        }
        return destination
    }

    /// Whether `source` is an address this routing sends to (so its feedback is taken).
    public func isPeer(_ source: NetworkEndpoint) -> Bool { peers.contains(source) }

    private mutating func updatePeers() {
        var peers: Set<NetworkEndpoint> = []
        for destination in [defaultDestination] + Array(routes.values) {
            peers.insert(destination)
            if !rtcpMux, destination.port < UInt16.max { peers.insert(destination.at(port: destination.port + 1)) }
        }
        if let rtcpDestination { peers.insert(rtcpDestination) }
        self.peers = peers
    }
}
