import RTPWire
import Testing
@testable import SessionCore

/// ICE server URLs as apps write them (RFC 7064 §3.1, RFC 7065 §3.1), their defaults, and every
/// malformed one a typed error naming what is wrong.
@Suite struct ICEServerURLTests {
    @Test func stunAndTurnURLsParseWithTheirDefaults() throws {
        #expect(try ICEServerURL(parsing: "stun:stun.example.org") == ICEServerURL(scheme: .stun, host: "stun.example.org", port: 3478, transport: .udp))
        #expect(try ICEServerURL(parsing: "stun:192.0.2.1:19302") == ICEServerURL(scheme: .stun, host: "192.0.2.1", port: 19302))
        #expect(try ICEServerURL(parsing: "turn:192.0.2.10?transport=tcp") == ICEServerURL(scheme: .turn, host: "192.0.2.10", port: 3478, transport: .tcp))
        #expect(try ICEServerURL(parsing: "TURN:turn.example.org:3479?transport=UDP").transport == .udp)
        #expect(try ICEServerURL(parsing: "turns:turn.example.org") == ICEServerURL(scheme: .turns, host: "turn.example.org", port: 5349, transport: .tcp))
        #expect(try ICEServerURL(parsing: "turn:[2001:db8::1]:3478") == ICEServerURL(scheme: .turn, host: "2001:db8::1", port: 3478))
        #expect(try ICEServerURL(parsing: "turn:[2001:db8::1]:3478?transport=tcp").description == "turn:[2001:db8::1]:3478?transport=tcp")
    }

    @Test(arguments: [
        ("", "no scheme"), ("stun.example.org", "no scheme"), ("http://stun.example.org", "scheme http"),
        ("stun://stun.example.org", "no //"), ("stun:", "no host"), ("stun:example.org:0", "port 0"),
        ("stun:example.org:70000", "port 70000"), ("stun:example.org?transport=udp", "a query on a STUN URL"),
        ("turn:example.org?transport=sctp", "query transport=sctp"), ("turn:2001:db8::1", "in brackets"),
        ("turn:[2001:db8::1", "without ]"), ("turn:[nothex]", "IPv6 literal"), ("turn:exa mple.org", "host exa mple.org"),
        ("turns:example.org?transport=udp", "TLS needs TCP"),
    ])
    func malformedURLsAreTypedErrors(text: String, reason: String) {
        #expect {
            try ICEServerURL(parsing: text)
        } throws: { error in
            guard case let ICEServerError.malformedURL(url, why) = error else { return false }
            return url == text && why.contains(reason)
        }
    }

    @Test func aTURNServerNeedsCredentialsAndTLSIsRefusedInWords() throws {
        #expect(throws: ICEServerError.missingCredentials(url: "turn:192.0.2.10:3478?transport=udp")) {
            try ICEServer(urls: ["turn:192.0.2.10"]).parsedURLs()
        }
        #expect(throws: ICEServerError.self) { try ICEServer(urls: ["turns:192.0.2.10"], username: "u", credential: "p").parsedURLs() }
        let server = ICEServer(urls: ["stun:192.0.2.1", "turn:192.0.2.10?transport=tcp"], username: "u", credential: "p")
        #expect(try server.parsedURLs().map(\.scheme) == [.stun, .turn])
        let many = ICEServer(urls: Array(repeating: "stun:192.0.2.1", count: 10_000))
        #expect(try many.parsedURLs().count == ICEServer.maximumURLs)
    }

    /// RFC 8445 §5.1.2.1 with the recommended type preferences; the host value is what browsers
    /// put on their first host candidate.
    @Test func prioritiesFollowTheRFCFormula() {
        #expect(ICECandidatePriority.priority(kind: .host) == 2_130_706_431)
        #expect(ICECandidatePriority.priority(kind: .serverReflexive) == 1_694_498_815)
        #expect(ICECandidatePriority.priority(kind: .peerReflexive) == 1_862_270_975)
        #expect(ICECandidatePriority.priority(kind: .relayed) == 16_777_215)
        #expect(ICECandidatePriority.priority(kind: .host, localPreference: 65_534, component: 2) == (126 << 24) + (65_534 << 8) + 254)
        #expect(ICECandidatePriority.priority(kind: .host, component: 999) == (126 << 24) + (65_535 << 8))  // clamped to 256
        let a = ICECandidatePriority.foundation(kind: .serverReflexive, baseAddress: "10.0.0.2", server: "192.0.2.1:3478", transport: "udp")
        #expect(a == ICECandidatePriority.foundation(kind: .serverReflexive, baseAddress: "10.0.0.2", server: "192.0.2.1:3478", transport: "UDP"))
        #expect(a != ICECandidatePriority.foundation(kind: .relayed, baseAddress: "10.0.0.2", server: "192.0.2.1:3478", transport: "udp"))
        #expect(a != ICECandidatePriority.foundation(kind: .serverReflexive, baseAddress: "10.0.0.3", server: "192.0.2.1:3478", transport: "udp"))
        #expect((1...32).contains(a.count) && a.allSatisfy(\.isNumber))
    }
}
