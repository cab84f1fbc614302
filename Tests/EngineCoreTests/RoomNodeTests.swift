import Testing
import MediaCodecs
import RTPWire
import Simulcast
@testable import EngineCore

/// RoomNode (docs/adaptive-subscriptions.md) through real packets: real VP8 from `TestPublisher`s (640x360, 2 layers),
/// Opus-like audio packets, REMBs from the subscribers' feed sockets, the node's output read from
/// those sockets. Virtual time (`ManualClock`), plain RTP.
@Suite(.serialized) struct RoomNodeTests {
    /// One published participant: its encoder, its audio SSRC and the socket its feedback goes to.
    final class Member {
        let id: String
        let publisher: TestPublisher
        let rtcp: UDPSocket
        let audioSSRC: UInt32
        let endpoint: NetworkEndpoint
        var audioSequence: UInt16 = 100

        init(id: String, index: Int, plan: LayerPlan) throws {
            self.id = id
            publisher = try TestPublisher(plan: plan)
            rtcp = try UDPSocket()
            audioSSRC = 0xA000 + UInt32(index)
            endpoint = .loopback(port: UInt16(41_000 + index))
        }

        /// One audio packet as a publisher sends it (PT 111), distinct bytes per packet.
        func audioPacket() -> [UInt8] {
            var packet: [UInt8] = []
            try? RTPHeader(marker: false, payloadType: 111, sequenceNumber: audioSequence, timestamp: UInt32(audioSequence) * 960,
                           ssrc: audioSSRC).serialize(into: &packet)
            packet += [0x78, UInt8(truncatingIfNeeded: audioSequence), 0x01, 0x02]
            audioSequence &+= 1
            return packet
        }
    }

    /// A room with the given publishers and subscribers; each subscriber has one feed socket per
    /// publisher.
    final class Rig {
        let clock = ManualClock()
        let room: RoomNode
        var members: [Member] = []
        var feeds: [String: [String: UDPSocket]] = [:]  // subscriber → publisher → socket

        init(publishers: [String], subscribers: [(id: String, autoConsume: Bool)], resumeHold: Int64 = 500) throws {
            room = RoomNode(adaptive: .init(resumeHoldMilliseconds: resumeHold), clock: clock.mediaClock)
            let plan = try LayerPlan(width: 640, height: 360)
            for (index, id) in publishers.enumerated() {
                let member = try Member(id: id, index: index, plan: plan)
                members.append(member)
                try room.addPublisher(id, configuration: ForwardingNodeConfiguration(
                    plan: plan, layerSSRCs: member.publisher.ssrcs, publisherKeys: nil, feedbackKeys: nil,
                    publisherRTCPEndpoint: member.rtcp.localEndpoint, keyFrameRequestIntervalMilliseconds: 0,
                    audioSSRC: member.audioSSRC))
            }
            for (subscriberIndex, subscriber) in subscribers.enumerated() {
                room.addSubscriber(subscriber.id, autoConsume: subscriber.autoConsume)
                for (index, member) in members.enumerated() {
                    let socket = try UDPSocket()
                    try socket.setReceiveBufferSize(1 << 20)
                    feeds[subscriber.id, default: [:]][member.id] = socket
                    try room.addFeed(publisher: member.id, ForwardedSubscriberConfiguration(
                        id: subscriber.id, outputSSRC: 0xD000 + UInt32(subscriberIndex * 16 + index),
                        destination: socket.localEndpoint, sendKeys: nil, receiveKeys: nil))
                }
            }
        }

        func member(_ id: String) -> Member { members.first { $0.id == id }! }

        /// `frames` video frames (and one audio packet per frame) from every publisher.
        func publish(frames: Int, keyFrameFor keyed: Set<String> = []) throws {
            for member in members where keyed.contains(member.id) { member.publisher.encoder.requestKeyFrame() }
            for _ in 0..<frames {
                clock.advance(milliseconds: 33)
                for member in members {
                    guard let node = room.node(for: member.id) else { continue }
                    for packet in try member.publisher.nextFramePackets() {
                        node.handle(datagram: packet, from: member.endpoint)
                    }
                    node.handle(datagram: member.audioPacket(), from: member.endpoint)
                }
                room.service()
            }
        }

        /// A REMB of `bitsPerSecond` from `subscriber`'s feed of `publisher`.
        func remb(_ bitsPerSecond: Int, from subscriber: String, feed publisher: String) throws {
            let socket = try #require(feeds[subscriber]?[publisher])
            let compound = RTCPCompoundPacket(packets: [
                .receiverReport(ReceiverReport(ssrc: 0xBEEF)),
                .receiverEstimatedMaxBitrate(ReceiverEstimatedMaxBitrate(senderSSRC: 0xBEEF, bitrate: UInt64(bitsPerSecond),
                                                                         ssrcs: [0xD000])),
            ])
            room.node(for: publisher)?.handle(datagram: try compound.serialized(), from: socket.localEndpoint)
        }

        /// What each feed of `subscriber` received since the last call: (video packets, audio packets).
        func received(by subscriber: String) throws -> [String: (video: [[UInt8]], audio: [[UInt8]])] {
            var result: [String: (video: [[UInt8]], audio: [[UInt8]])] = [:]
            for (publisher, socket) in feeds[subscriber] ?? [:] {
                var video: [[UInt8]] = [], audio: [[UInt8]] = []
                for datagram in try ForwardingNodeTests.drain(socket) where datagram.count >= 12 {
                    guard RTPOrRTCP.classifyIfValid(datagram) else { continue }
                    if datagram[1] & 0x7F == 111 { audio.append(datagram) } else { video.append(datagram) }
                }
                result[publisher] = (video, audio)
            }
            return result
        }

        /// PLIs the node sent to `publisher` since the last call.
        func keyFrameRequests(to publisher: String) throws -> Int {
            var count = 0
            for datagram in try ForwardingNodeTests.drain(member(publisher).rtcp) {
                guard let compound = try? RTCPCompoundPacket(parsing: datagram[...]) else { continue }
                count += compound.packets.filter { if case .pictureLossIndication = $0 { true } else { false } }.count
            }
            return count
        }
    }

    static func isKeyFrameStart(_ datagram: [UInt8]) -> Bool {
        guard let packet = try? RTPPacket(parsing: datagram[...]),
              case let (descriptor, data)? = try? VP8PayloadDescriptor.parse(packet.payload) else { return false }
        return descriptor.isStartOfFrame && VP8PayloadHeader.isKeyFrame(data) == true
    }

    /// alice pinned, bob muted, ranking dave > carol > alice (bob never heard).
    static func pausingRig() throws -> Rig {
        let rig = try Rig(publishers: ["alice", "bob", "carol", "dave"], subscribers: [("viewer", true)])
        rig.room.setPinned(true, participant: "alice", for: "viewer")
        rig.room.setMuted(true, participant: "bob")
        rig.room.setDominanceRanking(["dave", "carol", "alice"])
        try rig.publish(frames: 3)
        return rig
    }

    @Test func pausesInOrderMutedLeastDominantDominantPinnedAndResumesInReverseWaitingForKeyFrames() throws {
        let rig = try Self.pausingRig()
        let room = rig.room
        let lowest = try #require(room.lowestVideoBitsPerSecond(of: "alice"))
        var first = try rig.received(by: "viewer")
        #expect(first.values.allSatisfy { !$0.video.isEmpty && $0.audio.count == 3 })

        // Only alice's feed reports (REMB); the estimate is what it says. REMBs measure video only:
        // the room adds the consumed audio back itself, so these are video budgets.
        func step(_ bitsPerSecond: Int, frames: Int = 4) throws -> [AdaptiveSubscriptionEvent] {
            let before = room.adaptiveEvents.count
            try rig.remb(bitsPerSecond, from: "viewer", feed: "alice")
            try rig.publish(frames: frames)
            return room.adaptiveEvents[before...].map(\.event)
        }
        #expect(try step(lowest * 7 / 2) == [.paused("bob", .muted)])
        #expect(try step(lowest * 3 / 2) == [.paused("carol", .leastDominance), .paused("dave", .leastDominance)])
        #expect(try step(lowest / 2) == [.paused("alice", .leastDominance)])
        #expect(room.pausedVideos(for: "viewer") == ["alice", "bob", "carol", "dave"])

        // Everything paused: no video reaches the viewer, every audio packet still does, as sent.
        _ = try rig.received(by: "viewer")
        let sentAudio = rig.members.map { $0.audioSequence }
        try rig.publish(frames: 5)
        first = try rig.received(by: "viewer")
        for (index, member) in rig.members.enumerated() {
            let got = try #require(first[member.id])
            #expect(got.video.isEmpty, "video of \(member.id) forwarded while paused")
            #expect(got.audio.count == 5)
            #expect(got.audio.map { UInt16($0[2]) << 8 | UInt16($0[3]) } == (0..<5).map { sentAudio[index] &+ UInt16($0) })
        }
        _ = try rig.keyFrameRequests(to: "alice")

        // Room for two videos with headroom: after the hold, the pinned one and the dominant one.
        var events = try step(lowest * 5 / 2, frames: 10)
        events += try step(lowest * 5 / 2, frames: 10)
        #expect(events == [.resumed("alice", .networkStable), .resumed("dave", .networkStable)])
        // They asked for key frames and forward nothing until one comes.
        #expect(try rig.keyFrameRequests(to: "alice") > 0)
        _ = try rig.received(by: "viewer")
        try rig.publish(frames: 2)
        #expect(try rig.received(by: "viewer")["alice"]?.video.isEmpty == true)
        try rig.publish(frames: 2, keyFrameFor: ["alice", "dave"])
        let resumed = try rig.received(by: "viewer")
        for id in ["alice", "dave"] {
            let video = try #require(resumed[id]?.video)
            #expect(video.first.map(Self.isKeyFrameStart) == true, "\(id) resumed without a key frame")
        }
        #expect(resumed["carol"]?.video.isEmpty == true && resumed["bob"]?.video.isEmpty == true)

        // Plenty: the rest come back, most important first.
        events = try step(lowest * 20, frames: 10)
        events += try step(lowest * 20, frames: 10)
        #expect(events == [.resumed("carol", .networkStable), .resumed("bob", .networkStable)])
        #expect(room.pausedVideos(for: "viewer").isEmpty)
    }

    @Test func aPausedFeedKeepsItsShareOfTheEstimateSoOnePauseDoesNotCascade() throws {
        let rig = try Rig(publishers: ["alice", "bob", "carol"], subscribers: [("viewer", true)])
        rig.room.setDominanceRanking(["alice", "bob", "carol"])
        try rig.publish(frames: 2)
        let lowest = try #require(rig.room.lowestVideoBitsPerSecond(of: "alice"))
        // Each feed reports a third of a video downlink carrying 2.5 lowest videos (REMBs: video only).
        let share = lowest * 5 / 2 / 3
        for id in ["alice", "bob", "carol"] { try rig.remb(share, from: "viewer", feed: id) }
        try rig.publish(frames: 4)
        #expect(rig.room.adaptiveEvents.map(\.event) == [.paused("carol", .leastDominance)])
        #expect(rig.room.estimatedBandwidth(for: "viewer") == 3 * share)
        // The paused feed's own REMB (its estimator sees only audio now) does not lower the sum.
        try rig.remb(10_000, from: "viewer", feed: "carol")
        try rig.publish(frames: 4)
        #expect(rig.room.estimatedBandwidth(for: "viewer") == 3 * share)
        #expect(rig.room.pausedVideos(for: "viewer") == ["carol"])
    }

    @Test func feedsNeedAKnownPublisherAndARegisteredSubscriber() throws {
        let rig = try Rig(publishers: ["alice"], subscribers: [])
        let socket = try UDPSocket()
        let feed = ForwardedSubscriberConfiguration(id: "nobody", outputSSRC: 1, destination: socket.localEndpoint,
                                                    sendKeys: nil, receiveKeys: nil)
        #expect(throws: RoomError.unknownPublisher("zed")) { try rig.room.addFeed(publisher: "zed", feed) }
        #expect(throws: RoomError.unknownSubscriber("nobody")) { try rig.room.addFeed(publisher: "alice", feed) }
        #expect(rig.room.estimatedBandwidth(for: "nobody") == nil && rig.room.pausedVideos(for: "nobody").isEmpty)
    }

    @Test func disablingResumesEverythingPausedMostImportantFirst() throws {
        let rig = try Self.pausingRig()
        try rig.remb(1_000, from: "viewer", feed: "alice")
        try rig.publish(frames: 3)
        #expect(rig.room.pausedVideos(for: "viewer").count == 4)
        let before = rig.room.adaptiveEvents.count
        rig.room.setAdaptiveSubscriptions(enabled: false, for: "viewer")
        #expect(rig.room.adaptiveEvents[before...].map(\.event) == [
            .resumed("alice", .adaptiveSubscriptionsDisabled), .resumed("dave", .adaptiveSubscriptionsDisabled),
            .resumed("carol", .adaptiveSubscriptionsDisabled), .resumed("bob", .adaptiveSubscriptionsDisabled),
        ])
        // Disabled: the same starved estimate pauses nothing, and video flows again after key frames.
        try rig.remb(1_000, from: "viewer", feed: "alice")
        try rig.publish(frames: 3, keyFrameFor: ["alice", "bob", "carol", "dave"])
        #expect(rig.room.pausedVideos(for: "viewer").isEmpty)
        #expect(try rig.received(by: "viewer").values.allSatisfy { !$0.video.isEmpty })
    }

    @Test func onDemandConsumeAndStopForOneSubscriberLeaveTheOtherUnaffected() throws {
        let rig = try Rig(publishers: ["alice", "bob"], subscribers: [("picky", false), ("everyone", true)])
        try rig.publish(frames: 3)
        var picky = try rig.received(by: "picky"), everyone = try rig.received(by: "everyone")
        #expect(picky.values.allSatisfy { $0.video.isEmpty && $0.audio.isEmpty })
        #expect(everyone.values.allSatisfy { !$0.video.isEmpty && $0.audio.count == 3 })

        // The mic only: alice's audio, nothing else.
        rig.room.consume(subscriber: "picky", participant: "alice", [.microphone])
        try rig.publish(frames: 3)
        picky = try rig.received(by: "picky")
        #expect(picky["alice"]?.audio.count == 3 && picky["alice"]?.video.isEmpty == true)
        #expect(picky["bob"]?.audio.isEmpty == true && picky["bob"]?.video.isEmpty == true)

        // Then the webcam: from the next (requested) key frame on.
        _ = try rig.keyFrameRequests(to: "alice")
        rig.room.consume(subscriber: "picky", participant: "alice", [.camera])
        #expect(try rig.keyFrameRequests(to: "alice") > 0)
        try rig.publish(frames: 3, keyFrameFor: ["alice"])
        picky = try rig.received(by: "picky")
        let video = try #require(picky["alice"]?.video)
        #expect(video.first.map(Self.isKeyFrameStart) == true)
        #expect(picky["bob"]?.video.isEmpty == true)

        // Stopping: picky gets nothing of alice any more; everyone still gets all of her.
        _ = try rig.received(by: "everyone")
        rig.room.stopConsuming(subscriber: "picky", participant: "alice")
        try rig.publish(frames: 3)
        picky = try rig.received(by: "picky")
        everyone = try rig.received(by: "everyone")
        #expect(picky.values.allSatisfy { $0.video.isEmpty && $0.audio.isEmpty })
        #expect(everyone.values.allSatisfy { !$0.video.isEmpty && $0.audio.count == 3 })
    }
}

extension RTPOrRTCP {
    /// Whether the datagram is RTP (not RTCP); false for anything unclassifiable.
    static func classifyIfValid(_ datagram: [UInt8]) -> Bool { (try? classify(datagram[...])) == .rtp }
}
