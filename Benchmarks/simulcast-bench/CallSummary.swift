/// What the child of `simulcast-bench call` tells its parent after the measurement, from the
/// public API (track counters and stats): that the call was the one meant, frames flowing both
/// ways at the top layer. Counts run from set-up to the summary, not over the measured window
/// only. Received audio is decoded by each subscription but has no public counter.
struct CallSummary: Codable, Sendable {
    struct Participant: Codable, Sendable {
        var id: String
        /// Camera frames the engine took from the test scene, and encoded.
        var videoFramesPlayed: Int
        var videoFramesEncoded: Int?
        /// The layers the publisher sends (0 the lowest).
        var sendingLayers: [Int]?
        /// 20 ms microphone frames the engine took from the tone (Opus-encoded and sent).
        var audioFramesPlayed: Int
        /// Whose camera this participant receives, and how.
        var receivedFrom: String
        var framesDecoded: Int?
        var frameSize: String?
        var spatialLayer: Int?
        var freezeCount: Int?
        var packetsLost: Int?
        var decoderErrors: Int?
        var receivedKilobitsPerSecond: Double?
    }

    /// From set-up to the summary.
    var seconds: Double
    var participants: [Participant]
}
