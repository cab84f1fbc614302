import Foundation
import RTPWire
import Simulcast

/// Adding or taking out the screen share of a running publisher: a renegotiation of the same
/// peer connection (RFC 3264 §8: a new offer of the session, a higher version, the same ICE
/// credentials, fingerprint and transport), sent to Janus 1.1 as `configure` with the JSEP
/// offer. Janus answers in an event of the publisher's handle, which the room's event reader
/// takes; the answer is then applied here. The camera (and microphone) go on meanwhile.
extension JanusVideoRoomPublisher {
    /// The offer that adds a screen share of `plan` (one layer of its top size) as the m-line
    /// `screenShareMid`, or (nil) takes it out: port 0, out of the BUNDLE group (RFC 3264 §8.2).
    public func renegotiationOffer(screenShare plan: LayerPlan?) -> SimulcastOffer {
        var next = offer
        next.version += 1
        var section = SimulcastOffer.Video(rids: [])
        section.mid = Self.screenShareMid
        section.isStopped = plan == nil
        next.screenShare = section
        return next
    }

    /// Sends `offer` (`configure`, describing the screen share's mid as "screen" unless the
    /// offer stops it). Blocking (one HTTP exchange): run it off the engine's loop.
    public func sendRenegotiation(_ offer: SimulcastOffer) throws(JanusHTTPClient.Failure) {
        let stopped = offer.screenShare?.isStopped ?? true
        let descriptions = stopped ? [:] : [Self.screenShareMid: JanusRoomRoster.screenShareDescription]
        try janus.message(JanusVideoRoomRequest.configurePublisher(descriptions: descriptions).body,
                          jsep: ["type": "offer", "sdp": offer.sessionDescription.text])
    }

    /// Applies Janus's answer to `offer`: with the screen share's m-line accepted, its publisher
    /// (one layer of `plan`'s top size, on a new SSRC) sends on the camera's transport from now
    /// on (the camera's `bundledPublisher`); taken out, it is gone. Returns the screen share's
    /// publisher (nil when taken out). Throws `.sdp` for an answer that does not fit the offer,
    /// `.configuration` for one that rejects the screen share or cannot be sent.
    @discardableResult
    public func applyRenegotiation(offer: SimulcastOffer, answer: String, screenShare plan: LayerPlan?) throws(Failure) -> Publisher? {
        let session: NegotiatedSession
        do {
            session = try NegotiatedSession(offer: offer, answer: SessionDescription(parsing: answer))
        } catch {
            throw .sdp(error)
        }
        self.offer = offer
        negotiated = session
        guard let plan else {
            publisher.bundledPublisher = nil
            screenSharePublisher = nil
            return nil
        }
        guard let single = Self.singleLayer(plan) else { throw .configuration("no screen-share plan for \(plan.top.width)x\(plan.top.height)") }
        var random = SystemRandomNumberGenerator()
        let screen: Publisher
        do {
            guard let configuration = try NegotiatedPublishing.screenShareConfiguration(
                screen: single, session: session, ssrc: nextScreenShareSSRC, keys: keys, cname: offer.cname) else {
                throw Failure.configuration("Janus rejected the screen share's m-line")
            }
            nextScreenShareSSRC &+= 1
            screen = try Publisher(configuration: configuration, transport: transport, routing: routing, clock: clock, using: &random)
        } catch let failure as Failure {
            throw failure
        } catch {
            throw .configuration("\(error)")
        }
        publisher.bundledPublisher = screen
        screenSharePublisher = screen
        return screen
    }
}
