import CommandLineSupport
import Foundation
import MediaEngine
import MediaEngineTesting
import Synchronization

/// The room `simulcast demo --participants N` runs, through the public API alone: a room the
/// engine hosts on loopback (UDP, SRTP), N publishers (p1…pN, a 640x360 two-layer camera and a
/// mic each) and two viewers that subscribe to everyone: "viewer" on an open downlink and
/// "throttled", whose downlink the room squeezes for a while (`MediaEngineTesting`).
///
/// The publishers' mics speak in turns (`ToneSource` bursts, `turnSeconds` each, offset per
/// publisher). The room finds the active and dominant speakers from the levels its subscribers
/// receive (events), and its adaptive subscriptions pause whole videos for the throttled viewer
/// (least dominant first, muted ones before, pinned ones last) and resume them once its estimate
/// has recovered. This type only starts things, moves the throttle, and keeps what the events say.
final class RoomCall: Sendable {
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
        /// The publisher that also shares its screen (the generated screen, 960x540 at 15 fps,
        /// two layers): both viewers receive it; adaptive subscriptions pause it after every camera.
        var screenSharer: String?
        /// Keep every speaker snapshot for the JSON (`snapshots`): a few per second, so a long
        /// call without `--json` counts them (`snapshotCount`) instead of keeping them.
        var recordsSpeakerSnapshots = true
        /// How every participant reaches the room (docs/joining-a-room.md).
        var preferredProtocol = PreferredProtocol.udpOverTCP
    }

    /// A publishing participant, and where its turns fall in the tone pattern.
    struct Speaker: Sendable {
        let id: String
        let participant: LocalParticipant
        let camera: LocalVideoTrack
        /// Its screen share (`Options.screenSharer`).
        let screen: LocalVideoTrack?
        let mic: LocalAudioTrack
        let frequencyHz: Double
        let offsetFrames: Int
    }

    /// A receiving participant: one remote video per publisher, all on one downlink.
    final class Viewer: Sendable {
        let id: String
        let throttled: Bool
        let participant: LocalParticipant
        let remotes: [RemoteVideoTrack]
        let log = Mutex(ViewerLog())

        init(id: String, throttled: Bool, participant: LocalParticipant, remotes: [RemoteVideoTrack]) {
            self.id = id
            self.throttled = throttled
            self.participant = participant
            self.remotes = remotes
        }
    }

    struct ViewerLog: Sendable {
        var qualityChanges: [(atMilliseconds: Int64, previous: ConnectionQualityLevel, current: ConnectionQualityLevel, mos: Double)] = []
        var framesDecoded: [String: Int] = [:]
        var windowFrames: [String: Int] = [:]
    }

    /// What the room said, with times into the call.
    struct RoomLog: Sendable {
        var snapshots: [(atMilliseconds: Int64, speakers: [ActiveSpeaker])] = []
        var snapshotCount = 0
        var latestSnapshot: [ActiveSpeaker] = []
        var dominantChanges: [(atMilliseconds: Int64, dominant: String?)] = []
        var adaptiveEvents: [(atMilliseconds: Int64, subscriber: String, participant: String, paused: Bool, reason: String?)] = []
    }

    let options: Options
    let layerSizes: [VideoSize]
    let engine: MediaEngine
    let room: Room
    let speakers: [Speaker]
    let viewers: [Viewer]
    let log = Mutex(RoomLog())
    let timeline = DemoTimeline()
    private let tasks = Mutex<[Task<Void, Never>]>([])

    private init(options: Options, layerSizes: [VideoSize], engine: MediaEngine, room: Room, speakers: [Speaker], viewers: [Viewer]) {
        self.options = options
        self.layerSizes = layerSizes
        self.engine = engine
        self.room = room
        self.speakers = speakers
        self.viewers = viewers
    }

    /// Hosts the room, publishes every camera and mic, subscribes both viewers; nothing plays yet.
    static func start(options: Options) async throws -> RoomCall {
        let engine = MediaEngine()
        do {
            let room = try await engine.hostRoom(options: RoomOptions(autoConsume: false).tuned(
                upSwitchHoldMilliseconds: 1000, estimateGrowthPerSecond: options.estimateGrowthPerSecond,
                initialReceiveEstimateBitsPerSecond: 2_000_000, maximumReceiveEstimateBitsPerSecond: 4_000_000,
                resumeHoldMilliseconds: options.resumeHoldMilliseconds))
            let turnFrames = max(1, Int(options.turnSeconds * 50))
            let count = options.participants
            var speakers: [Speaker] = []
            for index in 0..<count {
                let id = "p\(index + 1)"
                let participant = try await room.join(participantId: id, preferredProtocol: options.preferredProtocol)
                let camera = try participant.createCameraVideoTrack(
                    encoderConfig: CameraEncoderConfig(width: options.size.width, height: options.size.height))
                let mic = participant.createMicrophoneAudioTrack()
                try await participant.publish(camera)
                try await participant.publish(mic)
                if options.muted.contains(id) { try await mic.setMuted(true) }
                var screen: LocalVideoTrack?
                if options.screenSharer == id {
                    screen = try participant.createScreenShareVideoTrack(encoderConfig: RoomCall.screenConfig)
                    try await participant.publish(screen!)
                }
                // Speaker `index` talks in the index-th turn of every round of `count` turns.
                speakers.append(Speaker(id: id, participant: participant, camera: camera, screen: screen, mic: mic,
                                        frequencyHz: 220 + 110 * Double(index), offsetFrames: (count - index) % count * turnFrames))
            }
            var viewers: [Viewer] = []
            for (id, throttled) in [("viewer", false), ("throttled", true)] {
                let participant = try await room.join(participantId: id, preferredProtocol: options.preferredProtocol)
                var remotes: [RemoteVideoTrack] = []
                for speaker in speakers {
                    let remote = try await participant.subscribe(to: speaker.id)
                    if throttled, options.pinned.contains(speaker.id) { try await remote.setPinned(true) }
                    remotes.append(remote)
                    if speaker.screen != nil { remotes.append(try await participant.subscribe(toScreenShareOf: speaker.id)) }
                }
                viewers.append(Viewer(id: id, throttled: throttled, participant: participant, remotes: remotes))
            }
            return RoomCall(options: options, layerSizes: speakers[0].camera.layerSizes, engine: engine, room: room,
                            speakers: speakers, viewers: viewers)
        } catch {
            await engine.close()
            throw error
        }
    }

    var elapsedMilliseconds: Int64 { timeline.elapsedMilliseconds }

    /// The screen share's size and rate (`Options.screenSharer`).
    static let screenConfig = CameraEncoderConfig(width: 960, height: 540, frameRate: 15)

    /// How the log names a received video: the publisher's id, `<id>/screen` for its screen share.
    static func videoName(_ publisherId: String, source: VideoContent) -> String {
        source == .screen ? "\(publisherId)/screen" : publisherId
    }

    /// Every video name the viewers receive, cameras first.
    var videoNames: [String] {
        speakers.map(\.id) + speakers.filter { $0.screen != nil }.map { Self.videoName($0.id, source: .screen) }
    }

    /// Who the schedule says speaks at `milliseconds` into the call.
    func scheduledSpeaker(atMilliseconds milliseconds: Int64) -> String {
        let turn = Int(Double(milliseconds) / 1000 / options.turnSeconds) % speakers.count
        return options.muted.contains(speakers[turn].id) ? "" : speakers[turn].id
    }

    /// Plays every camera and mic for `options.seconds`, squeezing the throttled viewer in its
    /// window; `tick(elapsedSeconds)` about once a second.
    func run(tick: (Int) async -> Void) async throws {
        var players: [Task<Void, any Error>] = []
        defer { for player in players { player.cancel() } }
        let top = layerSizes[layerSizes.count - 1]
        let turnFrames = max(1, Int(options.turnSeconds * 50)), count = speakers.count
        listen()
        let timeline = timeline
        for speaker in speakers {
            players.append(Task { try await speaker.camera.play(from: TestSceneSource(width: top.width, height: top.height)) })
            if let screen = speaker.screen {
                let config = Self.screenConfig
                players.append(Task { try await screen.play(from: ScreenTestSceneSource(width: config.width, height: config.height,
                                                                                        frameRate: config.frameRate)) })
            }
            players.append(Task {
                try await speaker.mic.play(from: ToneSource(frequencyHz: speaker.frequencyHz, amplitude: 0.3, talkFrames: turnFrames,
                                                            pauseFrames: turnFrames * (count - 1), offsetFrames: speaker.offsetFrames))
            })
        }
        try await timeline.run(seconds: options.seconds, throttle: ("throttled", options.throttleKbps, options.throttleFromSeconds,
                                                                    options.throttleToSeconds), room: room) { second in
            await tick(second)
            for viewer in viewers { viewer.log.withLock { $0.windowFrames.removeAll() } }
        }
    }

    /// Keeps what each viewer's events and frames say; the speakers from the open viewer's
    /// stream (every participant hears the same room).
    private func listen() {
        let recordsSnapshots = options.recordsSpeakerSnapshots
        for viewer in viewers {
            let reportsSpeakers = !viewer.throttled
            let events = Task { [self] in
                for await event in viewer.participant.events {
                    let at = elapsedMilliseconds
                    switch event {
                    case let .qualityChanged(previous, current, mos):
                        viewer.log.withLock { $0.qualityChanges.append((at, previous, current, mos)) }
                    case let .subscriptionPaused(publisherId, reason):
                        log.withLock { $0.adaptiveEvents.append((at, viewer.id, publisherId, true, reason.rawValue)) }
                    case let .subscriptionResumed(publisherId, reason):
                        log.withLock { $0.adaptiveEvents.append((at, viewer.id, publisherId, false, reason?.rawValue)) }
                    case let .screenShareSubscriptionPaused(publisherId, reason):
                        let name = Self.videoName(publisherId, source: .screen)
                        log.withLock { $0.adaptiveEvents.append((at, viewer.id, name, true, reason.rawValue)) }
                    case let .screenShareSubscriptionResumed(publisherId, reason):
                        let name = Self.videoName(publisherId, source: .screen)
                        log.withLock { $0.adaptiveEvents.append((at, viewer.id, name, false, reason?.rawValue)) }
                    case let .activeSpeakersChanged(snapshot) where reportsSpeakers:
                        log.withLock {
                            $0.snapshotCount += 1
                            $0.latestSnapshot = snapshot
                            if recordsSnapshots { $0.snapshots.append((at, snapshot)) }
                        }
                    case let .dominantSpeakerChanged(dominant) where reportsSpeakers:
                        log.withLock { $0.dominantChanges.append((at, dominant)) }
                    default:
                        break
                    }
                }
            }
            tasks.withLock { $0.append(events) }
            for remote in viewer.remotes {
                let publisherId = Self.videoName(remote.publisherId, source: remote.source)
                let frames = Task {
                    for await _ in remote.frames {
                        viewer.log.withLock {
                            $0.framesDecoded[publisherId, default: 0] += 1
                            $0.windowFrames[publisherId, default: 0] += 1
                        }
                    }
                }
                tasks.withLock { $0.append(frames) }
            }
        }
    }

    /// Ends the call: the engine closes (every stream says goodbye).
    func finish() async {
        await engine.close()
        for task in tasks.withLock({ $0 }) { await task.value }
    }

    // MARK: - Report

    /// The live-table rows at this moment.
    func tableRows() async -> [String] {
        let (snapshot, dominant) = log.withLock { ($0.latestSnapshot, $0.dominantChanges.last?.dominant) }
        var rows = ["speakers: [\(snapshot.map { "\($0.participantId) \(String(format: "%.2f", $0.level))" }.joined(separator: ", "))]"
            + "  dominant: \(dominant ?? "nobody")  scheduled: \(scheduledSpeaker(atMilliseconds: elapsedMilliseconds))"]
        for viewer in viewers {
            let (level, window) = viewer.log.withLock { ($0.qualityChanges.last.map { "\($0.current)" } ?? "unknown", $0.windowFrames) }
            let state = try? await room.adaptiveState(of: viewer.id)
            let estimate = state?.estimatedBitsPerSecond.map { "\($0 / 1000)" } ?? "-"
            let fps = videoNames.map { "\($0):\(window[$0] ?? 0)" }.joined(separator: " ")
            let throttling = viewer.throttled && Double(elapsedMilliseconds) / 1000 >= options.throttleFromSeconds
                && Double(elapsedMilliseconds) / 1000 < options.throttleToSeconds
            rows.append(" " + [viewer.id.padding(toLength: 10, withPad: " ", startingAt: 0),
                               level.padding(toLength: 9, withPad: " ", startingAt: 0),
                               "est \(estimate) kbps".padding(toLength: 15, withPad: " ", startingAt: 0),
                               "link \(throttling ? "\(options.throttleKbps) kbps" : "open")"
                                   .padding(toLength: 14, withPad: " ", startingAt: 0),
                               "fps \(fps)", "paused [\((state?.paused ?? []).joined(separator: ","))]"].joined(separator: " "))
        }
        return rows
    }

    /// The `--json` document; `pausedAtEnd` is read from the room before it closes.
    func json(pausedAtEnd: [String: [String]]) -> JSONValue {
        let roomLog = log.withLock { $0 }
        let schedule: [JSONValue] = stride(from: 0.0, to: options.seconds, by: options.turnSeconds).map { from in
            .object([("fromMs", .int(Int(from * 1000))), ("toMs", .int(Int(min(options.seconds, from + options.turnSeconds) * 1000))),
                     ("speaker", .string(scheduledSpeaker(atMilliseconds: Int64(from * 1000))))])
        }
        let viewerJSON: [JSONValue] = viewers.map { viewer in
            let viewerLog = viewer.log.withLock { $0 }
            return .object([
                ("id", .string(viewer.id)),
                ("throttled", .bool(viewer.throttled)),
                ("framesDecoded", .object(videoNames.map { ($0, .int(viewerLog.framesDecoded[$0] ?? 0)) })),
                ("qualityChanges", .array(viewerLog.qualityChanges.map { change in
                    .object([("atMs", .int(Int(change.atMilliseconds))), ("previous", .string("\(change.previous)")),
                             ("current", .string("\(change.current)")), ("mos", .double(change.mos))])
                })),
                ("finalQuality", .string(viewerLog.qualityChanges.last.map { "\($0.current)" } ?? "unknown")),
                ("pausedAtEnd", .array((pausedAtEnd[viewer.id] ?? []).map { .string($0) })),
            ])
        }
        return .object([
            ("participants", .int(speakers.count)),
            ("seconds", .double(options.seconds)),
            ("layerSizes", .array(layerSizes.map { .string("\($0.width)x\($0.height)") })),
            ("throttle", .object([("subscriber", .string("throttled")), ("kbps", .int(options.throttleKbps)),
                                  ("fromSeconds", .double(options.throttleFromSeconds)),
                                  ("toSeconds", .double(options.throttleToSeconds))])),
            ("speakingSchedule", .array(schedule)),
            ("muted", .array(options.muted.sorted().map { .string($0) })),
            ("pinnedByThrottled", .array(options.pinned.sorted().map { .string($0) })),
            ("screenSharer", options.screenSharer.map { .string($0) } ?? .null),
            ("speakerSnapshots", .array(roomLog.snapshots.map { at, speakers in
                .object([("atMs", .int(Int(at))), ("speakers", .array(speakers.map {
                    .object([("participantId", .string($0.participantId)), ("trackId", .string($0.trackId)),
                             ("level", .double(($0.level * 1000).rounded() / 1000))])
                }))])
            })),
            ("dominantSpeakerChanges", .array(roomLog.dominantChanges.map { at, dominant in
                .object([("atMs", .int(Int(at))), ("dominant", dominant.map { .string($0) } ?? .null)])
            })),
            ("adaptiveEvents", .array(roomLog.adaptiveEvents.map { event in
                .object([("atMs", .int(Int(event.atMilliseconds))), ("subscriber", .string(event.subscriber)),
                         ("participant", .string(event.participant)), ("event", .string(event.paused ? "paused" : "resumed")),
                         ("reason", event.reason.map { .string($0) } ?? .null)])
            })),
            ("viewers", .array(viewerJSON)),
        ])
    }
}
