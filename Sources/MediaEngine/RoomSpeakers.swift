internal import EngineCore
internal import RTPWire
internal import SessionCore
import Simulcast

/// The hosted room's active-speaker detection (docs/quality-and-speakers.md): the RFC 6464 level of every forwarded
/// audio packet, as any subscriber of the room receives it, counted once per packet (the same
/// packet reaches every subscriber: the newest sequence number per stream wins), into one
/// `ActiveSpeakerFeed`. Its ranking orders the room's adaptive subscriptions (docs/adaptive-subscriptions.md).
final class RoomSpeakers {
    let feed: ActiveSpeakerFeed
    /// The newest sequence number observed per audio SSRC.
    private var newest: [UInt32: UInt16] = [:]

    /// `clock`: the engine's (the subscribers stamp arrivals with it too).
    init(clock: MediaClock) {
        feed = ActiveSpeakerFeed(historyLimit: 1, clock: clock)
    }

    /// The audio stream `ssrc` is `participantId`'s mic track `trackId`.
    func map(ssrc: UInt32, participantId: String, trackId: String) {
        feed.map(ssrc: ssrc, participantId: participantId, trackId: trackId)
    }

    func removeParticipant(_ participantId: String, audioSSRC: UInt32?) {
        if let audioSSRC {
            feed.unmap(ssrc: audioSSRC)
            newest[audioSSRC] = nil
        }
        feed.removeParticipant(participantId)
    }

    /// A level as one subscriber received it; repeats of a packet already seen are skipped.
    func observe(_ received: ReceivedAudioLevel) {
        // RFC 3550 serial arithmetic: ahead by 1...32767 is newer.
        if let last = newest[received.ssrc], Int16(bitPattern: received.sequenceNumber &- last) <= 0 { return }
        newest[received.ssrc] = received.sequenceNumber
        feed.observe(received)
    }
}
