internal import EngineCore
internal import SessionCore

/// One participant as the loop runs it: what it publishes, what it receives (all on one
/// downlink, which the testing target can throttle), its quality reporter and its event stream.
final class ParticipantRuntime {
    let id: String
    let events: ParticipantEventSink
    var camera: CameraRuntime?
    /// Its screen share (issue 17), beside the camera on a node of its own.
    var screenShare: CameraRuntime?
    /// What it receives, by publisher key (`RoomNode.screenShareKey(of:)` for a screen share).
    var subscriptions: [String: SubscriptionRuntime] = [:]
    /// The microphones it consumes, by publisher id (each rides the subscription to that publisher).
    var remoteAudio: [String: RemoteAudioRuntime] = [:]
    /// Its published videos (camera first), with their publisher keys.
    var publishedVideos: [(key: String, video: CameraRuntime)] {
        [camera.map { (id, $0) }, screenShare.map { (RoomNode.screenShareKey(of: id), $0) }].compactMap { $0 }
    }
    /// Quality from what this participant receives; only its changes are used (as events), so no
    /// history is kept (its default keeps an hour of reports).
    let quality: CallQualityReporter
    /// Every feed the room forwards to this participant passes here (open unless limited).
    let downlink = ThrottledLink()
    /// With E2EE: what encrypts this participant's camera and microphone frames (one SFrame
    /// counter for both).
    var frameSealer: E2EEFrameSealer?
    /// Its own E2EE keys (nil: the room's provider).
    var keyProvider: E2EEKeyProvider?
    /// How each of its media connections reaches the room (docs/joining-a-room.md).
    let preferredProtocol: PreferredProtocol
    /// What it sends and receives (SPEC §8) and the name others see (docs/room-model.md).
    var mode = RoomMode.sendAndRecv
    var displayName = ""

    init(id: String, events: ParticipantEventSink, preferredProtocol: PreferredProtocol = .udpOverTCP, clock: MediaClock) {
        self.id = id
        self.events = events
        quality = CallQualityReporter(configuration: .init(historyLimit: 1), publisher: nil, subscribers: [], clock: clock)
        self.preferredProtocol = preferredProtocol
    }

    func close() {
        camera?.close()
        screenShare?.close()
        for subscription in subscriptions.values { subscription.close() }
        for audio in remoteAudio.values { audio.close() }
        events.yield(.connectionStateChanged(.disconnected))
        events.finish()
    }
}
