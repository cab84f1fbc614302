import RTPWire
import Testing
@testable import EngineCore

/// `JanusSessionEvent` / `JanusVideoRoomEvent`: the events a Janus 1.1 VideoRoom sends, typed, and
/// every malformed one a `JanusEventError` naming the field (janus_videoroom.c's documented shapes).
@Suite struct JanusEventParsingTests {
    static func parse(_ text: String) throws(JanusEventError) -> JanusSessionEvent {
        try JanusSessionEvent(json: Array(text.utf8))
    }

    static func videoRoom(_ data: String, jsep: String? = nil) throws(JanusEventError) -> JanusVideoRoomEvent {
        let jsepText = jsep.map { #", "jsep": \#($0)"# } ?? ""
        guard case let .videoRoom(sender, event, _) = try parse(
            #"{"janus": "event", "session_id": 1, "sender": 77, "plugindata": {"plugin": "janus.plugin.videoroom", "data": \#(data)}\#(jsepText)}"#)
        else { Issue.record("not a VideoRoom event"); return .other(kind: "none") }
        #expect(sender == 77)
        return event
    }

    @Test func joinedListsEveryActivePublisherWithItsStreams() throws {
        let event = try Self.videoRoom("""
            {"videoroom": "joined", "room": 1234, "description": "Demo", "id": 5551, "private_id": 99,
             "publishers": [
               {"id": 4001, "display": "alice|a1", "streams": [
                  {"type": "audio", "mindex": 0, "mid": "0", "codec": "opus", "talking": false},
                  {"type": "video", "mindex": 1, "mid": "1", "codec": "vp8", "simulcast": true},
                  {"type": "video", "mindex": "2", "mid": "2", "codec": "vp8", "description": "screen"}]},
               {"id": 1, "streams": [{"type": "video", "mindex": 0, "mid": "v", "disabled": true}], "talking": true}],
             "attendees": [{"id": 0, "display": "dave|d4"}]}
            """)
        let alice = JanusPublisherEntry(id: 4001, display: "alice|a1", streams: [
            .init(kind: .audio, mindex: 0, mid: "0", codec: "opus", talking: false),
            .init(kind: .video, mindex: 1, mid: "1", codec: "vp8", simulcast: true),
            .init(kind: .video, mindex: 2, mid: "2", codec: "vp8", description: "screen"),
        ])
        let other = JanusPublisherEntry(id: 1, streams: [.init(kind: .video, mindex: 0, mid: "v", disabled: true)], talking: true)
        #expect(event == .joined(room: 1234, id: 5551, privateID: 99, publishers: [alice, other],
                                 attendees: [JanusAttendee(id: 0, display: "dave|d4")]))
    }

    @Test func laterRoomEventsAreTyped() throws {
        #expect(try Self.videoRoom(#"{"videoroom": "event", "room": 7, "publishers": [{"id": 9, "streams": []}]}"#)
            == .publishers(room: 7, [JanusPublisherEntry(id: 9, streams: [])]))
        #expect(try Self.videoRoom(#"{"videoroom": "event", "room": 7, "unpublished": 9}"#) == .unpublished(room: 7, id: 9))
        #expect(try Self.videoRoom(#"{"videoroom": "event", "unpublished": "ok"}"#) == .ownUnpublished)
        #expect(try Self.videoRoom(#"{"videoroom": "event", "room": 7, "leaving": 9, "reason": "kicked"}"#)
            == .leaving(room: 7, id: 9, reason: "kicked"))
        #expect(try Self.videoRoom(#"{"videoroom": "event", "leaving": "ok"}"#) == .ownLeft)
        #expect(try Self.videoRoom(#"{"videoroom": "event", "room": 7, "joining": {"id": 3, "display": "x"}}"#)
            == .joining(room: 7, JanusAttendee(id: 3, display: "x")))
        #expect(try Self.videoRoom(#"{"videoroom": "event", "configured": "ok"}"#, jsep: #"{"type": "answer", "sdp": "v=0"}"#) == .configured)
        #expect(try Self.videoRoom(#"{"videoroom": "talking", "room": 7, "id": 9, "audio-level-dBov-avg": 32.5}"#)
            == .talking(room: 7, id: 9, isTalking: true, averageLevelDBov: 32.5))
        #expect(try Self.videoRoom(#"{"videoroom": "stopped-talking", "room": 7, "id": 9}"#)
            == .talking(room: 7, id: 9, isTalking: false, averageLevelDBov: nil))
        #expect(try Self.videoRoom(#"{"videoroom": "destroyed", "room": 7}"#) == .destroyed(room: 7))
        #expect(try Self.videoRoom(#"{"videoroom": "event", "error_code": 428, "error": "No such feed (12)"}"#)
            == .error(code: 428, reason: "No such feed (12)"))
        #expect(try Self.videoRoom(#"{"videoroom": "slow_link", "room": 7}"#) == .other(kind: "slow_link"))
        #expect(try Self.videoRoom(#"{"videoroom": "event", "room": "named-room", "unpublished": 9}"#) == .unpublished(room: nil, id: 9))
    }

    @Test func aSubscriptionsStreamsNameTheirFeeds() throws {
        let event = try Self.videoRoom("""
            {"videoroom": "attached", "room": 7, "streams": [
              {"mindex": 0, "mid": "0", "type": "audio", "feed_id": 4001, "feed_mid": "0", "feed_display": "alice|a1", "send": true, "ready": false},
              {"mindex": 1, "mid": "1", "type": "video", "feed_id": 4001, "feed_mid": "1", "active": false, "send": false}]}
            """, jsep: #"{"type": "offer", "sdp": "v=0\r\n"}"#)
        #expect(event == .attached(room: 7, streams: [
            JanusSubscribedStream(mindex: 0, mid: "0", kind: .audio, feedID: 4001, feedMid: "0", feedDisplay: "alice|a1"),
            JanusSubscribedStream(mindex: 1, mid: "1", kind: .video, feedID: 4001, feedMid: "1", send: false, active: false),
        ]))
    }

    @Test func theCoresOwnEventsAreTyped() throws {
        #expect(try Self.parse(#"{"janus": "keepalive"}"#) == .keepalive)
        #expect(try Self.parse(#"{"janus": "webrtcup", "sender": 5}"#) == .webrtcUp(sender: 5))
        #expect(try Self.parse(#"{"janus": "hangup", "sender": 5, "reason": "DTLS alert"}"#) == .hangup(sender: 5, reason: "DTLS alert"))
        #expect(try Self.parse(#"{"janus": "media", "sender": 5, "type": "video", "mid": "1", "receiving": true}"#)
            == .media(sender: 5, type: "video", mid: "1", receiving: true))
        #expect(try Self.parse(#"{"janus": "trickle", "sender": 5, "candidate": {"completed": true}}"#) == .trickle(sender: 5, candidate: nil))
        #expect(try Self.parse(#"{"janus": "trickle", "candidate": {"candidate": "candidate:1 1 udp 1 10.0.0.1 5000 typ host"}}"#)
            == .trickle(sender: nil, candidate: "candidate:1 1 udp 1 10.0.0.1 5000 typ host"))
        #expect(try Self.parse(#"{"janus": "error", "error": {"code": 458, "reason": "No such session"}}"#)
            == .error(code: 458, reason: "No such session"))
        #expect(try Self.parse(#"{"janus": "event", "plugindata": {"plugin": "janus.plugin.echotest", "data": {}}}"#)
            == .other(kind: "janus.plugin.echotest"))
        guard case let .videoRoom(_, _, jsep) = try Self.parse(
            #"{"janus": "event", "plugindata": {"data": {"videoroom": "event", "configured": "ok"}}, "jsep": {"type": "answer", "sdp": "v=0"}}"#)
        else { Issue.record("not a VideoRoom event"); return }
        #expect(jsep == JanusJSEP(kind: .answer, sdp: "v=0"))
    }

    @Test func malformedEventsNameTheFieldThatIsWrong() {
        let cases: [(String, JanusEventError)] = [
            ("[1, 2]", .notAnObject),
            ("not json", .notAnObject),
            (#"{"sender": 1}"#, .missingField("janus")),
            (#"{"janus": 5}"#, .wrongType(field: "janus", expected: "a string")),
            (#"{"janus": "event"}"#, .missingField("plugindata")),
            (#"{"janus": "event", "plugindata": {"data": 3}}"#, .wrongType(field: "plugindata.data", expected: "an object")),
            (#"{"janus": "event", "plugindata": {"data": {}}}"#, .missingField("videoroom")),
            (#"{"janus": "event", "sender": "77", "plugindata": {"data": {"videoroom": "destroyed"}}}"#,
             .wrongType(field: "sender", expected: "an integer")),
            (#"{"janus": "event", "plugindata": {"data": {"videoroom": "joined", "room": 1}}}"#, .missingField("id")),
            (#"{"janus": "event", "plugindata": {"data": {"videoroom": "joined", "id": true}}}"#,
             .wrongType(field: "id", expected: "an integer")),
            (#"{"janus": "event", "plugindata": {"data": {"videoroom": "joined", "id": 1.5}}}"#,
             .wrongType(field: "id", expected: "an integer")),
            (#"{"janus": "event", "plugindata": {"data": {"videoroom": "event", "publishers": {"id": 1}}}}"#,
             .wrongType(field: "publishers", expected: "an array of objects")),
            (#"{"janus": "event", "plugindata": {"data": {"videoroom": "event", "publishers": [{"id": 1}, 7]}}}"#,
             .wrongType(field: "publishers[1]", expected: "an object")),
            (#"{"janus": "event", "plugindata": {"data": {"videoroom": "event", "publishers": [{"id": 1, "streams": [{"type": "video", "mid": "1"}]}]}}}"#,
             .missingField("publishers[0].streams[0].mindex")),
            (#"{"janus": "event", "plugindata": {"data": {"videoroom": "event", "publishers": [{"id": 1, "streams": [{"type": "video", "mindex": "one", "mid": "1"}]}]}}}"#,
             .wrongType(field: "publishers[0].streams[0].mindex", expected: "an integer")),
            (#"{"janus": "event", "plugindata": {"data": {"videoroom": "event", "publishers": [{"id": 1, "display": 5}]}}}"#,
             .wrongType(field: "publishers[0].display", expected: "a string")),
            (#"{"janus": "event", "plugindata": {"data": {"videoroom": "event", "leaving": "later"}}}"#,
             .wrongType(field: "leaving", expected: "a feed id or \"ok\"")),
            (#"{"janus": "event", "plugindata": {"data": {"videoroom": "talking", "id": 2, "audio-level-dBov-avg": "loud"}}}"#,
             .wrongType(field: "audio-level-dBov-avg", expected: "a number")),
            (#"{"janus": "event", "plugindata": {"data": {"videoroom": "configured"}}, "jsep": {"type": "pranswer", "sdp": ""}}"#,
             .wrongType(field: "jsep.type", expected: "offer or answer")),
        ]
        for (text, expected) in cases {
            #expect(throws: expected, "\(text)") { try Self.parse(text) }
        }
    }

    @Test func tooManyPublishersAreRefusedWhole() {
        let publishers = Array(repeating: #"{"id": 1}"#, count: JanusVideoRoomEvent.publisherLimit + 1).joined(separator: ",")
        #expect(throws: JanusEventError.tooManyEntries(field: "publishers", limit: JanusVideoRoomEvent.publisherLimit)) {
            try Self.parse(#"{"janus": "event", "plugindata": {"data": {"videoroom": "event", "publishers": [\#(publishers)]}}}"#)
        }
    }

    @Test func everyCutAndFlipOfARealEventIsAnErrorOrAnEventNeverATrap() {
        let seed = Array(#"{"janus": "event", "sender": 3, "plugindata": {"plugin": "janus.plugin.videoroom", "data": {"videoroom": "joined", "room": 1, "id": 2, "publishers": [{"id": 4, "display": "a|b", "streams": [{"type": "video", "mindex": 0, "mid": "0", "simulcast": true}]}]}}}"#.utf8)
        var parsed = 0, refused = 0
        for cut in 0...seed.count {
            if (try? JanusSessionEvent(json: Array(seed[..<cut]))) != nil { parsed += 1 } else { refused += 1 }
        }
        var generator = SplitMix64(seed: 7)
        for _ in 0..<2_000 {
            var bytes = seed
            for _ in 0..<3 { bytes[Int(generator.next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: generator.next()) }
            if (try? JanusSessionEvent(json: bytes)) != nil { parsed += 1 } else { refused += 1 }
        }
        #expect(parsed > 0 && refused > 0)
    }

    @Test func theDisplayCarriesTheEngineIdAndName() {
        let ours = JanusDisplayName(participantId: "Xy7_-.q1", name: "Ana | Bo")
        #expect(ours.display == "Ana | Bo|Xy7_-.q1")
        #expect(JanusDisplayName(display: ours.display, feedID: 5) == ours)
        #expect(JanusDisplayName(display: "aiortc", feedID: 5) == JanusDisplayName(participantId: "janus-5", name: "aiortc"))
        #expect(JanusDisplayName(display: nil, feedID: 6) == JanusDisplayName(participantId: "janus-6", name: ""))
        #expect(JanusDisplayName(display: "name|with space", feedID: 7) == JanusDisplayName(participantId: "janus-7", name: "name|with space"))
        #expect(JanusDisplayName(display: "trailing|", feedID: 8) == JanusDisplayName(participantId: "janus-8", name: "trailing|"))
    }
}
