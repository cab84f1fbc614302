internal import EngineCore
internal import RTPWire
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

/// One Janus peer connection's trickle ICE as the tests read it (`janusTrickle`).
package struct JanusTrickleState: Sendable {
    /// The candidates trickled so far ("kind address:port"), in order.
    package var trickled: [String]
    /// End-of-candidates went out.
    package var ended: Bool
    /// The selected pair's local candidate ("kind address:port"; nil: none selected).
    package var selectedLocal: String?
    /// Each relay's relayed address with what went through it ("address:port sent/received/dropped").
    package var relays: [String] = []
    /// The peer's candidates: from its description, then those it trickled ("kind address:port").
    package var remote: [String] = []
    /// The selected pair's remote candidate (a peer-reflexive one when it was learnt from a check).
    package var selectedRemote: String?
    /// Of `remote`, how many the peer trickled once connected.
    package var remoteTrickledOnceConnected = 0
}

extension LocalParticipant {
    /// Trickle ICE of this participant's Janus peer connections: the camera's and the
    /// subscription's (nil: not there, or not a Janus room).
    package func janusTrickle() async throws(EngineError) -> (publishing: JanusTrickleState?, receiving: JanusTrickleState?) {
        try await onJanusRoom { room in
            func state(_ ice: ICEDatagramTransport?) -> JanusTrickleState? {
                guard let ice else { return nil }
                let name = { (candidate: ICECandidate) in "\(candidate.kind) \(candidate.address):\(candidate.port)" }
                return JanusTrickleState(trickled: ice.trickled.candidates.map(name), ended: ice.trickled.ended,
                                         selectedLocal: ice.selectedCandidates.map { name($0.local) },
                                         relays: ice.relays.map { "\($0.localEndpoint) \($0.counters.sent)/\($0.counters.received)/\($0.counters.dropped)" },
                                         remote: ice.signalledCandidates.remote.map(name), selectedRemote: ice.selectedCandidates.map { name($0.remote) },
                                         remoteTrickledOnceConnected: ice.candidatesTrickledByPeer)
            }
            return (state(room?.session?.transport.ice), state((room?.receiving.demultiplexer?.transport as? WebRTCTransport)?.ice))
        }
    }
}
