import Testing
@testable import RTPWire

/// TURN over TCP (RFC 8656 §3.1): STUN messages and ChannelData back to back, delimited by their
/// own headers; ChannelData padded to 4 bytes on the stream (§12.5) comes back without its padding.
@Suite struct TURNStreamFramingTests {
    @Test func stunAndPaddedChannelDataComeBackWholeFromAnySplit() throws {
        let stun = try STUNMessage(type: STUNMessageType(method: .allocate, messageClass: .successResponse),
                                   transactionID: try #require(STUNTransactionID(Array(repeating: 7, count: 12))),
                                   attributes: [.lifetime(600)]).serialized()
        var channelData: [UInt8] = []
        let data: [UInt8] = [1, 2, 3, 4, 5]
        try data.withUnsafeBytes { try TURNChannelData.write(channel: 0x4001, data: $0, padded: true, into: &channelData) }
        #expect(channelData.count == 12)  // 4 + 5, padded to 12
        let stream = stun + channelData + stun
        for pieceSize in [1, 3, 5, 64] {
            var deframer = StreamDeframer(maximumPacketSize: 1500, framing: .stunAndChannelData)
            var received: [[UInt8]] = []
            var offset = 0
            while offset < stream.count {
                let piece = Array(stream[offset..<min(stream.count, offset + pieceSize)])
                offset += piece.withUnsafeBytes { deframer.append($0) }
                while let packet = try deframer.nextPacket({ Array($0) }) { received.append(packet) }
            }
            #expect(received == [stun, Array(channelData.prefix(9)), stun], "pieces of \(pieceSize)")
            #expect(deframer.bufferedBytes == 0)
        }
    }

    @Test func aFirstByteThatIsNeitherSTUNNorChannelDataLosesTheStream() throws {
        var deframer = StreamDeframer(maximumPacketSize: 1500, framing: .stunAndChannelData)
        let garbage: [UInt8] = [0x80, 0x60, 0x00, 0x10]  // RTP's first byte
        _ = garbage.withUnsafeBytes { deframer.append($0) }
        #expect(throws: WireError.self) { _ = try deframer.nextPacket { Array($0) } }
        var long = StreamDeframer(maximumPacketSize: 100, framing: .stunAndChannelData)
        let header: [UInt8] = [0x40, 0x00, 0x00, 0xFF]  // ChannelData of 255 bytes, over the limit
        _ = header.withUnsafeBytes { long.append($0) }
        #expect(throws: WireError.self) { _ = try long.nextPacket { Array($0) } }
    }
}
