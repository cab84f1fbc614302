import SRTP

/// SRTPSession inbound on arbitrary bytes and on validly protected packets, then mutated.
///
/// Input: a mode byte, then packets. Mode bit 0: RTCP (SRTCP) instead of RTP; bits 1–2: the suite
/// (among those libsrtp supports); bit 3: protect mode; bits 4–5: replay window (64, 128, 1024,
/// 32767 packets). In raw mode each packet is `[length, bytes…]`, unprotected as it is. In protect
/// mode each packet is `[length, position, xor, plaintext…]`: the plaintext is protected with the
/// same fixed keys, byte `position` of the result is XORed with `xor`, and the result unprotected.
///
/// Invariants: two inbound sessions, one unprotecting in place (`unprotect(inPlace:)`, as the node
/// and subscriber do) and one copying (`unprotectRTP(_:into:)`), give the same result for every
/// packet; nothing is written past the buffers handed to libsrtp; protect adds exactly the suite's
/// overhead; a mutated packet is refused; an unmutated one unprotects to its plaintext, unless
/// (SRTP only) the receiver has missed a packet the sender protected: the receiver then guesses
/// the rollover counter from its own last sequence number (RFC 3711 §3.3.1), and after a jump of
/// more than 2^15 the guess differs from the sender's, so refusing is correct. (SRTCP carries its
/// index, so a fresh SRTCP packet must always be accepted.)
enum SRTPCheck {
    static let windows = [64, 128, 1024, SRTPSession.replayWindowSizes.upperBound]

    static func run(_ bytes: [UInt8]) -> String? {
        guard let mode = bytes.first else { return nil }
        let rtcp = mode & 1 != 0
        let suite = FuzzKeys.suites[Int(mode >> 1 & 3) % FuzzKeys.suites.count]
        let protectMode = mode & 8 != 0
        let window = windows[Int(mode >> 4 & 3)]
        let keys = FuzzKeys.material(1, suite: suite)
        let outbound: SRTPSession, inPlace: SRTPSession, copying: SRTPSession
        do {
            outbound = try SRTPSession(direction: .outbound, keyingMaterial: keys, replayWindowSize: window)
            inPlace = try SRTPSession(direction: .inbound, keyingMaterial: keys, replayWindowSize: window)
            copying = try SRTPSession(direction: .inbound, keyingMaterial: keys, replayWindowSize: window)
        } catch {
            return "session for \(suite) window \(window) not created: \(error)"
        }
        var reader = ByteCursor(bytes.dropFirst())
        var index = 0
        /// Whether the receivers have seen every packet the sender protected (see above).
        var receiversSawEverything = true
        while let length = reader.byte() {
            defer { index += 1 }
            if protectMode {
                guard let position = reader.byte(), let xor = reader.byte() else { break }
                let plaintext = reader.bytes(Int(length))
                let overhead = rtcp ? suite.rtcpOverhead : suite.rtpOverhead
                var protected = GuardedBuffer(count: plaintext.count + overhead)
                let protectResult: Result<Int, SRTPError> = protected.withBytes { output in
                    plaintext.withUnsafeBytes { input in
                        Result { () throws(SRTPError) -> Int in
                            rtcp ? try outbound.protectRTCP(input, into: output) : try outbound.protectRTP(input, into: output)
                        }
                    }
                }
                guard protected.guardIsIntact else { return "packet \(index): protect wrote past \(protected.count) bytes" }
                guard case let .success(length) = protectResult else {
                    // Refused plaintext (malformed header, reused index): unprotect it as it is.
                    if let violation = unprotectBoth(plaintext, rtcp: rtcp, inPlace, copying, index: index) { return violation }
                    continue
                }
                guard length == plaintext.count + overhead else {
                    return "packet \(index): protect gave \(length) bytes for \(plaintext.count) + \(overhead)"
                }
                var packet = Array(protected.storage[0..<length])
                let mutated = xor != 0
                if mutated {
                    packet[Int(position) % packet.count] ^= xor
                    receiversSawEverything = false
                }
                switch unprotectCompared(packet, rtcp: rtcp, inPlace, copying, index: index) {
                case let .violation(text): return text
                case let .unprotected(plain):
                    if mutated { return "packet \(index): a mutated \(rtcp ? "SRTCP" : "SRTP") packet unprotected" }
                    guard plain == plaintext else { return "packet \(index): unprotect does not give the plaintext back" }
                case let .refused(error):
                    if !mutated && (rtcp || receiversSawEverything) {
                        return "packet \(index): a freshly protected packet is refused: \(error)"
                    }
                }
            } else {
                if let violation = unprotectBoth(reader.bytes(Int(length)), rtcp: rtcp, inPlace, copying, index: index) {
                    return violation
                }
            }
        }
        return nil
    }

    enum Outcome {
        case unprotected([UInt8])
        case refused(SRTPError)
        case violation(String)
    }

    private static func unprotectBoth(_ packet: [UInt8], rtcp: Bool, _ inPlace: SRTPSession, _ copying: SRTPSession,
                                      index: Int) -> String? {
        if case let .violation(text) = unprotectCompared(packet, rtcp: rtcp, inPlace, copying, index: index) { return text }
        return nil
    }

    /// Unprotects `packet` with both inbound sessions and compares what they did.
    private static func unprotectCompared(_ packet: [UInt8], rtcp: Bool, _ inPlace: SRTPSession, _ copying: SRTPSession,
                                          index: Int) -> Outcome {
        var buffer = packet
        let first = Result { () throws(SRTPError) -> Int in
            try inPlace.unprotect(inPlace: &buffer, packetLength: packet.count, rtcp: rtcp)
        }
        var output = GuardedBuffer(count: packet.count)
        let second: Result<Int, SRTPError> = output.withBytes { out in
            packet.withUnsafeBytes { input in
                Result { () throws(SRTPError) -> Int in
                    rtcp ? try copying.unprotectRTCP(input, into: out) : try copying.unprotectRTP(input, into: out)
                }
            }
        }
        guard output.guardIsIntact else { return .violation("packet \(index): unprotect wrote past \(packet.count) bytes") }
        switch (first, second) {
        case let (.success(a), .success(b)):
            guard a == b, a >= 0, a <= packet.count else {
                return .violation("packet \(index): unprotect lengths \(a), \(b) for \(packet.count) bytes")
            }
            guard buffer[0..<a] == output.storage[0..<b] else { return .violation("packet \(index): in-place and copying unprotect differ") }
            return .unprotected(Array(buffer[0..<a]))
        case let (.failure(a), .failure(b)):
            guard a == b else { return .violation("packet \(index): unprotect errors differ: \(a) vs \(b)") }
            return .refused(a)
        default:
            return .violation("packet \(index): in-place \(first) but copying \(second)")
        }
    }
}

/// Reads an input front to back; running out is never an error (the rest is just shorter).
struct ByteCursor {
    private var rest: ArraySlice<UInt8>
    init(_ bytes: ArraySlice<UInt8>) { rest = bytes }
    var isEmpty: Bool { rest.isEmpty }
    var remaining: Int { rest.count }
    mutating func byte() -> UInt8? { rest.popFirst() }
    mutating func uint16() -> UInt16? {
        guard rest.count >= 2 else { return nil }
        defer { rest = rest.dropFirst(2) }
        return UInt16(rest[rest.startIndex]) << 8 | UInt16(rest[rest.startIndex + 1])
    }
    /// Up to `count` bytes (fewer at the end of the input).
    mutating func bytes(_ count: Int) -> [UInt8] {
        let taken = Array(rest.prefix(count))
        rest = rest.dropFirst(taken.count)
        return taken
    }
}
