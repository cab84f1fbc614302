import Testing
import RTPWire

/// Classic pcap writing and reading of UDP datagrams.
@Suite struct PcapTests {
    static let alice = IPv4Address(192, 0, 2, 1)
    static let bob = IPv4Address(198, 51, 100, 7)

    func writtenFile(_ writer: PcapWriter, payloads: [[UInt8]]) throws -> [UInt8] {
        var file: [UInt8] = []
        writer.writeFileHeader(into: &file)
        for (index, payload) in payloads.enumerated() {
            try writer.writeUDP(payload, from: Self.alice, port: 5004, to: Self.bob, port: UInt16(6000 + index),
                                at: PcapTimestamp(seconds: 1_700_000_000 + UInt32(index), nanoseconds: 123_456_789),
                                into: &file)
        }
        return file
    }

    static let payloads: [[UInt8]] = [RTCPSamples.compound, [], [1, 2, 3], Array(repeating: 0xAB, count: 1200)]

    @Test(arguments: [PcapWriter.LinkType.ethernet, .rawIPv4],
          [PcapTimestampResolution.microseconds, .nanoseconds])
    func readerReturnsWhatWriterWrote(linkType: PcapWriter.LinkType, resolution: PcapTimestampResolution) throws {
        let writer = PcapWriter(linkType: linkType, timestampResolution: resolution)
        var reader = try PcapReader(try writtenFile(writer, payloads: Self.payloads))
        #expect(reader.linkType == linkType.value)
        #expect(reader.timestampResolution == resolution)
        #expect(!reader.isBigEndian)
        let records = try reader.readAll()
        #expect(records.map { Array($0.payload) } == Self.payloads)
        for (index, record) in records.enumerated() {
            #expect(record.source == UDPEndpoint(address: .v4(Self.alice), port: 5004))
            #expect(record.destination == UDPEndpoint(address: .v4(Self.bob), port: UInt16(6000 + index)))
            #expect(record.timestamp.seconds == 1_700_000_000 + UInt32(index))
            #expect(record.timestamp.nanoseconds == (resolution == .nanoseconds ? 123_456_789 : 123_456_000))
            #expect(!record.isPayloadTruncated)
        }
    }

    @Test func writerFillsValidIPv4AndUDPChecksums() throws {
        var file: [UInt8] = []
        try PcapWriter(linkType: .rawIPv4).writeUDP([1, 2, 3], from: Self.alice, port: 1, to: Self.bob, port: 2,
                                                    at: PcapTimestamp(seconds: 0, nanoseconds: 0), into: &file)
        let ip = Array(file[16...])
        #expect(onesComplementSum(ip[0..<20]) == 0xFFFF)
        let udp = ip[20...]
        var pseudo: [UInt8] = Array(ip[12..<20])
        pseudo += [0, 17, 0, UInt8(udp.count)]
        #expect(onesComplementSum(pseudo[...] + udp) == 0xFFFF)
    }

    @Test func readsHandMadeBigEndianEthernetFrameWithVLANTag() throws {
        let file = rtcpHex("""
            a1b2c3d4 00020004 00000000 00000000 0000ffff 00000001
            00000010 000001f4 00000030 00000030
            ffffffffffff 020000000009 8100 0064 0800
            4500001e 00000000 40110000 0a000001 0a000002
            04d2 162e 000a 0000 cafe
            """)
        var reader = try PcapReader(file)
        #expect(reader.isBigEndian)
        #expect(reader.snapLength == 65535)
        let record = try #require(try reader.next())
        #expect(record.timestamp == PcapTimestamp(seconds: 16, nanoseconds: 500_000))
        #expect(record.source.description == "10.0.0.1:1234")
        #expect(record.destination.description == "10.0.0.2:5678")
        #expect(Array(record.payload) == [0xCA, 0xFE])
        #expect(try reader.next() == nil)
    }

    @Test func ethernetPaddingAfterShortDatagramIsIgnored() throws {
        // A 2-octet payload padded by the NIC to the 60-octet Ethernet minimum.
        var frame = rtcpHex("""
            ffffffffffff 020000000009 0800
            4500001e 00000000 40110000 0a000001 0a000002 04d2162e 000a0000 cafe
            """)
        frame += Array(repeating: 0, count: 60 - frame.count)
        var reader = try PcapReader(littleEndianFile(linkType: 1, frames: [frame]))
        #expect(try reader.readAll().map { Array($0.payload) } == [[0xCA, 0xFE]])
    }

    @Test func readsLinuxCookedLoopbackAndRawIPv6() throws {
        let ipv4UDP = rtcpHex("4500001e 00000000 40110000 0a000001 0a000002 04d2162e 000a0000 cafe")
        let sll = rtcpHex("0000 0304 0006 000000000000 0000 0800") + ipv4UDP
        var cooked = try PcapReader(littleEndianFile(linkType: 113, frames: [sll]))
        #expect(try cooked.readAll().map { Array($0.payload) } == [[0xCA, 0xFE]])

        let loopback = rtcpHex("02000000") + ipv4UDP   // AF_INET in little-endian host order
        var null = try PcapReader(littleEndianFile(linkType: 0, frames: [loopback]))
        #expect(try null.readAll().map { Array($0.payload) } == [[0xCA, 0xFE]])

        let ipv6UDP = rtcpHex("""
            60000000 000a1140 20010db8000000000000000000000001 20010db8000000000000000000000002
            04d2162e 000a0000 beef
            """)
        var raw = try PcapReader(littleEndianFile(linkType: 101, frames: [ipv6UDP]))
        let record = try #require(try raw.next())
        #expect(record.source.description == "[2001:db8::1]:1234")
        #expect(Array(record.payload) == [0xBE, 0xEF])
    }

    @Test func nonUDPFramesAreSkipped() throws {
        let arp = rtcpHex("ffffffffffff 020000000009 0806") + Array(repeating: 0, count: 28)
        let tcp = rtcpHex("ffffffffffff 020000000009 0800 45000028 00000000 40060000 0a000001 0a000002")
            + Array(repeating: 0, count: 20)
        let udp = rtcpHex("ffffffffffff 020000000009 0800 4500001e 00000000 40110000 0a000001 0a000002 04d2162e 000a0000 cafe")
        var reader = try PcapReader(littleEndianFile(linkType: 1, frames: [arp, tcp, udp]))
        #expect(try reader.readAll().map { Array($0.payload) } == [[0xCA, 0xFE]])
    }

    @Test func snapLengthCutPayloadIsMarkedTruncated() throws {
        let udp = rtcpHex("4500001e 00000000 40110000 0a000001 0a000002 04d2162e 000a0000 cafe")
        var reader = try PcapReader(littleEndianFile(linkType: 228, frames: [Array(udp.dropLast())],
                                                     originalLengths: [udp.count]))
        let record = try #require(try reader.next())
        #expect(record.isPayloadTruncated)
        #expect(Array(record.payload) == [0xCA])
    }

    @Test func badMagicIsInvalidAndPcapngUnsupported() {
        #expect(throws: WireError.invalidValue(field: "pcap magic", value: 0x1234_5678)) {
            try PcapReader(rtcpHex("12345678") + Array(repeating: 0, count: 20))
        }
        #expect(throws: WireError.unsupported("pcapng file (only classic pcap is read)")) {
            try PcapReader(rtcpHex("0a0d0d0a") + Array(repeating: 0, count: 20))
        }
    }

    @Test func everyTruncationOfAWrittenFileIsAnErrorOrFewerRecords() throws {
        let file = try writtenFile(PcapWriter(), payloads: [[1, 2, 3, 4], [5, 6]])
        var boundaries: Set<Int> = [PcapFormat.fileHeaderSize]
        boundaries.insert(PcapFormat.fileHeaderSize + 16 + 14 + 28 + 4)
        for length in 0..<file.count {
            do {
                var reader = try PcapReader(file[0..<length])
                let records = try reader.readAll()
                #expect(boundaries.contains(length), "prefix of \(length) bytes read \(records.count) record(s)")
            } catch {
                #expect(!boundaries.contains(length))
            }
        }
    }

    @Test func oversizedPayloadIsRejectedByWriter() {
        var out: [UInt8] = []
        #expect(throws: WireError.outOfRange(field: "UDP payload length", value: 65_508)) {
            try PcapWriter().writeUDP(Array(repeating: 0, count: 65_508), from: Self.alice, port: 1, to: Self.bob,
                                      port: 2, at: PcapTimestamp(seconds: 0, nanoseconds: 0), into: &out)
        }
        #expect(out.isEmpty)
    }

    // MARK: helpers

    func littleEndianFile(linkType: UInt32, frames: [[UInt8]], originalLengths: [Int]? = nil) -> [UInt8] {
        func le32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
        var file = le32(0xA1B2_C3D4) + [2, 0, 4, 0] + le32(0) + le32(0) + le32(65535) + le32(linkType)
        for (index, frame) in frames.enumerated() {
            let original = originalLengths?[index] ?? frame.count
            file += le32(1) + le32(0) + le32(UInt32(frame.count)) + le32(UInt32(original)) + frame
        }
        return file
    }

    func onesComplementSum(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        var sum: UInt32 = 0
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let high = UInt32(bytes[index]) << 8
            let low = index + 1 < bytes.endIndex ? UInt32(bytes[index + 1]) : 0
            sum += high | low
            index += 2
        }
        while sum > 0xFFFF { sum = (sum & 0xFFFF) + (sum >> 16) }
        return sum
    }
}
