internal import EngineCore
import MediaCodecs
import Simulcast

/// A room backend that only publishes (a plain RTP output):
/// every receiving call answers `receivingUnsupported`. Loop-confined.
protocol PublishOnlyRoomBackend: ImmediateRoomBackend {
    /// What every receiving call throws (a `.notAllowed` naming the backend).
    var receivingUnsupported: EngineError { get }
}

extension PublishOnlyRoomBackend {
    func subscribe(_ subscriberId: String, to publisherId: String, runtime: EngineRuntime) throws(EngineError) -> SubscriptionRuntime {
        throw receivingUnsupported
    }

    func setPreference(_ preference: EffectivePreference, subscriber subscriberId: String, publisher publisherId: String) throws(EngineError) {
        throw receivingUnsupported
    }

    func setScreenShareQuality(_ quality: VideoQuality, subscriber subscriberId: String,
                               publisher publisherId: String) throws(EngineError) -> ScreenShareQualityChange {
        throw receivingUnsupported
    }

    func publishScreenShare(_ participantId: String, trackId: String, settings: CameraSettings, feed: TrackFeed<VideoFrame>,
                            runtime: EngineRuntime) throws(EngineError) {
        throw .notAllowed("publishing a screen share here is not supported yet (only in a room the engine hosts)")
    }

    func setPinned(_ pinned: Bool, subscriber subscriberId: String, publisher publisherId: String) throws(EngineError) {
        throw receivingUnsupported
    }

    func startConsumingMicrophone(_ subscriberId: String, of publisherId: String, runtime: EngineRuntime,
                                  completion: @escaping LoopCompletion<RemoteAudioRuntime>) {
        completion(.failure(receivingUnsupported))
    }

    func stopConsuming(_ kind: PublishedTrackKind, subscriber subscriberId: String, publisher publisherId: String) {}

    func microphoneStats(subscriber subscriberId: String, publisher publisherId: String) throws(EngineError) -> RemoteAudioStats {
        throw receivingUnsupported
    }

    func stats(subscriber subscriberId: String, publisher publisherId: String) throws(EngineError) -> RemoteVideoStats {
        throw receivingUnsupported
    }

    func startRecording(subscriber subscriberId: String, publisher publisherId: String, path: String) throws(EngineError) {
        throw receivingUnsupported
    }

    func stopRecording(subscriber subscriberId: String, publisher publisherId: String) throws(EngineError) {
        throw receivingUnsupported
    }
}
