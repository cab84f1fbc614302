import Simulcast

/// What the Janus tests read besides the public API (package-visible; a client cannot).
extension LocalParticipant {
    /// The subscriber peer connections this participant's Janus room holds (nil: not a Janus room).
    package func janusSubscriberConnectionCount() async throws(EngineError) -> Int? {
        try await onJanusRoom { $0?.subscriberConnectionCount }
    }
}

extension LocalParticipant {
    /// RTP packets of `publisherId`'s `kind` that reached this participant's Janus subscriber
    /// socket, routed or not (`BundledStreamDemultiplexer`'s count; nil: never received).
    package func janusPacketsOnSocket(from publisherId: String, kind: PublishedTrackKind) async throws(EngineError) -> Int64? {
        try await onJanusRoom { $0?.packetsOnSocket(from: publisherId, kind: kind) }
    }
}

extension LocalParticipant {
    /// Replaces the speaker ranking this participant's Janus room orders adaptive subscriptions
    /// by (participant ids, most dominant first), as an active-speaker detector would.
    package func setJanusSpeakerRanking(_ ranking: [String]) async throws(EngineError) {
        let roomId = roomId
        try await onJanusRoom { (room) throws(EngineError) in
            guard let room else { throw .closed("room \(roomId)") }
            room.adaptive.speakerRanking = { ranking }
        }
    }

    /// This participant's client-side adaptive subscriptions in its Janus room: the downlink
    /// estimate of the last evaluation and whose videos are paused (sorted).
    package func janusAdaptiveState() async throws(EngineError) -> (estimatedBitsPerSecond: Int?, paused: [String]) {
        let roomId = roomId
        return try await onJanusRoom { (room) throws(EngineError) in
            guard let room else { throw .closed("room \(roomId)") }
            return (room.adaptive.estimatedBitsPerSecond, room.adaptive.pausedKeys)
        }
    }

    /// The latest quality report of this participant's Janus room (`JanusRoomQuality`; nil: none yet, or not a Janus room).
    package func janusQualityReport() async throws(EngineError) -> QualityReport? {
        try await onJanusRoom { $0?.quality.latestReport }
    }

    /// The participants of this participant's Janus room from most to least dominant
    /// (`JanusRoomSpeakers.dominanceRanking()`; nil: not a Janus room).
    package func janusDominanceRanking() async throws(EngineError) -> [String]? {
        try await onJanusRoom { $0?.speakers.dominanceRanking() }
    }
}

extension LocalParticipant {
    /// Runs `body` on the loop with this participant's Janus room (nil: not a Janus room, or gone).
    private func onJanusRoom<T: Sendable>(_ body: @escaping @Sendable (JanusRoomRuntime?) throws(EngineError) -> T) async throws(EngineError) -> T {
        let roomId = roomId
        return try await loop.perform { runtime throws(EngineError) in try body(runtime.rooms[roomId] as? JanusRoomRuntime) }
    }
}
