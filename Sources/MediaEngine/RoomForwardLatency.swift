internal import EngineCore

/// What `simulcast-bench forward` reads of a hosted room's forwarding latency: the time from a
/// datagram's arrival at a publisher's node (its UDP socket) to each forwarded send, through the
/// engine's real loop (`ForwardLatencyProbe`). Package-visible, like `RoomTestingHooks`.
extension Room {
    /// The latency quantiles recorded so far: sends timed, median and 99th percentile (ms).
    package struct ForwardLatency: Sendable {
        package var sends: Int
        package var medianMilliseconds: Double?
        package var p99Milliseconds: Double?
    }

    /// Starts timing (again, from nothing) what the node of `publisherId`'s camera forwards.
    package func startForwardLatencyProbe(publisher publisherId: String) async throws(EngineError) {
        try await onHostedRoom { room throws(EngineError) in
            let node = try Self.nodeTransport(room, publisherId)
            if let probe = node.forwardLatency { probe.reset() } else { node.forwardLatency = ForwardLatencyProbe() }
        }
    }

    /// What the probe of `publisherId`'s node recorded since it started.
    package func forwardLatency(publisher publisherId: String) async throws(EngineError) -> ForwardLatency {
        try await onHostedRoom { room throws(EngineError) in
            guard let probe = try Self.nodeTransport(room, publisherId).forwardLatency else {
                throw .notAllowed("no forward latency probe at \(publisherId)'s node")
            }
            return ForwardLatency(sends: probe.count, medianMilliseconds: probe.quantileMilliseconds(0.5),
                                  p99Milliseconds: probe.quantileMilliseconds(0.99))
        }
    }

    private static func nodeTransport(_ room: RoomRuntime, _ publisherId: String) throws(EngineError) -> UDPAndTCPTransport {
        guard let transport = try room.publishedVideo(publisherId).node.transport as? UDPAndTCPTransport else {
            throw .systemFailure("\(publisherId)'s node does not run on UDPAndTCPTransport")
        }
        return transport
    }
}
