import Foundation
internal import EngineCore
internal import RTPWire
internal import SessionCore
import SRTP

/// The one subscriber peer connection of a Janus room (Janus 1.1 multistream, issue 28): every
/// consumed stream of every publisher arrives on it. The first consume connects it
/// (`JanusMultistreamSubscription.connect`, subscriber `join` with `streams`), later ones send
/// `update` with `subscribe`, stopping one `update` with `unsubscribe`; each offer Janus sends
/// back is answered with `start` on the signalling worker, in order. Back on the loop each
/// negotiation is applied: a stream Janus lists with a publisher and a section we accepted gets
/// an endpoint (`Subscriber`, no transport of its own, its RTCP sent on the shared one) routed
/// by mid in the `BundledStreamDemultiplexer`; a stream no longer listed, or whose publisher
/// left or unpublished (`drop`), ends (its app streams finish). Loop-confined.
final class JanusSubscriberConnection {
    typealias Completion = (Result<JanusReceivedStream, EngineError>) -> Void

    private let options: JanusMultistreamSubscription.Options
    private let worker: SignallingWorker
    /// Who a feed is (participant id) and what kind its mid carries, from the room's roster.
    private let identify: (Int, String?) -> (publisherId: String, kind: PublishedTrackKind?)
    /// The subscription's signalling: made on the loop, used only on the worker.
    private(set) var session: JanusMultistreamSubscription?
    private(set) var demultiplexer: BundledStreamDemultiplexer?
    private var keys: (remote: SRTPKeyingMaterial, local: SRTPKeyingMaterial)?
    private var remote: NetworkEndpoint?
    /// Received streams by the subscriber's mid.
    private(set) var streams: [String: JanusReceivedStream] = [:]
    /// The subscriber mid each (feed, kind) was last received on, for counting after it stopped.
    private var lastMids: [String: String] = [:]
    private var isClosed = false
    /// Called with every stream as it starts (the room's E2EE opener goes on its video there).
    var onStreamStarted: ((JanusReceivedStream) -> Void)?
    /// Called with every stream as it ends (the room's speakers and quality forget it there).
    var onStreamEnded: ((JanusReceivedStream) -> Void)?
    /// Where a trickle request that failed is reported (`SignallingWorker.forwardTrickle`).
    var onTrickleFailureEvents: AsyncStream<ParticipantEvent>.Continuation?
    /// Consumes waiting for a negotiation, and the streams asked for that none answered yet.
    private var waiting: [(wish: JanusReceivedStream.Wish, completion: Completion)] = []
    private var inFlight: Set<String> = []

    init(options: JanusMultistreamSubscription.Options, worker: SignallingWorker,
         identify: @escaping (Int, String?) -> (publisherId: String, kind: PublishedTrackKind?)) {
        self.options = options
        self.worker = worker
        self.identify = identify
    }

    /// The stream `wish` names, once received; a consume already answered returns at once.
    func stream(for wish: JanusReceivedStream.Wish) -> JanusReceivedStream? { earliest(streams.values.filter(wish.matches)) }

    /// The stream of `feed`'s `kind` (the earliest m-line when a whole-feed subscribe and a
    /// per-mid one both brought it).
    func stream(feed: Int, kind: PublishedTrackKind) -> JanusReceivedStream? {
        earliest(streams.values.filter { $0.feed == feed && $0.kind == kind })
    }

    private func earliest(_ candidates: [JanusReceivedStream]) -> JanusReceivedStream? {
        candidates.min { ($0.mid.count, $0.mid) < ($1.mid.count, $1.mid) }
    }

    /// Subscribes to what `wishes` name (one request for all that is not asked for already)
    /// and completes each once the negotiation that carries it is applied.
    func consume(_ wishes: [(wish: JanusReceivedStream.Wish, completion: Completion)]) {
        var selectors: [JanusVideoRoomRequest.StreamSelector] = []
        for entry in wishes {
            if let existing = stream(for: entry.wish) {
                entry.completion(.success(existing))
                continue
            }
            waiting.append(entry)
            let key = entry.wish.key
            if !inFlight.contains(key) {
                inFlight.insert(key)
                selectors.append(entry.wish.selector)
            }
        }
        guard !selectors.isEmpty else { return }
        let asked = selectors
        let keys = Set(selectors.map(JanusReceivedStream.Wish.key))
        let handOff = LoopHandOff(self)
        if let session {
            let work = LoopHandOff(session)
            worker.run({ () -> LoopHandOff<Result<JanusMultistreamSubscription.Negotiation?, EngineError>> in
                LoopHandOff(Self.attempt("subscribing") { () throws(JanusSessionFailure) in
                    try work.value.update(subscribe: asked, unsubscribe: [])
                })
            }, then: { runtime, outcome in
                handOff.value.finish(outcome.value, asked: keys, runtime: runtime)
            }, ifStopped: { _ in })
            return
        }
        let session = JanusMultistreamSubscription(options: options)
        self.session = session
        let work = LoopHandOff(session)
        worker.run({ () -> LoopHandOff<Result<JanusMultistreamSubscription.Connected, EngineError>> in
            LoopHandOff(Self.attempt("subscribing") { () throws(JanusSessionFailure) in try work.value.connect(streams: asked) })
        }, then: { runtime, outcome in
            handOff.value.finishConnecting(outcome.value, session: work.value, asked: keys, runtime: runtime)
        }, ifStopped: { outcome in
            if case .success = outcome.value { work.value.leave() }
        })
    }

    /// Stops receiving the stream on `mid` (its app streams finish) and asks Janus to drop it.
    func unsubscribe(mid: String) {
        guard let stream = streams[mid] else { return }
        drop(mid: mid)
        guard let session else { return }
        let work = LoopHandOff(session)
        let selector = JanusVideoRoomRequest.StreamSelector(feed: stream.feed, mid: stream.feedMid)
        let handOff = LoopHandOff(self)
        worker.run({ () -> LoopHandOff<Result<JanusMultistreamSubscription.Negotiation?, EngineError>> in
            LoopHandOff(Self.attempt("unsubscribing") { () throws(JanusSessionFailure) in
                try work.value.update(subscribe: [], unsubscribe: [selector])
            })
        }, then: { runtime, outcome in
            handOff.value.finish(outcome.value, asked: [], runtime: runtime)
        }, ifStopped: { _ in })
    }

    /// `configure` of our mids from the worker; a failure goes to `onFailure` there.
    func configure(_ settings: [JanusVideoRoomRequest.StreamSetting], onFailure: @escaping @Sendable (String) -> Void) {
        guard let session else { return }
        let work = LoopHandOff(session)
        worker.run {
            do throws(JanusHTTPClient.Failure) { try work.value.configure(settings) } catch { onFailure("\(error)") }
        }
    }

    /// The streams of a publisher that left (every kind) or unpublished some tracks end now;
    /// Janus's inactive m-lines are renegotiated at the next `update` (`autoupdate: false`).
    func drop(publisherId: String, kinds: Set<PublishedTrackKind>? = nil) {
        for stream in streams.values where stream.publisherId == publisherId && (kinds?.contains(stream.kind) ?? true) {
            drop(mid: stream.mid)
        }
    }

    private func drop(mid: String) {
        guard let stream = streams.removeValue(forKey: mid) else { return }
        onStreamEnded?(stream)
        stream.close()
        demultiplexer?.removeRoute(mid: mid)
    }

    /// RTP packets of `feed`'s `kind` that reached the socket (nil: never received).
    func packetsOnSocket(feed: Int, kind: PublishedTrackKind) -> Int64? {
        guard let mid = lastMids["\(feed)/\(kind)"], let demultiplexer else { return nil }
        return demultiplexer.packetsReceived(mid: mid)
    }

    // MARK: - Back on the loop

    private func finishConnecting(_ outcome: Result<JanusMultistreamSubscription.Connected, EngineError>,
                                  session: JanusMultistreamSubscription, asked: Set<String>, runtime: EngineRuntime) {
        switch outcome {
        case let .failure(error):
            if self.session === session { self.session = nil }
            finish(.failure(error), asked: asked, runtime: runtime)
        case let .success(connected):
            guard !isClosed, self.session === session else {
                let handOff = LoopHandOff(session)
                worker.run { handOff.value.leave() }
                return finish(.failure(.closed("the Janus subscription")), asked: asked, runtime: runtime)
            }
            demultiplexer = BundledStreamDemultiplexer(transport: connected.transport)
            worker.forwardTrickle(of: connected.transport.ice, events: onTrickleFailureEvents) { candidate throws(JanusHTTPClient.Failure) in
                try session.trickle(candidate)
            }
            keys = (connected.keys.remote, connected.keys.local)
            remote = connected.remote
            finish(.success(connected.negotiation), asked: asked, runtime: runtime)
        }
    }

    /// Applies a negotiation; completes every waiting consume whose stream is there, and fails
    /// those whose request is answered without it.
    private func finish(_ outcome: Result<JanusMultistreamSubscription.Negotiation?, EngineError>, asked: Set<String>,
                        runtime: EngineRuntime) {
        inFlight.subtract(asked)
        var failure: EngineError?
        switch outcome {
        case let .failure(error): failure = error
        case let .success(negotiation?): if !isClosed { apply(negotiation, runtime: runtime) }
        case .success(nil): break
        }
        if isClosed { failure = .closed("the Janus subscription") }
        let pending = waiting
        waiting.removeAll()
        for entry in pending {
            if failure == nil, let stream = stream(for: entry.wish) {
                entry.completion(.success(stream))
            } else if inFlight.contains(entry.wish.key) {
                waiting.append(entry)
            } else {
                entry.completion(.failure(failure ?? .notPublished(participant: "feed \(entry.wish.feed)",
                                                                   track: "\(entry.wish.kind) (Janus offered no such stream)")))
            }
        }
    }

    private func apply(_ negotiation: JanusMultistreamSubscription.Negotiation, runtime: EngineRuntime) {
        guard !negotiation.ended else {
            for mid in Array(streams.keys) { drop(mid: mid) }
            demultiplexer = nil
            session = nil
            return
        }
        guard let demultiplexer, let keys, let remote else { return }
        demultiplexer.learn(negotiation.sections)
        var listed: Set<String> = []
        for entry in negotiation.streams {
            guard let feed = entry.feedID, entry.active, let section = negotiation.sections.first(where: { $0.mid == entry.mid }) else { continue }
            if let existing = streams[entry.mid], existing.feed == feed, existing.feedMid == entry.feedMid {
                listed.insert(entry.mid)
                continue
            }
            drop(mid: entry.mid)
            let who = identify(feed, entry.feedMid)
            let kind: PublishedTrackKind = section.kind == .audio ? .microphone : (who.kind == .screenShare ? .screenShare : .camera)
            guard let subscriber = Self.endpoint(for: section, keys: keys, remote: remote, transport: demultiplexer.transport,
                                                 localSSRC: runtime.randomSSRC(), cname: options.cname) else { continue }
            let stream = JanusReceivedStream(publisherId: who.publisherId, feed: feed, feedMid: entry.feedMid, mid: entry.mid,
                                             kind: kind, subscriber: subscriber)
            streams[entry.mid] = stream
            onStreamStarted?(stream)
            lastMids["\(feed)/\(kind)"] = entry.mid
            demultiplexer.route(mid: entry.mid, to: subscriber)
            listed.insert(entry.mid)
        }
        for mid in streams.keys where !listed.contains(mid) { drop(mid: mid) }
    }

    /// The ICE candidate pair the subscriber peer connection runs on (nil before it connected).
    var selectedCandidatePair: SelectedCandidatePair? {
        (demultiplexer?.transport as? WebRTCTransport)?.ice.selectedCandidates.map(SelectedCandidatePair.init)
    }

    /// The endpoint of one accepted section: its payload type (the other kind's set apart so
    /// that it never matches), the SRTP keys of the shared DTLS, RTCP sent on the shared transport.
    private static func endpoint(for section: ReceivingSession.Section, keys: (remote: SRTPKeyingMaterial, local: SRTPKeyingMaterial), remote: NetworkEndpoint,
                                 transport: any DatagramTransport, localSSRC: UInt32, cname: String) -> Subscriber? {
        let other: UInt8 = section.payloadType == 127 ? 126 : 127
        var configuration = SubscriberConfiguration(
            localSSRC: localSSRC, cname: cname,
            videoPayloadType: section.kind == .video ? section.payloadType : other,
            audioPayloadType: section.kind == .audio ? section.payloadType : other,
            security: .srtp(receiveKeys: keys.remote, sendKeys: keys.local), senderRTCPEndpoint: remote)
        configuration.sendsTransportFeedback = false
        guard let subscriber = try? Subscriber(configuration: configuration, transport: nil) else { return nil }
        subscriber.extensionMap = section.extensionMap
        // To the selected pair's remote: after an ICE restart it may be another port of Janus's.
        let webRTC = transport as? WebRTCTransport
        subscriber.rtcpSink = { (datagram: ArraySlice<UInt8>) in
            let destination = webRTC?.remote ?? remote
            _ = datagram.withUnsafeBytes { buffer in Result { () throws(NetworkError) in try transport.send(buffer, to: destination) } }
        }
        return subscriber
    }

    // MARK: - The loop's pass

    /// Reads what arrived, runs every endpoint's timers.
    func pass() {
        _ = try? demultiplexer?.poll(timeoutMilliseconds: 0)
        for stream in streams.values { stream.subscriber.service() }
    }

    func nextDeadline() -> Int64 {
        streams.values.reduce(Int64.max) { min($0, $1.subscriber.nextDeadline()) }
    }

    func appendReadinessDescriptors(to descriptors: inout [Int32]) -> Bool {
        guard let demultiplexer else { return true }
        return EngineCore.appendReadinessDescriptors(of: demultiplexer.transport, to: &descriptors)
    }

    /// Keeps the subscription's Janus session alive (on the worker, after what is queued).
    func keepAlive(onFailure: @escaping @Sendable (String) -> Void) {
        guard let session else { return }
        let work = LoopHandOff(session)
        worker.run {
            guard work.value.isConnected else { return }
            do throws(JanusHTTPClient.Failure) { try work.value.keepAlive() } catch { onFailure("\(error)") }
        }
    }

    var isRunning: Bool { demultiplexer != nil || session != nil }

    func close() {
        isClosed = true
        for mid in Array(streams.keys) { drop(mid: mid) }
        demultiplexer = nil
        if let session {
            let work = LoopHandOff(session)
            worker.run { work.value.leave() }
        }
        session = nil
    }

    private static func attempt<Value>(_ what: String, _ body: () throws(JanusSessionFailure) -> Value) -> Result<Value, EngineError> {
        do throws(JanusSessionFailure) {
            return .success(try body())
        } catch {
            return .failure(.systemFailure("Janus \(what): \(error)"))
        }
    }
}
