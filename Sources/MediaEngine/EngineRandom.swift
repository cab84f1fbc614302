internal import RTPWire

/// The engine's one random source (SSRCs, SRTP keys, ICE credentials, STUN transaction IDs):
/// the system's cryptographic generator in production (`arc4random_buf` through
/// `SystemRandomNumberGenerator`), or a seeded `SplitMix64` on virtual time so that one seed
/// replays one engine run exactly. Loop-confined, as the runtime that owns it.
struct EngineRandom: RandomNumberGenerator {
    private enum Source {
        case system(SystemRandomNumberGenerator)
        case seeded(SplitMix64)
    }

    private var source: Source

    /// The system generator (what `MediaEngine()` uses).
    static var system: EngineRandom { EngineRandom(source: .system(SystemRandomNumberGenerator())) }

    /// A deterministic generator: the same `seed` gives the same numbers (tests only: keys
    /// made from it are predictable).
    static func seeded(_ seed: UInt64) -> EngineRandom { EngineRandom(source: .seeded(SplitMix64(seed: seed))) }

    mutating func next() -> UInt64 {
        switch source {
        case var .system(generator):
            let value = generator.next()
            source = .system(generator)
            return value
        case var .seeded(generator):
            let value = generator.next()
            source = .seeded(generator)
            return value
        }
    }
}
