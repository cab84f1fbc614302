import Testing
@testable import RTPWire

/// RFC 4571 framing: packets come back whole whatever pieces the stream arrives in; a length
/// the stream cannot carry is an error, never a trap or an allocation.
@Suite struct StreamFramingTests {
    static func framed(_ packets: [[UInt8]]) throws -> [UInt8] {
        var stream: [UInt8] = []
        for packet in packets { try StreamFramer.append(packet, to: &stream) }
        return stream
    }

    static func drain(_ deframer: inout StreamDeframer) throws -> [[UInt8]] {
        var packets: [[UInt8]] = []
        while let packet = try deframer.nextPacket({ Array($0) }) { packets.append(packet) }
        return packets
    }

    @Test func packetsSurviveAnySplitOfTheStream() throws {
        var generator = SystemRandomNumberGenerator()
        let packets = (0..<200).map { index in (0..<Int.random(in: 0...1500, using: &generator)).map { UInt8(truncatingIfNeeded: $0 &+ index) } }
        let stream = try Self.framed(packets)
        for pieceSize in [1, 2, 3, 7, 1499, 1502, 4096] {
            var deframer = StreamDeframer(maximumPacketSize: 1500, capacity: 8 * 1024)
            var received: [[UInt8]] = []
            var offset = 0
            while offset < stream.count {
                let piece = Array(stream[offset..<min(stream.count, offset + pieceSize)])
                let taken = piece.withUnsafeBytes { deframer.append($0) }
                offset += taken
                received += try Self.drain(&deframer)
            }
            #expect(received == packets.filter { !$0.isEmpty }, "pieces of \(pieceSize)")  // empty packets are skipped
            #expect(deframer.bufferedBytes == 0)
        }
    }

    @Test func aLengthBeyondTheLargestPacketLosesTheStream() throws {
        var deframer = StreamDeframer(maximumPacketSize: 1200)
        let header: [UInt8] = [0x04, 0xB1]  // 1201
        _ = header.withUnsafeBytes { deframer.append($0) }
        #expect(throws: WireError.outOfRange(field: "RFC 4571 packet length", value: 1201)) { try deframer.nextPacket { _ in () } }
        var stream: [UInt8] = []
        let huge = [UInt8](repeating: 0, count: 65_536)
        #expect(throws: WireError.self) { try StreamFramer.append(huge, to: &stream) }
        #expect(stream.isEmpty)
    }

    @Test func randomStreamsNeverTrap() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<500 {
            var deframer = StreamDeframer(maximumPacketSize: 1500, capacity: 4096)
            let bytes = (0..<Int.random(in: 0...5000, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            var offset = 0
            while offset < bytes.count {
                let taken = bytes[offset...].withUnsafeBytes { deframer.append($0) }
                offset += taken
                do {
                    while try deframer.nextPacket({ $0.count }) != nil {}
                } catch {
                    break  // framing lost: a real connection is dropped here
                }
                if taken == 0 { break }
            }
        }
    }
}
