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
    /// The suite of that key.
    public let srtpSuite: SRTPSuite
    let loop: EngineLoop

    init(participant: LocalParticipant, srtpKeyAndSalt: [UInt8]?, srtpSuite: SRTPSuite, loop: EngineLoop) {
        self.participant = participant
        self.srtpKeyAndSalt = srtpKeyAndSalt
        self.srtpSuite = srtpSuite
        self.loop = loop
    }

    /// The SDP attribute that hands the key to a receiver (RFC 4568 §9.1), e.g.
    /// `a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:<base64 key||salt>`; nil when insecure.
    public var sdesCryptoAttribute: String? {
        srtpKeyAndSalt.map { "a=crypto:1 \(srtpSuite.sdpName) inline:\(Data($0).base64EncodedString())" }
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
