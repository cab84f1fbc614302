import Testing
@testable import RTPWire

/// TURN on the wire (RFC 8656): its STUN methods and attributes, ChannelData, and MD5 for the
/// long-term credential key (RFC 8489 §9.2.2).
@Suite struct TURNWireTests {
    static func hex(_ bytes: [UInt8]) -> String { bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined() }

    @Test func md5MatchesRFC1321sTestSuite() {
        let suite = [
            ("", "d41d8cd98f00b204e9800998ecf8427e"),
            ("a", "0cc175b9c0f1b6a831c399e269772661"),
            ("abc", "900150983cd24fb0d6963f7d28e17f72"),
            ("message digest", "f96b697d7cb7938d525a2f31aaf161d0"),
            ("abcdefghijklmnopqrstuvwxyz", "c3fcd3d76192e4007dfb496cca67e13b"),
            ("12345678901234567890123456789012345678901234567890123456789012345678901234567890", "57edf4a22be3c955ac49da2e2107b67a"),
        ]
        for (text, digest) in suite { #expect(Self.hex(MD5.hash(Array(text.utf8))) == digest, "\(text)") }
    }

    @Test func turnAttributesRoundTripThroughAMessage() throws {
        let id = STUNTransactionID(Array(0..<12))!
        let peer = STUNAddress.ipv4(0x0A00_0002, port: 5004)
        let v6 = STUNAddress(ip: .v6(IPv6Address(bytes: 1...16)), port: 9)
        let attributes: [STUNAttribute] = [
            .requestedTransport(17), .lifetime(600), .channelNumber(0x4001), .xorPeerAddress(peer), .xorRelayedAddress(v6),
            .data([1, 2, 3, 4, 5]), .realm("engine.test"), .nonce("abc/def"), .username("alice"),
        ]
        let message = STUNMessage(type: STUNMessageType(method: .allocate, messageClass: .request), transactionID: id, attributes: attributes)
        let key = MD5.longTermKey(username: "alice", realm: "engine.test", password: "secret")
        let bytes = try message.serialized(integrityKey: key)
        let parsed = try STUNMessage(parsing: bytes)
        #expect(parsed == message)
        #expect(STUNMessage.checkIntegrity(bytes[...], key: key) == .valid)
        #expect(parsed.realm == "engine.test" && parsed.nonce == "abc/def" && parsed.lifetime == 600)
        #expect(parsed.peerAddress == peer && parsed.dataAttribute == [1, 2, 3, 4, 5])
        for method in [STUNMethod.allocate, .refresh, .send, .data, .createPermission, .channelBind] {
            for messageClass in STUNClass.allCases {
                let type = STUNMessageType(method: method, messageClass: messageClass)
                #expect(STUNMessageType(field: type.field) == type)
            }
        }
        // Wrong lengths are errors, not traps.
        for (type, value) in [(STUNAttribute.Code.lifetime, [UInt8](repeating: 0, count: 3)),
                              (STUNAttribute.Code.channelNumber, [0x40]), (STUNAttribute.Code.requestedTransport, [17])] {
            #expect(throws: WireError.self) { try STUNAttribute.parse(type: type, value: value[...], transactionID: id) }
        }
    }

    /// `data` framed on `channel` after `prefix` (no typed-throws closure: Swift 6.3's IRGen trips on one here).
    static func framed(_ data: [UInt8], channel: UInt16, padded: Bool, after prefix: [UInt8] = []) -> Result<[UInt8], WireError> {
        data.withUnsafeBytes { raw in
            var out = prefix
            do throws(WireError) {
                try TURNChannelData.write(channel: channel, data: raw, padded: padded, into: &out)
            } catch {
                return .failure(error)
            }
            return .success(out)
        }
    }

    @Test func channelDataIsFramedAndPaddedOnlyWhereAsked() throws {
        let udp = try Self.framed([1, 2, 3, 4, 5], channel: 0x4000, padded: false, after: [0xEE]).get()
        #expect(udp == [0xEE, 0x40, 0x00, 0x00, 0x05, 1, 2, 3, 4, 5])
        let tcp = try Self.framed([1, 2, 3, 4, 5], channel: 0x4FFF, padded: true).get()
        #expect(tcp.count == 12 && tcp.suffix(3) == [0, 0, 0])
        let (channel, data) = try TURNChannelData.parse(tcp[...])
        #expect(channel == 0x4FFF && Array(data) == [1, 2, 3, 4, 5])
        #expect(TURNChannelData.isChannelData(tcp[...]) && !TURNChannelData.isChannelData([0x00, 0x01][...]))
        #expect(throws: WireError.self) { try TURNChannelData.parse([0x40, 0x00, 0x00, 0x09, 1, 2][...]) }
        #expect(throws: WireError.self) { try TURNChannelData.parse([0x50, 0x00, 0x00, 0x00][...]) }
        #expect(throws: WireError.self) { try TURNChannelData.parse([0x40][...]) }
        #expect(throws: WireError.self) { try Self.framed([], channel: 0x3FFF, padded: false).get() }
    }
}
