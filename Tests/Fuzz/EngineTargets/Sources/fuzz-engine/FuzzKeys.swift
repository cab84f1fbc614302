import SRTP

/// Fixed SRTP keying material, one per role, so every input replays the same way and seeds can
/// carry validly protected packets.
enum FuzzKeys {
    /// Deterministic material for `suite`; `role` tells keys of different peers apart.
    static func material(_ role: UInt8, suite: SRTPSuite = .default) -> SRTPKeyingMaterial {
        let key = (0..<suite.masterKeyLength).map { UInt8(truncatingIfNeeded: Int(role) &* 31 &+ $0 &* 7 &+ 1) }
        let salt = (0..<suite.masterSaltLength).map { UInt8(truncatingIfNeeded: 0xA0 &+ Int(role) &+ $0) }
        do {
            return try SRTPKeyingMaterial(suite: suite, masterKey: key, masterSalt: salt)
        } catch {
            fatalError("fuzz-engine: fixed key material rejected: \(error)")
        }
    }

    /// The suites the installed libsrtp runs (GCM needs libsrtp built with a crypto backend).
    static let suites: [SRTPSuite] = SRTPSuite.supported

    /// One session per suite kept for the whole process. Debian's libsrtp uses NSS, whose
    /// context is initialised per cipher and shut down (unloading modules) with the last one:
    /// without a session alive, each input would pay that (about 0.6 ms per session).
    nonisolated(unsafe) static let keepCryptoBackendLoaded: [SRTPSession] = suites.compactMap {
        try? SRTPSession(direction: .outbound, keyingMaterial: material(0, suite: $0))
    }
}

/// A byte buffer followed by a guard area: whatever C writes past the length it was given shows
/// up as a changed guard byte (libsrtp is not instrumented by AddressSanitizer).
struct GuardedBuffer {
    static let guardLength = 64
    static let guardByte: UInt8 = 0xA5
    var storage: [UInt8]
    let count: Int

    init(count: Int) {
        self.count = count
        storage = [UInt8](repeating: Self.guardByte, count: count + Self.guardLength)
    }

    var guardIsIntact: Bool { storage[count...].allSatisfy { $0 == Self.guardByte } }

    /// The first `count` bytes, as C sees them.
    mutating func withBytes<R>(_ body: (UnsafeMutableRawBufferPointer) -> R) -> R {
        let count = self.count
        return storage.withUnsafeMutableBytes { body(UnsafeMutableRawBufferPointer(rebasing: $0[0..<count])) }
    }
}
