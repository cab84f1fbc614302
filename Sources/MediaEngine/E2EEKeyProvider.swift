import Foundation
import Synchronization
import SFrame
internal import EngineCore

/// The keys of a room's end-to-end encryption (SFrame, RFC 9605), as LiveKit's key provider
/// holds them: one shared key for everyone, or a key per participant (its frames are encrypted
/// with it, and everyone who receives them opens them with it), each under a key id (the SFrame
/// KID). Set a key again under a new id to rotate; `ratchet` derives the next key from the
/// current one (RFC 9605 §5.1). The forwarding node never sees any of it. Thread-safe.
public final class E2EEKeyProvider: Sendable, Hashable {
    private struct Entry: Sendable {
        var keyId: UInt64
        var key: [UInt8]
    }

    private struct State: Sendable {
        var shared: Entry?
        var perParticipant: [String: Entry] = [:]
        var version = 0
    }

    private let state: Mutex<State>
    /// Base keys are 16 to 64 bytes (RFC 9605 §4.4.2 takes any length; under 16 is too weak).
    public static let keyLengths = 16...64

    /// A provider with `sharedKey` (if given) under `keyId` for everyone.
    public init(sharedKey: [UInt8]? = nil, keyId: UInt64 = 0) throws(EngineError) {
        if let sharedKey { try Self.check(sharedKey) }
        state = Mutex(State(shared: sharedKey.map { Entry(keyId: keyId, key: $0) }))
    }

    /// Sets the key `participant`'s frames are encrypted with (nil: the shared key) under
    /// `keyId`. Frames already in flight under the previous id still open for a few seconds.
    public func setKey(_ key: [UInt8], keyId: UInt64, participant: String? = nil) throws(EngineError) {
        try Self.check(key)
        state.withLock { state in
            if let participant { state.perParticipant[participant] = Entry(keyId: keyId, key: key) } else {
                state.shared = Entry(keyId: keyId, key: key)
            }
            state.version += 1
        }
    }

    /// Replaces `participant`'s key (nil: the shared key) by its ratchet (RFC 9605 §5.1:
    /// HKDF-Expand(HKDF-Extract("", key), "SFrame 1.0 Ratchet", Nh)) under the next key id;
    /// returns that id. Every holder of the old key can ratchet the same way.
    @discardableResult
    public func ratchet(participant: String? = nil, suite: SFrameCipherSuite = .aes128GcmSha256_128) throws(EngineError) -> UInt64 {
        guard let current = entry(for: participant) else { throw .notAllowed("ratchet a key that was never set") }
        let next: [UInt8]
        do {
            next = try SFrameKey.ratchet(current.key, suite: suite)
        } catch {
            throw .systemFailure("\(error)")
        }
        try setKey(next, keyId: current.keyId &+ 1, participant: participant)
        return current.keyId &+ 1
    }

    /// The key `participant` sends with: its own, else the shared one.
    func key(for participant: String) -> (keyId: UInt64, key: [UInt8])? {
        state.withLock { state in (state.perParticipant[participant] ?? state.shared).map { ($0.keyId, $0.key) } }
    }

    /// Goes up with every change (the engine re-reads keys when it moved).
    var version: Int { state.withLock { $0.version } }

    private func entry(for participant: String?) -> Entry? {
        state.withLock { state in participant.flatMap { state.perParticipant[$0] } ?? state.shared }
    }

    private static func check(_ key: [UInt8]) throws(EngineError) {
        guard keyLengths.contains(key.count) else {
            throw .invalidConfiguration("an E2EE key must be \(keyLengths.lowerBound) to \(keyLengths.upperBound) bytes; got \(key.count)")
        }
    }

    public static func == (lhs: E2EEKeyProvider, rhs: E2EEKeyProvider) -> Bool { lhs === rhs }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

/// End-to-end encryption of a room (`RoomOptions.e2ee`): every camera and microphone frame is
/// SFrame-encrypted by its sender with `suite` under the provider's keys.
public struct E2EEOptions: Sendable, Hashable {
    public var keyProvider: E2EEKeyProvider
    public var suite: SFrameCipherSuite

    public init(keyProvider: E2EEKeyProvider, suite: SFrameCipherSuite = .aes128GcmSha256_128) {
        self.keyProvider = keyProvider
        self.suite = suite
    }
}

extension E2EEOptions {
    /// The sealer of `participantId`'s frames under the provider's key for it (its own, else
    /// the shared one); a typed error when there is none.
    func makeSealer(for participantId: String) throws(EngineError) -> E2EEFrameSealer {
        guard let (keyId, key) = keyProvider.key(for: participantId) else {
            throw .notAllowed("the room encrypts end to end and no key is set for '\(participantId)' (nor a shared one)")
        }
        do {
            return E2EEFrameSealer(sender: try SFrameSender(suite: suite, keyID: keyId, baseKey: key))
        } catch {
            throw .invalidConfiguration("\(error)")
        }
    }
}

extension E2EEKeyProvider {
    /// `participantId`'s current key seals its frames from now on, if it is not the one in use
    /// (a rotation or ratchet since).
    func applyCurrentKey(to sealer: E2EEFrameSealer, of participantId: String) throws(SFrameError) {
        guard let (keyId, key) = key(for: participantId), keyId != sealer.sender.keyID else { return }
        try sealer.sender.setKey(keyID: keyId, baseKey: key)
    }

    /// `publisherId`'s current key opens its frames from now on, if the opener lacks it (the
    /// previous key stays for the receiver's grace period).
    func applyCurrentKey(to opener: E2EEFrameOpener, of publisherId: String, nowMilliseconds: Int64) throws(SFrameError) {
        guard let (keyId, key) = key(for: publisherId), !opener.receiver.keyIDs(nowMilliseconds: nowMilliseconds).contains(keyId) else {
            return
        }
        try opener.receiver.setKey(keyID: keyId, baseKey: key, nowMilliseconds: nowMilliseconds)
    }
}

extension E2EEOptions {
    /// The opener of `publisherId`'s frames, holding the provider's key for it if there is one
    /// (without, every frame is refused as missing a key until one is set).
    func makeOpener(for publisherId: String, nowMilliseconds: Int64) throws(EngineError) -> E2EEFrameOpener {
        let opener = E2EEFrameOpener(receiver: SFrameReceiver(suite: suite))
        do {
            try keyProvider.applyCurrentKey(to: opener, of: publisherId, nowMilliseconds: nowMilliseconds)
        } catch {
            throw .invalidConfiguration("E2EE key for '\(publisherId)': \(error)")
        }
        return opener
    }
}

/// Whether a received track's frames open (`ParticipantEvent.e2eeStateChanged`).
public enum E2EEState: Sendable, Hashable {
    /// Frames decrypt.
    case ok
    /// Frames arrive under a key id this participant has no key for.
    case missingKey
    /// Frames fail to decrypt: a wrong key, or they were altered.
    case decryptionFailed
}
