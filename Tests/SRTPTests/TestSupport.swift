import Foundation
@testable import SRTP

/// Hex text → bytes (test data only; traps on bad input, which would be a broken fixture).
func bytes(hex: String) -> [UInt8] {
    let digits = Array(hex.utf8)
    precondition(digits.count % 2 == 0, "odd hex length")
    return stride(from: 0, to: digits.count, by: 2).map {
        UInt8(String(decoding: digits[$0..<$0 + 2], as: UTF8.self), radix: 16)!
    }
}

/// libsrtp's validation vector, shared by every worktree in ../shared/vectors.
struct SRTPVector {
    let masterKey: [UInt8]
    let masterSalt: [UInt8]
    let rtpPlain: [UInt8]
    let rtpProtected: [UInt8]
    let rtcpPlain: [UInt8]
    let rtcpProtected: [UInt8]

    static func load() throws -> SRTPVector {
        // #filePath = <repo>/Tests/SRTPTests/TestSupport.swift → <repo>/../shared/vectors
        let repoRoot = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let url = repoRoot.deletingLastPathComponent()
            .appendingPathComponent("shared/vectors/srtp_aes_cm_128_hmac_sha1_80.json")
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as! [String: Any]
        let rtp = json["rtp"] as! [String: String]
        let rtcp = json["rtcp"] as! [String: String]
        return SRTPVector(
            masterKey: bytes(hex: json["masterKeyHex"] as! String),
            masterSalt: bytes(hex: json["masterSaltHex"] as! String),
            rtpPlain: bytes(hex: rtp["plainHex"]!),
            rtpProtected: bytes(hex: rtp["protectedHex"]!),
            rtcpPlain: bytes(hex: rtcp["plainHex"]!),
            rtcpProtected: bytes(hex: rtcp["protectedHex"]!))
    }
}

/// A minimal RTP packet (RFC 3550 §5.1): V=2, PT 111, the given sequence number and SSRC.
func rtpPacket(sequence: UInt16, ssrc: UInt32 = 0x1234_5678, payload: [UInt8] = Array(repeating: 0xAB, count: 160)) -> [UInt8] {
    let timestamp = UInt32(sequence) &* 960
    return [0x80, 111, UInt8(sequence >> 8), UInt8(sequence & 0xFF),
            UInt8(timestamp >> 24), UInt8(timestamp >> 16 & 0xFF), UInt8(timestamp >> 8 & 0xFF), UInt8(timestamp & 0xFF),
            UInt8(ssrc >> 24), UInt8(ssrc >> 16 & 0xFF), UInt8(ssrc >> 8 & 0xFF), UInt8(ssrc & 0xFF)] + payload
}

/// An RTCP receiver report with no report blocks (RFC 3550 §6.4.2) plus padding words as body.
func rtcpPacket(ssrc: UInt32 = 0x1234_5678) -> [UInt8] {
    [0x81, 201, 0x00, 0x07,
     UInt8(ssrc >> 24), UInt8(ssrc >> 16 & 0xFF), UInt8(ssrc >> 8 & 0xFF), UInt8(ssrc & 0xFF)]
        + Array(repeating: 0x5A, count: 24)
}

/// Deterministic keying material for `suite` (tests must not read a random source).
func testKeyingMaterial(_ suite: SRTPSuite, seed: UInt8 = 1) throws -> SRTPKeyingMaterial {
    let bytes = (0..<suite.keyingMaterialLength).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ Int(seed)) }
    return try SRTPKeyingMaterial(suite: suite, keyAndSalt: bytes)
}

/// An outbound and an inbound session sharing one key, as the two ends of one direction.
func sessionPair(_ suite: SRTPSuite, replayWindowSize: Int = SRTPSession.defaultReplayWindowSize) throws -> (sender: SRTPSession, receiver: SRTPSession) {
    let material = try testKeyingMaterial(suite)
    return (try SRTPSession(direction: .outbound, keyingMaterial: material),
            try SRTPSession(direction: .inbound, keyingMaterial: material, replayWindowSize: replayWindowSize))
}

/// Protects one RTP packet into a fresh buffer and trims it to the SRTP length.
func protect(_ packet: [UInt8], with session: SRTPSession) throws -> [UInt8] {
    var output = [UInt8](repeating: 0, count: packet.count + SRTPSession.maxTrailerLength)
    let length = try session.protectRTP(packet, into: &output)
    return Array(output[..<length])
}

/// Unprotects one SRTP packet into a fresh buffer and trims it to the RTP length.
func unprotect(_ packet: [UInt8], with session: SRTPSession) throws -> [UInt8] {
    var output = [UInt8](repeating: 0, count: packet.count)
    let length = try session.unprotectRTP(packet, into: &output)
    return Array(output[..<length])
}
