import EngineCore
import SessionCore
import RTPWire
import Simulcast
import SRTP

/// `ForwardingNode.handle(datagram:from:)` and `service()` on datagram scripts (see
/// `DatagramScript`): a node forwarding a 3-layer publisher (and its audio) to one or two
/// subscribers, fed from the publisher's address, the subscribers' addresses and a stranger's.
///
/// The node's socket is a real one on 127.0.0.1; every address it can send to is a socket of this
/// process (the publisher's, the subscribers', the stranger's), drained and counted after every
/// record. What it sends the subscribers goes through a `CountingLink` and is only counted.
///
/// Variant bit 0: the publisher uses SRTP (and the node SRTCP towards it); bit 1: subscriber A
/// uses SRTP; bit 2: subscriber B exists; bit 3: B uses SRTP; bit 4: the publisher's RTCP address
/// is configured (else learnt from its media); bit 5: the publisher has an audio track; bit 6: A
/// prefers low quality. Sources: 0, 1, 5 the publisher; 2, 6 A; 3 B; 4, 7 the stranger. An action
/// record calls a control API chosen by its first byte (preference, layer cap, video/audio
/// forwarding, removing and re-adding B).
///
/// Invariants: no trap; per subscriber, NACKed = resent + rebuilt + missing; bytes sent stay within
/// `OutputBudget`.
enum NodeCheck {
    static let layerSSRCs: [UInt32] = [0x0300_0001, 0x0300_0002, 0x0300_0003]
    static let audioSSRC: UInt32 = 0x0300_00A0
    static let outputSSRCs: [UInt32] = [0x0A00_0001, 0x0B00_0001]
    static let publisherKeys: UInt8 = 6, feedbackKeys: UInt8 = 11
    /// Per subscriber: the keys its SRTCP is protected with, and the node's keys towards it.
    static let subscriberSendKeys: [UInt8] = [7, 9], subscriberReceiveKeys: [UInt8] = [8, 10]
    /// Packets kept for NACKs (the default 1024 costs megabytes per input; wrap-around is the same).
    static let historyCapacity = 64
    static let plan: LayerPlan = {
        do { return try LayerPlan(width: 960, height: 540) } catch { fatalError("\(error)") }
    }()

    /// Sockets shared by every run (bound once): the node's, then publisher, A, B, stranger.
    nonisolated(unsafe) static let sockets: (node: UDPSocket, peers: [UDPSocket]) = {
        do {
            let peers = try (0..<4).map { _ throws(NetworkError) in try UDPSocket() }
            for peer in peers { try peer.setReceiveBufferSize(4 << 20) }
            return (try UDPSocket(), peers)
        } catch {
            fatalError("fuzz-engine: cannot bind loopback sockets: \(error)")
        }
    }()
    static let sourceRoles = [0, 0, 1, 2, 3, 0, 1, 3]  // index into sockets.peers
    nonisolated(unsafe) static var drainBuffer = [UInt8](repeating: 0, count: 65_536)

    /// Bytes waiting on the peer sockets (what the node sent them since the last call).
    static func drainPeers() -> Int {
        var bytes = 0
        for peer in sockets.peers {
            while let received = try? peer.receive(into: &drainBuffer, timeoutMilliseconds: 0) { bytes += received.count }
        }
        return bytes
    }

    static func subscriber(_ index: Int, variant: UInt8) -> ForwardedSubscriberConfiguration {
        let secure = index == 0 ? variant & 2 != 0 : variant & 8 != 0
        return ForwardedSubscriberConfiguration(
            id: index == 0 ? "A" : "B", outputSSRC: outputSSRCs[index], destination: sockets.peers[1 + index].localEndpoint,
            sendKeys: secure ? FuzzKeys.material(subscriberReceiveKeys[index]) : nil,
            receiveKeys: secure ? FuzzKeys.material(subscriberSendKeys[index]) : nil,
            preference: index == 0 && variant & 0x40 != 0 ? .quality(.low) : .quality(.high))
    }

    /// A node per the variant, with its subscribers' links.
    static func makeNode(variant: UInt8, clock: SimulatedClock) -> (ForwardingNode, [CountingLink]) {
        let secure = variant & 1 != 0
        let configuration = ForwardingNodeConfiguration(
            plan: plan, layerSSRCs: layerSSRCs,
            publisherKeys: secure ? FuzzKeys.material(publisherKeys) : nil,
            feedbackKeys: secure ? FuzzKeys.material(feedbackKeys) : nil,
            publisherRTCPEndpoint: variant & 0x10 != 0 ? sockets.peers[0].localEndpoint : nil,
            historyCapacity: historyCapacity, audioSSRC: variant & 0x20 != 0 ? audioSSRC : nil)
        let links = [CountingLink(), CountingLink()]
        do {
            let node = try ForwardingNode(configuration: configuration, transport: sockets.node, clock: clock.mediaClock)
            try node.addSubscriber(subscriber(0, variant: variant), link: links[0])
            if variant & 4 != 0 { try node.addSubscriber(subscriber(1, variant: variant), link: links[1]) }
            return (node, links)
        } catch {
            fatalError("fuzz-engine: node setup failed: \(error)")
        }
    }

    static func run(_ bytes: [UInt8]) -> String? {
        _ = drainPeers()  // nothing of an earlier input may count for this one
        let script = DatagramScript(bytes)
        let clock = SimulatedClock()
        let (node, links) = makeNode(variant: script.variant, clock: clock)
        // The harness's SRTP per source role: publisher and stranger protect like the publisher.
        let secure = script.variant & 1 != 0
        let outbound: [SRTPSession?] = [
            secure ? try? SRTPSession(direction: .outbound, keyingMaterial: FuzzKeys.material(publisherKeys)) : nil,
            script.variant & 2 != 0 ? try? SRTPSession(direction: .outbound, keyingMaterial: FuzzKeys.material(subscriberSendKeys[0])) : nil,
            script.variant & 8 != 0 ? try? SRTPSession(direction: .outbound, keyingMaterial: FuzzKeys.material(subscriberSendKeys[1])) : nil,
            secure ? try? SRTPSession(direction: .outbound, keyingMaterial: FuzzKeys.material(publisherKeys)) : nil,
        ]
        var preparer = DatagramPreparer()
        var budget = OutputBudget(inputBytes: bytes.count, clock: clock)
        var socketBytes = drainPeers()  // what setup sent (e.g. key-frame requests) counts too
        for (index, record) in script.records.enumerated() {
            clock.advance(record.advanceMicroseconds)
            let role = sourceRoles[record.source]
            if record.isAction {
                act(on: node, record.datagram, variant: script.variant, links: links)
            } else {
                node.handle(datagram: preparer.prepare(record, with: outbound[role]), from: sockets.peers[role].localEndpoint)
            }
            if record.service { node.service() }
            socketBytes += drainPeers()
            budget.sentBytes = socketBytes + links[0].bytes + links[1].bytes
            if let violation = budget.violation(at: clock, what: "node (record \(index))") { return violation }
            for id in node.subscriberIds {
                guard let counters = node.counters(for: id) else { return "no counters for subscriber \(id)" }
                guard counters.retransmitted + counters.rebuilt + counters.missing == counters.nacked else {
                    return "record \(index): subscriber \(id): \(counters.nacked) NACKed, \(counters.retransmitted) resent + \(counters.rebuilt) rebuilt + \(counters.missing) missing"
                }
            }
        }
        return nil
    }

    /// A control call between datagrams: `parameters[0]` picks it, `parameters[1]` its argument.
    static func act(on node: ForwardingNode, _ parameters: [UInt8], variant: UInt8, links: [CountingLink]) {
        let argument = parameters.count > 1 ? parameters[1] : 0
        let id = argument & 0x80 != 0 ? "B" : "A"
        switch (parameters.first ?? 0) % 6 {
        case 0:
            let preferences: [EffectivePreference] = [
                .quality(.low), .quality(.medium), .quality(.high), .disabled,
                .viewPort(VideoSize(width: Int(argument & 0x7F) * 8, height: Int(argument & 0x7F) * 4)),
            ]
            try? node.setPreference(preferences[Int(argument) % preferences.count], for: id)
        case 1:
            node.setHighestAvailableSpatialLayer(argument % 4 == 3 ? nil : Int(argument % 4))
        case 2:
            try? node.setVideoForwarding(argument & 1 != 0, for: id)
        case 3:
            try? node.setAudioForwarding(argument & 1 != 0, for: id)
        case 4:
            node.removeSubscriber(id)
        default:
            let index = id == "A" ? 0 : 1
            try? node.addSubscriber(subscriber(index, variant: variant), link: links[index])
        }
    }
}
