import Foundation
import RTPWire
import SRTP
import Testing
@testable import DTLS

/// DTLS-SRTP handshakes between two associations on OpenSSL, datagrams passed by hand.
@Suite struct DTLSAssociationTests {
    /// Passes datagrams between a client and a server until neither has anything to say, the
    /// timers included, for at most `seconds`. `dropFirstFromServer` loses that many of the
    /// server's datagrams.
    static func run(_ client: DTLSAssociation, _ server: DTLSAssociation, seconds: Double = 5,
                    dropFirstFromServer: Int = 0) -> Double {
        var toServer = client.start()
        var toClient: [[UInt8]] = []
        var dropped = 0
        let start = Date()
        while Date().timeIntervalSince(start) < seconds {
            if case .handshaking = client.state {} else if case .handshaking = server.state {} else { break }
            for datagram in toServer { toClient += server.handle(datagram[...]) }
            toServer = []
            for datagram in toClient {
                if dropped < dropFirstFromServer { dropped += 1; continue }
                toServer += client.handle(datagram[...])
            }
            toClient = []
            toServer += client.poll()
            toClient += server.poll()
            if toServer.isEmpty, toClient.isEmpty { usleep(5_000) }
        }
        return Date().timeIntervalSince(start)
    }

    static func keys(_ association: DTLSAssociation) -> DTLSSRTPKeys? {
        if case let .connected(keys) = association.state { return keys }
        return nil
    }

    @Test func aHandshakeExportsMatchingSRTPKeysForBothDirections() throws {
        let clientCertificate = try DTLSCertificate(), serverCertificate = try DTLSCertificate()
        #expect(clientCertificate.fingerprint.digest.count == 32 && clientCertificate.fingerprint != serverCertificate.fingerprint)
        let client = try DTLSAssociation(role: .client, certificate: clientCertificate, remoteFingerprint: serverCertificate.fingerprint)
        let server = try DTLSAssociation(role: .server, certificate: serverCertificate, remoteFingerprint: clientCertificate.fingerprint)
        let seconds = Self.run(client, server)
        let clientKeys = try #require(Self.keys(client)), serverKeys = try #require(Self.keys(server))
        print("DTLS-SRTP handshake in memory: \(Int(seconds * 1000)) ms, profile \(clientKeys.suite)")
        #expect(clientKeys.suite == serverKeys.suite)
        #expect(clientKeys.suite == (SRTPSuite.aeadAes128Gcm.isSupported ? .aeadAes128Gcm : .aesCm128HmacSha1_80))
        // What one side protects with its local keys, the other unprotects with its remote keys.
        for (sender, receiver) in [(clientKeys, serverKeys), (serverKeys, clientKeys)] {
            let outbound = try SRTPSession(direction: .outbound, keyingMaterial: sender.local)
            let inbound = try SRTPSession(direction: .inbound, keyingMaterial: receiver.remote)
            var packet: [UInt8] = []
            try RTPHeader(marker: true, payloadType: 96, sequenceNumber: 1, timestamp: 3000, ssrc: 42).serialize(into: &packet)
            packet += [UInt8](repeating: 0x5A, count: 100)
            var output = [UInt8](repeating: 0, count: packet.count + SRTPSession.maxTrailerLength)
            let protected = try outbound.protectRTP(packet, into: &output)
            var received = Array(output[0..<protected])
            let plain = try inbound.unprotect(inPlace: &received, packetLength: protected, rtcp: false)
            #expect(Array(received[0..<plain]) == packet)
        }
    }

    @Test func aForgedFingerprintFailsTheHandshakeOnBothSidesAndExportsNothing() throws {
        let clientCertificate = try DTLSCertificate(), serverCertificate = try DTLSCertificate()
        let forged = DTLSFingerprint(algorithm: "sha-256", digest: clientCertificate.fingerprint.digest.map { $0 ^ 1 })
        let client = try DTLSAssociation(role: .client, certificate: clientCertificate, remoteFingerprint: serverCertificate.fingerprint)
        let server = try DTLSAssociation(role: .server, certificate: serverCertificate, remoteFingerprint: forged)
        _ = Self.run(client, server, seconds: 3)
        guard case let .failed(error) = server.state, case .fingerprintMismatch = error else {
            Issue.record("server: \(server.state)")
            return
        }
        #expect(Self.keys(client) == nil)  // the bad_certificate alert ends the client's handshake too
        if case .failed = client.state {} else { Issue.record("client: \(client.state)") }
    }

    @Test func aLostFlightIsRetransmittedOnTheTimer() throws {
        let clientCertificate = try DTLSCertificate(), serverCertificate = try DTLSCertificate()
        let client = try DTLSAssociation(role: .client, certificate: clientCertificate, remoteFingerprint: serverCertificate.fingerprint)
        let server = try DTLSAssociation(role: .server, certificate: serverCertificate, remoteFingerprint: clientCertificate.fingerprint)
        let seconds = Self.run(client, server, seconds: 5, dropFirstFromServer: 1)
        #expect(Self.keys(client) != nil && Self.keys(server) != nil)
        #expect(seconds >= 0.5)  // OpenSSL's first retransmission timer is one second
    }

    @Test func garbageDatagramsNeverTrapAndAnUnsupportedFingerprintHashIsATypedError() throws {
        let certificate = try DTLSCertificate()
        let server = try DTLSAssociation(role: .server, certificate: certificate, remoteFingerprint: certificate.fingerprint)
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<500 {
            var datagram = (0..<Int.random(in: 0..<300, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            if !datagram.isEmpty { datagram[0] = UInt8.random(in: 20...63, using: &generator) }
            _ = server.handle(datagram[...])
        }
        _ = server.poll()
        #expect(throws: DTLSError.unsupportedFingerprintAlgorithm("md5")) {
            try DTLSAssociation(role: .client, certificate: certificate,
                                remoteFingerprint: DTLSFingerprint(algorithm: "md5", digest: [UInt8](repeating: 0, count: 16)))
        }
    }
}

/// Which DTLS-SRTP protection profile two associations agree on (RFC 5764 §4.1.2): AEAD-GCM when
/// both can, whatever order the client lists it in; any single suite both offer; keys that work.
@Suite struct DTLSSRTPProfileTests {
    static func handshake(client clientSuites: [SRTPSuite], server serverSuites: [SRTPSuite] = SRTPSuite.preferredSupported)
        throws -> (client: DTLSSRTPKeys?, server: DTLSSRTPKeys?) {
        let clientCertificate = try DTLSCertificate(), serverCertificate = try DTLSCertificate()
        let client = try DTLSAssociation(role: .client, certificate: clientCertificate, remoteFingerprint: serverCertificate.fingerprint,
                                         srtpSuites: clientSuites)
        let server = try DTLSAssociation(role: .server, certificate: serverCertificate, remoteFingerprint: clientCertificate.fingerprint,
                                         srtpSuites: serverSuites)
        _ = DTLSAssociationTests.run(client, server)
        return (DTLSAssociationTests.keys(client), DTLSAssociationTests.keys(server))
    }

    @Test func theServerPicksGCMEvenWhenTheClientListsItLast() throws {
        let keys = try Self.handshake(client: [.aesCm128HmacSha1_80, .aesCm128HmacSha1_32, .aeadAes256Gcm, .aeadAes128Gcm])
        #expect(keys.client?.suite == .aeadAes128Gcm && keys.server?.suite == .aeadAes128Gcm)
    }

    @Test(arguments: SRTPSuite.preferredSupported)
    func eachSuiteAloneIsAgreedAndItsKeysOpenWhatTheOtherSideProtects(_ suite: SRTPSuite) throws {
        let keys = try Self.handshake(client: [suite])
        let client = try #require(keys.client), server = try #require(keys.server)
        #expect(client.suite == suite && server.suite == suite)
        var packet: [UInt8] = []
        try RTPHeader(marker: true, payloadType: 96, sequenceNumber: 7, timestamp: 3000, ssrc: 42).serialize(into: &packet)
        packet += [UInt8](repeating: 0x5A, count: 100)
        var output = [UInt8](repeating: 0, count: packet.count + SRTPSession.maxTrailerLength)
        let protected = try SRTPSession(direction: .outbound, keyingMaterial: client.local).protectRTP(packet, into: &output)
        #expect(protected == packet.count + suite.rtpOverhead)
        var received = Array(output[0..<protected])
        let plain = try SRTPSession(direction: .inbound, keyingMaterial: server.remote)
            .unprotect(inPlace: &received, packetLength: protected, rtcp: false)
        #expect(Array(received[0..<plain]) == packet)
    }

    @Test func noCommonProfileFailsAndUnusableListsAreTypedErrors() throws {
        let keys = try Self.handshake(client: [.aesCm128HmacSha1_32], server: [.aeadAes128Gcm])
        #expect(keys.client == nil && keys.server == nil)
        let certificate = try DTLSCertificate()
        #expect(throws: DTLSError.unusableSRTPSuites([])) {
            try DTLSAssociation(role: .client, certificate: certificate, remoteFingerprint: certificate.fingerprint, srtpSuites: [])
        }
    }
}
