internal import EngineCore
import Foundation
import MediaCodecs
import SRTP

/// `PlainRTPOptions` checked and turned into what the endpoints take: parsed addresses, SSRCs
/// (random where none were given), the SRTP keying material and the publisher's policies. Every
/// bad value is an `EngineError.invalidConfiguration` saying which value and why.
struct PlainRTPSetup {
    /// One address for every layer, or one per layer lowest first; empty: no camera.
    let videoDestinations: [NetworkEndpoint]
    let audioDestination: NetworkEndpoint?
    let rtcpDestination: NetworkEndpoint?
    let firstVideoSSRC: UInt32
    let audioSSRC: UInt32
    let videoPayloadType: UInt8
    let audioPayloadType: UInt8
    let security: PublisherSecurity
    /// The key || salt we send with (given, generated or answered); nil when insecure.
    let srtpKeyAndSalt: [UInt8]?
    /// The `a=crypto` attribute that hands it to the receiver (RFC 4568 §9.1); nil when insecure.
    let sdesCryptoAttribute: String?
    let reportIntervalMicroseconds: Int64
    let keyFrameRequestScope: EngineCore.KeyFrameRequestScope
    let rembPolicy: REMBPolicy
    let opus: OpusEncoder.Configuration

    /// The longest SDES item (RFC 3550 §6.5: an 8-bit length).
    static let maximumCNAMELength = 255
    static let reportIntervalRange = 0...3_600_000

    init(_ options: PlainRTPOptions, runtime: EngineRuntime) throws(EngineError) {
        videoDestinations = try options.videoDestination.map { text throws(EngineError) in
            try Self.endpoints(text, single: false)
        } ?? []
        audioDestination = try options.audioDestination.map { text throws(EngineError) in try Self.endpoints(text, single: true)[0] }
        rtcpDestination = try options.rtcpDestination.map { text throws(EngineError) in try Self.endpoints(text, single: true)[0] }
        guard !videoDestinations.isEmpty || audioDestination != nil else {
            throw .invalidConfiguration("a plain RTP output needs a video or an audio destination")
        }
        guard videoDestinations.count <= 3 else {
            throw .invalidConfiguration("\(videoDestinations.count) video ports: a camera has at most 3 layers")
        }
        videoPayloadType = try Self.payloadType(options.videoPayloadType, of: "video")
        audioPayloadType = try Self.payloadType(options.audioPayloadType, of: "audio")
        guard Self.reportIntervalRange.contains(options.reportIntervalMilliseconds) else {
            throw .invalidConfiguration("report interval \(options.reportIntervalMilliseconds) ms outside \(Self.reportIntervalRange)")
        }
        reportIntervalMicroseconds = Int64(options.reportIntervalMilliseconds) * 1000
        guard !options.cname.isEmpty, options.cname.utf8.count <= Self.maximumCNAMELength else {
            throw .invalidConfiguration("CNAME of \(options.cname.utf8.count) bytes: give 1 to \(Self.maximumCNAMELength)")
        }
        firstVideoSSRC = options.firstVideoSSRC ?? runtime.randomSSRC()
        audioSSRC = options.audioSSRC ?? runtime.randomSSRC()

        switch options.security {
        case .insecure:
            security = .insecure
            srtpKeyAndSalt = nil
            sdesCryptoAttribute = nil
        case let .srtpAnswering(offered):
            let agreement: SDESNegotiation.Agreement
            do {
                agreement = try runtime.answerSDES(offered)
            } catch {
                throw .invalidConfiguration("\(error)")
            }
            security = .srtp(local: agreement.local.keyingMaterial, remote: agreement.remote.keyingMaterial)
            srtpKeyAndSalt = agreement.local.keyingMaterial.keyAndSalt
            sdesCryptoAttribute = "a=" + agreement.local.sdpValue
        case let .srtp(given), let .srtpWithPlainRTCP(given):
            guard options.srtpSuite.isSupported else {
                throw .invalidConfiguration("the installed libsrtp cannot run \(options.srtpSuite)")
            }
            let keyAndSalt = given ?? runtime.freshKeyAndSalt(for: options.srtpSuite)
            let material: SRTPKeyingMaterial
            do {
                material = try SRTPKeyingMaterial(suite: options.srtpSuite, keyAndSalt: keyAndSalt)
            } catch {
                // Says the length needed and the length given.
                throw .invalidConfiguration("\(error)")
            }
            if case .srtp = options.security {
                security = .srtp(local: material)
            } else {
                security = .srtpPlainRTCP(local: material)
            }
            srtpKeyAndSalt = keyAndSalt
            sdesCryptoAttribute = "a=" + SDESCryptoAttribute(tag: 1, keyingMaterial: material).sdpValue
        }
        switch options.keyFrameRequestScope {
        case .everyLayer: keyFrameRequestScope = .everyLayer
        case .namedLayer: keyFrameRequestScope = .namedLayer
        }
        switch options.rembResponse {
        case .limitLayers: rembPolicy = .limitLayers()
        case .ignore: rembPolicy = .ignore
        }
        opus = OpusEncoder.Configuration(channels: options.audioChannels, dtx: options.opusDTX)
    }

    /// The publisher's configuration once the camera's layers are known (nil: no camera).
    func publisherConfiguration(video: VideoTrackConfiguration?, cname: String) -> PublisherConfiguration {
        let audio = audioDestination.map { _ in AudioTrackConfiguration(ssrc: audioSSRC, payloadType: audioPayloadType, opus: opus) }
        return PublisherConfiguration(video: video, audio: audio, security: security, cname: cname,
                                      reportIntervalMicroseconds: reportIntervalMicroseconds,
                                      keyFrameRequestScope: keyFrameRequestScope, rembPolicy: rembPolicy)
    }

    /// `HOST:PORT` (or, unless `single`, `HOST:P1,P2,...`).
    private static func endpoints(_ text: String, single: Bool) throws(EngineError) -> [NetworkEndpoint] {
        do {
            return single ? [try NetworkEndpoint(parsing: text)] : try NetworkEndpoint.parseList(text)
        } catch {
            throw .invalidConfiguration("\(error)")
        }
    }

    private static func payloadType(_ value: Int, of media: String) throws(EngineError) -> UInt8 {
        guard (0...127).contains(value) else {
            throw .invalidConfiguration("\(media) payload type \(value) outside 0...127 (RFC 3550 §5.1: 7 bits)")
        }
        return UInt8(value)
    }
}
