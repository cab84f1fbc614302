import MediaCodecs
import MediaEngine
import MediaEngineTesting
import Testing

/// Issue 28 item 3: decoded video frames carry their presentation time as audio blocks do
/// (the RTP timestamp, and the sender's wallclock once a sender report mapped it, RFC 3550
/// §6.4.1), on the same clock, so an app can play a participant's audio and video in sync.
/// A hosted room on virtual time: real VP8, Opus, SRTP and RTCP.
@Suite struct PresentationTimeTests {
    @Test func videoFramesCarryRTPAndSenderTimeOnTheAudiosClock() async throws {
        let virtual = VirtualTimeEngine(seed: 283)
        let (room, mic, camera, bob) = try await RemoteAudioTests.roomWithCamera(virtual)
        let (videoTrack, audioTrack) = (try await bob.subscribe(to: "alice"), try await bob.subscribe(toMicrophoneOf: "alice"))
        let (video, audio) = (ReceivedStream<VideoFrame>(videoTrack), ReceivedAudioBlocks(audioTrack))
        let playingVideo = await virtual.play(try TestSceneSource(width: 640, height: 360, frames: 150), on: camera)
        let playingAudio = await virtual.play(ToneSource(frequencyHz: 440, talkFrames: 250, frames: 250), on: mic)
        // Every 100 ms from 2 s on (after both streams' first sender reports): the newest video
        // frame and the newest audio block show the sender's clock within 45 ms of each other
        // (each path's own delay apart: the jitter buffers, the decode).
        var offsets: [Int64] = []
        for step in 0..<60 {  // 6 s: both sources (5 s) played out
            virtual.advance(by: .milliseconds(100))
            try await catchUp(video, videoTrack, audio, audioTrack)
            guard step >= 20, let videoTime = video.all.last?.senderTimeMicroseconds,
                  let audioTime = audio.all.last(where: { $0.kind == .decoded })?.senderTimeMicroseconds else { continue }
            offsets.append(videoTime - audioTime)
        }
        try await playingVideo.value
        try await playingAudio.value
        let frames = video.all
        print("presentation times: \(frames.count) video frames, \(frames.filter { $0.senderTimeMicroseconds != nil }.count) with sender time;"
              + " video − audio sender time at the same moment: \(offsets.map { $0 / 1000 }) ms")
        #expect(frames.count >= 100)
        #expect(frames.allSatisfy { $0.rtpTimestamp != nil })
        #expect(frames.suffix(50).allSatisfy { $0.senderTimeMicroseconds != nil })
        // 30 fps: RTP time steps 3000 (90 kHz) a frame (a multiple of it where the encoder
        // skipped one) and the sender's clock moves with it, 1 ms per 90 ticks (a newer report
        // may re-anchor by the forwarding delay: a few ms).
        for (earlier, later) in zip(frames, frames.dropFirst()) {
            guard let a = earlier.rtpTimestamp, let b = later.rtpTimestamp else { continue }
            let ticks = Int64(b &- a)
            #expect(ticks > 0 && ticks % 3000 == 0)
            if let ta = earlier.senderTimeMicroseconds, let tb = later.senderTimeMicroseconds {
                #expect(abs(tb - ta - ticks * 1000 / 90) <= 5_000)
            }
        }
        #expect(offsets.count >= 20)
        #expect(offsets.allSatisfy { abs($0) <= 45_000 })  // under what viewers notice (ITU-R BT.1359: 45 ms audio early)
        _ = room
        await virtual.close()
    }

    /// Waits (real time, at most 10 s: a loaded machine may starve the reading tasks) until the
    /// readers hold every frame and block decoded so far, so none is dropped from the streams'
    /// buffers while virtual time runs ahead.
    private func catchUp(_ video: ReceivedStream<VideoFrame>, _ videoTrack: RemoteVideoTrack,
                         _ audio: ReceivedAudioBlocks, _ audioTrack: RemoteAudioTrack) async throws {
        for _ in 0..<10_000 {
            let (videoStats, audioStats) = (try await videoTrack.stats(), try await audioTrack.stats())
            let audioBlocks = audioStats.framesDecoded + audioStats.framesRecoveredByFEC + audioStats.concealedMilliseconds / 20
            if video.count >= videoStats.framesDecoded, audio.count >= audioBlocks { return }
            try await Task.sleep(for: .milliseconds(1))
        }
        Issue.record("the readers of the remote tracks did not catch up")
    }
}
