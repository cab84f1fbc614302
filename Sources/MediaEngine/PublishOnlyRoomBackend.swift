internal import EngineCore
import MediaCodecs
import Simulcast

/// A room backend that only publishes (a plain RTP output):
/// every receiving call answers `receivingUnsupported`. Loop-confined.
protocol PublishOnlyRoomBackend: RoomBackend {
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

    func setPinned(_ pinned: Bool, subscriber subscriberId: String, publisher publisherId: String) throws(EngineError) {
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
