internal import EngineCore

/// One participant as the loop runs it: what it publishes, what it receives (all on one
/// downlink, which the testing target can throttle), its quality reporter and its event stream.
final class ParticipantRuntime {
    let id: String
    let events: AsyncStream<ParticipantEvent>.Continuation
    var camera: CameraRuntime?
    var subscriptions: [String: SubscriptionRuntime] = [:]
    /// Quality from what this participant receives; only its changes are used (as events), so no
    /// history is kept (its default keeps an hour of reports).
    let quality = CallQualityReporter(configuration: .init(historyLimit: 1), publisher: nil, subscribers: [])
    /// Every feed the room forwards to this participant passes here (open unless limited).
    let downlink = ThrottledLink()
    /// With E2EE: what encrypts this participant's camera and microphone frames (one SFrame
    /// counter for both).
    var frameSealer: E2EEFrameSealer?
    /// Its own E2EE keys (nil: the room's provider).
    var keyProvider: E2EEKeyProvider?
    /// How each of its media connections reaches the room (SPEC §7).
    let preferredProtocol: PreferredProtocol

    init(id: String, events: AsyncStream<ParticipantEvent>.Continuation, preferredProtocol: PreferredProtocol = .udpOverTCP) {
        self.id = id
        self.events = events
        self.preferredProtocol = preferredProtocol
    }

    func close() {
        camera?.close()
        for subscription in subscriptions.values { subscription.close() }
        events.yield(.connectionStateChanged(.disconnected))
        events.finish()
    }
}
