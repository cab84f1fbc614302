import Glibc
import MediaEngine
import MediaEngineTesting
import Testing

/// The plain RTP output through the public API, as a client uses it (`import MediaEngine` and
/// the testing sources): SRTP to local UDP ports, the SSRCs asked for, the counts the engine
/// reports, and typed errors for options that cannot work.
@Suite struct PlainRTPOutputTests {
    @Test func sendsSRTPVideoAndAudioWithTheSSRCsAskedToLocalPorts() async throws {
        let video = try LoopbackReceiver(), audio = try LoopbackReceiver()
        let engine = MediaEngine()
        let output = try await engine.sendPlainRTP(PlainRTPOptions(
            videoDestination: "127.0.0.1:\(video.port)", audioDestination: "127.0.0.1:\(audio.port)",
            firstVideoSSRC: 1000, audioSSRC: 2000, rtcpMux: true, reportIntervalMilliseconds: 100, pacing: .unpaced))
        let key = try #require(output.srtpKeyAndSalt)
        #expect(key.count == 30)  // generated: AES_CM_128_HMAC_SHA1_80 key || salt
        #expect(output.sdesCryptoAttribute?.hasPrefix("a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:") == true)

        let participant = output.participant
        let camera = try participant.createCameraVideoTrack(encoderConfig: .h360p)
        try await participant.publish(camera)
        let microphone = participant.createMicrophoneAudioTrack()
        try await participant.publish(microphone)
        async let videoPlayed: Void = camera.play(from: TestSceneSource(width: 640, height: 360, frames: 10))
        async let audioPlayed: Void = microphone.play(from: ToneSource(frames: 15))
        _ = try await (videoPlayed, audioPlayed)
        await participant.leave()  // the BYE goes out

        let statistics = try await output.statistics()
        #expect(statistics.videoFramesSent == 10 && statistics.audioFramesSent == 15)
        #expect(statistics.streams.map(\.ssrc) == [1000, 1001, 2000])
        #expect(statistics.streams.map(\.name) == ["q", "f", "audio"])
        #expect(statistics.streams.map(\.destination) == ["127.0.0.1:\(video.port)", "127.0.0.1:\(video.port)", "127.0.0.1:\(audio.port)"])
        await engine.close()

        // Only what the output's socket sent counts (tests running beside this one use loopback too).
        let videoDatagrams = await video.receiveAll(), audioDatagrams = await audio.receiveAll()
        let outputPort = try #require(videoDatagrams.first { $0.bytes.isRTP && $0.bytes.ssrc == 1000 }?.sourcePort)
        let videoRTP = videoDatagrams.filter { $0.sourcePort == outputPort && $0.bytes.isRTP }.map(\.bytes)
        let audioRTP = audioDatagrams.filter { $0.sourcePort == outputPort && $0.bytes.isRTP }.map(\.bytes)
        #expect(Set(videoRTP.map(\.ssrc)) == [1000, 1001])
        #expect(Set(audioRTP.map(\.ssrc)) == [2000])
        #expect(videoRTP.count == statistics.streams[0].packets + statistics.streams[1].packets)
        #expect(audioRTP.count == statistics.streams[2].packets)
        // SRTP: each packet carries the 10-byte HMAC-SHA1-80 tag after its payload.
        #expect(videoRTP.allSatisfy { $0.count >= 12 + 10 })
    }

    /// A receiver's PLI and REMB (RFC 4585 §6.3.1, draft-alvestrand-rmcat-remb) come back on the
    /// sending socket: the key frame and the paused top layer are events.
    @Test func keyFrameRequestsAndREMBBecomeEvents() async throws {
        let receiver = try LoopbackReceiver()
        let engine = MediaEngine()
        let output = try await engine.sendPlainRTP(PlainRTPOptions(videoDestination: "127.0.0.1:\(receiver.port)", firstVideoSSRC: 1000,
                                                                   security: .insecure, rtcpMux: true))
        let participant = output.participant
        let camera = try participant.createCameraVideoTrack(encoderConfig: .h360p)
        try await participant.publish(camera)
        async let played: Void = camera.play(from: TestSceneSource(width: 640, height: 360))
        // The output's first packet (within 5 s, whatever load the machine is under; a stray
        // from another test on loopback does not count) says where to send the feedback.
        var first: (bytes: [UInt8], from: sockaddr_in)?
        for _ in 0..<25 where first == nil {
            if let datagram = await receiver.receiveOne(), datagram.bytes.isRTP, [1000, 1001].contains(datagram.bytes.ssrc) { first = datagram }
        }
        let sender = try #require(first?.from)
        let pli: [UInt8] = [0x81, 206, 0, 2, 0, 0, 0, 7, 0, 0, 0x03, 0xE8]
        let remb: [UInt8] = [0x8F, 206, 0, 5, 0, 0, 0, 7, 0, 0, 0, 0, 0x52, 0x45, 0x4D, 0x42,
                             1, 0x00, 0xC3, 0x50, 0, 0, 0x03, 0xE8]  // 50 000 bps for SSRC 1000
        receiver.send(pli, to: sender)
        receiver.send(remb, to: sender)
        try await Task.sleep(for: .milliseconds(300))
        await participant.leave()
        var stoppedBy: EngineError?
        do { try await played } catch { stoppedBy = error as? EngineError }
        #expect(stoppedBy == .closed("camera track \(camera.id)"))  // the endless scene stops at the goodbye
        var events: [ParticipantEvent] = []
        for await event in participant.events { events.append(event) }
        #expect(events.contains(.keyFrameRequested(trackId: camera.id)))
        let change = try #require(events.compactMap { event -> PublishedLayersChange? in
            if case let .publishedLayersChanged(change) = event { return change }
            return nil
        }.first)
        #expect(change.paused == [1] && change.sending == [0] && change.rembBitsPerSecond == 50_000)
        let statistics = try await output.statistics()
        #expect(statistics.rembsReceived == 1 && statistics.layerPausesByREMB == 1 && statistics.keyFramesRequested >= 1)
        await engine.close()
    }

    @Test func optionsThatCannotWorkAreTypedErrors() async throws {
        let engine = MediaEngine()
        await #expect(throws: EngineError.invalidConfiguration("a plain RTP output needs a video or an audio destination")) {
            try await engine.sendPlainRTP(PlainRTPOptions())
        }
        await #expect(throws: EngineError.invalidConfiguration(
            "the SRTP key for AES_CM_128_HMAC_SHA1_80 must be 30 bytes (16-byte key + 14-byte salt); got 3")) {
            try await engine.sendPlainRTP(PlainRTPOptions(videoDestination: "127.0.0.1:9", security: .srtp(keyAndSalt: [1, 2, 3])))
        }
        await #expect(throws: EngineError.self) { try await engine.sendPlainRTP(PlainRTPOptions(videoDestination: "127.0.0.1:70000")) }
        await #expect(throws: EngineError.self) { try await engine.sendPlainRTP(PlainRTPOptions(audioDestination: "nowhere")) }
        await #expect(throws: EngineError.self) {
            try await engine.sendPlainRTP(PlainRTPOptions(videoDestination: "127.0.0.1:9", videoPayloadType: 128))
        }

        // Two ports for a camera of three layers; the microphone before the camera; receiving.
        let output = try await engine.sendPlainRTP(PlainRTPOptions(videoDestination: "127.0.0.1:9,11",
                                                                   audioDestination: "127.0.0.1:13", security: .insecure))
        let participant = output.participant
        await #expect(throws: EngineError.notAllowed("publish the camera first: one publisher carries both tracks of a plain RTP output")) {
            try await participant.publish(participant.createMicrophoneAudioTrack())
        }
        await #expect(throws: EngineError.self) { try await participant.publish(participant.createCameraVideoTrack(encoderConfig: .h720p)) }
        try await participant.publish(participant.createCameraVideoTrack(encoderConfig: .h360p))
        await #expect(throws: EngineError.notAllowed("a plain RTP output only sends")) { try await participant.subscribe(to: "anyone") }
        await engine.close()
        await #expect(throws: EngineError.self) { try await output.statistics() }
    }
}

/// A UDP socket on 127.0.0.1 that keeps what arrives: the receiving end a client would run.
final class LoopbackReceiver {
    let descriptor: Int32
    let port: UInt16

    struct Failure: Error { var call: String }

    init() throws {
        let descriptor = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        guard descriptor >= 0 else { throw Failure(call: "socket") }
        self.descriptor = descriptor
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(descriptor, pointer, length) == 0 && getsockname(descriptor, pointer, &length) == 0
            }
        }
        guard bound else {
            close(descriptor)
            throw Failure(call: "bind")
        }
        port = UInt16(bigEndian: address.sin_port)
        var size: Int32 = 8 << 20
        setsockopt(descriptor, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
    }

    deinit { close(descriptor) }

    /// The next datagram (within 200 ms) and where it came from. Waits by sleeping the task,
    /// never by blocking its thread: the engine's own tasks need the few threads of the pool.
    func receiveOne() async -> (bytes: [UInt8], from: sockaddr_in)? {
        var buffer = [UInt8](repeating: 0, count: 2048)
        let deadline = ContinuousClock.now + .milliseconds(200)
        while true {
            var source = sockaddr_in()
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let count = buffer.withUnsafeMutableBytes { bytes in
                withUnsafeMutablePointer(to: &source) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        recvfrom(descriptor, bytes.baseAddress, bytes.count, Int32(MSG_DONTWAIT), $0, &length)
                    }
                }
            }
            if count > 0 { return (Array(buffer[..<count]), source) }
            guard ContinuousClock.now < deadline, (try? await Task.sleep(for: .milliseconds(2))) != nil else { return nil }
        }
    }

    /// Sends `bytes` to `destination` from this socket.
    func send(_ bytes: [UInt8], to destination: sockaddr_in) {
        var destination = destination
        _ = bytes.withUnsafeBytes { buffer in
            withUnsafePointer(to: &destination) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(descriptor, buffer.baseAddress, buffer.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        }
    }

    /// Every datagram waiting, until none arrives for 200 ms, with the port it came from.
    func receiveAll() async -> [(bytes: [UInt8], sourcePort: UInt16)] {
        var datagrams: [(bytes: [UInt8], sourcePort: UInt16)] = []
        while let (bytes, source) = await receiveOne() { datagrams.append((bytes, UInt16(bigEndian: source.sin_port))) }
        return datagrams
    }
}

extension [UInt8] {
    /// RTP rather than RTCP (RFC 5761 §4: RTCP packet types 192...223 in the second octet).
    var isRTP: Bool { count >= 12 && self[0] >> 6 == 2 && !(192...223).contains(self[1]) }
    /// The RTP header's SSRC (RFC 3550 §5.1; SRTP leaves the header in the clear).
    var ssrc: UInt32 { self[8...11].reduce(0) { $0 << 8 | UInt32($1) } }
}
