import RTPWire

/// An ICE agent for one bundled component (RFC 8445, full implementation; local candidates are
/// bases: a host socket's address, or a TURN allocation's relayed address, RFC 8445 §6.1.2.2,
/// each with its own priority): connectivity checks paced every `Ta`, retransmitted with a doubling RTO,
/// regular nomination by the controlling side, role conflicts (§7.2.5.1, §7.3.1.1), peer-
/// reflexive remote candidates, and consent freshness (RFC 7675) once connected.
///
/// No I/O: the caller hands in received STUN datagrams (`handle`) and the clock (`poll`), and
/// sends the `Transmission`s they return on its socket. Requests whose USERNAME or
/// MESSAGE-INTEGRITY does not check out get no answer at all (counted). Media may flow only to
/// and from addresses of a succeeded pair (`permits`). Time is milliseconds on any monotonic
/// clock. Not `Sendable`: confined with its transport.
public final class ICEAgent {
    public enum Role: Sendable, Hashable {
        case controlling
        case controlled
    }

    /// Where the agent is (RFC 8445 §6.1.3 and RFC 7675 §5).
    public enum State: Sendable, Hashable {
        /// No remote credentials or candidates yet.
        case new
        case checking
        /// A pair is selected (nominated and succeeded); media may flow on it.
        case connected
        /// Every pair failed, or consent expired: send nothing more.
        case failed
    }

    /// A STUN datagram to send from the local candidate `source` (a host socket's address, or a
    /// relayed address: then it goes through the TURN server, RFC 8445 §6.1.2.2, RFC 8656 §10).
    public struct Transmission: Sendable, Equatable {
        public var bytes: [UInt8]
        public var destination: STUNAddress
        public var source: STUNAddress
    }

    public struct Configuration: Sendable {
        public var local: ICECredentials
        public var role: Role
        /// The tie-breaker of ICE-CONTROLLING/CONTROLLED (random per agent, RFC 8445 §7.1.3).
        public var tieBreaker: UInt64
        /// Ta: at most one new check per interval (RFC 8445 §14.2; 50 ms).
        public var pacingMilliseconds: Int64
        /// First retransmission timeout of a check, doubled each time (RFC 8445 §14.3: ≥ 500 ms).
        public var initialRTOMilliseconds: Int64
        /// Transmissions of one check before its pair fails (RFC 8489 Rc, 7).
        public var maximumTransmissions: Int
        /// Consent checks every interval ±20 % (RFC 7675 §5.1: 5 s), expiry without a response
        /// for `consentTimeoutMilliseconds` (30 s).
        public var consentIntervalMilliseconds: Int64
        public var consentTimeoutMilliseconds: Int64
        public var software: String?

        public init(local: ICECredentials, role: Role, tieBreaker: UInt64, pacingMilliseconds: Int64 = 50,
                    initialRTOMilliseconds: Int64 = 500, maximumTransmissions: Int = 7,
                    consentIntervalMilliseconds: Int64 = 5_000, consentTimeoutMilliseconds: Int64 = 30_000,
                    software: String? = nil) {
            self.local = local
            self.role = role
            self.tieBreaker = tieBreaker
            self.pacingMilliseconds = max(1, pacingMilliseconds)
            self.initialRTOMilliseconds = max(1, initialRTOMilliseconds)
            self.maximumTransmissions = max(1, maximumTransmissions)
            self.consentIntervalMilliseconds = max(100, consentIntervalMilliseconds)
            self.consentTimeoutMilliseconds = max(consentIntervalMilliseconds, consentTimeoutMilliseconds)
            self.software = software
        }
    }

    /// What the agent dropped, counted.
    public struct Counters: Sendable, Equatable {
        /// Binding requests whose USERNAME, MESSAGE-INTEGRITY or FINGERPRINT failed: unanswered.
        public var unauthenticatedRequests = 0
        /// Responses that match no transaction, come from the wrong address or fail integrity.
        public var unmatchedResponses = 0
        /// Datagrams that are not STUN messages at all.
        public var malformed = 0
        public var roleConflicts = 0
        public var checksSent = 0
        public var retransmissions = 0
        public var consentRequestsSent = 0
    }

    public private(set) var configuration: Configuration
    public private(set) var state: State = .new
    public private(set) var counters = Counters()
    public private(set) var pairs: [ICECandidatePair] = []
    /// The pair media flows on once connected.
    public private(set) var selectedPair: ICECandidatePair?
    public private(set) var remote: ICECredentials?
    /// Where the peer saw the last answered consent check come from (its XOR-MAPPED-ADDRESS),
    /// since the pair was selected: differing from the selected pair's `mappedAddress`, our
    /// address moved (a network change) and the peer still sends to the old one.
    public private(set) var consentMappedAddress: STUNAddress?

    private var localAddresses: [(address: STUNAddress, priority: UInt32)] = []
    private var remoteCandidates: [(address: STUNAddress, priority: UInt32)] = []
    private struct Transaction {
        var pairIndex: Int
        var bytes: [UInt8]
        var transmissions: Int
        var nextRetransmit: Int64
        var rto: Int64
        var nominating: Bool
        var isConsent: Bool
    }
    private var transactions: [STUNTransactionID: Transaction] = [:]
    private var triggered: [Int] = []
    private var nextCheckAt: Int64 = .min
    private var lastConsentResponse: Int64 = 0
    private var nextConsentAt: Int64 = 0
    private var random: SplitMix64

    public init(configuration: Configuration, seed: UInt64) {
        self.configuration = configuration
        random = SplitMix64(seed: seed)
    }

    public var role: Role { configuration.role }

    // MARK: - Candidates

    /// A local candidate to pair (RFC 8445 §6.1.2.2: a base): the address a host socket is bound
    /// to (host priority by default), or a relayed address with the relayed candidate's priority.
    public func addLocalAddress(_ address: STUNAddress, priority: UInt32 = ICEAgent.hostPriority) {
        guard !localAddresses.contains(where: { $0.address == address }) else { return }
        localAddresses.append((address, priority))
        for remote in remoteCandidates { addPair(local: address, remote: remote.address, remotePriority: remote.priority) }
    }

    /// The peer's credentials (from its SDP); checks start once there are candidates too.
    public func setRemoteCredentials(_ credentials: ICECredentials) {
        remote = credentials
        if state == .new, !pairs.isEmpty { state = .checking }
    }

    /// Most remote candidates kept (signalled and peer-reflexive): bounds the pairs and checks
    /// whatever a peer sends.
    public static let maximumRemoteCandidates = 64

    /// A remote candidate (from SDP or trickled). Only UDP candidates of our address family pair.
    public func addRemoteCandidate(_ address: STUNAddress, priority: UInt32) {
        guard !remoteCandidates.contains(where: { $0.address == address }),
              remoteCandidates.count < Self.maximumRemoteCandidates else { return }
        remoteCandidates.append((address, priority))
        for local in localAddresses { addPair(local: local.address, remote: address, remotePriority: priority) }
    }

    /// A host candidate's priority (type preference 126, RFC 8445 §5.1.2.2).
    public static let hostPriority = ICECandidatePair.candidatePriority(typePreference: 126)
    private static let peerReflexivePriority = ICECandidatePair.candidatePriority(typePreference: 110)

    @discardableResult
    private func addPair(local: STUNAddress, remote: STUNAddress, remotePriority: UInt32) -> Int? {
        switch (local.ip, remote.ip) {
        case (.v4, .v4), (.v6, .v6): break
        default: return nil
        }
        if let existing = pairs.firstIndex(where: { $0.local == local && $0.remote == remote }) { return existing }
        pairs.append(ICECandidatePair(local: local, remote: remote,
                                      priority: pairPriority(local: localPriority(of: local), remote: remotePriority)))
        if state == .new, self.remote != nil { state = .checking }
        return pairs.count - 1
    }

    /// ICE restart (RFC 8445 §9): new credentials on both sides (a new offer/answer). Every pair
    /// is checked again from the start with them; media keeps flowing on the selected pair until
    /// a pair is nominated anew, which then becomes the selected one. Consent runs on.
    public func restart(local: ICECredentials, remote: ICECredentials) {
        configuration.local = local
        self.remote = remote
        transactions.removeAll()
        triggered.removeAll()
        for index in pairs.indices {
            pairs[index].state = .waiting
            pairs[index].nominated = false
        }
        restarting = selectedPair != nil
        if state == .failed || state == .new { state = pairs.isEmpty ? .new : .checking }
        restarts += 1
    }

    /// ICE restarts so far.
    public private(set) var restarts = 0
    /// During a restart, the previous selected pair still carries media (and passes `permits`).
    private var restarting = false

    /// Whether media from (or to) `address` is allowed: it is the remote side of a succeeded
    /// pair and consent has not expired.
    public func permits(_ address: STUNAddress) -> Bool {
        guard state != .failed else { return false }
        if restarting, selectedPair?.remote == address { return true }
        return pairs.contains { $0.state == .succeeded && $0.remote == address }
    }

    // MARK: - Timers

    /// Runs the timers at `now`: the next paced check, retransmissions, consent. Returns what to send.
    public func poll(nowMilliseconds now: Int64) -> [Transmission] {
        guard let remote, state != .failed, state != .new else { return [] }
        var out: [Transmission] = []
        for (id, transaction) in transactions where now >= transaction.nextRetransmit {
            if transaction.transmissions >= configuration.maximumTransmissions {
                transactions[id] = nil
                if !transaction.isConsent { pairs[transaction.pairIndex].state = .failed }
                continue
            }
            var updated = transaction
            updated.transmissions += 1
            updated.rto *= 2
            updated.nextRetransmit = now + updated.rto
            transactions[id] = updated
            counters.retransmissions += 1
            out.append(Transmission(bytes: transaction.bytes, destination: pairs[transaction.pairIndex].remote,
                                    source: pairs[transaction.pairIndex].local))
        }
        if state == .checking || restarting, now >= nextCheckAt, let index = nextPairToCheck() {
            nextCheckAt = now + configuration.pacingMilliseconds
            let nominating = role == .controlling && pairs[index].state == .succeeded
            out.append(startCheck(index, remote: remote, nominating: nominating, consent: false, now: now))
        }
        if state == .checking, transactions.isEmpty, triggered.isEmpty,
           !pairs.isEmpty, pairs.allSatisfy({ $0.state == .failed }) {
            state = .failed
        }
        if state == .connected, let selected = selectedPair,
           let index = pairs.firstIndex(where: { $0.local == selected.local && $0.remote == selected.remote }) {
            if now - lastConsentResponse >= configuration.consentTimeoutMilliseconds {
                state = .failed  // RFC 7675 §5.1: consent expired, stop sending
                transactions.removeAll()
                return out
            }
            if now >= nextConsentAt {
                nextConsentAt = now + jittered(configuration.consentIntervalMilliseconds)
                counters.consentRequestsSent += 1
                out.append(startCheck(index, remote: remote, nominating: false, consent: true, now: now))
            }
        }
        return out
    }

    /// A consent check on the selected pair now, sent once (RFC 7675 §5.1 lets checks go more
    /// often than every 5 s): for a path that fell silent, whose answer, if it comes within the
    /// first retransmission timeout, refreshes consent like any other. The regular checks and the
    /// 30 s expiry run on as before. Nothing unless connected.
    public func probeConsent(nowMilliseconds now: Int64) -> [Transmission] {
        guard let remote, state == .connected, let selected = selectedPair,
              let index = pairs.firstIndex(where: { $0.local == selected.local && $0.remote == selected.remote }) else { return [] }
        counters.consentRequestsSent += 1
        let probe = startCheck(index, remote: remote, nominating: false, consent: true, now: now)
        for (id, transaction) in transactions where transaction.bytes == probe.bytes {
            transactions[id]?.transmissions = configuration.maximumTransmissions  // not retransmitted
        }
        return [probe]
    }

    /// The pair the next ordinary check goes to: a triggered one first, then the highest-priority
    /// waiting pair, then (controlling) the best succeeded pair to nominate.
    private func nextPairToCheck() -> Int? {
        while let index = triggered.first {
            triggered.removeFirst()
            if pairs[index].state != .failed, !isInFlight(index) { return index }
        }
        let waiting = pairs.indices.filter { pairs[$0].state == .waiting && !isInFlight($0) }
        if let best = waiting.max(by: { pairs[$0].priority < pairs[$1].priority }) { return best }
        if role == .controlling, selectedPair == nil || restarting {
            let valid = pairs.indices.filter { pairs[$0].state == .succeeded && !pairs[$0].nominated && !isInFlight($0) }
            return valid.max { pairs[$0].priority < pairs[$1].priority }
        }
        return nil
    }

    private func isInFlight(_ index: Int) -> Bool { transactions.values.contains { $0.pairIndex == index && !$0.isConsent } }

    private func startCheck(_ index: Int, remote: ICECredentials, nominating: Bool, consent: Bool, now: Int64) -> Transmission {
        let id = STUNTransactionID.random(using: &random)
        var attributes: [STUNAttribute] = [
            .username("\(remote.usernameFragment):\(configuration.local.usernameFragment)"),
            .priority(Self.peerReflexivePriority),
            role == .controlling ? .iceControlling(tieBreaker: configuration.tieBreaker)
                : .iceControlled(tieBreaker: configuration.tieBreaker),
        ]
        if nominating { attributes.append(.useCandidate) }
        if let software = configuration.software { attributes.insert(.software(software), at: 0) }
        let message = STUNMessage(type: STUNMessageType(method: .binding, messageClass: .request), transactionID: id,
                                  attributes: attributes)
        let bytes = (try? message.serialized(integrityKey: Array(remote.password.utf8), fingerprint: true)) ?? []
        transactions[id] = Transaction(pairIndex: index, bytes: bytes, transmissions: 1,
                                       nextRetransmit: now + configuration.initialRTOMilliseconds,
                                       rto: configuration.initialRTOMilliseconds, nominating: nominating, isConsent: consent)
        if !consent {
            if pairs[index].state == .waiting { pairs[index].state = .inProgress }
            counters.checksSent += 1
        }
        return Transmission(bytes: bytes, destination: pairs[index].remote, source: pairs[index].local)
    }

    private func jittered(_ interval: Int64) -> Int64 {
        let spread = interval / 5
        return interval - spread + Int64.random(in: 0...(2 * spread), using: &random)
    }

    // MARK: - Receiving

    /// Handles one STUN datagram that arrived on `local` from `source`; returns what to send
    /// (a response, or a triggered check). Anything else is dropped and counted.
    public func handle(_ bytes: ArraySlice<UInt8>, from source: STUNAddress, on local: STUNAddress,
                       nowMilliseconds now: Int64) -> [Transmission] {
        guard let message = try? STUNMessage(parsing: bytes), message.type.method == .binding else {
            counters.malformed += 1
            return []
        }
        switch message.type.messageClass {
        case .request: return handleRequest(message, bytes: bytes, from: source, on: local, now: now)
        case .successResponse, .errorResponse: return handleResponse(message, bytes: bytes, from: source, now: now)
        case .indication: return []  // keepalives (RFC 8445 §11): nothing to do
        }
    }

    private func handleRequest(_ message: STUNMessage, bytes: ArraySlice<UInt8>, from source: STUNAddress,
                               on local: STUNAddress, now: Int64) -> [Transmission] {
        let key = Array(configuration.local.password.utf8)
        let expectedPrefix = configuration.local.usernameFragment + ":"
        guard STUNMessage.checkFingerprint(bytes) != .invalid,
              STUNMessage.checkIntegrity(bytes, key: key) == .valid,
              message.attributes.contains(where: { if case let .username(name) = $0 { return name.hasPrefix(expectedPrefix) } else { return false } })
        else {
            counters.unauthenticatedRequests += 1
            return []
        }
        // Role conflict (RFC 8445 §7.3.1.1).
        for attribute in message.attributes {
            switch (attribute, role) {
            case let (.iceControlling(theirs), .controlling), let (.iceControlled(theirs), .controlled):
                counters.roleConflicts += 1
                let weKeepOurRole = role == .controlling ? configuration.tieBreaker >= theirs : configuration.tieBreaker < theirs
                if weKeepOurRole {
                    return [respond(to: message, source: source, on: local, error: (487, "Role Conflict"), key: key)]
                }
                switchRole()
            default:
                continue
            }
        }
        var priority = Self.peerReflexivePriority
        var useCandidate = false
        for attribute in message.attributes {
            if case let .priority(value) = attribute { priority = value }
            if case .useCandidate = attribute { useCandidate = true }
        }
        // A source we did not know is a peer-reflexive remote candidate (RFC 8445 §7.3.1.3),
        // within the bound; beyond it the request is answered but no pair is made.
        var out = [respond(to: message, source: source, on: local, error: nil, key: key)]
        if !remoteCandidates.contains(where: { $0.address == source }) {
            guard remoteCandidates.count < Self.maximumRemoteCandidates else { return out }
            remoteCandidates.append((source, priority))
        }
        if let index = addPair(local: local, remote: source, remotePriority: priority) {
            if useCandidate, role == .controlled { pairs[index].nominated = true }
            switch pairs[index].state {
            case .succeeded:
                if pairs[index].nominated { select(index, now: now) }
            case .waiting, .failed:
                // Triggered check (RFC 8445 §7.3.1.4), sent at once when nothing else is due.
                pairs[index].state = .waiting
                if let remote, state == .checking || restarting {
                    out.append(startCheck(index, remote: remote, nominating: false, consent: false, now: now))
                } else {
                    triggered.append(index)
                }
            case .inProgress:
                break
            }
        }
        return out
    }

    private func respond(to request: STUNMessage, source: STUNAddress, on local: STUNAddress, error: (Int, String)?,
                         key: [UInt8]) -> Transmission {
        var attributes: [STUNAttribute]
        let messageClass: STUNClass
        if let (code, reason) = error {
            messageClass = .errorResponse
            attributes = [.errorCode(code: code, reason: reason)]
        } else {
            messageClass = .successResponse
            attributes = [.xorMappedAddress(source)]
        }
        if let software = configuration.software { attributes.insert(.software(software), at: 0) }
        let response = STUNMessage(type: STUNMessageType(method: .binding, messageClass: messageClass),
                                   transactionID: request.transactionID, attributes: attributes)
        let bytes = (try? response.serialized(integrityKey: key, fingerprint: true)) ?? []
        return Transmission(bytes: bytes, destination: source, source: local)
    }

    private func handleResponse(_ message: STUNMessage, bytes: ArraySlice<UInt8>, from source: STUNAddress,
                                now: Int64) -> [Transmission] {
        guard let remote, let transaction = transactions[message.transactionID],
              pairs[transaction.pairIndex].remote == source,  // symmetric (RFC 8445 §7.2.5.2.1)
              STUNMessage.checkFingerprint(bytes) != .invalid,
              STUNMessage.checkIntegrity(bytes, key: Array(remote.password.utf8)) == .valid else {
            counters.unmatchedResponses += 1
            return []
        }
        transactions[message.transactionID] = nil
        let index = transaction.pairIndex
        if message.type.messageClass == .errorResponse {
            if message.errorCode?.code == 487, !transaction.isConsent {
                // Role conflict: switch and check the pair again (RFC 8445 §7.2.5.1).
                counters.roleConflicts += 1
                switchRole()
                pairs[index].state = .waiting
                triggered.append(index)
            } else if !transaction.isConsent {
                pairs[index].state = .failed
            }
            return []
        }
        if transaction.isConsent {
            lastConsentResponse = now
            consentMappedAddress = message.mappedAddress
            return []
        }
        pairs[index].state = .succeeded
        pairs[index].mappedAddress = message.mappedAddress
        if transaction.nominating { pairs[index].nominated = true }
        if pairs[index].nominated { select(index, now: now) }
        if role == .controlling, selectedPair == nil || restarting, !transaction.nominating {
            // Regular nomination: check the succeeded pair again with USE-CANDIDATE, now.
            nextCheckAt = now
            return poll(nowMilliseconds: now)
        }
        return []
    }

    private func select(_ index: Int, now: Int64) {
        guard selectedPair == nil || state != .connected || restarting else { return }
        restarting = false
        selectedPair = pairs[index]
        consentMappedAddress = nil
        state = .connected
        lastConsentResponse = now
        nextConsentAt = now + jittered(configuration.consentIntervalMilliseconds)
    }

    private func switchRole() {
        configuration.role = role == .controlling ? .controlled : .controlling
        for index in pairs.indices {
            let remotePriority = remoteCandidates.first { $0.address == pairs[index].remote }?.priority ?? Self.peerReflexivePriority
            pairs[index].priority = pairPriority(local: localPriority(of: pairs[index].local), remote: remotePriority)
        }
    }

    /// A local candidate's priority (a host one's when `local` was never added: a request that came
    /// in on an address the caller did not name).
    private func localPriority(of local: STUNAddress) -> UInt32 {
        localAddresses.first { $0.address == local }?.priority ?? Self.hostPriority
    }

    /// RFC 8445 §6.1.2.3 with our role deciding which side is G.
    private func pairPriority(local: UInt32, remote: UInt32) -> UInt64 {
        role == .controlling ? ICECandidatePair.priority(controlling: local, controlled: remote)
            : ICECandidatePair.priority(controlling: remote, controlled: local)
    }
}
