/// A transport address in a (XOR-)MAPPED-ADDRESS attribute (RFC 8489 §14.1, §14.2).
public struct STUNAddress: Sendable, Hashable {
    /// The IP address: IPv4 as a 32-bit number, IPv6 as its two 64-bit halves (no allocation:
    /// the ICE transport makes one per datagram).
    public enum IP: Sendable, Hashable {
        case v4(UInt32)
        case v6(IPv6Address)
    }

    public var ip: IP
    public var port: UInt16

    public init(ip: IP, port: UInt16) {
        self.ip = ip
        self.port = port
    }

    /// An IPv4 address as a 32-bit number (192.0.2.1 is 0xC0000201).
    public static func ipv4(_ address: UInt32, port: UInt16) -> STUNAddress { STUNAddress(ip: .v4(address), port: port) }

    static let familyIPv4: UInt8 = 0x01
    static let familyIPv6: UInt8 = 0x02

    /// Reads the attribute value (family, port, address), un-XORing it with the magic cookie and
    /// the transaction ID when `xored` (XOR-MAPPED-ADDRESS).
    static func parse(_ value: ArraySlice<UInt8>, xored: Bool, transactionID: STUNTransactionID) throws(WireError) -> STUNAddress {
        var reader = ByteReader(value)
        _ = try reader.readUInt8("STUN address reserved octet")
        let family = try reader.readUInt8("STUN address family")
        var port = try reader.readUInt16("STUN address port")
        if xored { port ^= UInt16(STUNMessage.magicCookie >> 16) }
        switch family {
        case familyIPv4:
            guard value.count == 8 else { throw .invalidValue(field: "STUN IPv4 address length", value: value.count) }
            var address = try reader.readUInt32("STUN IPv4 address")
            if xored { address ^= STUNMessage.magicCookie }
            return .ipv4(address, port: port)
        case familyIPv6:
            guard value.count == 20 else { throw .invalidValue(field: "STUN IPv6 address length", value: value.count) }
            var address = Array(try reader.readSlice(16, "STUN IPv6 address"))
            if xored {
                let mask = xorMask(transactionID)
                for index in 0..<16 { address[index] ^= mask[index] }
            }
            return STUNAddress(ip: .v6(IPv6Address(bytes: address)), port: port)
        default:
            throw .invalidValue(field: "STUN address family", value: Int(family))
        }
    }

    /// Appends the attribute value (RFC 8489 §14.1, §14.2: an IPv6 address XORed with the magic
    /// cookie and the transaction ID).
    func serialize(into buffer: inout [UInt8], xored: Bool, transactionID: STUNTransactionID) throws(WireError) {
        let port = xored ? self.port ^ UInt16(STUNMessage.magicCookie >> 16) : self.port
        switch ip {
        case let .v4(address):
            let value = xored ? address ^ STUNMessage.magicCookie : address
            buffer += [0, Self.familyIPv4]
            buffer.appendUInt16(port)
            buffer.appendUInt32(value)
        case let .v6(ipv6):
            let address = ipv6.bytes
            buffer += [0, Self.familyIPv6]
            buffer.appendUInt16(port)
            let mask = xored ? Self.xorMask(transactionID) : [UInt8](repeating: 0, count: 16)
            for index in 0..<16 { buffer.append(address[index] ^ mask[index]) }
        }
    }

    /// Magic cookie followed by the transaction ID: what an IPv6 address is XORed with.
    private static func xorMask(_ transactionID: STUNTransactionID) -> [UInt8] {
        let cookie = STUNMessage.magicCookie
        return [UInt8(cookie >> 24), UInt8(truncatingIfNeeded: cookie >> 16),
                UInt8(truncatingIfNeeded: cookie >> 8), UInt8(truncatingIfNeeded: cookie)] + transactionID.bytes
    }
}
