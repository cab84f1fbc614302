import CommandLineSupport
import Foundation
import RTPWire
import SRTP

/// Opens the SRTP and SRTCP datagrams of a capture with the key they were protected with
/// (`simulcast inspect FILE.pcap --key B64 [--srtp-suite NAME]`), counting what would not open.
/// One inbound session for every SSRC, as `simulcast send` uses one key for all of its streams;
/// the largest replay window libsrtp allows, so reordering in the capture is not a failure.
final class CaptureDecryption {
    let suite: SRTPSuite
    private let session: SRTPSession
    private var buffer = [UInt8](repeating: 0, count: 65_536)
    /// Datagrams that opened.
    private(set) var opened = 0
    /// Datagrams that did not, by reason (`authenticationFailed`, `replayed`, `malformed`).
    private(set) var failures: [String: Int] = [:]
    /// RTCP datagrams that were not SRTCP but parsed as plain RTCP (`send --rtcp-plain`).
    private(set) var plainRTCP = 0

    init(keyAndSalt: [UInt8], suite: SRTPSuite) throws {
        self.suite = suite
        session = try SRTPSession(direction: .inbound,
                                  keyingMaterial: SRTPKeyingMaterial(suite: suite, keyAndSalt: keyAndSalt),
                                  replayWindowSize: SRTPSession.replayWindowSizes.upperBound)
    }

    /// The `--key` / `--srtp-suite` arguments as a decryption, or nil without `--key`.
    static func from(_ arguments: CommandLineArguments) throws -> CaptureDecryption? {
        let suiteName = arguments.string("srtp-suite")
        guard let text = arguments.string("key") else {
            if suiteName != nil { throw CommandError("--srtp-suite needs --key: the key the capture was protected with") }
            return nil
        }
        var suite = SRTPSuite.default
        if let suiteName {
            guard let named = SRTPSuite(rawValue: suiteName) else {
                throw CommandError("--srtp-suite \(suiteName): expected one of \(SRTPSuite.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            suite = named
        }
        guard let data = Data(base64Encoded: text), data.count == suite.keyingMaterialLength else {
            throw CommandError("--key: expected the \(suite.keyingMaterialLength)-byte key||salt of \(suite) in base64 "
                + "(what `simulcast send` printed); another suite's key needs --srtp-suite")
        }
        return try CaptureDecryption(keyAndSalt: [UInt8](data), suite: suite)
    }

    /// The plain RTP packet inside an SRTP datagram, or nil (counted) if it does not open.
    func openRTP(_ datagram: ArraySlice<UInt8>) -> [UInt8]? {
        switch open(datagram, rtcp: false) {
        case let .success(plain): return plain
        case let .failure(failure):
            failures[failure.reason, default: 0] += 1
            return nil
        }
    }

    /// The plain RTCP inside an SRTCP datagram; a datagram that is plain RTCP already is returned
    /// as it is (counted in `plainRTCP`); nil (counted) if it is neither.
    func openRTCP(_ datagram: ArraySlice<UInt8>) -> [UInt8]? {
        switch open(datagram, rtcp: true) {
        case let .success(plain): return plain
        case let .failure(failure):
            if (try? RTCPCompoundPacket(parsing: datagram)) != nil {
                plainRTCP += 1
                return Array(datagram)
            }
            failures[failure.reason, default: 0] += 1
            return nil
        }
    }

    /// Why a datagram did not open, as the name the JSON counts it under.
    struct Failure: Error {
        var reason: String
    }

    private func open(_ datagram: ArraySlice<UInt8>, rtcp: Bool) -> Result<[UInt8], Failure> {
        guard datagram.count <= buffer.count else { return .failure(Failure(reason: "malformed")) }
        buffer.replaceSubrange(0..<datagram.count, with: datagram)
        do {
            let length = try session.unprotect(inPlace: &buffer, packetLength: datagram.count, rtcp: rtcp)
            opened += 1
            return .success(Array(buffer[0..<length]))
        } catch {
            return .failure(Failure(reason: Self.reason(error)))
        }
    }

    private static func reason(_ error: SRTPError) -> String {
        switch error {
        case .authenticationFailed: "authenticationFailed"
        case .replayed: "replayed"
        case .malformedPacket: "malformed"
        default: "other"
        }
    }

    var json: JSONValue {
        .object([
            ("suite", .string(suite.rawValue)), ("opened", .int(opened)),
            ("failed", .object(failures.sorted { $0.key < $1.key }.map { ($0.key, .int($0.value)) })),
            ("plainRTCP", .int(plainRTCP)),
        ])
    }
}
