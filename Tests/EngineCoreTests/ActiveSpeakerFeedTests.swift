import RTPWire
import Simulcast
import Testing
@testable import EngineCore
import SessionCore

@Suite struct ActiveSpeakerFeedTests {
    private func level(_ ssrc: UInt32, _ dBov: UInt8, voice: Bool = true, at milliseconds: Int64) -> ReceivedAudioLevel {
        ReceivedAudioLevel(ssrc: ssrc, sequenceNumber: 0, level: AudioLevel(clampingLevel: dBov, voiceActivity: voice),
                           arrivalMicroseconds: milliseconds * 1_000)
    }

    @Test func mappedLevelsReachTheDetectorAndUnmappedOnesAreCounted() {
        var now: Int64 = 0
        let feed = ActiveSpeakerFeed(clock: MediaClock { now })
        feed.map(ssrc: 1, participantId: "p1", trackId: "mic")
        feed.map(ssrc: 2, participantId: "p2", trackId: "mic")
        var snapshots: [[ActiveSpeaker]] = []
        feed.onSnapshot = { snapshots.append($0) }
        for frame in 0..<50 {
            now = Int64(frame) * 20_000
            feed.observe(level(1, 20, at: now / 1_000))
            feed.observe(level(2, 40, at: now / 1_000))
            feed.observe(level(3, 0, at: now / 1_000))  // nobody's
            feed.serviceIfDue()
        }
        #expect(feed.observedLevels == 150 && feed.unmappedLevels == 50)
        #expect(feed.snapshot.map(\.participantId) == ["p1", "p2"])
        #expect(feed.snapshot.allSatisfy { $0.trackId == "mic" && $0.level > 0 && $0.level <= 1 })
        #expect(snapshots.last?.map(\.participantId) == ["p1", "p2"])
        #expect(feed.dominantSpeaker == "p1")
        #expect(feed.dominanceRanking() == ["p1", "p2"])
        #expect(feed.dominantSpeakerChanges == [DominantSpeakerChange(previous: nil, current: "p1")])
    }

    @Test func evaluationFollowsTheIntervalOnTheInjectedClock() {
        var now: Int64 = 0
        let feed = ActiveSpeakerFeed(evaluationIntervalMicroseconds: 100_000, clock: MediaClock { now })
        #expect(feed.serviceIfDue() != nil)
        now = 99_999
        #expect(feed.serviceIfDue() == nil)
        now = 100_000
        #expect(feed.serviceIfDue() != nil)
    }

    @Test func unmappingAndLeavingEmptyTheSnapshot() {
        var now: Int64 = 0
        let feed = ActiveSpeakerFeed(clock: MediaClock { now })
        feed.map(ssrc: 1, participantId: "p1", trackId: "mic")
        feed.map(ssrc: 2, participantId: "p2", trackId: "mic")
        for frame in 0..<20 {
            now = Int64(frame) * 20_000
            feed.observe(level(1, 20, at: now / 1_000))
            feed.observe(level(2, 20, at: now / 1_000))
        }
        feed.evaluate()
        #expect(feed.snapshot.count == 2)
        feed.unmap(ssrc: 2)
        feed.evaluate()
        #expect(feed.snapshot.map(\.participantId) == ["p1"])
        feed.observe(level(2, 20, at: now / 1_000))
        #expect(feed.unmappedLevels == 1)
        feed.removeParticipant("p1")
        feed.evaluate()
        #expect(feed.snapshot.isEmpty && feed.snapshots.last == [])
        // Remapping an SSRC to another track forgets the old one.
        feed.map(ssrc: 5, participantId: "p3", trackId: "a")
        feed.observe(level(5, 10, at: now / 1_000))
        feed.map(ssrc: 5, participantId: "p3", trackId: "b")
        feed.evaluate()
        #expect(feed.snapshot.isEmpty)
    }

    @Test func subscriberReportsAudioLevelsAndSkipsMalformedOnes() throws {
        let subscriber = try Subscriber(configuration: SubscriberConfiguration(localSSRC: 1, security: .insecurePlaintext),
                                        transport: nil, clock: MediaClock { 42_000 })
        var levels: [ReceivedAudioLevel] = []
        subscriber.onAudioLevel = { levels.append($0) }
        func packet(_ extensionData: [UInt8]?, payloadType: UInt8 = 111, sequence: UInt16) throws -> [UInt8] {
            let extensions = try extensionData.map { data throws(WireError) in
                try RTPHeaderExtensions(elements: [RTPHeaderExtensionElement(id: 1, data: data)])
            }
            let header = RTPHeader(payloadType: payloadType, sequenceNumber: sequence, timestamp: 0, ssrc: 0x77,
                                   extensions: extensions)
            return try RTPPacket(header: header, payload: [0xF8, 0xFF, 0xFE]).serialized()
        }
        subscriber.handle(datagram: try packet([0x80 | 33], sequence: 1), from: nil)
        subscriber.handle(datagram: try packet([0x21, 0x00], sequence: 2), from: nil)  // two bytes: malformed
        subscriber.handle(datagram: try packet(nil, sequence: 3), from: nil)  // no extension
        subscriber.handle(datagram: try packet([0x80 | 10], payloadType: 96, sequence: 4), from: nil)  // video
        #expect(levels == [ReceivedAudioLevel(ssrc: 0x77, sequenceNumber: 1,
                                              level: AudioLevel(clampingLevel: 33, voiceActivity: true),
                                              arrivalMicroseconds: 42_000)])
        #expect(subscriber.audioLevelsMalformed == 1)
        #expect(subscriber.statistics.audio.packetsReceived == 3)  // the audio path still got them all
    }
}
