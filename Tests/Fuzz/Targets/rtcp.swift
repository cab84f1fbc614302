// libFuzzer target: RTCP compound packets (RFC 3550 §6, RFC 4585, RFC 5104, REMB, TWCC).
// Built by scripts/fuzz.sh together with every file of Sources/RTPWire as one module.
//
// Properties: parsing never traps; a successful parse serializes, re-parses to an equal value,
// and serializing that gives the same bytes again; parsed TWCC feedback rebuilt from its
// per-packet results yields the same results.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    _ = try? RTPOrRTCP.classify(bytes)
    guard let packet = try? RTCPCompoundPacket(parsing: bytes) else { return 0 }
    let serialized: [UInt8]
    do {
        serialized = try packet.serialized()
    } catch {
        fatalError("parsed packet does not serialize: \(error)")
    }
    let reparsed: RTCPCompoundPacket
    do {
        reparsed = try RTCPCompoundPacket(parsing: serialized)
    } catch {
        fatalError("serialized packet does not parse: \(error)")
    }
    guard reparsed == packet else { fatalError("re-parsed packet differs") }
    guard (try? reparsed.serialized()) == serialized else { fatalError("serialization is not stable") }

    for case let .transportWideFeedback(feedback) in packet.packets {
        guard let results = try? feedback.packetResults() else { fatalError("parsed TWCC has no results") }
        guard let rebuilt = try? TransportWideFeedback(
            senderSSRC: feedback.senderSSRC, mediaSSRC: feedback.mediaSSRC, referenceTime: feedback.referenceTime,
            feedbackPacketCount: feedback.feedbackPacketCount, packets: results),
              (try? rebuilt.packetResults()) == results else { fatalError("TWCC rebuild differs") }
    }
    for case let .genericNACK(nack) in packet.packets {
        // Re-packing the expanded list must report the same set of losses.
        let lost = nack.lostSequenceNumbers
        let repacked = GenericNACK(senderSSRC: 0, mediaSSRC: 0, lostSequenceNumbers: lost)
        guard Set(repacked.lostSequenceNumbers) == Set(lost) else { fatalError("NACK repack differs") }
    }
    return 0
}
