/// The search for one element in an RTP header extension block body (RFC 8285 §4.2 one-byte,
/// §4.3 two-byte form) over raw bytes, for `RTPPacketView`: plain values out, so a lookup on the
/// packet path builds no error value; the error is built only for a malformed block.
@usableFromInline
enum RTPHeaderExtensionWalk {
    @usableFromInline
    enum Status { case found, absent, malformed }

    /// Walks `raw[start..<end]` (a block body inside `raw`) for the first element with `id`,
    /// storing its data's offsets in `found`. Padding bytes are skipped and a one-byte id 15 ends
    /// the walk (RFC 8285 §4.2); an element running past `end`, or a one-byte id 0 with a
    /// nonzero length, is `.malformed`. Another profile has no elements (`.absent`).
    @inlinable @inline(__always)
    static func find(id: UInt8, profile: UInt16, in raw: UnsafeRawBufferPointer, from start: Int, to end: Int,
                     found: inout Range<Int>) -> Status {
        var index = start
        if profile == RTPHeaderExtensions.oneByteProfile {
            while index < end {
                let header = raw[index]
                index &+= 1
                if header == 0 { continue }  // padding
                let elementID = header >> 4
                if elementID == RTPHeaderExtensions.oneByteStopID { return .absent }
                if elementID == 0 { return .malformed }
                let length = Int(header & 0x0F) &+ 1
                guard end &- index >= length else { return .malformed }
                if elementID == id {
                    found = index..<(index &+ length)
                    return .found
                }
                index &+= length
            }
        } else if profile & 0xFFF0 == RTPHeaderExtensions.twoByteProfileBase {
            while index < end {
                let elementID = raw[index]
                index &+= 1
                if elementID == 0 { continue }  // padding
                guard index < end else { return .malformed }
                let length = Int(raw[index])
                index &+= 1
                guard end &- index >= length else { return .malformed }
                if elementID == id {
                    found = index..<(index &+ length)
                    return .found
                }
                index &+= length
            }
        }
        return .absent
    }

    /// The typed error of a block `find` called malformed: what `RTPHeaderExtensions` throws
    /// for the same body (its validation walks the same elements in the same order).
    @usableFromInline
    static func error(profile: UInt16, in body: ArraySlice<UInt8>) -> WireError {
        do {
            _ = try RTPHeaderExtensions(profile: profile, body: body)
        } catch {
            return error
        }
        return .invalidValue(field: "RTP header extension block", value: body.count)
    }
}
