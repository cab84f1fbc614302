/// ICE username fragment and password (RFC 8839 §5.4): at least 4 and 22 `ice-char`s
/// (ALPHA / DIGIT / "+" / "/"), at most 256.
public struct ICECredentials: Sendable, Hashable {
    public var usernameFragment: String
    public var password: String

    /// Throws `SDPError.malformedAttribute` for lengths or characters RFC 8839 does not allow.
    public init(usernameFragment: String, password: String) throws(SDPError) {
        guard (4...256).contains(usernameFragment.utf8.count), Self.isICEChars(usernameFragment) else {
            throw .malformedAttribute(attribute: "ice-ufrag:\(usernameFragment)", reason: "needs 4 to 256 ice-chars (letters, digits, + and /)")
        }
        guard (22...256).contains(password.utf8.count), Self.isICEChars(password) else {
            throw .malformedAttribute(attribute: "ice-pwd",
                                      reason: "\(password.utf8.count) bytes; needs 22 to 256 ice-chars (letters, digits, + and /)")
        }
        self.usernameFragment = usernameFragment
        self.password = password
    }

    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// Fresh credentials: 8 and 24 random ice-chars (about 48 and 144 bits).
    public static func random(using generator: inout some RandomNumberGenerator) -> ICECredentials {
        func text(_ count: Int) -> String {
            String(decoding: (0..<count).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &generator)] }, as: UTF8.self)
        }
        return try! ICECredentials(usernameFragment: text(8), password: text(24))
    }

    private static func isICEChars(_ text: String) -> Bool { text.utf8.allSatisfy { alphabet.contains($0) } }
}
