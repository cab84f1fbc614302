// libFuzzer target: classic pcap files (PcapReader), with PcapWriter as the oracle.
// Built by scripts/fuzz.sh together with every file of Sources/RTPWire as one module.
//
// Properties: reading the whole input never traps or loops; every complete IPv4 datagram read
// can be written with PcapWriter and read back with the same endpoints and payload.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard var reader = try? PcapReader(bytes) else { return 0 }
    var steps = 0
    while true {
        steps += 1
        guard steps <= size + 1 else { fatalError("reader does not make progress") }
        let record: PcapRecord?
        do {
            record = try reader.next()
        } catch {
            continue   // a bad frame; the reader has moved on (or reached the end)
        }
        guard let record else { break }
        guard case let .v4(source) = record.source.address, case let .v4(destination) = record.destination.address,
              !record.isPayloadTruncated else { continue }
        var file: [UInt8] = []
        let writer = PcapWriter(linkType: .ethernet, timestampResolution: reader.timestampResolution)
        writer.writeFileHeader(into: &file)
        do {
            try writer.writeUDP(record.payload, from: source, port: record.source.port, to: destination,
                                port: record.destination.port, at: record.timestamp, into: &file)
            var again = try PcapReader(file)
            // ArraySlice equality compares elements, so this checks the payload octets too.
            guard let copy = try again.next(), copy == record else { fatalError("pcap write/read differs") }
        } catch {
            fatalError("pcap write/read failed: \(error)")
        }
    }
    return 0
}
