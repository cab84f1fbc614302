import AllocationCounter
import CReference
import SRTP

/// libsrtp2's own heap allocations per call, counted by the interposed allocator around plain C
/// loops (Benchmarks/CReference/srtp_reference.c): Debian builds libsrtp2 on NSS, whose HMAC
/// allocates inside every `srtp_protect` and `srtp_unprotect`. What the engine allocates on top
/// of this is its own (`simulcast-bench allocations` and `forward` report that difference).
struct LibSRTPBaseline: Codable, Sendable {
    /// Calls per counted loop.
    var calls: Int
    var allocationsPerProtect: Double
    /// A protect + unprotect loop's count minus the protect loop's, per call.
    var allocationsPerUnprotect: Double

    static func measure(calls: Int = 2000, packetLength: Int = 1200) throws -> LibSRTPBaseline {
        let key = (0..<30).map { UInt8(truncatingIfNeeded: $0 &* 5 &+ 3) }
        // The Swift SRTP module must initialise libsrtp first: its srtp_init fails once the C
        // harness's has run (cref_srtp_create ignores that failure; SRTPSession does not).
        _ = try SRTPSession(direction: .outbound, keyingMaterial: SRTPKeyingMaterial(keyAndSalt: key))
        guard let outbound = key.withUnsafeBufferPointer({ cref_srtp_create($0.baseAddress) }),
              let inbound = key.withUnsafeBufferPointer({ cref_srtp_create_inbound($0.baseAddress) }) else {
            throw ValidationError(message: "cref_srtp_create failed")
        }
        defer {
            cref_srtp_destroy(outbound)
            cref_srtp_destroy(inbound)
        }
        var packet = [UInt8](repeating: 0x33, count: packetLength)
        packet[0] = 0x80; packet[1] = 96
        var scratch = [UInt8](repeating: 0, count: packetLength + SRTPSession.maxTrailerLength)
        let capacity = Int32(scratch.count)
        func protectLoop(_ count: Int) -> Int32 {
            packet.withUnsafeBufferPointer { source in
                scratch.withUnsafeMutableBufferPointer { buffer in
                    cref_srtp_protect_loop(outbound, source.baseAddress, Int32(packetLength), buffer.baseAddress,
                                           capacity, Int32(count))
                }
            }
        }
        func roundTripLoop(_ count: Int) -> Int32 {
            packet.withUnsafeBufferPointer { source in
                scratch.withUnsafeMutableBufferPointer { buffer in
                    cref_srtp_round_trip_loop(outbound, inbound, source.baseAddress, Int32(packetLength),
                                              buffer.baseAddress, capacity, Int32(count))
                }
            }
        }
        // Warm up both sessions (first-use allocations are not per call).
        guard protectLoop(64) == 0, roundTripLoop(64) == 0 else {
            throw ValidationError(message: "libsrtp refused the baseline loop's packets")
        }
        alloc_counter_reset()
        let protectStatus = protectLoop(calls)
        let protectAllocations = alloc_counter_get()
        alloc_counter_reset()
        let roundTripStatus = roundTripLoop(calls)
        let roundTripAllocations = alloc_counter_get()
        guard protectStatus == 0, roundTripStatus == 0 else {
            throw ValidationError(message: "srtp_protect/srtp_unprotect failed: \(protectStatus), \(roundTripStatus)")
        }
        return LibSRTPBaseline(calls: calls,
                               allocationsPerProtect: Double(protectAllocations) / Double(calls),
                               allocationsPerUnprotect: Double(roundTripAllocations - protectAllocations) / Double(calls))
    }
}
