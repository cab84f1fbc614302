/// What the Janus tests read besides the public API (package-visible; a client cannot).
extension LocalParticipant {
    /// The subscriber peer connections this participant's Janus room holds (nil: not a Janus room).
    package func janusSubscriberConnectionCount() async throws(EngineError) -> Int? {
        let roomId = roomId
        return try await loop.perform { runtime throws(EngineError) in
            (runtime.rooms[roomId] as? JanusRoomRuntime)?.subscriberConnectionCount
        }
    }
}
