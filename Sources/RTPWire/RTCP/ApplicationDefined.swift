/// Application-defined packet, APP (RFC 3550 §6.7), kept raw.
public struct ApplicationDefined: Sendable, Equatable {
    /// 5-bit subtype carried in the header's count field.
    public var subtype: UInt8
    /// SSRC/CSRC of the originator.
    public var ssrc: UInt32
    /// Four ASCII characters naming the application, big-endian (e.g. 0x5445_5354 = "TEST").
    public var name: UInt32
    /// Application-dependent data (a multiple of 32 bits on the wire).
    public var data: [UInt8]

    /// Creates an APP packet from its fields.
    public init(subtype: UInt8, ssrc: UInt32, name: UInt32, data: [UInt8]) {
        self.subtype = subtype
        self.ssrc = ssrc
        self.name = name
        self.data = data
    }
}

extension ApplicationDefined {
    static func parseBody(count: UInt8, _ reader: inout ByteReader) throws(WireError) -> ApplicationDefined {
        let ssrc = try reader.readUInt32("APP SSRC")
        let name = try reader.readUInt32("APP name")
        return ApplicationDefined(subtype: count, ssrc: ssrc, name: name, data: Array(reader.readRest()))
    }

    func headerCount() throws(WireError) -> UInt8 {
        guard subtype <= 31 else { throw .outOfRange(field: "APP subtype", value: Int(subtype)) }
        return subtype
    }

    func serializeBody(into out: inout [UInt8]) throws(WireError) {
        out.appendUInt32(ssrc)
        out.appendUInt32(name)
        out.append(contentsOf: data)
    }
}
