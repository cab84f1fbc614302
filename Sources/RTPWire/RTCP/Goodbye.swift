/// Goodbye, BYE (RFC 3550 §6.6): the sources leaving, and optionally why.
public struct Goodbye: Sendable, Equatable {
    /// SSRC/CSRC identifiers of the sources leaving (at most 31).
    public var ssrcs: [UInt32]
    /// Optional reason for leaving (UTF-8 text, at most 255 octets); `nil` when absent.
    public var reason: [UInt8]?

    /// Creates a BYE from its fields.
    public init(ssrcs: [UInt32], reason: [UInt8]? = nil) {
        self.ssrcs = ssrcs
        self.reason = reason
    }

    /// Creates a BYE with a textual reason.
    public init(ssrcs: [UInt32], reason: String) {
        self.init(ssrcs: ssrcs, reason: Array(reason.utf8))
    }

    /// The reason decoded as UTF-8 (invalid sequences are replaced), if present.
    public var reasonText: String? {
        reason.map { String(decoding: $0, as: UTF8.self) }
    }
}

extension Goodbye {
    static func parseBody(count: UInt8, _ reader: inout ByteReader) throws(WireError) -> Goodbye {
        let needed = Int(count) * 4
        guard reader.remaining >= needed else {
            throw .truncated(field: "BYE SSRC list", needed: needed, available: reader.remaining)
        }
        var ssrcs: [UInt32] = []
        ssrcs.reserveCapacity(Int(count))
        for _ in 0..<count { ssrcs.append(try reader.readUInt32("BYE SSRC")) }
        var reason: [UInt8]?
        if reader.remaining > 0 {
            let length = try reader.readUInt8("BYE reason length")
            reason = Array(try reader.readSlice(Int(length), "BYE reason"))
            // The reason is followed by null octets up to the 32-bit boundary (at most 3).
            guard reader.remaining <= 3 else {
                throw .invalidValue(field: "BYE octets after reason", value: reader.remaining)
            }
        }
        return Goodbye(ssrcs: ssrcs, reason: reason)
    }

    func headerCount() throws(WireError) -> UInt8 {
        guard ssrcs.count <= 31 else { throw .outOfRange(field: "BYE source count", value: ssrcs.count) }
        return UInt8(ssrcs.count)
    }

    /// Writes the list and reason; the packet writer adds the null octets to the boundary.
    func serializeBody(into out: inout [UInt8]) throws(WireError) {
        for ssrc in ssrcs { out.appendUInt32(ssrc) }
        if let reason {
            guard reason.count <= 255 else { throw .outOfRange(field: "BYE reason length", value: reason.count) }
            out.appendUInt8(UInt8(reason.count))
            out.append(contentsOf: reason)
        }
    }
}
