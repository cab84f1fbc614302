/// A certificate fingerprint as SDP carries it (RFC 8122 §5, `a=fingerprint:sha-256 AB:CD:…`):
/// the peer's DTLS certificate must hash to it (RFC 5763 §5) or the connection fails.
public struct DTLSFingerprint: Sendable, Hashable, CustomStringConvertible {
    /// The hash function's name as SDP writes it, lower case (`sha-256`).
    public var algorithm: String
    public var digest: [UInt8]

    public init(algorithm: String, digest: [UInt8]) {
        self.algorithm = algorithm.lowercased()
        self.digest = digest
    }

    /// Parses `<hash-func> <hex>:<hex>:…`; throws `SDPError.malformedAttribute` naming the text.
    public init(parsing text: String) throws(SDPError) {
        func malformed(_ reason: String) -> SDPError { .malformedAttribute(attribute: "fingerprint:\(text)", reason: reason) }
        let parts = text.split(separator: " ", omittingEmptySubsequences: true)
        guard parts.count == 2 else { throw malformed("needs <hash-func> <hex>:<hex>:...") }
        var digest: [UInt8] = []
        for pair in parts[1].split(separator: ":", omittingEmptySubsequences: false) {
            guard pair.count == 2, let byte = UInt8(pair, radix: 16) else {
                throw malformed("byte \(pair) is not two hex digits")
            }
            digest.append(byte)
        }
        guard (16...64).contains(digest.count) else { throw malformed("a digest of \(digest.count) bytes (16 to 64)") }
        self.init(algorithm: String(parts[0]), digest: digest)
    }

    /// `sha-256 AB:CD:…` (upper-case hex, RFC 8122 §5).
    public var description: String {
        let hex = digest.map { byte in
            let text = String(byte, radix: 16, uppercase: true)
            return text.count == 1 ? "0" + text : text
        }
        return "\(algorithm) \(hex.joined(separator: ":"))"
    }
}

/// Which side starts the DTLS handshake (RFC 4145 §4, RFC 5763 §5): an offer says `actpass`,
/// the answer picks `active` (it is the DTLS client) or `passive`.
public enum DTLSSetupRole: String, Sendable, Hashable {
    case active
    case passive
    case actpass
}
