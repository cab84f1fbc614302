/// An SDP Security Descriptions attribute (RFC 4568 §9.1):
///
///     a=crypto:<tag> <crypto-suite> inline:<base64 key||salt>[|<lifetime>][|<MKI>:<length>]
///
/// Only what this engine can honour is accepted: one `inline:` key, no lifetime (RFC 4568 §6.1;
/// the engine never rekeys), no MKI, no session parameters. Each refusal is a distinct
/// ``SRTPError/CryptoLineProblem``. The `a=` prefix and a trailing CR LF are optional.
public struct SDESCryptoAttribute: Sendable, CustomStringConvertible {
    /// The decimal tag (1 to 9 digits) that answers refer back to (RFC 4568 §6.1).
    public let tag: Int
    /// The suite and its master key and salt.
    public let keyingMaterial: SRTPKeyingMaterial

    public var suite: SRTPSuite { keyingMaterial.suite }

    /// An attribute to offer or answer with.
    public init(tag: Int, keyingMaterial: SRTPKeyingMaterial) {
        self.tag = tag
        self.keyingMaterial = keyingMaterial
    }

    /// The attribute as an SDP line without `a=` (`crypto:<tag> <suite> inline:<base64>`, RFC 4568
    /// §9.1). It carries the master key: put it only into a signalling channel that is itself
    /// protected (RFC 4568 §8.3).
    public var sdpValue: String {
        "crypto:\(tag) \(suite.sdpName) inline:\(keyingMaterial.withKeyAndSalt { Base64.encode($0) })"
    }

    public var description: String {
        "SDESCryptoAttribute(tag: \(tag), suite: \(suite), inline: <redacted>)"
    }

    /// Parses one attribute line; see the type's documentation for what is accepted.
    public init(parsing line: String) throws(SRTPError) {
        var text = Substring(line)
        while let last = text.last, last.isNewline || last == " " { text.removeLast() }  // "\r\n" is one Character
        if text.hasPrefix("a=") { text = text.dropFirst(2) }
        guard text.hasPrefix("crypto:") else {
            throw .badCryptoLine(.malformed("does not start with 'crypto:'"))
        }
        text = text.dropFirst("crypto:".count)

        let fields = text.split(separator: " ", omittingEmptySubsequences: false)
        guard fields.count >= 3 else {
            throw .badCryptoLine(.malformed("expected '<tag> <crypto-suite> <key-params>', found \(fields.count) field(s)"))
        }
        guard fields.count == 3 else {
            throw .badCryptoLine(.unsupportedParameters(fields[3...].joined(separator: " ")))
        }

        let tagText = fields[0]
        guard (1...9).contains(tagText.count), tagText.allSatisfy({ $0.isASCII && $0.isNumber }),
              let tag = Int(tagText) else {
            throw .badCryptoLine(.malformed("tag must be 1 to 9 decimal digits"))
        }

        guard let suite = SRTPSuite(rawValue: String(fields[1])) else {
            throw .badCryptoLine(.unknownSuite(String(fields[1])))
        }

        let keyParams = fields[2]
        guard !keyParams.contains(";") else {
            throw .badCryptoLine(.unsupportedParameters("more than one key-params"))
        }
        guard let colon = keyParams.firstIndex(of: ":") else {
            throw .badCryptoLine(.malformed("key-params lack 'method:'"))
        }
        let method = keyParams[..<colon]
        guard method == "inline" else {
            throw .badCryptoLine(.unsupportedKeyMethod(String(method)))
        }

        let keyInfo = keyParams[keyParams.index(after: colon)...]
            .split(separator: "|", omittingEmptySubsequences: false)
        for extra in keyInfo.dropFirst() {
            // RFC 4568 §9.1: mki = mki-value ":" mki-length; lifetime = ["2^"] 1*DIGIT.
            throw .badCryptoLine(extra.contains(":") ? .mkiNotSupported : .lifetimeNotSupported)
        }

        guard var keyAndSalt = Base64.decode(keyInfo[0]) else {
            throw .badCryptoLine(.badBase64)
        }
        defer { SecretBytes.wipe(&keyAndSalt) }
        self.tag = tag
        self.keyingMaterial = try SRTPKeyingMaterial(suite: suite, keyAndSalt: keyAndSalt)
    }
}
