/// A session description (RFC 8866): the session-level lines and the media sections, read and
/// written as text. Lines the engine has no use for are kept in order (`otherLines`) so a
/// description survives a round trip. JSEP's meaning (RFC 9429) lives in `SimulcastOffer` and
/// `NegotiatedSession`.
public struct SessionDescription: Sendable, Hashable {
    /// `o=` (RFC 8866 §5.2), e.g. `- 4962303333179871722 2 IN IP4 127.0.0.1`.
    public var origin: String
    /// `s=`, `-` when there is nothing to say.
    public var sessionName: String
    /// `t=`, `0 0` for an unbounded session.
    public var timing: String
    /// Session-level `c=` and `b=` lines, if any.
    public var connection: String?
    public var bandwidths: [String]
    /// Session-level attributes (`a=group:BUNDLE`, `a=ice-ufrag`, `a=fingerprint`…).
    public var attributes: [SDPAttribute]
    /// Other session-level lines (`i=`, `u=`, `e=`, `p=`, `z=`, `k=`, `r=`), as `x=value`.
    public var otherLines: [String]
    public var media: [MediaDescription]

    /// Largest description accepted (a JSEP offer with a few hundred candidates is far below).
    public static let maximumLength = 65_536

    public init(origin: String = "- 0 1 IN IP4 0.0.0.0", sessionName: String = "-", timing: String = "0 0",
                connection: String? = nil, bandwidths: [String] = [], attributes: [SDPAttribute] = [],
                otherLines: [String] = [], media: [MediaDescription] = []) {
        self.origin = origin
        self.sessionName = sessionName
        self.timing = timing
        self.connection = connection
        self.bandwidths = bandwidths
        self.attributes = attributes
        self.otherLines = otherLines
        self.media = media
    }

    /// Reads `text` (CRLF or LF line ends). Throws `SDPError` for a description without `v=0`,
    /// `o=`, `s=` or `t=`, a line that is not `<letter>=<value>`, or a malformed `m=` or
    /// `a=candidate` line (RFC 8839 §5.1).
    public init(parsing text: String) throws(SDPError) {
        guard text.utf8.count <= Self.maximumLength else { throw .tooLarge(bytes: text.utf8.count) }
        var origin: String?, sessionName: String?, timing: String?, sawVersion = false
        var session = SessionDescription()
        var current: MediaDescription?
        var number = 0
        // By bytes: Swift reads "\r\n" as one Character, so a split on "\n" would miss CRLF.
        for rawLine in text.utf8.split(separator: 0x0A, omittingEmptySubsequences: false) {
            number += 1
            let bytes = rawLine.last == 0x0D ? rawLine.dropLast() : rawLine[...]
            if bytes.isEmpty { continue }
            let line = Substring(String(decoding: bytes, as: UTF8.self))
            guard line.count >= 2, let type = line.first, type.isASCII, type.isLetter,
                  line[line.index(after: line.startIndex)] == "=" else {
                throw .malformedLine(line: number, reason: "not <letter>=<value>")
            }
            let value = line.dropFirst(2)
            if !sawVersion {
                guard type == "v", value == "0" else { throw .malformedLine(line: number, reason: "the first line must be v=0") }
                sawVersion = true
                continue
            }
            switch type {
            case "m":
                if let current { session.media.append(current) }
                current = try MediaDescription(mLine: value, line: number)
            case "a":
                let attribute = SDPAttribute(line: value)
                // A candidate is checked here, where its line number is known: read later (by
                // `RemoteTransportDescription`) its error could name only its text.
                if attribute.name == "candidate", let candidate = attribute.value {
                    do throws(SDPError) {
                        _ = try ICECandidate(parsing: candidate)
                    } catch {
                        guard case let .malformedAttribute(_, reason) = error else { throw error }
                        throw .malformedLine(line: number, reason: "a=\(PeerText.shown(attribute.description, limit: 120)): \(reason)")
                    }
                }
                if current != nil { current!.attributes.append(attribute) } else { session.attributes.append(attribute) }
            case "c":
                if current != nil { current!.connection = String(value) } else { session.connection = String(value) }
            case "b":
                if current != nil { current!.bandwidths.append(String(value)) } else { session.bandwidths.append(String(value)) }
            case "o" where current == nil: origin = String(value)
            case "s" where current == nil: sessionName = String(value)
            case "t" where current == nil: timing = String(value)
            case "v": throw .malformedLine(line: number, reason: "a second v= line")
            default:
                // i=, k= in a media section and the rarer session lines: kept only at session level.
                if current == nil { session.otherLines.append(String(line)) }
            }
        }
        guard sawVersion else { throw .missing("v=0 line") }
        if let current { session.media.append(current) }
        guard let origin else { throw .missing("o= line") }
        guard let sessionName else { throw .missing("s= line") }
        guard let timing else { throw .missing("t= line") }
        session.origin = origin
        session.sessionName = sessionName
        session.timing = timing
        self = session
    }

    /// The description as text, CRLF line ends (RFC 8866 §5), lines in the RFC's order.
    public var text: String {
        var lines = ["v=0", "o=\(origin)", "s=\(sessionName)"]
        lines += otherLines
        if let connection { lines.append("c=\(connection)") }
        lines += bandwidths.map { "b=\($0)" }
        lines.append("t=\(timing)")
        lines += attributes.map { "a=\($0)" }
        for section in media { lines += section.lines }
        return lines.joined(separator: "\r\n") + "\r\n"
    }

    /// The media section whose `a=mid` is `mid`.
    public func section(mid: String) -> MediaDescription? { media.first { $0.mid == mid } }
}
