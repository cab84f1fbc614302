/// One media section (RFC 8866 §5.14): its `m=` line and the lines under it.
public struct MediaDescription: Sendable, Hashable {
    /// `audio`, `video`, `application`…
    public var media: String
    /// 0 rejects the section in an answer (RFC 8866 §5.14; JSEP bundles use 9 as a placeholder).
    public var port: Int
    /// e.g. `UDP/TLS/RTP/SAVPF`.
    public var transportProtocol: String
    /// Payload types (or other formats), in preference order.
    public var formats: [String]
    /// The `c=` line, if any (e.g. `IN IP4 0.0.0.0`).
    public var connection: String?
    /// `b=` lines (e.g. `AS:2500`, `TIAS:2500000`).
    public var bandwidths: [String]
    public var attributes: [SDPAttribute]

    public init(media: String, port: Int, transportProtocol: String, formats: [String],
                connection: String? = nil, bandwidths: [String] = [], attributes: [SDPAttribute] = []) {
        self.media = media
        self.port = port
        self.transportProtocol = transportProtocol
        self.formats = formats
        self.connection = connection
        self.bandwidths = bandwidths
        self.attributes = attributes
    }

    /// The `a=mid` of the section (RFC 8843 §9).
    public var mid: String? { attributes.value(of: "mid") }

    /// Whether an answer rejected the section (port 0, RFC 8866 §5.14).
    public var isRejected: Bool { port == 0 }

    /// Reads an `m=` value: `<media> <port>[/<count>] <proto> <fmt> ...`.
    init(mLine value: Substring, line: Int) throws(SDPError) {
        let fields = value.split(separator: " ", omittingEmptySubsequences: true)
        guard fields.count >= 3 else { throw .malformedLine(line: line, reason: "m= needs media, port and protocol") }
        // `<port>` or `<port>/<number of ports>`; a field of only slashes has no port at all.
        guard let portText = fields[1].split(separator: "/", maxSplits: 1).first,
              let port = Int(portText), (0...65_535).contains(port) else {
            throw .malformedLine(line: line, reason: "m= port \(fields[1])")
        }
        self.init(media: String(fields[0]), port: port, transportProtocol: String(fields[2]),
                  formats: fields.dropFirst(3).map(String.init))
    }

    /// The lines of the section, `m=` first.
    var lines: [String] {
        var lines = ["m=\(media) \(port) \(transportProtocol)" + formats.map { " \($0)" }.joined()]
        if let connection { lines.append("c=\(connection)") }
        lines += bandwidths.map { "b=\($0)" }
        lines += attributes.map { "a=\($0)" }
        return lines
    }
}
