import Foundation
import InteropTestSupport
import RTPWire
import Simulcast
import Testing
@testable import EngineCore

/// The room model's events read from a real Janus 1.1.2 VideoRoom (the harness's throw-away
/// Janus inside scripts/netns-run.sh's namespace): a watcher that joined first is told of alice
/// (engine id and name from her display, her microphone and camera) once her peer connection is
/// up, and of her tracks ending and her leaving when she leaves. Every event Janus sends on the
/// way must parse as a typed `JanusSessionEvent`: a `JanusEventError` fails the test.
@Suite(.serialized) struct JanusRoomRosterInteropTests {
    /// Reads the watcher's events until `roster` reports a change `done` accepts (at most `seconds`).
    static func changes(from janus: JanusHTTPClient, into roster: inout JanusRoomRoster, seconds: Double,
                        until done: ([JanusRoomRoster.Change]) -> Bool) throws -> (changes: [JanusRoomRoster.Change], kinds: [String]) {
        let deadline = Date().addingTimeInterval(seconds)
        var changes: [JanusRoomRoster.Change] = [], kinds: [String] = []
        while Date() < deadline, !done(changes) {
            let object = try janus.nextEvent(seconds: max(0.5, deadline.timeIntervalSinceNow))
            let event = try JanusSessionEvent(object: object)
            kinds.append("\(event)".prefix(40).description)
            if case let .videoRoom(_, roomEvent, _) = event { changes += roster.apply(roomEvent) }
        }
        return (changes, kinds)
    }

    @Test func aWatcherSeesAliceJoinPublishAndLeaveThroughRealJanusEvents() throws {
        try PrivateNamespace.require(for: "JanusRoomRosterInteropTests")
        let harness = try JanusHarness.start()
        defer { harness.stop() }
        let watcher = JanusHTTPClient(base: harness.url)
        defer { watcher.close() }
        try watcher.attach(plugin: "janus.plugin.videoroom")
        try watcher.message(JanusVideoRoomRequest.joinAsPublisher(room: 1234, display: JanusDisplayName(participantId: "c3", name: "carol").display).body)
        var roster = JanusRoomRoster()
        let joined = try Self.changes(from: watcher, into: &roster, seconds: 10) { $0.contains { if case .roomJoined = $0 { true } else { false } } }
        #expect(joined.changes.count == 1, "an empty room: only roomJoined, got \(joined.changes)")

        let alice = try JanusVideoRoomPublisher(options: .init(
            url: harness.url, room: 1234, display: JanusDisplayName(participantId: "a1", name: "alice").display,
            camera: try LayerPlan(width: 640, height: 360), localAddress: WebRTCInteropTests.localAddress))
        var aliceLeft = false
        defer { if !aliceLeft { alice.leave() } }
        let arrived = try Self.changes(from: watcher, into: &roster, seconds: 10) { $0.contains { if case .participantJoined = $0 { true } else { false } } }
        print("watcher, alice arriving: \(arrived.changes) from events \(arrived.kinds)")
        guard case let .participantJoined(participant)? = arrived.changes.first else {
            Issue.record("no participantJoined: \(arrived.changes)")
            return
        }
        #expect(participant.id == "a1" && participant.name == "alice" && participant.feed == alice.publisherID)
        #expect(Set(participant.tracks.map(\.kind)) == [.microphone, .camera])
        #expect(participant.tracks.allSatisfy { !$0.muted })

        alice.leave()
        aliceLeft = true
        let departed = try Self.changes(from: watcher, into: &roster, seconds: 10) { $0.contains { if case .participantLeft = $0 { true } else { false } } }
        print("watcher, alice leaving: \(departed.changes) from events \(departed.kinds)")
        #expect(departed.changes.filter { if case .trackUnpublished = $0 { true } else { false } }.count == 2)
        #expect(departed.changes.last == .participantLeft(participantId: "a1", reason: nil))
        #expect(roster.participants.isEmpty)
    }
}
