import EngineCore
import Testing
@testable import MediaEngine

/// What of a Janus long poll reaches the engine's loop for the room model (`JanusRoomPresence`):
/// only the VideoRoom events that change the room; keepalives and acks do not (an idle room
/// never wakes the loop); an event with missing or wrong-typed fields is a typed failure, never
/// a trap; and the roster's changes become the public events, ours left out.
@Suite struct JanusRoomPresenceTests {
    static func videoRoom(_ data: [String: Any]) -> [String: Any] {
        ["janus": "event", "sender": 7, "plugindata": ["plugin": "janus.plugin.videoroom", "data": data]]
    }

    @Test func keepalivesAndAcknowledgementsDoNotReachTheLoop() {
        #expect(JanusRoomPresence.roomChange(in: ["janus": "keepalive"]) == nil)
        #expect(JanusRoomPresence.roomChange(in: ["janus": "ack", "transaction": "x"]) == nil)
        #expect(JanusRoomPresence.roomChange(in: Self.videoRoom(["videoroom": "talking", "room": 1, "id": 3])) == nil)
    }

    @Test func roomChangesReachTheLoopTyped() throws {
        let joined = try #require(JanusRoomPresence.roomChange(in: Self.videoRoom([
            "videoroom": "joined", "room": 1234, "id": 11,
            "publishers": [["id": 5, "display": "Alice|alice", "streams": [["type": "video", "mindex": 0, "mid": "0"]]]],
        ])))
        guard case let .success(.joined(_, id, _, publishers, _)) = joined else {
            Issue.record("not a joined event: \(joined)")
            return
        }
        #expect(id == 11 && publishers.map(\.id) == [5])
        let leaving = JanusRoomPresence.roomChange(in: Self.videoRoom(["videoroom": "event", "room": 1234, "leaving": 5]))
        #expect(leaving.map { if case .success(.leaving(_, 5, _)) = $0 { true } else { false } } == true)
    }

    @Test func missingOrWrongTypedFieldsAreTypedFailures() {
        let wrongTypes: [[String: Any]] = [
            Self.videoRoom(["videoroom": "joined", "room": 1234]),  // no id
            Self.videoRoom(["videoroom": "joined", "room": 1234, "id": "eleven"]),
            Self.videoRoom(["videoroom": "event", "room": 1234, "publishers": "everyone"]),
            ["janus": "event", "plugindata": ["plugin": "janus.plugin.videoroom", "data": 3]],
            ["janus": 42],
        ]
        for object in wrongTypes {
            let outcome = JanusRoomPresence.roomChange(in: object)
            #expect(outcome.map { if case .failure = $0 { true } else { false } } == true, "\(object) gave \(String(describing: outcome))")
        }
    }

    @Test func theRostersChangesBecomePublicEventsWithoutOurOwn() {
        var model = JanusRoomModel()
        let joined = model.roster.apply(.joined(room: 1234, id: 11, privateID: nil, publishers: [
            .init(id: 5, display: "Alice|alice", streams: [.init(kind: .audio, mindex: 0, mid: "0"), .init(kind: .video, mindex: 1, mid: "1")]),
            .init(id: 6, display: "Me|me", streams: [.init(kind: .video, mindex: 0, mid: "0")]),
            .init(id: 9, display: "somebody's client", streams: [.init(kind: .video, mindex: 0, mid: "0", disabled: true)]),
        ], attendees: []))
        let told = joined.compactMap { JanusRoomModel.event(of: $0, ourId: "me") }
        #expect(told == [
            .participantJoined(RemoteParticipant(id: "alice", displayName: "Alice",
                                                 tracks: [PublishedTrack(kind: .camera), PublishedTrack(kind: .microphone)])),
            .participantJoined(RemoteParticipant(id: "janus-9", displayName: "somebody's client", tracks: [PublishedTrack(kind: .camera, muted: true)])),
            .roomJoined,
        ])
    }
}
