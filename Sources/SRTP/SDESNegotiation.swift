/// SDES offer/answer (RFC 4568 §5.1, §7.1): the offer lists one `a=crypto` attribute per suite
/// this engine can run, most preferred first (`SRTPSuite.preference`: AEAD-GCM first); the answer
/// takes, among what the peer offered, the attribute whose suite this engine prefers most, and
/// answers with the same tag and suite and a key of its own. Each side then sends with its own
/// key and receives with the other's.
public enum SDESNegotiation {
    /// One attribute per suite in `suites` (default: every suite the installed libsrtp runs,
    /// most preferred first), tags 1, 2, ..., each with fresh key material from `random`.
    public static func offer<Generator: RandomNumberGenerator>(
        suites: [SRTPSuite] = SRTPSuite.preferredSupported, using random: inout Generator) throws(SRTPError) -> [SDESCryptoAttribute] {
        var attributes: [SDESCryptoAttribute] = []
        for (index, suite) in suites.enumerated() {
            attributes.append(SDESCryptoAttribute(tag: index + 1, keyingMaterial: try freshKeyingMaterial(suite, using: &random)))
        }
        return attributes
    }

    /// What an answerer settles on: the peer's attribute it accepted (the peer sends with that
    /// key) and its own answer (same tag and suite, its own key).
    public struct Agreement: Sendable {
        public let remote: SDESCryptoAttribute
        public let local: SDESCryptoAttribute
    }

    /// Answers the offered `a=crypto` lines: lines that do not parse, name a suite the installed
    /// libsrtp cannot run or one not in `preference` are passed over; among the rest the one whose
    /// suite comes first in `preference` wins (the offer's order breaks ties). Throws
    /// `SRTPError.noCommonSuite` when none is left.
    public static func answer<Generator: RandomNumberGenerator>(
        offered lines: [String], preference: [SRTPSuite] = SRTPSuite.preferredSupported,
        using random: inout Generator) throws(SRTPError) -> Agreement {
        var best: (rank: Int, attribute: SDESCryptoAttribute)?
        for line in lines {
            guard let attribute = try? SDESCryptoAttribute(parsing: line), attribute.suite.isSupported,
                  let rank = preference.firstIndex(of: attribute.suite) else { continue }
            if rank < best?.rank ?? .max { best = (rank, attribute) }
        }
        guard let chosen = best?.attribute else { throw .noCommonSuite(offered: lines.count) }
        let local = SDESCryptoAttribute(tag: chosen.tag, keyingMaterial: try freshKeyingMaterial(chosen.suite, using: &random))
        return Agreement(remote: chosen, local: local)
    }

    /// Fresh master key || salt for `suite` from `random`.
    public static func freshKeyingMaterial<Generator: RandomNumberGenerator>(
        _ suite: SRTPSuite, using random: inout Generator) throws(SRTPError) -> SRTPKeyingMaterial {
        var bytes = (0..<suite.keyingMaterialLength).map { _ in UInt8.random(in: 0...255, using: &random) }
        defer { SecretBytes.wipe(&bytes) }
        return try SRTPKeyingMaterial(suite: suite, keyAndSalt: bytes)
    }
}
