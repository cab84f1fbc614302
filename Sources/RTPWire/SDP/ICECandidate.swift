/// An ICE candidate as SDP carries it (RFC 8839 §5.1, the value of `a=candidate:`):
/// `<foundation> <component> <transport> <priority> <address> <port> typ <type>
/// [raddr <address> rport <port>] *(<name> <value>)`.
public struct ICECandidate: Sendable, Hashable, CustomStringConvertible {
    /// Candidate types (RFC 8445 §5.1.1).
    public enum Kind: String, Sendable, Hashable {
        case host
        case serverReflexive = "srflx"
        case peerReflexive = "prflx"
        case relayed = "relay"
    }

    public var foundation: String
    /// 1 = RTP (the only one with rtcp-mux).
    public var component: Int
    /// `udp` (or `tcp`, RFC 6544).
    public var transport: String
    public var priority: UInt32
    /// An IP address or an mDNS name (`….local`).
    public var address: String
    public var port: UInt16
    public var kind: Kind
    public var relatedAddress: String?
    public var relatedPort: UInt16?
    /// Extension attributes (`generation 0`, `tcptype passive`, `ufrag …`), in order.
    public var extensions: [(name: String, value: String)]

    public init(foundation: String, component: Int = 1, transport: String = "udp", priority: UInt32,
                address: String, port: UInt16, kind: Kind, relatedAddress: String? = nil, relatedPort: UInt16? = nil,
                extensions: [(name: String, value: String)] = []) {
        self.foundation = foundation
        self.component = component
        self.transport = transport
        self.priority = priority
        self.address = address
        self.port = port
        self.kind = kind
        self.relatedAddress = relatedAddress
        self.relatedPort = relatedPort
        self.extensions = extensions
    }

    /// Parses the value of `a=candidate:` (with or without the `candidate:` prefix). Throws
    /// `SDPError.malformedAttribute` naming the candidate's text and its bad field
    /// (`SessionDescription(parsing:)` turns it into a `malformedLine` with the line's number).
    public init(parsing text: String) throws(SDPError) {
        let body = text.hasPrefix("candidate:") ? text.dropFirst("candidate:".count) : text[...]
        func malformed(_ reason: String) -> SDPError { .malformedAttribute(attribute: "candidate:\(body)", reason: reason) }
        let fields = body.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        guard fields.count >= 8, fields[6] == "typ" else { throw malformed("needs 8 fields, the 7th \"typ\"") }
        guard (1...32).contains(fields[0].count) else { throw malformed("foundation \(fields[0])") }
        guard let component = Int(fields[1]), (1...256).contains(component) else { throw malformed("component \(fields[1])") }
        guard let priority = UInt32(fields[3]), priority > 0 else { throw malformed("priority \(fields[3])") }
        guard let port = UInt16(fields[5]) else { throw malformed("port \(fields[5])") }
        guard let kind = Kind(rawValue: fields[7]) else { throw malformed("type \(fields[7])") }
        self.init(foundation: fields[0], component: component, transport: fields[2].lowercased(), priority: priority,
                  address: fields[4], port: port, kind: kind)
        var index = 8
        while index + 1 < fields.count {
            let (name, value) = (fields[index], fields[index + 1])
            switch name {
            case "raddr": relatedAddress = value
            case "rport":
                guard let related = UInt16(value) else { throw malformed("rport \(value)") }
                relatedPort = related
            default: extensions.append((name, value))
            }
            index += 2
        }
        guard index == fields.count else { throw malformed("an extension name without a value") }
    }

    /// The value of `a=candidate:` (without the prefix).
    public var description: String {
        var text = "\(foundation) \(component) \(transport) \(priority) \(address) \(port) typ \(kind.rawValue)"
        if let relatedAddress, let relatedPort { text += " raddr \(relatedAddress) rport \(relatedPort)" }
        for (name, value) in extensions { text += " \(name) \(value)" }
        return text
    }

    public static func == (lhs: ICECandidate, rhs: ICECandidate) -> Bool { lhs.description == rhs.description }
    public func hash(into hasher: inout Hasher) { hasher.combine(description) }
}

extension ICECandidate {
    /// The unspecified address of the first candidate's family, as a section's `c=` line and
    /// `a=rtcp` carry it when ICE picks the path (RFC 8839 §4.2.5 and §5.1: port 9 with
    /// `IN IP4 0.0.0.0`, or `IN IP6 ::` when the default candidate is IPv6).
    public static func placeholderConnection(for candidates: [ICECandidate]) -> String {
        candidates.first.map { $0.address.contains(":") } == true ? "IN IP6 ::" : "IN IP4 0.0.0.0"
    }
}
