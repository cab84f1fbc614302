import RTPWire

/// The publisher's RTCP out (RFC 3550 §6.4.1 SR, §6.5.1 SDES CNAME, §6.6 BYE): one compound per
/// stream that has sent media, when the `ReportScheduler` says it is due, built by
/// `ReportCompound` and SRTCP-protected on the send path.
extension Publisher {
    /// Sends SR + SDES CNAME for every stream whose report is due (and that has sent media).
    public func sendReportsIfDue() throws(PublisherError) {
        guard configuration.reportIntervalMicroseconds > 0 else { return }
        let now = path.clock.monotonicMicroseconds()
        for sender in allSenders where sender.packetCount > 0 && reportSchedule.isDue(ssrc: sender.ssrc, now: now) {
            try sendReport(for: sender, now: now)
        }
    }

    /// Sends SR + SDES CNAME now for every stream that has sent media.
    public func sendReports() throws(PublisherError) {
        let now = path.clock.monotonicMicroseconds()
        for sender in allSenders where sender.packetCount > 0 { try sendReport(for: sender, now: now) }
    }

    /// Ends the session: for every stream that sent media, a final SR + SDES CNAME + BYE
    /// (RFC 3550 §6.6: BYE is the last packet of a compound that starts with a report).
    public func sendGoodbye(reason: String? = nil) throws(PublisherError) {
        try sendGoodbye(for: allSenders, reason: reason)
    }

    /// A final SR + SDES CNAME + BYE for each of `senders` that sent media.
    func sendGoodbye(for senders: [RTPStreamSender], reason: String?) throws(PublisherError) {
        let now = path.clock.monotonicMicroseconds()
        for sender in senders where sender.packetCount > 0 {
            try sendReport(for: sender, now: now,
                           goodbye: Goodbye(ssrcs: [sender.ssrc], reason: reason.map { Array($0.utf8.prefix(255)) }))
        }
    }

    private func sendReport(for sender: RTPStreamSender, now: Int64, goodbye: Goodbye? = nil) throws(PublisherError) {
        try path.sendRTCP(ReportCompound.senderReport(sender.senderReport(), cname: configuration.cname, goodbye: goodbye),
                          ssrc: sender.ssrc)
        reportSchedule.reported(ssrc: sender.ssrc, now: now)
    }
}
