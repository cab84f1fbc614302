/// The transport half of a peer's session description over one BUNDLE group (RFC 8843): its ICE
/// credentials and candidates (RFC 8839 §5) and its DTLS certificate fingerprint and role
/// (RFC 8842 §5), read from the first bundled section or the session level, candidates from
/// every bundled section.
public struct RemoteTransportDescription: Sendable {
    public var ice: ICECredentials
    public var fingerprint: DTLSFingerprint
    public var setup: DTLSSetupRole
    public var candidates: [ICECandidate]

    /// Reads `sections` (the bundled ones, first the one that carries the transport) of
    /// `session`. Throws `SDPError` for missing credentials, fingerprint or role, an unknown
    /// role, or a malformed candidate.
    public init(session: SessionDescription, sections: [MediaDescription]) throws(SDPError) {
        guard let first = sections.first else { throw .unsupported("a description whose every section is rejected") }
        func attribute(_ name: String) -> String? { first.attributes.value(of: name) ?? session.attributes.value(of: name) }
        guard let ufrag = attribute("ice-ufrag"), let password = attribute("ice-pwd") else { throw .missing("a=ice-ufrag and a=ice-pwd") }
        ice = try ICECredentials(usernameFragment: ufrag, password: password)
        guard let fingerprint = attribute("fingerprint") else { throw .missing("a=fingerprint") }
        self.fingerprint = try DTLSFingerprint(parsing: fingerprint)
        guard let setupText = attribute("setup") else { throw .missing("a=setup") }
        guard let setup = DTLSSetupRole(rawValue: setupText) else { throw .unsupported("a=setup:\(setupText)") }
        self.setup = setup
        var candidates: [ICECandidate] = []
        for section in sections {
            for value in section.attributes.values(of: "candidate") { candidates.append(try ICECandidate(parsing: value)) }
        }
        self.candidates = candidates
    }

    /// What an answer to our offer settled (`NegotiatedSession`), as a transport description.
    public init(_ negotiated: NegotiatedSession) {
        ice = negotiated.remoteICE
        fingerprint = negotiated.remoteFingerprint
        setup = negotiated.remoteSetup
        candidates = negotiated.remoteCandidates
    }
}
