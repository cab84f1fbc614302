/// One sender's SFrame decryption on the receiving side (RFC 9605 §4.4.4): a key ring by KID
/// where a key replaced by a newer one stays usable for a grace period (frames in flight
/// under the old key still open), and a replay window per KID (after the tag verified, so a
/// forged frame cannot move it). Every refusal is a typed error and is counted. Time is a
/// parameter. Not `Sendable`: confine it with the subscriber that uses it.
public final class SFrameReceiver {
    /// What was refused, by reason, and what opened.
    public struct Counters: Sendable, Equatable {
        public var decrypted = 0
        public var unknownKey = 0
        public var authenticationFailures = 0
        public var replayed = 0
        public var truncated = 0

        public init(decrypted: Int = 0, unknownKey: Int = 0, authenticationFailures: Int = 0, replayed: Int = 0, truncated: Int = 0) {
            (self.decrypted, self.unknownKey, self.authenticationFailures, self.replayed, self.truncated)
                = (decrypted, unknownKey, authenticationFailures, replayed, truncated)
        }
    }

    public let suite: SFrameCipherSuite
    public let gracePeriodMilliseconds: Int64
    public private(set) var counters = Counters()
    private var keys: [UInt64: SFrameKey] = [:]
    /// When each replaced key stops being accepted.
    private var expiries: [UInt64: Int64] = [:]
    private var windows: [UInt64: ReplayWindow] = [:]
    private var newestKeyID: UInt64?

    public init(suite: SFrameCipherSuite, gracePeriodMilliseconds: Int64 = 5_000) {
        self.suite = suite
        self.gracePeriodMilliseconds = max(0, gracePeriodMilliseconds)
    }

    /// Adds the key for `keyID` as the newest; the previous newest is kept for the grace period.
    public func setKey(keyID: UInt64, baseKey: [UInt8], nowMilliseconds: Int64) throws(SFrameError) {
        keys[keyID] = try SFrameKey(suite: suite, keyID: keyID, baseKey: baseKey)
        expiries[keyID] = nil
        windows[keyID] = nil
        if let previous = newestKeyID, previous != keyID { expiries[previous] = nowMilliseconds + gracePeriodMilliseconds }
        newestKeyID = keyID
    }

    /// Forgets `keyID` at once.
    public func removeKey(keyID: UInt64) {
        keys[keyID] = nil
        expiries[keyID] = nil
        windows[keyID] = nil
        if newestKeyID == keyID { newestKeyID = nil }
    }

    /// KIDs accepted now.
    public func keyIDs(nowMilliseconds: Int64) -> [UInt64] {
        expire(nowMilliseconds)
        return keys.keys.sorted()
    }

    /// The plaintext of an SFrame ciphertext (header || ciphertext || tag) and its header;
    /// `metadata` must be what the sender authenticated with it.
    public func decrypt(_ ciphertext: ArraySlice<UInt8>, metadata: [UInt8] = [],
                        nowMilliseconds: Int64) throws(SFrameError) -> (header: SFrameHeader, plaintext: [UInt8]) {
        expire(nowMilliseconds)
        let header: SFrameHeader, length: Int
        do {
            (header, length) = try SFrameHeader.parse(ciphertext)
        } catch {
            counters.truncated += 1
            throw error
        }
        guard ciphertext.count - length >= suite.tagLength else {
            counters.truncated += 1
            throw .truncated(needed: length + suite.tagLength, available: ciphertext.count)
        }
        guard let key = keys[header.keyID] else {
            counters.unknownKey += 1
            throw .unknownKeyID(header.keyID)
        }
        let headerBytes = Array(ciphertext.prefix(length))
        guard let plaintext = try SFrameAEAD.open(suite, key: key.key, nonce: key.nonce(counter: header.counter),
                                                  aad: headerBytes + metadata, ciphertext.dropFirst(length)) else {
            counters.authenticationFailures += 1
            throw .authenticationFailed(keyID: header.keyID, counter: header.counter)
        }
        guard windows[header.keyID, default: ReplayWindow()].admit(header.counter) else {
            counters.replayed += 1
            throw .replayed(keyID: header.keyID, counter: header.counter)
        }
        counters.decrypted += 1
        return (header, plaintext)
    }

    private func expire(_ now: Int64) {
        for (keyID, expiry) in expiries where now >= expiry { removeKey(keyID: keyID) }
    }
}

/// The counters seen under one KID: the highest, and which of the 64 below it (RFC 3711
/// §3.3.2's sliding window, applied to SFrame counters).
struct ReplayWindow {
    private var highest: UInt64?
    private var seen: UInt64 = 0  // bit i: highest - i was seen

    /// Whether `counter` is new (then it is recorded).
    mutating func admit(_ counter: UInt64) -> Bool {
        guard let top = highest else {
            (highest, seen) = (counter, 1)
            return true
        }
        if counter > top {
            let shift = counter - top
            seen = shift >= 64 ? 1 : seen << shift | 1
            highest = counter
            return true
        }
        let age = top - counter
        guard age < 64, seen & (1 << age) == 0 else { return false }
        seen |= 1 << age
        return true
    }
}
