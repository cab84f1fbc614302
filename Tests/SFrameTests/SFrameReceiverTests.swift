import Testing
@testable import SFrame

/// What a receiver refuses and counts (RFC 9605 §4.4.4, §9): a wrong key, a tampered tag or
/// header or metadata, a replayed counter, a truncated header; and key rotation with a grace
/// period for frames still under the old key.
@Suite struct SFrameReceiverTests {
    static let baseKey: [UInt8] = Array(0..<16)

    @Test(arguments: SFrameCipherSuite.allCases)
    func badFramesAreRejectedAndCountedAndNoneOpens(suite: SFrameCipherSuite) throws {
        let sender = try SFrameSender(suite: suite, keyID: 3, baseKey: Self.baseKey)
        let receiver = SFrameReceiver(suite: suite)
        try receiver.setKey(keyID: 3, baseKey: Self.baseKey, nowMilliseconds: 0)
        let frame = Array("a VP8 frame's bytes".utf8)
        let metadata: [UInt8] = [0x10, 0x02, 0x03]
        let good = try sender.encrypt(frame[...], metadata: metadata)
        #expect(try receiver.decrypt(good[...], metadata: metadata, nowMilliseconds: 1).plaintext == frame)

        // The same frame again: replayed.
        #expect(throws: SFrameError.replayed(keyID: 3, counter: 0)) { try receiver.decrypt(good[...], metadata: metadata, nowMilliseconds: 2) }
        // A wrong key: the tag does not verify.
        let stranger = SFrameReceiver(suite: suite)
        try stranger.setKey(keyID: 3, baseKey: Array(repeating: 7, count: 16), nowMilliseconds: 0)
        let next = try sender.encrypt(frame[...], metadata: metadata)
        #expect(throws: SFrameError.authenticationFailed(keyID: 3, counter: 1)) {
            try stranger.decrypt(next[...], metadata: metadata, nowMilliseconds: 2)
        }
        // A flipped tag bit, a flipped ciphertext bit, other metadata, a forged header counter.
        var tampered = next
        tampered[tampered.count - 1] ^= 1
        #expect(throws: SFrameError.self) { try receiver.decrypt(tampered[...], metadata: metadata, nowMilliseconds: 2) }
        tampered = next
        tampered[3] ^= 0x80
        #expect(throws: SFrameError.self) { try receiver.decrypt(tampered[...], metadata: metadata, nowMilliseconds: 2) }
        #expect(throws: SFrameError.self) { try receiver.decrypt(next[...], metadata: [0x11, 0x02, 0x03], nowMilliseconds: 2) }
        tampered = next
        tampered[0] = 0x35  // KID 3, CTR 5
        #expect(throws: SFrameError.authenticationFailed(keyID: 3, counter: 5)) {
            try receiver.decrypt(tampered[...], metadata: metadata, nowMilliseconds: 2)
        }
        // Truncated: no header at all, a header whose CTR bytes are missing, no room for the tag.
        #expect(throws: SFrameError.truncated(needed: 1, available: 0)) { try receiver.decrypt([][...], nowMilliseconds: 2) }
        #expect(throws: SFrameError.truncated(needed: 3, available: 2)) { try receiver.decrypt([0x39, 0x01][...], nowMilliseconds: 2) }
        #expect(throws: SFrameError.self) { try receiver.decrypt(next.prefix(1 + suite.tagLength - 1), nowMilliseconds: 2) }
        // An unknown KID.
        let other = try SFrameSender(suite: suite, keyID: 9, baseKey: Self.baseKey)
        #expect(throws: SFrameError.unknownKeyID(9)) { try receiver.decrypt(try other.encrypt(frame[...])[...], nowMilliseconds: 2) }
        // The untampered frame still opens after all that (nothing moved the replay window).
        #expect(try receiver.decrypt(next[...], metadata: metadata, nowMilliseconds: 3).plaintext == frame)
        #expect(receiver.counters == .init(decrypted: 2, unknownKey: 1, authenticationFailures: 4, replayed: 1, truncated: 3))
        #expect(stranger.counters.authenticationFailures == 1)
    }

    @Test func framesArrivingOutOfOrderOpenOnceWithinTheWindow() throws {
        let sender = try SFrameSender(suite: .aes128GcmSha256_128, keyID: 1, baseKey: Self.baseKey)
        let receiver = SFrameReceiver(suite: .aes128GcmSha256_128)
        try receiver.setKey(keyID: 1, baseKey: Self.baseKey, nowMilliseconds: 0)
        let frames = try (0..<100).map { try sender.encrypt([UInt8($0)][...]) }
        for index in [0, 2, 1, 5, 3, 4, 99, 40, 98] {
            #expect(try receiver.decrypt(frames[index][...], nowMilliseconds: 0).plaintext == [UInt8(index)])
        }
        // 35 is more than 64 counters behind 99: too old, refused like a replay.
        #expect(throws: SFrameError.replayed(keyID: 1, counter: 35)) { try receiver.decrypt(frames[35][...], nowMilliseconds: 0) }
        #expect(throws: SFrameError.replayed(keyID: 1, counter: 40)) { try receiver.decrypt(frames[40][...], nowMilliseconds: 0) }
    }

    @Test func aRotatedKeyKeepsTheOldOneForTheGracePeriodThenDropsIt() throws {
        let suite = SFrameCipherSuite.aes128CtrHmacSha256_80
        let sender = try SFrameSender(suite: suite, keyID: 10, baseKey: Self.baseKey)
        let receiver = SFrameReceiver(suite: suite, gracePeriodMilliseconds: 2_000)
        try receiver.setKey(keyID: 10, baseKey: Self.baseKey, nowMilliseconds: 0)
        let late = try sender.encrypt([1][...]), later = try sender.encrypt([2][...])
        // Rotation: the next key is the ratchet of the first (RFC 9605 §5.1), under KID 11.
        let next = try SFrameKey.ratchet(Self.baseKey, suite: suite)
        #expect(next.count == suite.hashLength && next != Self.baseKey)
        try sender.setKey(keyID: 11, baseKey: next)
        try receiver.setKey(keyID: 11, baseKey: next, nowMilliseconds: 1_000)
        #expect(try receiver.decrypt(try sender.encrypt([3][...])[...], nowMilliseconds: 1_000).header == SFrameHeader(keyID: 11, counter: 0))
        #expect(try receiver.decrypt(late[...], nowMilliseconds: 2_999).plaintext == [1])  // within the grace period
        #expect(receiver.keyIDs(nowMilliseconds: 2_999) == [10, 11])
        #expect(throws: SFrameError.unknownKeyID(10)) { try receiver.decrypt(later[...], nowMilliseconds: 3_000) }
        #expect(receiver.keyIDs(nowMilliseconds: 3_000) == [11])
    }

    @Test func randomBytesNeverTrap() throws {
        var generator = SystemRandomNumberGenerator()
        let receiver = SFrameReceiver(suite: .aes128CtrHmacSha256_32)
        try receiver.setKey(keyID: 0, baseKey: Self.baseKey, nowMilliseconds: 0)
        for _ in 0..<2_000 {
            let bytes = (0..<Int.random(in: 0...40, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            _ = try? receiver.decrypt(bytes[...], nowMilliseconds: 0)
        }
        #expect(receiver.counters.decrypted == 0)
        #expect(throws: SFrameError.invalidKey("an empty base key")) { try SFrameSender(suite: .aes128GcmSha256_128, keyID: 0, baseKey: []) }
    }
}
