import RTPWire
import SRTP
import SessionCore

/// What a `ForwardingNode` keeps for one subscriber: its SRTP stage, the stages that answer its
/// RTCP (NACK answering from what we sent it, report blocks and RTT, REMB, its downlink estimate)
/// and time the sender reports it gets, and its counters.
final class ForwardedDownstream {
    /// Its destination moves when it falls back to TCP (`moveSubscriber`).
    var configuration: ForwardedSubscriberConfiguration
    /// Protects what we send it, unprotects its SRTCP.
    let security: SRTPSecurity
    /// What we sent it, as sent, for its NACKs (bounded by its retransmission budget).
    var retransmissions: RetransmissionStore
    var nackResponder = NACKResponder()
    var link: (any ForwardingLink)?
    var counters = ForwardedSubscriberCounters()
    /// Sender reports once a second (RFC 3550 §6.4.1), so its receiver reports carry LSR/DLSR.
    var reportSchedule = ReportScheduler(interval: 1000, streams: 1)
    /// The RTT its receiver reports give, and the bound its REMBs set.
    var reportBlocks = ReportBlockTracker(streams: 1)
    var rembLimit = REMBLimit()
    /// Its sender-report compound, reused: each report is written into the one packet list made
    /// here, so a report allocates nothing.
    private(set) var senderReportCompound = RTCPCompoundPacket(packets: [
        .senderReport(SenderReport(ssrc: 0, ntpTimestamp: 0, rtpTimestamp: 0, packetCount: 0, octetCount: 0)),
    ])
    /// The RTP timestamp of the last packet we sent it (for its sender reports).
    private(set) var lastRTPTimestamp: UInt32 = 0
    /// When the first packet with `lastRTPTimestamp` went out, ms.
    private var lastRTPTimestampSentAt: Int64 = 0
    /// The bitrate we send it, over windows of at least a second.
    var rateWindowStartMilliseconds: Int64?
    var rateWindowStartBytes = 0
    var bitsPerSecond = 0
    /// Whether the publisher's audio goes to this subscriber (on-demand consumption).
    var audioOpen = true
    /// Loss of what we sent, from its receiver reports, and the ceiling it sets on the
    /// estimate (draft-ietf-rmcat-gcc-02 §6); nil until the first measured interval.
    var delivery = ReportedDeliveryMeter()
    var lossCeiling: LossBasedRateControl
    var lossCeilingMeasured = false
    /// Send-side estimation of its downlink, when the node runs it.
    var downlink: SubscriberDownlink?

    init(_ configuration: ForwardedSubscriberConfiguration, historyCapacity: Int,
         lossControl: LossBasedRateControl.Configuration, budget: RetransmissionBudget.Configuration) throws(SRTPError) {
        self.configuration = configuration
        lossCeiling = LossBasedRateControl(configuration: lossControl)
        security = try SRTPSecurity(sendKeys: configuration.sendKeys, receiveKeys: configuration.receiveKeys)
        retransmissions = RetransmissionStore(capacity: historyCapacity, maximumPacketSize: security.maximumProtectedSize,
                                              budget: budget)
    }

    /// The bandwidth estimate for its feed: with downlink estimation, the node's own (GCC on its
    /// transport-wide feedback) once feedback acknowledged packets, capped by its REMB if lower;
    /// otherwise its latest REMB, capped by the ceiling the loss in its receiver reports sets (so
    /// a link that delivers nothing still lowers it); nil before either is known.
    var estimatedBitsPerSecond: Int? {
        let remb = rembLimit.bitsPerSecond
        if let measured = downlink?.estimatedBitsPerSecond {
            return Int(clamping: min(measured, remb ?? .max))
        }
        let ceiling = lossCeilingMeasured ? lossCeiling.bitsPerSecond : nil
        switch (remb, ceiling) {
        case let (remb?, ceiling?): return Int(clamping: min(remb, ceiling))
        case let (remb?, nil): return Int(clamping: remb)
        case let (nil, ceiling?): return Int(clamping: ceiling)
        case (nil, nil): return nil
        }
    }

    /// When the node's service next has work for this subscriber (ms; nil: none until media or
    /// feedback arrive): the link's next release, the end of a bitrate window that saw bytes (or
    /// must fall to zero), the next sender report (RFC 3550 §6.4.1) once something was sent, and
    /// the next probe step of the downlink.
    func nextDeadline(nowMilliseconds: Int64) -> Int64? {
        var earliest = link?.nextReleaseMilliseconds
        func consider(_ due: Int64?) {
            if let due { earliest = min(earliest ?? .max, due) }
        }
        if let start = rateWindowStartMilliseconds, counters.bytesSent != rateWindowStartBytes || bitsPerSecond != 0 {
            consider(start + 1000)
        }
        if counters.packetsSent > 0 { consider(reportSchedule.nextDue(ssrc: configuration.outputSSRC)) }
        consider(downlink?.nextPaddingDeadline(nowMilliseconds: nowMilliseconds))
        return earliest
    }

    /// Bits per second sent to it, over windows of at least a second.
    func measureBitrate(now: Int64) {
        guard let start = rateWindowStartMilliseconds else {
            rateWindowStartMilliseconds = now
            rateWindowStartBytes = counters.bytesSent
            return
        }
        let elapsed = now - start
        guard elapsed >= 1000 || elapsed < 0 else { return }
        let bytes = counters.bytesSent - rateWindowStartBytes
        bitsPerSecond = elapsed > 0 ? Int(Int64(bytes) * 8000 / elapsed) : 0
        rateWindowStartMilliseconds = now
        rateWindowStartBytes = counters.bytesSent
    }

    /// Notes a media packet sent at `now` (ms) with `rtpTimestamp`.
    func sent(rtpTimestamp: UInt32, now: Int64) {
        guard rtpTimestamp != lastRTPTimestamp || counters.packetsSent == 0 else { return }
        lastRTPTimestamp = rtpTimestamp
        lastRTPTimestampSentAt = now
    }

    /// Writes the sender report for its stream into `senderReportCompound` when one is due at
    /// `now` (once a second, after the first packet; RFC 3550 §6.4.1); returns whether it did.
    /// The NTP time is `ntpTimestamp`; the RTP time of the same instant is the last frame's
    /// timestamp advanced at 90 kHz (RFC 7741 §4.1) by the time since that frame went out, so a
    /// subscriber's mapping does not jump by a frame interval from one report to the next.
    func writeSenderReportIfDue(now: Int64, ntpTimestamp: @autoclosure () -> UInt64) -> Bool {
        guard counters.packetsSent > 0, reportSchedule.isDue(ssrc: configuration.outputSSRC, now: now) else { return false }
        reportSchedule.reported(ssrc: configuration.outputSSRC, now: now)
        senderReportCompound.packets[0] = .senderReport(SenderReport(
            ssrc: configuration.outputSSRC, ntpTimestamp: ntpTimestamp(),
            rtpTimestamp: lastRTPTimestamp &+ UInt32(truncatingIfNeeded: max(0, now - lastRTPTimestampSentAt) * 90), packetCount: UInt32(truncatingIfNeeded: counters.packetsSent),
            octetCount: UInt32(truncatingIfNeeded: counters.payloadOctets)))
        return true
    }
}
