/// One URL of an `ICEServer`: `stun:` / `stuns:` (RFC 7064 §3.1) or `turn:` / `turns:` with an
/// optional `?transport=udp|tcp` (RFC 7065 §3.1), as WebRTC apps write them
/// (`stun:stun.example.org`, `turn:192.0.2.10:3478?transport=tcp`, `turn:[2001:db8::1]`).
///
/// The host is kept as written (an IPv4 or bracketed IPv6 literal, or a name for the resolver).
/// Ports default to 3478, and to 5349 for the TLS schemes (RFC 7064 §3.2, RFC 7065 §3.2); the
/// transport to UDP, and to TCP for `turns:` (TLS runs over TCP).
public struct ICEServerURL: Sendable, Hashable, CustomStringConvertible {
    public enum Scheme: String, Sendable, Hashable {
        case stun, stuns, turn, turns

        /// Whether the server is asked for relayed addresses (TURN) or only for our mapped one.
        public var isTURN: Bool { self == .turn || self == .turns }
        /// Whether the connection to the server runs over TLS.
        public var isSecure: Bool { self == .stuns || self == .turns }
    }

    /// How we reach the server (not what the relay uses towards peers, which is UDP).
    public enum Transport: String, Sendable, Hashable {
        case udp, tcp
    }

    public var scheme: Scheme
    /// An IPv4 literal, an IPv6 literal without brackets, or a host name.
    public var host: String
    public var port: UInt16
    public var transport: Transport

    public init(scheme: Scheme, host: String, port: UInt16? = nil, transport: Transport? = nil) {
        self.scheme = scheme
        self.host = host
        self.port = port ?? (scheme.isSecure ? 5349 : 3478)
        self.transport = transport ?? (scheme.isSecure ? .tcp : .udp)
    }

    /// Parses `text`. Throws `ICEServerError.malformedURL` naming the URL and what is wrong.
    public init(parsing text: String) throws(ICEServerError) {
        func malformed(_ reason: String) -> ICEServerError { .malformedURL(String(text.prefix(200)), reason: reason) }
        guard text.count <= 1_024 else { throw malformed("longer than 1024 characters") }
        guard let colon = text.firstIndex(of: ":") else { throw malformed("no scheme (expected stun:, stuns:, turn: or turns:)") }
        guard let scheme = Scheme(rawValue: text[..<colon].lowercased()) else {
            throw malformed("scheme \(text[..<colon]) (expected stun, stuns, turn or turns)")
        }
        var rest = text[text.index(after: colon)...]
        guard !rest.hasPrefix("//") else { throw malformed("no // after the scheme (RFC 7064: stun:host[:port])") }
        var transport: Transport?
        if let question = rest.firstIndex(of: "?") {
            let query = rest[rest.index(after: question)...]
            rest = rest[..<question]
            guard scheme.isTURN else { throw malformed("a query on a STUN URL") }
            guard query.lowercased().hasPrefix("transport="), let value = Transport(rawValue: query.dropFirst("transport=".count).lowercased()) else {
                throw malformed("query \(query) (expected transport=udp or transport=tcp)")
            }
            transport = value
        }
        var host: Substring
        var portText: Substring?
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else { throw malformed("an IPv6 literal without ]") }
            host = rest[rest.index(after: rest.startIndex)..<close]
            let after = rest[rest.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw malformed("text after the IPv6 literal") }
                portText = after.dropFirst()
            }
            guard host.contains(":"), host.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }) else {
                throw malformed("IPv6 literal [\(host)]")
            }
        } else {
            if let portColon = rest.lastIndex(of: ":") {
                host = rest[..<portColon]
                portText = rest[rest.index(after: portColon)...]
            } else {
                host = rest
            }
            guard !host.contains(":") else { throw malformed("an IPv6 address must be in brackets") }
            guard host.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "." }), host.allSatisfy(\.isASCII) else {
                throw malformed("host \(host)")
            }
        }
        guard !host.isEmpty else { throw malformed("no host") }
        var port: UInt16?
        if let portText {
            guard let value = UInt16(portText), value > 0 else { throw malformed("port \(portText) (expected 1 to 65535)") }
            port = value
        }
        self.init(scheme: scheme, host: String(host), port: port, transport: transport)
        if scheme == .turns, self.transport == .udp { throw malformed("turns: over UDP (TLS needs TCP; DTLS is not supported)") }
    }

    public var description: String {
        let hostText = host.contains(":") ? "[\(host)]" : host
        return "\(scheme.rawValue):\(hostText):\(port)" + (scheme.isTURN ? "?transport=\(transport.rawValue)" : "")
    }
}
