import EngineCore
import Foundation
import InteropTestSupport
import MediaEngine
import Testing

/// Issue 29 item 3, staying connected, through a real Janus inside scripts/netns-run.sh's
/// namespace (one Janus run): alice publishes her camera, bob (the same engine, the same host,
/// both joined without a local address: sockets on every interface) receives it.
/// 1. The client host's link goes down for 5 s (`ip link set veth-engine down`, then up), as a
///    pulled cable or a lost Wi-Fi would: both rooms report `.reconnecting` within 3 s of the drop
///    (their paths silent 2.5 s although consent checks went out), refuse a consume meanwhile with
///    `EngineError.reconnecting`, report `.reconnected` within 3 s of the link coming back, and bob
///    decodes alice again, with no decoder error.
/// 2. The client host's address moves (10.99.0.1 removed, 10.99.0.3 added): Janus answers our
///    consent checks seeing the new address, both connections restart ICE (new credentials, the
///    new host candidate, Janus `configure`), alice's pair is on the new address, and bob decodes
///    again within 3 s of the move, with no decoder error. The address is put back afterwards.
@Suite(.serialized) struct JanusReconnectTests {
    /// A participant's events with when each was read, collected in the background.
    final class TimedEventLog: @unchecked Sendable {
        private var events: [(at: ContinuousClock.Instant, event: ParticipantEvent)] = []
        private let lock = NSLockLike()

        init(_ participant: LocalParticipant) {
            Task { [self] in
                for await event in participant.events { lock.run { events.append((ContinuousClock.now, event)) } }
            }
        }

        var all: [ParticipantEvent] { lock.run { events.map(\.event) } }
        var timed: [(at: ContinuousClock.Instant, event: ParticipantEvent)] { lock.run { events } }

        func publication(within seconds: Double = 2) async throws -> SFUPublication? {
            for _ in 0..<max(1, Int(seconds * 50)) {
                if let found = all.compactMap({ if case let .publishedToSFU(p) = $0 { p } else { nil } }).first { return found }
                try await Task.sleep(for: .milliseconds(20))
            }
            return nil
        }
    }

    /// How long after `since` `log` first read an event `matches` accepts, waited for (real time) up
    /// to `seconds` after `since`; nil if none came.
    static func firstEvent(in log: TimedEventLog, since: ContinuousClock.Instant, within seconds: Double,
                           _ matches: @escaping (ParticipantEvent) -> Bool) async -> Duration? {
        let deadline = since + .milliseconds(Int(seconds * 1_000))
        while true {
            if let found = log.timed.first(where: { $0.at >= since && matches($0.event) }) { return found.at - since }
            guard ContinuousClock.now < deadline else { return nil }
            try? await Task.sleep(for: .milliseconds(10))
        }
    }

    static func isReconnecting(_ event: ParticipantEvent) -> Bool { if case .reconnecting = event { true } else { false } }
    static func isReconnected(_ event: ParticipantEvent) -> Bool { if case .reconnected = event { true } else { false } }

    static func milliseconds(_ duration: Duration?) -> String {
        duration.map { "\($0.components.seconds * 1_000 + $0.components.attoseconds / 1_000_000_000_000_000) ms" } ?? "never"
    }

    @Test func aLinkDownForFiveSecondsReconnectsAndANewAddressRestartsICE() async throws {
        try PrivateNamespace.require(for: "JanusReconnectTests")
        let janus = try JanusHarness.start()
        defer { janus.stop() }
        defer { ClientLink.restore() }
        let engine = MediaEngine()
        let alice = try await engine.joinJanusRoom(url: janus.url, room: 1234, participantId: "alice")
        let aliceEvents = TimedEventLog(alice)
        let camera = try alice.createCameraVideoTrack(encoderConfig: .h360p)
        try await alice.publish(camera)
        let capture = Capture(camera, width: 640, height: 360)
        let publication = try #require(try await aliceEvents.publication())
        let bob = try await engine.joinJanusRoom(url: janus.url, room: 1234, participantId: "bob")
        let bobEvents = TimedEventLog(bob)
        let track = try await bob.subscribe(to: publication.feedId)
        let sizes = SizeLog(track)
        #expect(try await capture.run(until: { sizes.count >= 30 }, within: 8))

        // Frames keep coming from the camera through the outage, as from a real one.
        let pushing = Task { try await capture.run(seconds: 40) }
        defer { pushing.cancel() }
        try await Task.sleep(for: .seconds(1))
        let before = try await track.stats()
        #expect(!aliceEvents.all.contains(where: Self.isReconnecting) && !bobEvents.all.contains(where: Self.isReconnecting))

        let dropped = ContinuousClock.now
        try ClientLink.set(up: false)
        let aliceReconnecting = await Self.firstEvent(in: aliceEvents, since: dropped, within: 4.5, Self.isReconnecting)
        let bobReconnecting = await Self.firstEvent(in: bobEvents, since: dropped, within: 4.5, Self.isReconnecting)
        // Meanwhile a consume needs Janus: refused, typed.
        await #expect {
            _ = try await bob.subscribe(to: publication.feedId)
        } throws: { error in
            if case .reconnecting = error as? EngineError { true } else { false }
        }
        try await Task.sleep(until: dropped + .seconds(5), clock: .continuous)
        let framesWhileDown = sizes.count
        let atLinkUp = try await track.stats()
        let restored = ContinuousClock.now
        try ClientLink.set(up: true)
        let decodingAgain = await JanusRoomModelTests.wait(seconds: 6) { sizes.count > framesWhileDown } ? ContinuousClock.now - restored : nil
        let aliceReconnected = await Self.firstEvent(in: aliceEvents, since: restored, within: 6, Self.isReconnected)
        let bobReconnected = await Self.firstEvent(in: bobEvents, since: restored, within: 6, Self.isReconnected)
        #expect(await JanusRoomModelTests.wait(seconds: 6) { sizes.count >= framesWhileDown + 30 })
        let after = try await track.stats()

        print("Link down 5 s: alice reconnecting after \(Self.milliseconds(aliceReconnecting)), bob after \(Self.milliseconds(bobReconnecting)); "
            + "link up: alice reconnected after \(Self.milliseconds(aliceReconnected)), bob after \(Self.milliseconds(bobReconnected)), "
            + "bob decoding again after \(Self.milliseconds(decodingAgain)); bob decoded \(before.framesDecoded) → \(after.framesDecoded), "
            + "\(after.decoderErrors) decoder errors, longest freeze \(after.longestFreezeMilliseconds) ms; "
            + "events alice \(aliceEvents.all.filter { Self.isReconnecting($0) || Self.isReconnected($0) }), "
            + "bob \(bobEvents.all.filter { Self.isReconnecting($0) || Self.isReconnected($0) }); "
            + "failures \(aliceEvents.all.filter { if case .failure = $0 { true } else { false } }) \(bobEvents.all.filter { if case .failure = $0 { true } else { false } })")
        #expect(aliceEvents.all.contains(.reconnecting(.publishing)))
        #expect(bobEvents.all.contains(.reconnecting(.receiving)))
        for reported in [aliceReconnecting, bobReconnecting] { #expect(reported.map { $0 <= .seconds(3) } == true) }
        for reported in [aliceReconnected, bobReconnected] { #expect(reported.map { $0 <= .seconds(3) } == true) }
        #expect(decodingAgain.map { $0 <= .seconds(3) } == true)
        #expect(after.framesDecoded >= atLinkUp.framesDecoded + 30)
        #expect(after.decoderErrors == 0)
        #expect(after.longestFreezeMilliseconds < 5_000 + 3_000)  // the outage, plus at most the 3 s allowed
        #expect(!aliceEvents.all.contains { if case .failure = $0 { true } else { false } })
        #expect(!bobEvents.all.contains { if case .failure = $0 { true } else { false } })

        // The client host moves to another address: Janus still sends to the old one, and answers
        // consent checks from the new one (peer-reflexive): an ICE restart on both connections
        // gathers the new address and media comes back on it.
        try await Task.sleep(for: .seconds(1))
        let beforeMove = try await track.stats()
        let framesBeforeMove = sizes.count
        let moved = ContinuousClock.now
        try ClientLink.moveAddress(from: PrivateNamespace.localAddress, to: ClientLink.movedAddress)
        // Media resumes: frames decoded again after at least half a second without any.
        var lastCount = framesBeforeMove, lastChange = moved, resumed: Duration?
        while ContinuousClock.now < moved + .seconds(12), resumed == nil {
            let count = sizes.count
            if count != lastCount {
                if ContinuousClock.now - lastChange >= .milliseconds(500) { resumed = ContinuousClock.now - moved }
                lastCount = count
                lastChange = ContinuousClock.now
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        print("after the move: alice \(aliceEvents.timed.filter { $0.at >= moved }.map { "\(Self.milliseconds($0.at - moved)) \($0.event)" }), "
            + "bob \(bobEvents.timed.filter { $0.at >= moved }.map { "\(Self.milliseconds($0.at - moved)) \($0.event)" })")
        #expect(await JanusRoomModelTests.wait(seconds: 6) { sizes.count >= lastCount + 30 })
        let afterMove = try await track.stats()
        let aliceMoveReconnecting = await Self.firstEvent(in: aliceEvents, since: moved, within: 1, Self.isReconnecting)
        let aliceMoveReconnected = await Self.firstEvent(in: aliceEvents, since: moved, within: 1, Self.isReconnected)
        let bobMoveReconnected = await Self.firstEvent(in: bobEvents, since: moved, within: 1, Self.isReconnected)
        let pair = try await camera.stats().selectedCandidatePair
        print("Address moved to \(ClientLink.movedAddress): alice reconnecting after \(Self.milliseconds(aliceMoveReconnecting)), "
            + "reconnected after \(Self.milliseconds(aliceMoveReconnected)), bob reconnected after \(Self.milliseconds(bobMoveReconnected)), "
            + "bob decoding again after \(Self.milliseconds(resumed)); alice's pair \(pair.map { "\($0)" } ?? "-"); bob decoded "
            + "\(beforeMove.framesDecoded) → \(afterMove.framesDecoded), \(afterMove.decoderErrors) decoder errors; "
            + "failures \(aliceEvents.all.filter { if case .failure = $0 { true } else { false } }) \(bobEvents.all.filter { if case .failure = $0 { true } else { false } })")
        #expect(pair?.local.address == ClientLink.movedAddress)
        #expect(resumed.map { $0 <= .seconds(3) } == true)
        #expect(aliceMoveReconnected != nil && bobMoveReconnected != nil)
        #expect(afterMove.framesDecoded >= beforeMove.framesDecoded + 30)
        #expect(afterMove.decoderErrors == 0)
        #expect(!aliceEvents.all.contains { if case .failure = $0 { true } else { false } })
        #expect(!bobEvents.all.contains { if case .failure = $0 { true } else { false } })
        pushing.cancel()
        await engine.close()
    }
}
