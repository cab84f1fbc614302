import Testing
@testable import EngineCore

/// `JanusRoomRoster`: a Janus room's participants and tracks from its events, reported in the
/// room model's order (SPEC §8), and `JanusVideoRoomRequest`'s request bodies.
@Suite struct JanusRoomRosterTests {
    static let audio = JanusPublisherEntry.Stream(kind: .audio, mindex: 0, mid: "0", codec: "opus")
    static let camera = JanusPublisherEntry.Stream(kind: .video, mindex: 1, mid: "1", codec: "vp8", simulcast: true)
    static let screen = JanusPublisherEntry.Stream(kind: .video, mindex: 2, mid: "2", codec: "vp8", description: "screen")

    static func track(_ kind: JanusRoomRoster.TrackKind, _ mid: String, muted: Bool = false) -> JanusRoomRoster.Track {
        JanusRoomRoster.Track(kind: kind, mid: mid, muted: muted)
    }

    @Test func everyoneAlreadyThereIsReportedWithTheirTracksBeforeTheRoomIsJoined() {
        var roster = JanusRoomRoster()
        let changes = roster.apply(.joined(room: 1, id: 50, privateID: 7, publishers: [
            JanusPublisherEntry(id: 10, display: "alice|a1", streams: [Self.audio, Self.camera]),
            JanusPublisherEntry(id: 11, display: "aiortc", streams: [Self.camera]),
            JanusPublisherEntry(id: 12, display: "dummy", streams: [Self.camera], dummy: true),
            JanusPublisherEntry(id: 50, display: "me|m1", streams: [Self.camera]),
        ], attendees: [JanusAttendee(id: 13, display: "dave|d4")]))
        #expect(changes == [
            .participantJoined(.init(id: "d4", name: "dave", feed: 13, tracks: [])),
            .participantJoined(.init(id: "a1", name: "alice", feed: 10, tracks: [Self.track(.microphone, "0"), Self.track(.camera, "1")])),
            .participantJoined(.init(id: "janus-11", name: "aiortc", feed: 11, tracks: [Self.track(.camera, "1")])),
            .roomJoined(ourFeed: 50),
        ])
        #expect(roster.participants.map(\.id) == ["d4", "a1", "janus-11"])
        #expect(roster.participant(id: "a1")?.feed == 10 && roster.ourFeed == 50)
    }

    /// One of our participants on a handle of its own (its presence attending, then its
    /// publisher; or a camera published again after `unpublish`) stays one participant: it moves
    /// to the new feed, and the old feed's leaving is no one's.
    @Test func aParticipantOnANewFeedMovesThereAndItsOldFeedsLeavingIsNoOnes() {
        var roster = JanusRoomRoster()
        _ = roster.apply(.joined(room: 1, id: 50, privateID: nil, publishers: [], attendees: [JanusAttendee(id: 30, display: "carol|c3")]))
        _ = roster.apply(.joining(room: 1, JanusAttendee(id: 31, display: "aiortc")))
        #expect(roster.apply(.publishers(room: 1, [JanusPublisherEntry(id: 40, display: "carol|c3", streams: [Self.audio, Self.camera])]))
            == [.trackPublished(participantId: "c3", Self.track(.microphone, "0")), .trackPublished(participantId: "c3", Self.track(.camera, "1"))])
        #expect(roster.participant(id: "c3")?.feed == 40 && roster.participant(feed: 30) == nil)
        #expect(roster.apply(.leaving(room: 1, id: 30, reason: nil)).isEmpty)
        #expect(roster.participants.map(\.id) == ["c3", "janus-31"])
        // A display nobody encodes as ours is never merged: a second foreign display is a second participant.
        #expect(roster.apply(.publishers(room: 1, [JanusPublisherEntry(id: 41, display: "aiortc", streams: [Self.camera])]))
            == [.participantJoined(.init(id: "janus-41", name: "aiortc", feed: 41, tracks: [Self.track(.camera, "1")]))])
    }

    @Test func laterArrivalsTracksAndDeparturesAreReportedInOrder() {
        var roster = JanusRoomRoster()
        _ = roster.apply(.joined(room: 1, id: 50, privateID: nil, publishers: [], attendees: []))
        #expect(roster.apply(.publishers(room: 1, [JanusPublisherEntry(id: 20, display: "bob|b2", streams: [Self.audio, Self.camera])]))
            == [.participantJoined(.init(id: "b2", name: "bob", feed: 20, tracks: [Self.track(.microphone, "0"), Self.track(.camera, "1")]))])
        // bob adds a screen share and stops (disables) his microphone in one renegotiation.
        var mutedAudio = Self.audio
        mutedAudio.disabled = true
        #expect(roster.apply(.publishers(room: 1, [JanusPublisherEntry(id: 20, display: "bob|b2", streams: [mutedAudio, Self.camera, Self.screen])]))
            == [.trackMuted(participantId: "b2", Self.track(.microphone, "0", muted: true)),
                .trackPublished(participantId: "b2", Self.track(.screenShare, "2"))])
        #expect(roster.apply(.unpublished(room: 1, id: 20)) == [
            .trackUnpublished(participantId: "b2", Self.track(.microphone, "0", muted: true)),
            .trackUnpublished(participantId: "b2", Self.track(.camera, "1")),
            .trackUnpublished(participantId: "b2", Self.track(.screenShare, "2")),
        ])
        #expect(roster.participant(id: "b2")?.tracks == [])
        #expect(roster.apply(.publishers(room: 1, [JanusPublisherEntry(id: 20, display: "bob|b2", streams: [Self.camera])]))
            == [.trackPublished(participantId: "b2", Self.track(.camera, "1"))])
        #expect(roster.apply(.leaving(room: 1, id: 20, reason: nil)) == [
            .trackUnpublished(participantId: "b2", Self.track(.camera, "1")),
            .participantLeft(participantId: "b2", reason: nil),
        ])
        #expect(roster.participants.isEmpty)
        // Events about feeds the roster never saw change nothing.
        #expect(roster.apply(.leaving(room: 1, id: 99, reason: nil)).isEmpty)
        #expect(roster.apply(.unpublished(room: 1, id: 99)).isEmpty)
    }

    /// A screen share taken out by a renegotiation: Janus lists its stream disabled, without its
    /// description. It is unpublished (not a muted camera), the camera stays; a screen share
    /// added again is published again.
    @Test func aStoppedScreenShareIsUnpublishedAndOneAddedAgainIsPublished() {
        var roster = JanusRoomRoster()
        _ = roster.apply(.joined(room: 1, id: 50, privateID: nil, publishers: [
            JanusPublisherEntry(id: 10, display: "alice|a1", streams: [Self.camera, Self.screen]),
        ], attendees: []))
        var stopped = JanusPublisherEntry.Stream(kind: .video, mindex: 2, mid: "2", codec: nil)
        stopped.disabled = true
        #expect(roster.apply(.publishers(room: 1, [JanusPublisherEntry(id: 10, display: "alice|a1", streams: [Self.camera, stopped])]))
            == [.trackUnpublished(participantId: "a1", Self.track(.screenShare, "2"))])
        #expect(roster.participant(id: "a1")?.tracks == [Self.track(.camera, "1")])
        #expect(roster.apply(.publishers(room: 1, [JanusPublisherEntry(id: 10, display: "alice|a1", streams: [Self.camera, Self.screen])]))
            == [.trackPublished(participantId: "a1", Self.track(.screenShare, "2"))])
        // Someone joining later is not told of the stopped one at all.
        var later = JanusRoomRoster()
        #expect(later.apply(.joined(room: 1, id: 51, privateID: nil, publishers: [
            JanusPublisherEntry(id: 10, display: "alice|a1", streams: [Self.camera, stopped]),
        ], attendees: [])) == [.participantJoined(.init(id: "a1", name: "alice", feed: 10, tracks: [Self.track(.camera, "1")])),
                               .roomJoined(ourFeed: 51)])
        // A disabled camera (the first video stream) is still a muted camera.
        var muted = Self.camera
        muted.disabled = true
        #expect(JanusRoomRoster.tracks(of: [muted, Self.screen]) == [Self.track(.camera, "1", muted: true), Self.track(.screenShare, "2")])
    }

    @Test func aDestroyedRoomLetsEveryoneLeaveThenCloses() {
        var roster = JanusRoomRoster()
        _ = roster.apply(.joined(room: 1, id: 50, privateID: nil, publishers: [
            JanusPublisherEntry(id: 10, display: "alice|a1", streams: [Self.audio])], attendees: []))
        #expect(roster.apply(.destroyed(room: 1)) == [
            .trackUnpublished(participantId: "a1", Self.track(.microphone, "0")),
            .participantLeft(participantId: "a1", reason: "room destroyed"),
            .roomClosed,
        ])
    }

    @Test func requestBodiesHaveJanusShapes() {
        let join = JanusVideoRoomRequest.joinAsSubscriber(room: 7, streams: [.init(feed: 10), .init(feed: 11, mid: "1")], privateID: 99).body
        #expect(join["request"] as? String == "join" && join["ptype"] as? String == "subscriber" && join["private_id"] as? Int == 99)
        let streams = join["streams"] as? [[String: Any]]
        #expect(streams?.count == 2 && streams?[0]["feed"] as? Int == 10 && streams?[0]["mid"] == nil && streams?[1]["mid"] as? String == "1")
        let update = JanusVideoRoomRequest.update(subscribe: [.init(feed: 12)], unsubscribe: [.init(feed: 10, mid: "0")]).body
        #expect((update["subscribe"] as? [[String: Any]])?.first?["feed"] as? Int == 12)
        #expect((update["unsubscribe"] as? [[String: Any]])?.first?["mid"] as? String == "0")
        let configure = JanusVideoRoomRequest.configureSubscription([.init(mid: "3", send: false), .init(mid: "1", substream: 0, temporal: 2)]).body
        let settings = configure["streams"] as? [[String: Any]]
        #expect(configure["request"] as? String == "configure" && settings?[0]["send"] as? Bool == false && settings?[0]["substream"] == nil)
        #expect(settings?[1]["substream"] as? Int == 0 && settings?[1]["temporal"] as? Int == 2)
        let publish = JanusVideoRoomRequest.publish(audio: true, video: true, descriptions: ["2": "screen", "1": "camera"]).body
        #expect((publish["descriptions"] as? [[String: String]])?.map { $0["mid"] ?? "" } == ["1", "2"])
        #expect(JanusVideoRoomRequest.joinAsPublisher(room: 7, display: "ann|a1").body["display"] as? String == "ann|a1")
        #expect(JanusVideoRoomRequest.leave.body.count == 1 && JanusVideoRoomRequest.start.name == "start")
    }
}
