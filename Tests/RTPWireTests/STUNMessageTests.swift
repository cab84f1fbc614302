import Testing
@testable import RTPWire

/// STUN messages (RFC 8489) against the RFC 5769 test vectors, and what a hostile peer may send.
@Suite struct STUNMessageTests {
    // RFC 5769 §2: the short-term password and the transaction ID of every vector.
    static let password = Array("VOkJxbRl1RmTxUk/WvJxBt".utf8)
    static let transactionID = STUNTransactionID(bytes(hex: "b7e7a701 bc34d686 fa87dfae"))!

    /// §2.1 sample request: SOFTWARE, PRIORITY, ICE-CONTROLLED, USERNAME, MESSAGE-INTEGRITY, FINGERPRINT.
    static let sampleRequest = bytes(hex: "00010058 2112a442 b7e7a701 bc34d686 fa87dfae"
        + " 80220010 5354554e 20746573 7420636c 69656e74 00240004 6e0001ff 80290008 932ff9b1 51263b36"
        + " 00060009 6576746a 3a683676 59202020 00080014 9aeaa70c bfd8cb56 781ef2b5 b2d3f249 c1b571a2"
        + " 80280004 e57a3bcf")
    /// §2.2 sample IPv4 response: SOFTWARE, XOR-MAPPED-ADDRESS 192.0.2.1:32853, MI, FINGERPRINT.
    static let sampleIPv4Response = bytes(hex: "0101003c 2112a442 b7e7a701 bc34d686 fa87dfae"
        + " 8022000b 74657374 20766563 746f7220 00200008 0001a147 e112a643"
        + " 00080014 2b91f599 fd9e90c3 8c7489f9 2af9ba53 f06be7d7 80280004 c07d4c96")
    /// §2.3 sample IPv6 response: XOR-MAPPED-ADDRESS [2001:db8:1234:5678:11:2233:4455:6677]:32853.
    static let sampleIPv6Response = bytes(hex: "01010048 2112a442 b7e7a701 bc34d686 fa87dfae"
        + " 8022000b 74657374 20766563 746f7220 00200014 0002a147 0113a9fa a5d3f179 bc25f4b5 bed2b9d9"
        + " 00080014 a382954e 4be67bf1 1784c97c 8292c275 bfe3ed41 80280004 c8fb0b4c")

    static let requestAttributes: [STUNAttribute] = [
        .software("STUN test client"), .priority(0x6E00_01FF), .iceControlled(tieBreaker: 0x932F_F9B1_5126_3B36),
        .username("evtj:h6vY"),
    ]

    @Test func sampleRequestParsesAndItsIntegrityAndFingerprintVerify() throws {
        let message = try STUNMessage(parsing: Self.sampleRequest)
        #expect(message.type == STUNMessageType(method: .binding, messageClass: .request))
        #expect(message.transactionID == Self.transactionID)
        #expect(message.attributes == Self.requestAttributes)
        #expect(STUNMessage.isSTUN(Self.sampleRequest[...]))
        #expect(STUNMessage.checkIntegrity(Self.sampleRequest[...], key: Self.password) == .valid)
        #expect(STUNMessage.checkFingerprint(Self.sampleRequest[...]) == .valid)
    }

    @Test func sampleRequestIsReproducedByteForByte() throws {
        // RFC 5769 pads with spaces; RFC 8489 senders pad with zeros (the default).
        let message = STUNMessage(type: STUNMessageType(method: .binding, messageClass: .request),
                                  transactionID: Self.transactionID, attributes: Self.requestAttributes)
        #expect(try message.serialized(integrityKey: Self.password, fingerprint: true, padding: 0x20) == Self.sampleRequest)
    }

    @Test func sampleResponsesCarryTheMappedAddressesAndAreReproduced() throws {
        let type = STUNMessageType(method: .binding, messageClass: .successResponse)
        let ipv6 = bytes(hex: "20010db8 12345678 00112233 44556677")
        let cases: [([UInt8], STUNAddress)] = [
            (Self.sampleIPv4Response, .ipv4(0xC000_0201, port: 32853)),
            (Self.sampleIPv6Response, STUNAddress(ip: .v6(IPv6Address(bytes: ipv6)), port: 32853)),
        ]
        for (wire, address) in cases {
            let message = try STUNMessage(parsing: wire)
            #expect(message.type == type)
            #expect(message.attributes == [.software("test vector"), .xorMappedAddress(address)])
            #expect(STUNMessage.checkIntegrity(wire[...], key: Self.password) == .valid)
            #expect(STUNMessage.checkFingerprint(wire[...]) == .valid)
            #expect(try message.serialized(integrityKey: Self.password, fingerprint: true, padding: 0x20) == wire)
        }
    }

    @Test func aWrongPasswordOrAnyFlippedBitFailsTheChecks() {
        #expect(STUNMessage.checkIntegrity(Self.sampleRequest[...], key: Array("wrong".utf8)) == .invalid)
        for index in [3, 9, 30, 60, 85] {  // header, transaction ID, attributes, USERNAME
            var tampered = Self.sampleRequest
            tampered[index] ^= 0x04
            #expect(STUNMessage.checkIntegrity(tampered[...], key: Self.password) != .valid, "byte \(index)")
            #expect(STUNMessage.checkFingerprint(tampered[...]) != .valid, "byte \(index)")
        }
        let unsigned = try? STUNMessage(parsing: Self.sampleRequest).serialized()
        #expect(unsigned.map { STUNMessage.checkIntegrity($0[...], key: Self.password) } == .absent)
        #expect(unsigned.map { STUNMessage.checkFingerprint($0[...]) } == .absent)
    }

    @Test func messageTypesInterleaveTheClassBits() {
        #expect(STUNMessageType(method: .binding, messageClass: .request).field == 0x0001)
        #expect(STUNMessageType(method: .binding, messageClass: .indication).field == 0x0011)
        #expect(STUNMessageType(method: .binding, messageClass: .successResponse).field == 0x0101)
        #expect(STUNMessageType(method: .binding, messageClass: .errorResponse).field == 0x0111)
        for raw in [UInt16(0), 1, 0x7F, 0x80, 0xABC, 0xFFF] {
            for messageClass in STUNClass.allCases {
                let type = STUNMessageType(method: STUNMethod(rawValue: raw)!, messageClass: messageClass)
                #expect(STUNMessageType(field: type.field) == type)
            }
        }
        #expect(STUNMessageType(field: 0x4001) == nil)
    }

    @Test func iceAttributesAndErrorCodesRoundTrip() throws {
        var generator = SeededGenerator(seed: 7)
        let message = STUNMessage(
            type: STUNMessageType(method: .binding, messageClass: .errorResponse),
            transactionID: .random(using: &generator),
            attributes: [.errorCode(code: 487, reason: "Role Conflict"), .useCandidate,
                         .iceControlling(tieBreaker: .max), .mappedAddress(.ipv4(0x0A00_0001, port: 9)),
                         .unknown(type: 0xC001, value: [1, 2, 3])])
        let key = Array("pass".utf8)
        let wire = try message.serialized(integrityKey: key, fingerprint: true)
        #expect(wire.count % 4 == 0)
        #expect(try STUNMessage(parsing: wire) == message)
        #expect(STUNMessage.checkIntegrity(wire[...], key: key) == .valid)
        #expect(STUNMessage.checkFingerprint(wire[...]) == .valid)
    }

    @Test func malformedMessagesAreTypedErrors() {
        let valid = Self.sampleIPv4Response
        func parse(_ bytes: [UInt8]) -> WireError? { wireError { () throws(WireError) in try STUNMessage(parsing: bytes) } }
        #expect(parse([]) != nil)
        #expect(parse(Array(valid.prefix(19))) != nil)
        var badCookie = valid
        badCookie[4] = 0
        #expect(parse(badCookie) != nil)
        #expect(!STUNMessage.isSTUN(badCookie[...]))
        var rtpLike = valid
        rtpLike[0] = 0x80
        #expect(parse(rtpLike) != nil)
        #expect(parse(valid + [0, 0, 0, 0]) != nil)  // length disagrees with the datagram
        var attributePastEnd = valid
        attributePastEnd[22] = 0xFF  // SOFTWARE claims 0xFF0B bytes
        #expect(parse(attributePastEnd) != nil)
        var afterFingerprint = valid + [0x80, 0x22, 0, 0]
        afterFingerprint[3] += 4
        #expect(parse(afterFingerprint)?.name == "invalidValue")
        var badFamily = valid
        badFamily[41] = 0x07
        #expect(parse(badFamily) != nil)
        var badUTF8 = valid
        badUTF8[24] = 0xFF
        #expect(parse(badUTF8) != nil)
        let errorCode = STUNMessage(type: STUNMessageType(method: .binding, messageClass: .errorResponse),
                                    transactionID: Self.transactionID, attributes: [.errorCode(code: 200, reason: "")])
        #expect(wireError { () throws(WireError) in try errorCode.serialized() } != nil)
    }

    @Test func attributesAfterMessageIntegrityOtherThanFingerprintAreIgnored() throws {
        var wire = Self.sampleIPv4Response
        wire.removeLast(8)  // drop FINGERPRINT
        wire += [0x80, 0x22, 0x00, 0x02, 0x68, 0x69, 0, 0]  // SOFTWARE "hi" after MESSAGE-INTEGRITY
        wire[3] = UInt8(wire.count - 20)
        let message = try STUNMessage(parsing: wire)
        #expect(message.attributes.count == 2)
        #expect(STUNMessage.checkIntegrity(wire[...], key: Self.password) == .valid)
    }

    @Test func fifteenHundredRandomAndBitFlippedMessagesNeverTrapAndRoundTrip() {
        var generator = SeededGenerator(seed: 0x57_0E)
        let vectors = [Self.sampleRequest, Self.sampleIPv4Response, Self.sampleIPv6Response]
        for round in 0..<1_500 {
            var input: [UInt8]
            if round % 2 == 0 {
                // A valid header over random attribute bytes: the attribute parser sees it all.
                let body = randomBytes(count: Int.random(in: 0...30, using: &generator) * 4, using: &generator)
                input = [0x00, 0x01, UInt8(body.count >> 8), UInt8(body.count & 0xFF), 0x21, 0x12, 0xA4, 0x42]
                    + randomBytes(count: 12, using: &generator) + body
            } else {
                input = vectors[Int.random(in: 0..<vectors.count, using: &generator)]
                for _ in 0..<Int.random(in: 1...4, using: &generator) {
                    input[Int.random(in: 0..<input.count, using: &generator)] ^= 1 << UInt8.random(in: 0...7, using: &generator)
                }
            }
            if let violation = WireRoundTripCheck.stun.violation(in: input) { Issue.record("\(input): \(violation)") }
        }
    }
}
