internal import EngineCore

/// What a hosted room's demos and tests reach besides the public API (package-visible: the
/// `MediaEngineTesting` target and the CLI use it; a client cannot).
extension Room {
    /// Limits everything the room forwards to `participantId` to `bitsPerSecond` (a token-bucket
    /// policer: what exceeds it is dropped, as on a squeezed link); nil opens it again.
    package func setDownlinkLimit(_ bitsPerSecond: Int?, participant participantId: String) async throws(EngineError) {
        try await onHostedRoom { room throws(EngineError) in try room.setDownlinkLimit(bitsPerSecond, participant: participantId) }
    }

    /// Datagrams the downlink limit of `participantId` dropped.
    package func downlinkDrops(participant participantId: String) async throws(EngineError) -> Int {
        try await onHostedRoom { room throws(EngineError) in try room.downlinkDrops(participant: participantId) }
    }

    /// Packets the forwarding node resent to one subscriber (NACK answers, rebuilt ones included).
    package func retransmissions(subscriber subscriberId: String, publisher publisherId: String) async throws(EngineError) -> Int {
        try await onHostedRoom { room throws(EngineError) in
            let counters = try room.forwardingCounters(subscriber: subscriberId, publisher: publisherId)
            return counters.retransmitted + counters.rebuilt
        }
    }

    /// Video and audio packets the node of `publisherId` handed to `subscriberId`'s feed (on the
    /// path to that subscriber).
    package func packetsForwarded(subscriber subscriberId: String, publisher publisherId: String) async throws(EngineError)
        -> (video: Int, audio: Int) {
        try await onHostedRoom { room throws(EngineError) in
            let counters = try room.forwardingCounters(subscriber: subscriberId, publisher: publisherId)
            return (counters.packetsSent, counters.audioPacketsSent)
        }
    }

    /// PLIs the node of `publisherId` sent that publisher.
    package func keyFrameRequestsToPublisher(_ publisherId: String) async throws(EngineError) -> Int {
        try await onHostedRoom { room throws(EngineError) in try room.nodeCounters(publisher: publisherId).keyFrameRequestsSent }
    }

    /// What the TCP side of `publisherId`'s node did with the connections it was offered.
    package func tcpConnections(publisher publisherId: String) async throws(EngineError) -> TCPConnectionSummary {
        try await onHostedRoom { room throws(EngineError) in try room.tcpConnections(publisher: publisherId) }
    }

    /// The room's adaptive-subscription view of `participantId`: its estimated downlink and
    /// whose videos are paused for it.
    package func adaptiveState(of participantId: String) async throws(EngineError) -> (estimatedBitsPerSecond: Int?, paused: [String]) {
        try await onHostedRoom { room throws(EngineError) in (room.estimatedBandwidth(of: participantId), room.pausedVideos(of: participantId)) }
    }

    /// The room's bandwidth budget: the lowest video layer of `publisherId` and one audio stream, bps.
    package func budget(publisher publisherId: String) async throws(EngineError) -> (lowestVideo: Int?, audio: Int) {
        try await onHostedRoom { room throws(EngineError) in (room.lowestVideoBitsPerSecond(of: publisherId), room.audioBitsPerSecond) }
    }

    func onHostedRoom<T: Sendable>(_ body: @escaping @Sendable (RoomRuntime) throws(EngineError) -> T) async throws(EngineError) -> T {
        let roomId = id
        return try await loop.perform { runtime throws(EngineError) in
            guard let room = runtime.rooms[roomId] as? RoomRuntime else { throw .closed("room \(roomId)") }
            return try body(room)
        }
    }
}
