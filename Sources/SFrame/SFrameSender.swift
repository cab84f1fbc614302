/// One sender's SFrame encryption (RFC 9605 §4.4.3): the current KID's key and a counter that
/// goes up by one per frame, so each (KID, CTR) pair is used once (§4.3). Give every stream of
/// a participant the same sender (audio and video share the counter, never a nonce). Not
/// `Sendable`: confine it with the publisher that uses it.
public final class SFrameSender {
    public let suite: SFrameCipherSuite
    private var key: SFrameKey
    private var counter: UInt64 = 0
    /// Frames encrypted.
    public private(set) var framesEncrypted = 0

    public init(suite: SFrameCipherSuite, keyID: UInt64, baseKey: [UInt8]) throws(SFrameError) {
        self.suite = suite
        key = try SFrameKey(suite: suite, keyID: keyID, baseKey: baseKey)
    }

    /// The KID frames are encrypted under now.
    public var keyID: UInt64 { key.keyID }

    /// Switches to a new key (rotation): frames from now on carry `keyID`, counted from 0. A KID
    /// must never come back with the same base key (its counters would repeat).
    public func setKey(keyID: UInt64, baseKey: [UInt8]) throws(SFrameError) {
        key = try SFrameKey(suite: suite, keyID: keyID, baseKey: baseKey)
        counter = 0
    }

    /// Moves the counter forward to `counter` (never back): to resume a KID where a previous
    /// sender left it, and for test vectors that start mid-stream.
    public func skipCounter(to counter: UInt64) {
        self.counter = max(self.counter, counter)
    }

    /// header || ciphertext || tag of `plaintext`; `metadata` is authenticated with the header
    /// but not carried (the receiver must present the same bytes, §4.4.3).
    public func encrypt(_ plaintext: ArraySlice<UInt8>, metadata: [UInt8] = []) throws(SFrameError) -> [UInt8] {
        guard counter < .max else { throw .counterExhausted(keyID: key.keyID) }
        let header = SFrameHeader(keyID: key.keyID, counter: counter)
        var output = header.encoded
        let sealed = try SFrameAEAD.seal(suite, key: key.key, nonce: key.nonce(counter: counter), aad: output + metadata, plaintext)
        counter += 1
        framesEncrypted += 1
        output += sealed
        return output
    }
}
