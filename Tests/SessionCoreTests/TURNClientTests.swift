import RTPWire
import Testing
@testable import SessionCore

/// `TURNClient` against a scripted server: the long-term credential dance (401, then 438 Stale
/// Nonce), retransmission timing, failures as typed errors, permissions, channels and data.
@Suite struct TURNClientTests {
    static let realm = "engine.test", password = "secret"
    static let key = MD5.longTermKey(username: "alice", realm: realm, password: password)
    static let relayed = STUNAddress.ipv4(0x0A00_0063, port: 50_000)
    static let mapped = STUNAddress.ipv4(0x0A00_0001, port: 40_000)
    static let peer = STUNAddress.ipv4(0x0A00_0002, port: 6_000)

    static func request(_ bytes: [UInt8]) throws -> STUNMessage { try STUNMessage(parsing: bytes) }

    /// The server's answer to `request`, signed with the long-term key when `signed`.
    static func answer(_ request: STUNMessage, _ messageClass: STUNClass, _ attributes: [STUNAttribute], signed: Bool = true) throws -> [UInt8] {
        try STUNMessage(type: STUNMessageType(method: request.type.method, messageClass: messageClass),
                        transactionID: request.transactionID, attributes: attributes).serialized(integrityKey: signed ? key : nil)
    }

    /// A client that got through the 401 challenge and holds an allocation (at time 0).
    static func allocated() throws -> TURNClient {
        let client = TURNClient(configuration: .init(username: "alice", password: password), seed: 1)
        client.start(now: 0)
        let first = try request(try #require(client.takeOutgoing().first))
        _ = client.handle(try answer(first, .errorResponse, [.errorCode(code: 401, reason: "Unauthorized"), .realm(realm), .nonce("n1")],
                                     signed: false)[...], now: 10)
        let second = try request(try #require(client.takeOutgoing().first))
        _ = client.handle(try answer(second, .successResponse, [.xorRelayedAddress(relayed), .xorMappedAddress(mapped), .lifetime(600)])[...], now: 20)
        return client
    }

    @Test func theFirstAllocateIsChallengedThenAuthenticatedWithTheLongTermKey() throws {
        let client = TURNClient(configuration: .init(username: "alice", password: Self.password), seed: 1)
        client.start(now: 0)
        let firstBytes = try #require(client.takeOutgoing().first)
        let first = try Self.request(firstBytes)
        #expect(first.type == STUNMessageType(method: .allocate, messageClass: .request))
        #expect(first.attributes.contains(STUNAttribute.requestedTransport(17)) && first.nonce == nil)
        #expect(STUNMessage.checkIntegrity(firstBytes[...], key: Self.key) == .absent)
        _ = client.handle(try Self.answer(first, .errorResponse, [.errorCode(code: 401, reason: "Unauthorized"), .realm(Self.realm), .nonce("n1")],
                                          signed: false)[...], now: 10)
        let secondBytes = try #require(client.takeOutgoing().first)
        let second = try Self.request(secondBytes)
        #expect(second.transactionID != first.transactionID)
        #expect(second.attributes.contains(STUNAttribute.username("alice")) && second.realm == Self.realm && second.nonce == "n1")
        #expect(STUNMessage.checkIntegrity(secondBytes[...], key: Self.key) == .valid)
        // A success that is not signed with our key is not believed.
        _ = client.handle(try Self.answer(second, .successResponse, [.xorRelayedAddress(Self.relayed)], signed: false)[...], now: 20)
        #expect(client.state == .allocating && client.ignoredDatagrams == 1)
        _ = client.handle(try Self.answer(second, .successResponse, [.xorRelayedAddress(Self.relayed), .xorMappedAddress(Self.mapped), .lifetime(300)])[...], now: 30)
        #expect(client.state == .allocated(relayed: Self.relayed, mapped: Self.mapped, expires: 300_000_030))
        // Refreshed 60 s before it expires, with the credentials.
        #expect(client.nextDeadline == 240_000_030)
        client.poll(now: 240_000_030)
        let refresh = try Self.request(try #require(client.takeOutgoing().first))
        #expect(refresh.type.method == .refresh && refresh.lifetime == 600 && refresh.nonce == "n1")
    }

    @Test func aStaleNonceIsRetriedWithTheNewOneThenGivenUp() throws {
        let client = try Self.allocated()
        client.permit(Self.peer, now: 100)
        var request = try Self.request(try #require(client.takeOutgoing().first))
        #expect(request.type.method == .createPermission && request.peerAddress?.ip == Self.peer.ip)
        for nonce in ["n2", "n3"] {
            _ = client.handle(try Self.answer(request, .errorResponse, [.errorCode(code: 438, reason: "Stale Nonce"), .realm(Self.realm), .nonce(nonce)])[...], now: 110)
            request = try Self.request(try #require(client.takeOutgoing().first))
            #expect(request.nonce == nonce && request.type.method == .createPermission)
        }
        // A third stale nonce in a row is not retried; a refused permission does not end the allocation.
        _ = client.handle(try Self.answer(request, .errorResponse, [.errorCode(code: 438, reason: "Stale Nonce"), .nonce("n4")])[...], now: 120)
        #expect(client.takeOutgoing().isEmpty)
        if case .allocated = client.state {} else { Issue.record("allocation lost: \(client.state)") }
    }

    @Test func errorsEndTheAllocationWithTypedFailures() throws {
        func failure(_ code: Int, extra: [STUNAttribute] = []) throws -> TURNClient.State {
            let client = TURNClient(configuration: .init(username: "alice", password: Self.password), seed: 2)
            client.start(now: 0)
            let first = try Self.request(try #require(client.takeOutgoing().first))
            _ = client.handle(try Self.answer(first, .errorResponse, [.errorCode(code: 401, reason: "Unauthorized"), .realm(Self.realm), .nonce("n")],
                                              signed: false)[...], now: 1)
            let second = try Self.request(try #require(client.takeOutgoing().first))
            _ = client.handle(try Self.answer(second, .errorResponse, [.errorCode(code: code, reason: "no")] + extra)[...], now: 2)
            return client.state
        }
        #expect(try failure(401) == .failed(.wrongCredentials(reason: "no")))
        #expect(try failure(486) == .failed(.allocationQuotaReached))
        #expect(try failure(437) == .failed(.allocationMismatch))
        #expect(try failure(508) == .failed(.refused(code: 508, reason: "no")))
        // A 401 that does not say how to authenticate.
        let client = TURNClient(configuration: .init(username: "alice", password: Self.password), seed: 3)
        client.start(now: 0)
        let first = try Self.request(try #require(client.takeOutgoing().first))
        _ = client.handle(try Self.answer(first, .errorResponse, [.errorCode(code: 401, reason: "Unauthorized")], signed: false)[...], now: 1)
        #expect(client.state == .failed(.malformedResponse("401 without REALM and NONCE")))
    }

    @Test func aSilentServerGetsSevenSendsOnTheRFCsScheduleThenTheAllocationFails() throws {
        let client = TURNClient(configuration: .init(username: "alice", password: Self.password), seed: 4)
        client.start(now: 0)
        var sends = [Int64(0)]
        _ = client.takeOutgoing()
        while case .allocating = client.state, let deadline = client.nextDeadline {
            client.poll(now: deadline)
            if !client.takeOutgoing().isEmpty { sends.append(deadline) }
        }
        // RFC 8489 §6.2.1 with RTO 500 ms: 0, 0.5, 1.5, 3.5, 7.5, 15.5, 31.5 s, then 16 RTO more.
        #expect(sends == [0, 500_000, 1_500_000, 3_500_000, 7_500_000, 15_500_000, 31_500_000])
        #expect(client.state == .failed(.noResponse(method: STUNMethod.allocate.rawValue)))
    }

    @Test func dataGoesAsSendIndicationsUntilTheChannelIsConfirmedThenAsChannelData() throws {
        let client = try Self.allocated()
        var wire: [UInt8] = []
        try [UInt8]([9, 8, 7]).withUnsafeBytes { data in try Self.wrap(client, data, into: &wire) }
        let indication = try STUNMessage(parsing: wire)
        #expect(indication.type == STUNMessageType(method: .send, messageClass: .indication))
        #expect(indication.peerAddress == Self.peer && indication.dataAttribute == [9, 8, 7])

        let channel = try #require(client.bindChannel(to: Self.peer, now: 50))
        #expect(channel == 0x4000)
        let bind = try Self.request(try #require(client.takeOutgoing().first))
        #expect(bind.attributes.contains(STUNAttribute.channelNumber(0x4000)) && bind.peerAddress == Self.peer)
        _ = client.handle(try Self.answer(bind, .successResponse, [])[...], now: 60)
        wire = []
        try [UInt8]([9, 8, 7]).withUnsafeBytes { data in try Self.wrap(client, data, into: &wire) }
        #expect(wire == [0x40, 0x00, 0x00, 0x03, 9, 8, 7])

        // From the server: ChannelData on our channel, a Data indication from the permitted peer;
        // nothing from an unbound channel, a peer without permission, or garbage.
        #expect(client.handle([0x40, 0x00, 0x00, 0x02, 5, 6][...], now: 70) == .init(peer: Self.peer, data: [5, 6][...]))
        let data = try STUNMessage(type: STUNMessageType(method: .data, messageClass: .indication), transactionID: STUNTransactionID(Array(0..<12))!,
                                   attributes: [.xorPeerAddress(Self.peer), .data([1])]).serialized()
        #expect(client.handle(data[...], now: 71)?.data == [1][...])
        let stranger = try STUNMessage(type: STUNMessageType(method: .data, messageClass: .indication), transactionID: STUNTransactionID(Array(0..<12))!,
                                       attributes: [.xorPeerAddress(.ipv4(0x0B00_0001, port: 1)), .data([1])]).serialized()
        #expect(client.handle(stranger[...], now: 72) == nil)
        #expect(client.handle([0x41, 0x00, 0x00, 0x01, 5][...], now: 73) == nil)
        #expect(client.handle([0x00, 0x01, 0x02][...], now: 74) == nil)
        #expect(client.ignoredDatagrams == 3)

        // The binding (and the permission it installed) is renewed before it lapses.
        client.poll(now: 50 + 540_000_000)
        let renewals = try client.takeOutgoing().map(Self.request)
        #expect(renewals.contains { $0.type.method == .channelBind } && renewals.contains { $0.type.method == .createPermission })
    }

    @Test func releasingSendsARefreshWithLifetimeZero() throws {
        let client = try Self.allocated()
        client.release(now: 100)
        let refresh = try Self.request(try #require(client.takeOutgoing().first))
        #expect(refresh.type.method == .refresh && refresh.lifetime == 0 && client.state == .released)
    }

    @Test func anyBytesFromTheServerAreHandledWithoutATrap() throws {
        let client = try Self.allocated()
        var random = SplitMix64(seed: 9)
        for length in 0..<2_000 {
            var bytes = (0..<(length % 120)).map { _ in UInt8.random(in: 0...255, using: &random) }
            if length % 3 == 0, bytes.count >= 4 { bytes[0] = 0x40 }
            if length % 5 == 0, bytes.count >= 20 { bytes[0] = 0x01; bytes[4...7] = [0x21, 0x12, 0xA4, 0x42] }
            _ = client.handle(bytes[...], now: Int64(length))
        }
        if case .allocated = client.state {} else { Issue.record("garbage changed the allocation: \(client.state)") }
    }

    static func wrap(_ client: TURNClient, _ data: UnsafeRawBufferPointer, into wire: inout [UInt8]) throws {
        do throws(WireError) { try client.wrap(data, to: peer, into: &wire) } catch { throw error }
    }
}
