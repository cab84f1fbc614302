import Simulcast

/// SPEC §3 stats of one received video.
public struct RemoteVideoStats: Sendable, Hashable {
    public var currentSpatialLayer: Int?
    public var preferredSpatialLayer: Int?
    public var currentTemporalLayer: Int?
    public var preferredTemporalLayer: Int?
    /// What the forwarder sends this subscriber, bits per second.
    public var bitsPerSecond: Int
    public var codec: String
    /// The size of the last decoded frame.
    public var frameSize: VideoSize?
    public var roundTripMilliseconds: Double?
    public var jitterMilliseconds: Double
    public var packetsLost: Int
    public var framesDecoded: Int
}

/// Another participant's camera as this participant receives it (LiveKit's
/// `RemoteTrackPublication` + track): choose its layer with `setQuality` or `setViewPort` (the
/// last call wins, SPEC §3), read decoded frames from `frames`. `Sendable`.
public final class RemoteVideoTrack: Sendable {
    /// Whose camera.
    public let publisherId: String
    /// Decoded frames, in order (the newest 4 wait when nobody reads).
    public let frames: AsyncStream<VideoFrame>
    let subscriberId: String
    let roomId: String
    let loop: EngineLoop

    init(publisherId: String, subscriberId: String, roomId: String, frames: AsyncStream<VideoFrame>, loop: EngineLoop) {
        self.publisherId = publisherId
        self.subscriberId = subscriberId
        self.roomId = roomId
        self.frames = frames
        self.loop = loop
    }

    /// `.high` the top layer, `.low` the lowest, `.medium` the largest no bigger than half the
    /// top (one layer lower in an `.sd` room).
    public func setQuality(_ quality: VideoQuality) async throws(EngineError) {
        try await setPreference(.quality(quality))
    }

    /// The smallest layer that covers `width`x`height` (the top one if none does).
    public func setViewPort(width: Int, height: Int) async throws(EngineError) {
        guard width > 0, height > 0 else { throw .invalidConfiguration("viewport \(width)x\(height)") }
        try await setPreference(.viewPort(VideoSize(width: width, height: height)))
    }

    /// SPEC §3 stats.
    public func stats() async throws(EngineError) -> RemoteVideoStats {
        let (roomId, subscriberId, publisherId) = (roomId, subscriberId, publisherId)
        return try await loop.perform { runtime throws(EngineError) in
            guard let room = runtime.rooms[roomId] else { throw .closed("room \(roomId)") }
            return try room.stats(subscriber: subscriberId, publisher: publisherId)
        }
    }

    private func setPreference(_ preference: EffectivePreference) async throws(EngineError) {
        let (roomId, subscriberId, publisherId) = (roomId, subscriberId, publisherId)
        try await loop.perform { runtime throws(EngineError) in
            guard let room = runtime.rooms[roomId] else { throw .closed("room \(roomId)") }
            try room.setPreference(preference, subscriber: subscriberId, publisher: publisherId)
        }
    }
}
