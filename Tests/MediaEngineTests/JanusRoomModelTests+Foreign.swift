import Foundation
import InteropTestSupport
import MediaEngine
import Testing

/// Issue 28's participant we did not write: aiortc publishing VP8 and Opus into the Janus room
/// under a display that is not ours (`ForeignJanusPublisher`). alice finds it in `participants`
/// with a camera and a microphone (its id made from its feed), consumes both, decodes the
/// video with no decoder error and hears its tone.
extension JanusRoomModelTests {
    static let foreignToneHz = 520.0

    static func aliceConsumes(_ foreign: ForeignJanusPublisher, id: String, alice: LocalParticipant, log: EventLog) async throws {
        let found = await wait(seconds: 5) {
            (try? await alice.participants)?.contains { $0.id == id && Set($0.tracks.map(\.kind)) == [.camera, .microphone] } == true
        }
        let seen = (try? await alice.participants) ?? []
        #expect(found, "alice's participants: \(seen)")
        let told = roomEvents(log).filter { event in
            switch event {
            case let .participantJoined(participant): participant.id == id
            case let .trackPublished(participantId, _): participantId == id
            default: false
            }
        }
        print("alice was told of the aiortc publisher (connected in \(foreign.connectMilliseconds) ms): \(told.map(\.description))")
        let participant = try #require(try await alice.participants.first { $0.id == id })
        #expect(participant.displayName == foreign.display)

        let subscribedAt = ContinuousClock.now
        let video = try await alice.subscribe(to: id)
        let audio = try await alice.subscribe(toMicrophoneOf: id)
        let blocks = ReceivedAudioBlocks(audio)
        _ = try await wait(seconds: 8) { try await video.stats().framesDecoded > 0 }
        let firstFrame = ContinuousClock.now - subscribedAt
        _ = await wait(seconds: 8) { blocks.all.contains { $0.kind == .decoded } }
        print("alice's first aiortc frame \(firstFrame), first decoded audio \(ContinuousClock.now - subscribedAt) after subscribing")
        #expect(try await wait(seconds: 8) { try await video.stats().framesDecoded >= 60 && blocks.count >= 100 })
        let videoStats = try await video.stats(), audioStats = try await audio.stats()
        let received = ContinuousClock.now - subscribedAt
        let decoded = blocks.all.filter { $0.kind == .decoded }
        let frequency = dominantFrequency(of: Array(decoded.suffix(50).prefix(25).flatMap(\.audio.samples)))
        print("alice from aiortc in \(received): \(videoStats.framesDecoded) frames "
              + "(\(videoStats.frameSize.map { "\($0.width)x\($0.height)" } ?? "no size"), \(videoStats.decoderErrors) decoder errors); "
              + "\(blocks.count) audio blocks, \(decoded.count) decoded, \(frequency) Hz, concealed \(audioStats.concealedMilliseconds) ms, "
              + "\(audioStats.decoderErrors) audio decoder errors")
        #expect(videoStats.framesDecoded >= 60 && videoStats.decoderErrors == 0)
        #expect(abs(frequency - foreignToneHz) <= foreignToneHz * 0.02)
        #expect(audioStats.decoderErrors == 0)
    }
}
