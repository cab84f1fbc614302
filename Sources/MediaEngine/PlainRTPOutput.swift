import Foundation

/// An open plain RTP output (`MediaEngine.sendPlainRTP`): its participant publishes the camera
/// (first) and the microphone the options name, then plays sources into them or pushes frames;
/// `participant.leave()` (or `MediaEngine.close()`) sends the RTCP BYE and finishes the pcap.
/// `Sendable`.
public final class PlainRTPOutput: Sendable {
    /// The local participant whose tracks this output sends (its `events` report key-frame
    /// requests, REMB layer changes and failures).
    public let participant: LocalParticipant
    /// The SRTP master key || salt in use, given or generated (RFC 3711 §8.2); nil when the
    /// output is insecure. Give it to the receiver out of band.
    public let srtpKeyAndSalt: [UInt8]?
    /// The SDP attribute that hands that key to the receiver (RFC 4568 §9.1), e.g.
    /// `a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:<base64 key||salt>`: the suite in use, and with
    /// `.srtpAnswering` the answer (the offered tag); nil when insecure.
    public let sdesCryptoAttribute: String?
    let loop: any EngineScheduler

    init(participant: LocalParticipant, srtpKeyAndSalt: [UInt8]?, sdesCryptoAttribute: String?, loop: any EngineScheduler) {
        self.participant = participant
        self.srtpKeyAndSalt = srtpKeyAndSalt
        self.sdesCryptoAttribute = sdesCryptoAttribute
        self.loop = loop
    }

    /// What was sent so far, per SSRC and in total; the final counts once the participant left.
    /// Throws `.closed` once the engine closed.
    public func statistics() async throws(EngineError) -> PlainRTPStatistics {
        let roomId = participant.roomId
        return try await loop.perform { runtime throws(EngineError) in
            guard let output = runtime.rooms[roomId] as? PlainRTPRuntime else { throw .closed("plain RTP output \(roomId)") }
            return output.statistics
        }
    }
}
