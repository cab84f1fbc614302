import Testing
@testable import SRTP

@Suite struct SRTPSessionTests {
    @Test func defaultSuitesAreSupportedByTheInstalledLibsrtp() {
        #expect(SRTPSuite.aesCm128HmacSha1_80.isSupported)
        #expect(SRTPSuite.aesCm128HmacSha1_32.isSupported)
        #expect(SRTPSuite.default == .aesCm128HmacSha1_80)
    }

    @Test(arguments: SRTPSuite.allCases)
    func unsupportedSuiteIsReportedAtConstruction(_ suite: SRTPSuite) throws {
        let material = try testKeyingMaterial(suite)
        if suite.isSupported {
            _ = try SRTPSession(direction: .outbound, keyingMaterial: material)
        } else {
            #expect(throws: SRTPError.unsupportedSuite(suite)) {
                try SRTPSession(direction: .outbound, keyingMaterial: material)
            }
        }
    }

    @Test(arguments: SRTPSuite.supported)
    func rtpRoundTrip(_ suite: SRTPSuite) throws {
        let (sender, receiver) = try sessionPair(suite)
        for sequence in UInt16(1)...50 {
            let plain = rtpPacket(sequence: sequence)
            let protected = try protect(plain, with: sender)
            #expect(protected.count == plain.count + suite.rtpOverhead)
            #expect(Array(protected[12..<plain.count]) != Array(plain[12...]), "payload is encrypted")
            #expect(try unprotect(protected, with: receiver) == plain)
        }
    }

    @Test(arguments: SRTPSuite.supported)
    func rtcpRoundTrip(_ suite: SRTPSuite) throws {
        let (sender, receiver) = try sessionPair(suite)
        for _ in 0..<10 {
            let plain = rtcpPacket()
            var protected = [UInt8](repeating: 0, count: 100)
            let protectedLength = try sender.protectRTCP(plain, into: &protected)
            #expect(protectedLength == plain.count + suite.rtcpOverhead)
            var output = [UInt8](repeating: 0, count: 100)
            let length = try receiver.unprotectRTCP(Array(protected[..<protectedLength]), into: &output)
            #expect(Array(output[..<length]) == plain)
        }
    }

    @Test(arguments: SRTPSuite.supported)
    func flippedBitFailsAuthentication(_ suite: SRTPSuite) throws {
        let (sender, receiver) = try sessionPair(suite)
        var protected = try protect(rtpPacket(sequence: 7), with: sender)
        protected[20] ^= 0x01
        #expect(throws: SRTPError.authenticationFailed) { try unprotect(protected, with: receiver) }
    }

    @Test func flippedBitInSRTCPFailsAuthentication() throws {
        let (sender, receiver) = try sessionPair(.default)
        var protected = [UInt8](repeating: 0, count: 100)
        let length = try sender.protectRTCP(rtcpPacket(), into: &protected)
        protected[10] ^= 0x80
        var output = [UInt8](repeating: 0, count: 100)
        #expect(throws: SRTPError.authenticationFailed) {
            try receiver.unprotectRTCP(Array(protected[..<length]), into: &output)
        }
    }

    @Test func sameRTPPacketTwiceIsAReplay() throws {
        let (sender, receiver) = try sessionPair(.default)
        let protected = try protect(rtpPacket(sequence: 100), with: sender)
        _ = try unprotect(protected, with: receiver)
        #expect(throws: SRTPError.replayed(.duplicate)) { try unprotect(protected, with: receiver) }
    }

    @Test func sameRTCPPacketTwiceIsAReplay() throws {
        let (sender, receiver) = try sessionPair(.default)
        var protected = [UInt8](repeating: 0, count: 100)
        let length = try sender.protectRTCP(rtcpPacket(), into: &protected)
        let packet = Array(protected[..<length])
        var output = [UInt8](repeating: 0, count: 100)
        _ = try receiver.unprotectRTCP(packet, into: &output)
        #expect(throws: SRTPError.replayed(.duplicate)) { try receiver.unprotectRTCP(packet, into: &output) }
    }

    @Test func packetOlderThanTheWindowIsAReplay() throws {
        let (sender, receiver) = try sessionPair(.default)
        let old = try protect(rtpPacket(sequence: 1), with: sender)
        let new = try protect(rtpPacket(sequence: 1 + 200), with: sender)
        _ = try unprotect(new, with: receiver)
        #expect(throws: SRTPError.replayed(.tooOld)) { try unprotect(old, with: receiver) }
    }

    @Test func lateButInsideTheWindowIsAccepted() throws {
        let (sender, receiver) = try sessionPair(.default)
        let late = try protect(rtpPacket(sequence: 1), with: sender)
        let new = try protect(rtpPacket(sequence: 1 + 100), with: sender)
        _ = try unprotect(new, with: receiver)
        #expect(try unprotect(late, with: receiver) == rtpPacket(sequence: 1))
    }

    @Test func replayWindowSizeIsConfigurable() throws {
        let (sender, receiver) = try sessionPair(.default, replayWindowSize: 512)
        #expect(receiver.replayWindowSize == 512)
        let late = try protect(rtpPacket(sequence: 1), with: sender)
        let new = try protect(rtpPacket(sequence: 1 + 400), with: sender)
        _ = try unprotect(new, with: receiver)
        #expect(try unprotect(late, with: receiver) == rtpPacket(sequence: 1))
    }

    @Test(arguments: [0, 10, 63, 0x8000])
    func replayWindowOutsideLibsrtpLimitsIsRejected(_ size: Int) throws {
        #expect(throws: SRTPError.invalidReplayWindow(size)) {
            try SRTPSession(direction: .inbound, keyingMaterial: testKeyingMaterial(.default), replayWindowSize: size)
        }
    }

    @Test func outputBufferTooSmallForTheTagIsATypedError() throws {
        let (sender, receiver) = try sessionPair(.default)
        let plain = rtpPacket(sequence: 3)
        var small = [UInt8](repeating: 0, count: plain.count + 9)
        #expect(throws: SRTPError.bufferTooSmall(needed: plain.count + 10, available: plain.count + 9)) {
            try sender.protectRTP(plain, into: &small)
        }
        var tooSmallForRTCP = [UInt8](repeating: 0, count: 32 + 13)
        #expect(throws: SRTPError.bufferTooSmall(needed: 32 + 14, available: 32 + 13)) {
            try sender.protectRTCP(rtcpPacket(), into: &tooSmallForRTCP)
        }
        let protected = try protect(plain, with: sender)
        var short = [UInt8](repeating: 0, count: protected.count - 1)
        #expect(throws: SRTPError.bufferTooSmall(needed: protected.count, available: protected.count - 1)) {
            try receiver.unprotectRTP(protected, into: &short)
        }
    }

    @Test func inPlaceProtectChecksTheRoomAfterThePacket() throws {
        let (sender, _) = try sessionPair(.default)
        var buffer = rtpPacket(sequence: 1)
        let length = buffer.count
        #expect(throws: SRTPError.bufferTooSmall(needed: length + 10, available: length)) {
            try buffer.withUnsafeMutableBytes { try sender.protectRTP(inPlace: $0, packetLength: length) }
        }
    }

    @Test func protectReusesTheCallersBufferWithoutReallocating() throws {
        let (sender, receiver) = try sessionPair(.default)
        var output = [UInt8](repeating: 0, count: 1500)
        var plain = [UInt8](repeating: 0, count: 1500)
        let outputAddress = output.withUnsafeBytes { $0.baseAddress }
        let plainAddress = plain.withUnsafeBytes { $0.baseAddress }
        for sequence in UInt16(1)...1000 {
            let packet = rtpPacket(sequence: sequence)
            let length = try sender.protectRTP(packet, into: &output)
            #expect(output.count == 1500)
            let plainLength = try output.withUnsafeBytes { source in
                try plain.withUnsafeMutableBytes { try receiver.unprotectRTP(UnsafeRawBufferPointer(rebasing: source[..<length]), into: $0) }
            }
            #expect(plainLength == packet.count)
        }
        #expect(output.withUnsafeBytes { $0.baseAddress } == outputAddress)
        #expect(plain.withUnsafeBytes { $0.baseAddress } == plainAddress)
    }

    @Test func directionsAreEnforced() throws {
        let (sender, receiver) = try sessionPair(.default)
        let protected = try protect(rtpPacket(sequence: 1), with: sender)
        #expect(throws: SRTPError.wrongDirection(.outbound)) { try unprotect(protected, with: sender) }
        #expect(throws: SRTPError.wrongDirection(.inbound)) { try protect(rtpPacket(sequence: 2), with: receiver) }
    }

    @Test func senderRefusesToReuseASequenceNumber() throws {
        let (sender, _) = try sessionPair(.default)
        _ = try protect(rtpPacket(sequence: 9), with: sender)
        #expect(throws: SRTPError.replayed(.duplicate)) { try protect(rtpPacket(sequence: 9), with: sender) }
    }

    @Test func malformedPacketsNeverReachLibsrtp() throws {
        let (sender, receiver) = try sessionPair(.default)
        #expect(throws: SRTPError.malformedPacket("RTP packet shorter than 12 bytes")) {
            try protect([0x80, 0, 0, 1], with: sender)
        }
        var csrcCountTooLarge = rtpPacket(sequence: 1, payload: [])
        csrcCountTooLarge[0] = 0x8F
        #expect(throws: SRTPError.self) { try protect(csrcCountTooLarge, with: sender) }
        var extensionTooLong = rtpPacket(sequence: 1, payload: [0xBE, 0xDE, 0x00, 0x40])
        extensionTooLong[0] = 0x90
        #expect(throws: SRTPError.malformedPacket("RTP header needs 272 bytes, packet has 16")) {
            try unprotect(extensionTooLong, with: receiver)
        }
        var version1 = rtpPacket(sequence: 1)
        version1[0] = 0x40
        #expect(throws: SRTPError.malformedPacket("RTP version is not 2")) { try protect(version1, with: sender) }
    }

    @Test func shortSRTPIsRejectedByLibsrtpWithATypedError() throws {
        let (_, receiver) = try sessionPair(.default)
        // A bare 12-byte header cannot carry a 10-byte tag.
        #expect(throws: SRTPError.self) { try unprotect(rtpPacket(sequence: 1, payload: []), with: receiver) }
    }

    @Test func differentKeysDoNotInteroperate() throws {
        let sender = try SRTPSession(direction: .outbound, keyingMaterial: testKeyingMaterial(.default, seed: 1))
        let receiver = try SRTPSession(direction: .inbound, keyingMaterial: testKeyingMaterial(.default, seed: 2))
        #expect(throws: SRTPError.authenticationFailed) {
            try unprotect(protect(rtpPacket(sequence: 1), with: sender), with: receiver)
        }
    }
}

@Suite struct SRTPConcurrencyTests {
    /// libsrtp is initialised once however many threads create the first sessions at the same time.
    @Test func sessionsCanBeCreatedConcurrentlyFromManyTasks() async throws {
        let results = await withTaskGroup(of: Bool.self) { group in
            for index in 0..<16 {
                group.addTask {
                    do {
                        let suite = SRTPSuite.supported[index % SRTPSuite.supported.count]
                        let (sender, receiver) = try sessionPair(suite)
                        let plain = rtpPacket(sequence: UInt16(index))
                        return try unprotect(protect(plain, with: sender), with: receiver) == plain
                    } catch {
                        return false
                    }
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results.count == 16 && results.allSatisfy { $0 })
    }
}
