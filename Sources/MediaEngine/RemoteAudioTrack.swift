internal import EngineCore
import MediaCodecs

/// Another participant's microphone as this participant consumes it (docs/receiving.md "Remote
/// audio"; LiveKit's `RemoteAudioTrack`, VideoSDK's `consumeMicStreams`): `frames` yields the
/// decoded 48 kHz PCM in 20 ms blocks, in play order, each with its presentation time
/// (`ReceivedAudioFrame`), played out by the engine through an adaptive jitter buffer with Opus
/// concealment and in-band FEC. One reader: an `AsyncStream` hands each block to one iterator,
/// so an app that feeds two sinks reads once and fans out itself. `stopConsuming()` ends it.
/// `Sendable`.
public final class RemoteAudioTrack: Sendable {
    /// Whose microphone.
    public let publisherId: String
    /// The played-out blocks (the newest 50, 1 s, wait when nobody reads); finishes when
    /// consuming stops, the participant leaves or the room closes. One reader, as
    /// `RemoteVideoTrack.frames`.
    public let frames: AsyncStream<ReceivedAudioFrame>
    /// Who consumes it: its room and loop are the track's.
    let subscriber: LocalParticipant

    init(publisherId: String, frames: AsyncStream<ReceivedAudioFrame>, subscriber: LocalParticipant) {
        self.publisherId = publisherId
        self.frames = frames
        self.subscriber = subscriber
    }

    /// docs/receiving.md remote audio stats.
    public func stats() async throws(EngineError) -> RemoteAudioStats {
        let (roomId, subscriberId, publisherId) = (subscriber.roomId, subscriber.id, publisherId)
        return try await subscriber.loop.perform { runtime throws(EngineError) in
            guard let room = runtime.rooms[roomId] else { throw .closed("room \(roomId)") }
            return try room.microphoneStats(subscriber: subscriberId, publisher: publisherId)
        }
    }

    /// Stops consuming: the room stops sending this microphone to this participant, playout
    /// stops and `frames` finishes. Idempotent; a closed room has nothing left to stop.
    public func stopConsuming() async {
        let (roomId, subscriberId, publisherId) = (subscriber.roomId, subscriber.id, publisherId)
        _ = try? await subscriber.loop.perform { runtime throws(EngineError) in
            runtime.rooms[roomId]?.stopConsuming(.microphone, subscriber: subscriberId, publisher: publisherId)
        }
    }
}
