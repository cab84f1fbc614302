import RTPWire

/// The client side of one TURN allocation (RFC 8656) on one server: Allocate with long-term
/// credentials (RFC 8489 §9.2: the first request unauthenticated, the 401's REALM and NONCE
/// then used on every request; a 438 Stale Nonce retried with the new nonce), Refresh before
/// the allocation expires, CreatePermission per peer address, ChannelBind per peer, and data to
/// and from peers as Send/Data indications or ChannelData (§11, §12).
///
/// No I/O and no clock of its own: the owner sends what `takeOutgoing()` returns to the server,
/// feeds back what the server sends (`handle`), and calls `poll(now:)` by `nextDeadline` for
/// retransmissions (`STUNRetransmission`, RFC 8489 §6.2.1: RTO 500 ms doubling, 7 sends over UDP; one send over TCP)
/// and refreshes. Permissions last 300 s and are renewed at 240 s; channel bindings last 600 s
/// and are renewed at 540 s (§9, §12); the allocation is refreshed 60 s before it expires.
/// Not thread-safe.
public final class TURNClient {
    public struct Configuration: Sendable, Equatable {
        public var username: String
        public var password: String
        /// Asked for in Allocate and Refresh (the server may grant less; 600 s is its default).
        public var lifetimeSeconds: UInt32
        /// A stream transport to the server (TCP, RFC 6062 framing is the caller's): requests are sent once.
        public var reliable: Bool

        public init(username: String, password: String, lifetimeSeconds: UInt32 = 600, reliable: Bool = false) {
            self.username = username
            self.password = password
            self.lifetimeSeconds = lifetimeSeconds
            self.reliable = reliable
        }
    }

    public enum State: Sendable, Equatable {
        case idle
        case allocating
        /// The relayed address peers send to, our address as the server saw it, and when the
        /// allocation expires unless refreshed (microseconds on the caller's clock).
        case allocated(relayed: STUNAddress, mapped: STUNAddress?, expires: Int64)
        case failed(TURNError)
        case released
    }

    /// Application data from a peer, relayed by the server.
    public struct Received: Sendable, Equatable {
        public var peer: STUNAddress
        public var data: ArraySlice<UInt8>

        public init(peer: STUNAddress, data: ArraySlice<UInt8>) {
            self.peer = peer
            self.data = data
        }
    }

    public private(set) var state: State = .idle
    public let configuration: Configuration
    /// Datagrams from the server that were neither a response we wait for nor data (dropped).
    public private(set) var ignoredDatagrams = 0

    private struct Transaction {
        var method: STUNMethod
        var attributes: [STUNAttribute]
        var bytes: [UInt8]
        var retransmission: STUNRetransmission
        var staleNonceRetries = 0
        /// Sent with our credentials: its response must carry a valid MESSAGE-INTEGRITY.
        var authenticated: Bool
        var peer: STUNAddress?
        var channel: UInt16?
    }

    private var random: SplitMix64
    private var outgoing: [[UInt8]] = []
    private var transactions: [STUNTransactionID: Transaction] = [:]
    private var realm: String?
    private var nonce: String?
    private var key: [UInt8]?
    private var refreshAt: Int64?
    /// Installed permissions by peer IP, with when to renew each.
    private var permissions: [STUNAddress.IP: Int64] = [:]
    /// Channels by peer, and peers by channel; `confirmedChannels` got their ChannelBind success.
    private var channels: [STUNAddress: UInt16] = [:]
    private var peersByChannel: [UInt16: STUNAddress] = [:]
    private var channelRenewals: [UInt16: Int64] = [:]
    private var confirmedChannels: Set<UInt16> = []
    private var nextChannel = TURNChannelData.channelNumbers.lowerBound

    static let permissionRenewal: Int64 = 240_000_000
    static let channelRenewal: Int64 = 540_000_000
    static let refreshMargin: Int64 = 60_000_000

    public init(configuration: Configuration, seed: UInt64) {
        self.configuration = configuration
        random = SplitMix64(seed: seed)
    }

    /// Sends the first (unauthenticated) Allocate (REQUESTED-TRANSPORT UDP).
    public func start(now: Int64) {
        guard state == .idle else { return }
        state = .allocating
        send(.allocate, [.requestedTransport(17), .lifetime(configuration.lifetimeSeconds)], now: now)
    }

    /// Datagrams for the server, oldest first.
    public func takeOutgoing() -> [[UInt8]] {
        defer { outgoing.removeAll(keepingCapacity: true) }
        return outgoing
    }

    /// The next time `poll` has something to do.
    public var nextDeadline: Int64? {
        var deadlines = transactions.values.map(\.retransmission.nextDeadline)
        if let refreshAt { deadlines.append(refreshAt) }
        deadlines += permissions.values
        deadlines += channelRenewals.values
        return deadlines.min()
    }

    /// Retransmits what is due, gives up on what has had its sends, renews what is due.
    public func poll(now: Int64) {
        for (id, transaction) in transactions where transaction.retransmission.nextDeadline <= now {
            var next = transaction
            guard next.retransmission.resendDue(now: now) else {
                transactions[id] = nil
                if transaction.method == .allocate || transaction.method == .refresh { fail(.noResponse(method: transaction.method.rawValue)) }
                continue
            }
            transactions[id] = next
            outgoing.append(transaction.bytes)
        }
        guard case .allocated = state else { return }
        if let refreshAt, refreshAt <= now {
            self.refreshAt = nil
            send(.refresh, [.lifetime(configuration.lifetimeSeconds)], now: now)
        }
        for (ip, renewal) in permissions where renewal <= now {
            permissions[ip] = now + Self.permissionRenewal
            send(.createPermission, [.xorPeerAddress(STUNAddress(ip: ip, port: 0))], now: now)
        }
        for (channel, renewal) in channelRenewals where renewal <= now {
            guard let peer = peersByChannel[channel] else { continue }
            channelRenewals[channel] = now + Self.channelRenewal
            send(.channelBind, [.channelNumber(channel), .xorPeerAddress(peer)], now: now, peer: peer, channel: channel)
        }
    }

    /// Lets `peer`'s address send to us through the relay (and us to it).
    public func permit(_ peer: STUNAddress, now: Int64) {
        guard case .allocated = state, permissions[peer.ip] == nil else { return }
        permissions[peer.ip] = now + Self.permissionRenewal
        send(.createPermission, [.xorPeerAddress(STUNAddress(ip: peer.ip, port: 0))], now: now)
    }

    /// Binds a channel to `peer` (also permitting its address); data to it then goes as
    /// ChannelData once the server confirmed the binding. Returns the channel, nil when all are taken.
    @discardableResult
    public func bindChannel(to peer: STUNAddress, now: Int64) -> UInt16? {
        guard case .allocated = state else { return nil }
        if let channel = channels[peer] { return channel }
        guard nextChannel <= TURNChannelData.channelNumbers.upperBound else { return nil }
        let channel = nextChannel
        nextChannel += 1
        channels[peer] = channel
        peersByChannel[channel] = peer
        channelRenewals[channel] = now + Self.channelRenewal
        permissions[peer.ip] = now + Self.permissionRenewal  // a binding installs the permission too (§12.2)
        send(.channelBind, [.channelNumber(channel), .xorPeerAddress(peer)], now: now, peer: peer, channel: channel)
        return channel
    }

    /// The peer bound to `channel` (RFC 8656 §12): where ChannelData on it came from.
    public func peer(onChannel channel: UInt16) -> STUNAddress? { peersByChannel[channel] }

    /// Whether a channel to `peer` was asked for (confirmed or not).
    public func hasChannel(to peer: STUNAddress) -> Bool { channels[peer] != nil }

    /// The relayed transport address while allocated.
    public var relayedAddress: STUNAddress? {
        if case let .allocated(relayed, _, _) = state { relayed } else { nil }
    }

    /// Appends what carries `data` to `peer` through the relay: ChannelData on a confirmed
    /// channel, a Send indication otherwise.
    public func wrap(_ data: UnsafeRawBufferPointer, to peer: STUNAddress, into buffer: inout [UInt8]) throws(WireError) {
        if let channel = channels[peer], confirmedChannels.contains(channel) {
            try TURNChannelData.write(channel: channel, data: data, padded: configuration.reliable, into: &buffer)
            return
        }
        let indication = STUNMessage(type: STUNMessageType(method: .send, messageClass: .indication),
                                     transactionID: .random(using: &random),
                                     attributes: [.xorPeerAddress(peer), .data(Array(data))])
        buffer += try indication.serialized()
    }

    /// Ends the allocation (Refresh with LIFETIME 0).
    public func release(now: Int64) {
        guard case .allocated = state else { return }
        send(.refresh, [.lifetime(0)], now: now)
        state = .released
        stopRenewing()
    }

    /// One datagram from the server: a response to one of our requests (acted on, nil
    /// returned), or data from a peer (returned). Anything else is counted and dropped.
    public func handle(_ datagram: ArraySlice<UInt8>, now: Int64) -> Received? {
        if TURNChannelData.isChannelData(datagram) {
            guard let (channel, data) = try? TURNChannelData.parse(datagram), let peer = peersByChannel[channel] else {
                ignoredDatagrams += 1
                return nil
            }
            return Received(peer: peer, data: data)
        }
        guard STUNMessage.isSTUN(datagram), let message = try? STUNMessage(parsing: datagram) else {
            ignoredDatagrams += 1
            return nil
        }
        switch message.type.messageClass {
        case .indication:
            guard message.type.method == .data, let peer = message.peerAddress, let data = message.dataAttribute,
                  permissions[peer.ip] != nil else {
                ignoredDatagrams += 1
                return nil
            }
            return Received(peer: peer, data: data[...])
        case .successResponse, .errorResponse:
            guard let transaction = transactions[message.transactionID] else {
                ignoredDatagrams += 1
                return nil
            }
            // Once we authenticate, a success must prove it knows the key too (RFC 8489 §9.2.5). An
            // error response is taken unsigned: a server cannot sign the 401 to a wrong password,
            // and a forged error can do no more than a dropped response.
            if message.type.messageClass == .successResponse, transaction.authenticated, let key,
               STUNMessage.checkIntegrity(datagram, key: key) != .valid {
                ignoredDatagrams += 1
                return nil
            }
            transactions[message.transactionID] = nil
            if message.type.messageClass == .successResponse {
                succeeded(transaction, message, now: now)
            } else {
                refused(transaction, message, now: now)
            }
            return nil
        case .request:
            ignoredDatagrams += 1
            return nil
        }
    }

    // MARK: - Private

    private func succeeded(_ transaction: Transaction, _ message: STUNMessage, now: Int64) {
        switch transaction.method {
        case .allocate:
            guard let relayed = message.relayedAddress else {
                fail(.malformedResponse("Allocate success without XOR-RELAYED-ADDRESS"))
                return
            }
            holdAllocation(relayed: relayed, mapped: message.mappedAddress, lifetime: message.lifetime, now: now)
        case .refresh:
            guard case let .allocated(relayed, mapped, _) = state else { return }
            holdAllocation(relayed: relayed, mapped: mapped, lifetime: message.lifetime, now: now)
        case .channelBind:
            if let channel = transaction.channel { confirmedChannels.insert(channel) }
        default:
            break
        }
    }

    /// The allocation holds until `lifetime` (seconds, the server's; ours if it named none) from
    /// now, and is refreshed `refreshMargin` before that (at half its life when that is sooner).
    private func holdAllocation(relayed: STUNAddress, mapped: STUNAddress?, lifetime: UInt32?, now: Int64) {
        let microseconds = Int64(lifetime ?? configuration.lifetimeSeconds) * 1_000_000
        state = .allocated(relayed: relayed, mapped: mapped, expires: now + microseconds)
        refreshAt = now + max(microseconds / 2, microseconds - Self.refreshMargin)
    }

    private func refused(_ transaction: Transaction, _ message: STUNMessage, now: Int64) {
        let (code, reason) = message.errorCode ?? (0, "no ERROR-CODE")
        switch code {
        case 401 where key == nil:
            // The challenge: long-term credentials from now on (RFC 8489 §9.2.3).
            guard let realm = message.realm, let nonce = message.nonce else {
                fail(.malformedResponse("401 without REALM and NONCE"))
                return
            }
            self.realm = realm
            self.nonce = nonce
            key = MD5.longTermKey(username: configuration.username, realm: realm, password: configuration.password)
            send(transaction.method, transaction.attributes, now: now, peer: transaction.peer, channel: transaction.channel)
        case 401:
            fail(.wrongCredentials(reason: reason))
        case 438 where transaction.staleNonceRetries < 2:
            guard let nonce = message.nonce else {
                fail(.malformedResponse("438 without NONCE"))
                return
            }
            self.nonce = nonce
            send(transaction.method, transaction.attributes, now: now, peer: transaction.peer, channel: transaction.channel,
                 staleNonceRetries: transaction.staleNonceRetries + 1)
        case 486:
            fail(.allocationQuotaReached)
        case 437:
            fail(.allocationMismatch)
        default:
            if transaction.method == .allocate || transaction.method == .refresh {
                fail(.refused(code: code, reason: reason))
            } else if let channel = transaction.channel, let peer = transaction.peer {
                // A refused binding: data to that peer goes as Send indications.
                channels[peer] = nil
                peersByChannel[channel] = nil
                channelRenewals[channel] = nil
            }
        }
    }

    private func fail(_ error: TURNError) {
        state = .failed(error)
        transactions = [:]
        stopRenewing()
    }

    /// No more refreshes or renewals (the allocation is gone or going).
    private func stopRenewing() {
        refreshAt = nil
        permissions = [:]
        channelRenewals = [:]
    }

    private func send(_ method: STUNMethod, _ attributes: [STUNAttribute], now: Int64, peer: STUNAddress? = nil,
                      channel: UInt16? = nil, staleNonceRetries: Int = 0) {
        let id = STUNTransactionID.random(using: &random)
        var all = attributes
        if let realm, let nonce {
            all += [.username(configuration.username), .realm(realm), .nonce(nonce)]
        }
        let message = STUNMessage(type: STUNMessageType(method: method, messageClass: .request), transactionID: id, attributes: all)
        guard let bytes = try? message.serialized(integrityKey: key, fingerprint: false) else {
            fail(.malformedResponse("a request this client could not write (credentials too long)"))
            return
        }
        transactions[id] = Transaction(method: method, attributes: attributes, bytes: bytes,
                                       retransmission: STUNRetransmission(reliable: configuration.reliable, sentAt: now),
                                       staleNonceRetries: staleNonceRetries, authenticated: key != nil, peer: peer, channel: channel)
        outgoing.append(bytes)
    }
}
