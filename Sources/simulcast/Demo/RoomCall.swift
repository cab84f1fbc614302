import CommandLineSupport
import Foundation
import MediaCodecs
import EngineCore
import RTPWire
import Simulcast
import SRTP
import SessionCore

/// The room `simulcast demo --participants N` runs, in one process on loopback UDP with SRTP:
///
///     N × Publisher (VP8 simulcast + Opus with RFC 6464 levels) ─► RoomNode (one ForwardingNode each)
///                                                                   ├─► "viewer":    N feeds, open downlink
///                                                                   └─► "throttled": N feeds sharing one
///                                                                                    throttled downlink
///
/// The publishers' built-in audio speaks in turns (`TestSignal` bursts, `turnSeconds` each, offset
/// per publisher). The viewer's feeds drive an `ActiveSpeakerFeed` whose dominance ranking orders
/// the room's adaptive subscriptions; each viewer has a `CallQualityReporter` over its feeds.
/// During the throttle window the throttled viewer's REMBs fall and the room pauses whole videos
/// for it (least dominant first), then resumes them once the estimate has recovered for the hold.
final class RoomCall {
    struct Options {
        var participants = 3
        var seconds: Double = 16
        var size = (width: 640, height: 360)
        var turnSeconds = 2.0
        var throttleKbps = 200
        var throttleFromSeconds = 4.0
        var throttleToSeconds = 9.0
        var resumeHoldMilliseconds: Int64 = 2000
        var estimateGrowthPerSecond = 1.0
        /// Publishers whose mic is muted (they send silence; the room pauses their video first).
        var muted: Set<String> = []
        /// Publishers the throttled viewer pins (paused last).
        var pinned: Set<String> = []
        /// Keep every speaker snapshot for the JSON (`snapshots`): a few per second, so a long
        /// call without `--json` counts them (`snapshotCount`) instead of keeping them.
        var recordsSpeakerSnapshots = true
    }

    /// One receiving participant: a Subscriber per publisher (its feeds), all on one downlink.
    final class Viewer {
        let id: String
        let link: ThrottledLink?
        var feeds: [(publisher: String, subscriber: Subscriber)] = []
        let quality: CallQualityReporter
        var qualityChanges: [(atMilliseconds: Int64, change: ConnectionQualityChange)] = []
        var framesDecoded: [String: Int] = [:]
        var windowFrames: [String: Int] = [:]

        init(id: String, link: ThrottledLink?) {
            self.id = id
            self.link = link
            quality = CallQualityReporter(publisher: nil, subscribers: [])
        }
    }

    final class Speaker {
        let id: String
        let publisher: Publisher
        let source: VideoSource
        let signal: TestSignal
        let audioOffsetFrames: Int
        let audioSSRC: UInt32

        init(id: String, publisher: Publisher, source: VideoSource, signal: TestSignal, audioOffsetFrames: Int,
             audioSSRC: UInt32) {
            self.id = id
            self.publisher = publisher
            self.source = source
            self.signal = signal
            self.audioOffsetFrames = audioOffsetFrames
            self.audioSSRC = audioSSRC
        }
    }

    let options: Options
    let plan: LayerPlan
    let room: RoomNode
    let speakers: [Speaker]
    let viewers: [Viewer]
    let speakerFeed: ActiveSpeakerFeed
    /// Every speaker snapshot with its time, when `options.recordsSpeakerSnapshots`.
    private(set) var snapshots: [(atMilliseconds: Int64, speakers: [ActiveSpeaker])] = []
    /// Speaker snapshots emitted, recorded or not.
    private(set) var snapshotCount = 0
    private(set) var dominantChanges: [(atMilliseconds: Int64, dominant: String?)] = []
    private(set) var adaptiveEvents: [(atMilliseconds: Int64, record: RoomNode.AdaptiveEventRecord)] = []
    private var startMicroseconds: Int64 = 0

    init(options: Options) throws {
        self.options = options
        plan = try LayerPlan(width: options.size.width, height: options.size.height)
        room = RoomNode(adaptive: .init(resumeHoldMilliseconds: options.resumeHoldMilliseconds))
        speakerFeed = ActiveSpeakerFeed()

        var random = SystemRandomNumberGenerator()
        func freshKeys() throws -> SRTPKeyingMaterial {
            try SRTPKeyingMaterial(keyAndSalt: (0..<SRTPSuite.default.keyingMaterialLength).map { _ in
                UInt8.random(in: 0...255, using: &random)
            })
        }
        let turnFrames = max(1, Int(options.turnSeconds * 50))
        let count = options.participants
        var speakers: [Speaker] = []
        for index in 0..<count {
            let id = "p\(index + 1)"
            let publisherKeys = try freshKeys(), feedbackKeys = try freshKeys()
            let video = VideoTrackConfiguration(plan: plan, firstSSRC: 0x5100_0000 + UInt32(index) * 0x100)
            let audioSSRC = 0x5A00_0000 + UInt32(index)
            let socket = try UDPSocket(bindingTo: .loopback(port: 0))
            try socket.setReceiveBufferSize(4 << 20)
            let node = try room.addPublisher(id, configuration: ForwardingNodeConfiguration(
                plan: plan, layerSSRCs: video.ssrcs, publisherKeys: publisherKeys, feedbackKeys: feedbackKeys,
                selector: LayerSelector.Configuration(upSwitchHoldMilliseconds: 1000), audioSSRC: audioSSRC,
                subscriberLossControl: .init(initialBitsPerSecond: .max, increasePerSecond: options.estimateGrowthPerSecond)),
                transport: socket)
            let publisherSocket = try UDPSocket(bindingTo: .loopback(port: 0))
            try publisherSocket.setReceiveBufferSize(1 << 20)
            let publisher = try Publisher(
                configuration: PublisherConfiguration(video: video, audio: AudioTrackConfiguration(ssrc: audioSSRC),
                                                      security: .srtp(local: publisherKeys, remote: feedbackKeys), cname: id),
                transport: try UDPTransport(socket: publisherSocket, destination: node.localEndpoint), clock: .system,
                using: &random)
            // Speaker `index` talks in the index-th turn of every round of `count` turns.
            let signal = TestSignal(frequencyHz: 220 + 110 * Double(index), amplitude: 0.3, talkFrames: turnFrames,
                                    pauseFrames: turnFrames * (count - 1))
            speakers.append(Speaker(id: id, publisher: publisher,
                                    source: try VideoSource(testSceneWidth: plan.top.width, height: plan.top.height),
                                    signal: signal, audioOffsetFrames: (count - index) % count * turnFrames,
                                    audioSSRC: audioSSRC))
            speakerFeed.map(ssrc: audioSSRC, participantId: id, trackId: "mic")
        }
        self.speakers = speakers

        var viewers: [Viewer] = []
        for (viewerIndex, (id, throttled)) in [("viewer", false), ("throttled", true)].enumerated() {
            let viewer = Viewer(id: id, link: throttled ? ThrottledLink() : nil)
            room.addSubscriber(id)
            for (index, speaker) in speakers.enumerated() {
                let downKeys = try freshKeys(), upKeys = try freshKeys()
                let socket = try UDPSocket(bindingTo: .loopback(port: 0))
                try socket.setReceiveBufferSize(4 << 20)
                let localSSRC = 0x7E00_0000 + UInt32(viewerIndex * 16 + index)
                guard let node = room.node(for: speaker.id) else { throw CommandError("no node for \(speaker.id)") }
                let estimator = BandwidthEstimator.Configuration(
                    initialBitsPerSecond: 2_000_000, maximumBitsPerSecond: 4_000_000,
                    increasePerSecond: options.estimateGrowthPerSecond)
                let subscriber = try Subscriber(configuration: SubscriberConfiguration(
                    localSSRC: localSSRC, cname: "\(id)-\(speaker.id)", security: .srtp(receiveKeys: downKeys, sendKeys: upKeys),
                    senderRTCPEndpoint: node.localEndpoint,
                    video: VideoReceiver.Configuration(localSSRC: localSSRC, bandwidth: estimator)), transport: socket)
                let publisherId = speaker.id
                subscriber.onVideoFrame = { [unowned viewer] _ in
                    viewer.framesDecoded[publisherId, default: 0] += 1
                    viewer.windowFrames[publisherId, default: 0] += 1
                }
                if !throttled { speakerFeed.attach(subscriber) }
                viewer.quality.attach(subscriber)
                viewer.feeds.append((speaker.id, subscriber))
                try room.addFeed(publisher: speaker.id, ForwardedSubscriberConfiguration(
                    id: id, outputSSRC: 0x0D00_0000 + UInt32(viewerIndex * 16 + index), destination: socket.localEndpoint,
                    sendKeys: downKeys, receiveKeys: upKeys), link: viewer.link)
            }
            viewers.append(viewer)
        }
        self.viewers = viewers
        for id in options.muted { room.setMuted(true, participant: id) }
        for id in options.pinned { room.setPinned(true, participant: id, for: "throttled") }

        speakerFeed.onSnapshot = { [unowned self] snapshot in
            self.snapshotCount += 1
            if self.options.recordsSpeakerSnapshots { self.snapshots.append((self.elapsedMilliseconds, snapshot)) }
        }
        speakerFeed.onDominantSpeakerChange = { [unowned self] change in
            self.dominantChanges.append((self.elapsedMilliseconds, change.current))
        }
        room.onAdaptiveEvent = { [unowned self] record in
            self.adaptiveEvents.append((self.elapsedMilliseconds, record))
        }
    }

    var elapsedMilliseconds: Int64 {
        startMicroseconds == 0 ? 0 : (monotonicMicroseconds() - startMicroseconds) / 1000
    }

    /// Who the schedule says speaks at `milliseconds` into the call.
    func scheduledSpeaker(atMilliseconds milliseconds: Int64) -> String {
        let turn = Int(Double(milliseconds) / 1000 / options.turnSeconds) % speakers.count
        return options.muted.contains(speakers[turn].id) ? "" : speakers[turn].id
    }

    /// Runs the call; `tick(elapsedSeconds)` about once a second.
    func run(tick: (Int) -> Void) throws {
        startMicroseconds = monotonicMicroseconds()
        let start = startMicroseconds
        let duration = microseconds(seconds: options.seconds)
        let frameInterval: Int64 = 1_000_000 / 30, audioInterval: Int64 = 20_000
        var nextFrame = start, nextAudio = start, nextTick = start + 1_000_000, nextRanking = start
        var audioIndex = 0, seconds = 0, throttleState = 0
        let throttled = viewers.first { $0.link != nil }
        while true {
            let now = monotonicMicroseconds()
            let elapsed = now - start
            if elapsed >= duration { break }
            if let link = throttled?.link {
                if throttleState == 0, elapsed >= microseconds(seconds: options.throttleFromSeconds) {
                    link.setRate(bitsPerSecond: options.throttleKbps * 1000, nowMilliseconds: now / 1000)
                    throttleState = 1
                } else if throttleState == 1, elapsed >= microseconds(seconds: options.throttleToSeconds) {
                    link.setRate(bitsPerSecond: nil, nowMilliseconds: now / 1000)
                    throttleState = 2
                }
            }
            while now >= nextAudio {
                for speaker in speakers {
                    let frame = options.muted.contains(speaker.id) ? AudioFrame.silence(channels: speaker.signal.channels)
                        : speaker.signal.frame(audioIndex + speaker.audioOffsetFrames)
                    try speaker.publisher.send(audio: frame)
                }
                audioIndex += 1
                nextAudio += audioInterval
                if now - nextAudio > 200_000 { nextAudio = now + audioInterval }
            }
            if now >= nextFrame {
                for speaker in speakers {
                    if let frame = try speaker.source.nextFrame() { try speaker.publisher.send(video: frame) }
                }
                nextFrame += frameInterval
                if now - nextFrame > 200_000 { nextFrame = now + frameInterval }
            }
            try pump()
            if now >= nextRanking {
                room.setDominanceRanking(speakerFeed.dominanceRanking())
                nextRanking = now + 100_000
            }
            speakerFeed.serviceIfDue()
            for viewer in viewers {
                if let change = viewer.quality.serviceIfDue()?.change {
                    viewer.qualityChanges.append((elapsedMilliseconds, change))
                }
            }
            if now >= nextTick {
                seconds += 1
                tick(seconds)
                for viewer in viewers { viewer.windowFrames.removeAll() }
                nextTick += 1_000_000
            }
            let wait = max(0, min(5_000, min(nextFrame, nextAudio) - monotonicMicroseconds())) / 1000
            try room.poll(timeoutMilliseconds: Int32(wait))
        }
        try pump()
        for speaker in speakers { try? speaker.publisher.sendGoodbye(reason: "demo finished") }
    }

    /// One hop for every datagram: nodes in/out, subscribers in (their RTCP out), nodes again,
    /// then the publishers' feedback.
    private func pump() throws {
        try room.poll(timeoutMilliseconds: 0)
        room.service()
        for viewer in viewers {
            for feed in viewer.feeds { try feed.subscriber.step(timeoutMilliseconds: 0) }
        }
        try room.poll(timeoutMilliseconds: 0)
        for speaker in speakers {
            while try speaker.publisher.pollIncoming(timeoutMilliseconds: 0) != nil {}
        }
        // Layer switches are not reported by the room demo: do not let them pile up.
        for node in room.nodes.values { node.forwarder.switchEvents.removeAll() }
    }

    // MARK: - Report

    /// The live-table rows at this moment.
    func tableRows() -> [String] {
        var rows: [String] = []
        let ranking = speakerFeed.dominanceRanking()
        let snapshot = speakerFeed.snapshot.map { "\($0.participantId) \(String(format: "%.2f", $0.level))" }
        rows.append("speakers: [\(snapshot.joined(separator: ", "))]  dominance: \(ranking.joined(separator: " > "))"
            + "  scheduled: \(scheduledSpeaker(atMilliseconds: elapsedMilliseconds))")
        for viewer in viewers {
            let level = viewer.quality.connectionQuality().map { "\($0.overall)" } ?? "unknown"
            let estimate = room.estimatedBandwidth(for: viewer.id).map { "\($0 / 1000)" } ?? "-"
            let paused = room.pausedVideos(for: viewer.id)
            let fps = speakers.map { "\($0.id):\(viewer.windowFrames[$0.id] ?? 0)" }.joined(separator: " ")
            rows.append(" " + [viewer.id.padding(toLength: 10, withPad: " ", startingAt: 0),
                               level.padding(toLength: 9, withPad: " ", startingAt: 0),
                               "est \(estimate) kbps".padding(toLength: 15, withPad: " ", startingAt: 0),
                               "link \(viewer.link?.bitsPerSecond.map { "\($0 / 1000) kbps" } ?? "open")"
                                   .padding(toLength: 14, withPad: " ", startingAt: 0),
                               "fps \(fps)", "paused [\(paused.joined(separator: ","))]"].joined(separator: " "))
        }
        return rows
    }

    var json: JSONValue {
        func eventJSON(_ at: Int64, _ record: RoomNode.AdaptiveEventRecord) -> JSONValue {
            let kind: String, reason: String?
            switch record.event.kind {
            case let .paused(why): (kind, reason) = ("paused", why.rawValue)
            case let .resumed(why): (kind, reason) = ("resumed", why?.rawValue)
            }
            return .object([("atMs", .int(Int(at))), ("subscriber", .string(record.subscriberId)),
                            ("participant", .string(record.event.participantId)), ("event", .string(kind)),
                            ("reason", reason.map { .string($0) } ?? .null)])
        }
        let schedule: [JSONValue] = stride(from: 0.0, to: options.seconds, by: options.turnSeconds).map { from in
            .object([("fromMs", .int(Int(from * 1000))), ("toMs", .int(Int(min(options.seconds, from + options.turnSeconds) * 1000))),
                     ("speaker", .string(scheduledSpeaker(atMilliseconds: Int64(from * 1000))))])
        }
        let viewerJSON: [JSONValue] = viewers.map { viewer in
            .object([
                ("id", .string(viewer.id)),
                ("throttled", .bool(viewer.link != nil)),
                ("framesDecoded", .object(speakers.map { ($0.id, .int(viewer.framesDecoded[$0.id] ?? 0)) })),
                ("qualityChanges", .array(viewer.qualityChanges.map { at, change in
                    .object([("atMs", .int(Int(at))), ("previous", .string("\(change.previous)")),
                             ("current", .string("\(change.overall)")), ("mos", .double(change.mos))])
                })),
                ("finalQuality", .string(viewer.quality.connectionQuality().map { "\($0.overall)" } ?? "unknown")),
                ("pausedAtEnd", .array(room.pausedVideos(for: viewer.id).map { .string($0) })),
            ])
        }
        return .object([
            ("participants", .int(speakers.count)),
            ("seconds", .double(options.seconds)),
            ("layerSizes", .array(plan.layers.map { .string("\($0.width)x\($0.height)") })),
            ("throttle", .object([("subscriber", .string("throttled")), ("kbps", .int(options.throttleKbps)),
                                  ("fromSeconds", .double(options.throttleFromSeconds)),
                                  ("toSeconds", .double(options.throttleToSeconds))])),
            ("speakingSchedule", .array(schedule)),
            ("muted", .array(options.muted.sorted().map { .string($0) })),
            ("pinnedByThrottled", .array(options.pinned.sorted().map { .string($0) })),
            ("speakerSnapshots", .array(snapshots.map { at, speakers in
                .object([("atMs", .int(Int(at))), ("speakers", .array(speakers.map {
                    .object([("participantId", .string($0.participantId)), ("trackId", .string($0.trackId)),
                             ("level", .double(($0.level * 1000).rounded() / 1000))])
                }))])
            })),
            ("dominantSpeakerChanges", .array(dominantChanges.map { at, dominant in
                .object([("atMs", .int(Int(at))), ("dominant", dominant.map { .string($0) } ?? .null)])
            })),
            ("adaptiveEvents", .array(adaptiveEvents.map { eventJSON($0.atMilliseconds, $0.record) })),
            ("viewers", .array(viewerJSON)),
        ])
    }
}
