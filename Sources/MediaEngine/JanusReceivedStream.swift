internal import EngineCore

/// One stream a Janus room receives on its subscriber peer connection, as the loop runs it: the
/// publisher's stream (feed and its mid), the subscriber's mid that carries it, the endpoint
/// that unprotects, reorders and decodes it (one per mid: streams of one bundle share payload
/// types) and what the app reads: the decoded video's runtime, or the consumed microphone's
/// playout once the app asked for it. Loop-confined.
final class JanusReceivedStream {
    let publisherId: String
    let feed: Int
    let feedMid: String?
    let mid: String
    let kind: PublishedTrackKind
    let subscriber: Subscriber
    /// Decoded frames of a camera or screen share.
    let video: SubscriptionRuntime?
    /// The microphone's playout, from the app's consume until it stops.
    var audio: RemoteAudioRuntime?

    init(publisherId: String, feed: Int, feedMid: String?, mid: String, kind: PublishedTrackKind, subscriber: Subscriber) {
        self.publisherId = publisherId
        self.feed = feed
        self.feedMid = feedMid
        self.mid = mid
        self.kind = kind
        self.subscriber = subscriber
        video = kind == .microphone ? nil : SubscriptionRuntime(publisherId: publisherId, subscriber: subscriber, path: nil)
    }

    /// The stream ends: the app's streams finish.
    func close() {
        video?.close()
        audio?.close()
        audio = nil
    }

    /// What an app's consume asks Janus for: one stream of a publisher.
    struct Wish: Equatable {
        let feed: Int
        /// The publisher's mid (from the roster); nil: every stream of the feed (a feed the roster does not know).
        let feedMid: String?
        let kind: PublishedTrackKind

        var selector: JanusVideoRoomRequest.StreamSelector { .init(feed: feed, mid: feedMid) }
        /// The request's identity (feed and mid) while it is under way.
        var key: String { Self.key(selector) }
        static func key(_ selector: JanusVideoRoomRequest.StreamSelector) -> String { "\(selector.feed)/\(selector.mid ?? "*")" }

        /// Whether `stream` is what this wish asked for.
        func matches(_ stream: JanusReceivedStream) -> Bool {
            stream.feed == feed && (feedMid.map { $0 == stream.feedMid } ?? (stream.kind == kind))
        }
    }
}
