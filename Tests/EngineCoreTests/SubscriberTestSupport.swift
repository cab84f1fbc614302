import MediaCodecs
import RTPWire
import SRTP
@testable import EngineCore
import SessionCore

/// A settable clock for the subscriber (microseconds): the loopback tests advance it by hand so


enum TestKeys {
    static func material(_ seed: UInt8) throws -> SRTPKeyingMaterial {
        try SRTPKeyingMaterial(masterKey: (0..<16).map { seed &+ UInt8($0) },
                               masterSalt: (0..<14).map { seed &* 3 &+ UInt8($0) })
    }
}

/// The publishing side of the loopback tests: SRTP-protects RTP, keeps every protected packet in
/// a `PacketHistory`, and sends through an impairment step (seeded random loss; reordering by
/// swapping a packet with the next one). It reads the subscriber's SRTCP and answers generic
/// NACKs by resending from the history (resends are subject to the same loss).
final class ImpairedSender {
    let socket: UDPSocket
    let destination: NetworkEndpoint
    let outbound: SRTPSession
    let inbound: SRTPSession
    let ssrc: UInt32
    var lossProbability: Double
    var reorderProbability: Double
    var burstLength: ClosedRange<Int> = 1...1
    private var random: SplitMix64
    private var history = PacketHistory(capacity: 2048, maximumPacketSize: 1500)
    private var held: [UInt8]?
    private var protected = [UInt8](repeating: 0, count: 1500 + SRTPSession.maxTrailerLength)
    private var receiveBuffer = [UInt8](repeating: 0, count: 2048)
    private var burstRemaining = 0

    private(set) var packetsSent = 0
    private(set) var droppedSequenceNumbers = Set<UInt16>()
    private(set) var droppedResends = 0
    private(set) var reordered = 0
    private(set) var resends = 0
    private(set) var nacksReceived = 0
    private(set) var plisReceived = 0
    private(set) var rembs: [UInt64] = []
    private(set) var reportBlocks: [ReportBlock] = []
    /// Report blocks with the time (subscriber clock, microseconds) the sender read them.
    private(set) var reportArrivals: [(block: ReportBlock, arrivalMicroseconds: Int64)] = []
    private(set) var rtcpFailures = 0
    var keyFrameRequested = false

    init(to destination: NetworkEndpoint, ssrc: UInt32, seed: UInt64, loss: Double, reorder: Double,
         sendKeys: SRTPKeyingMaterial, receiveKeys: SRTPKeyingMaterial) throws {
        socket = try UDPSocket()
        try socket.setReceiveBufferSize(1 << 20)
        self.destination = destination
        self.ssrc = ssrc
        outbound = try SRTPSession(direction: .outbound, keyingMaterial: sendKeys)
        inbound = try SRTPSession(direction: .inbound, keyingMaterial: receiveKeys)
        random = SplitMix64(seed: seed)
        lossProbability = loss
        reorderProbability = reorder
    }

    /// Protects and sends one plain RTP packet through the impairment.
    func send(rtp plain: [UInt8], sequenceNumber: UInt16) throws {
        let length = try outbound.protectRTP(plain, into: &protected)
        let wire = Array(protected[0..<length])
        history.store(wire, sequenceNumber: sequenceNumber)
        packetsSent += 1
        // The stream's first packet always arrives: a receiver cannot NACK a packet before the
        // first one it ever saw (that case needs a PLI, covered by the key-frame recovery tests).
        if packetsSent > 1, shouldDrop() {
            droppedSequenceNumbers.insert(sequenceNumber)
            return
        }
        if held == nil && random.chance(reorderProbability) {
            held = wire
            reordered += 1
            return
        }
        try socket.send(wire, to: destination)
        try flushHeld()
    }

    /// Protects and sends an RTCP compound packet (no impairment).
    func send(rtcp compound: RTCPCompoundPacket) throws {
        let length = try outbound.protectRTCP(try compound.serialized(), into: &protected)
        try socket.send(Array(protected[0..<length]), to: destination)
    }

    private func shouldDrop() -> Bool {
        if burstRemaining > 0 {
            burstRemaining -= 1
            return true
        }
        guard random.chance(lossProbability) else { return false }
        burstRemaining = Int(random.next() % UInt64(burstLength.count)) + burstLength.lowerBound - 1
        return true
    }

    /// Sends a packet held back for reordering.
    func flushHeld() throws {
        if let packet = held {
            held = nil
            try socket.send(packet, to: destination)
        }
    }

    /// Reads the subscriber's RTCP and answers NACKs (resends) and PLIs (flags a key frame).
    func serviceRTCP(nowMicroseconds: Int64 = 0) throws {
        while true {
            let received = try receiveBuffer.withUnsafeMutableBytes { try socket.receive(into: $0, timeoutMilliseconds: 0) }
            guard let received else { return }
            let length: Int
            do {
                length = try inbound.unprotectRTCP(Array(receiveBuffer[0..<received.count]), into: &receiveBuffer)
            } catch {
                rtcpFailures += 1
                continue
            }
            let compound = try RTCPCompoundPacket(parsing: receiveBuffer[0..<length])
            for packet in compound.packets {
                switch packet {
                case let .genericNACK(nack):
                    nacksReceived += 1
                    for seq in nack.lostSequenceNumbers { try resend(seq) }
                case .pictureLossIndication:
                    plisReceived += 1
                    keyFrameRequested = true
                case let .receiverEstimatedMaxBitrate(remb):
                    rembs.append(remb.bitrate)
                case let .receiverReport(report):
                    reportBlocks.append(contentsOf: report.reportBlocks)
                    for block in report.reportBlocks { reportArrivals.append((block, nowMicroseconds)) }
                default:
                    break
                }
            }
        }
    }

    private func resend(_ seq: UInt16) throws {
        let packet = history.withPacket(sequenceNumber: seq) { Array($0) }
        guard let packet else { return }
        resends += 1
        if random.chance(lossProbability) {
            droppedResends += 1
            return
        }
        try socket.send(packet, to: destination)
    }
}

extension SplitMix64 {
    /// True with probability `probability` (0...1).
    mutating func chance(_ probability: Double) -> Bool {
        Double(next() >> 11) / Double(1 << 53) < probability
    }
}
