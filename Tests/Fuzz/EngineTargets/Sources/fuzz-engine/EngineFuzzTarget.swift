import Glibc

/// The fuzz targets of this executable. Each returns the invariant an input violates, or nil;
/// not trapping on any input is the first invariant. A violation traps on purpose, so libFuzzer
/// keeps the input as a finding under Tests/Fuzz/FailCases/<target>/.
enum EngineFuzzTarget: String, CaseIterable, Sendable {
    /// Y4MReader through a file (`init(path:)`) against the in-memory reader, and VideoSource.
    case y4m
    /// IVFReader on bytes read back from a file, IVFWriter's file as the oracle, VP8Decoder.
    case ivf
    /// WAVReader on bytes read back from a file, its 20 ms frames into the Opus encoder.
    case wav
    /// A pcap file on disk through PcapReader (as `simulcast inspect` reads it), re-written
    /// with MediaEngine's PcapFile and read back.
    case pcapfile
    /// SRTPSession inbound on arbitrary bytes, and on validly protected packets then mutated.
    case srtp
    /// Publisher.handleIncoming: datagram sequences on a simulated clock.
    case publisher
    /// Subscriber.handle(datagram:from:) + service(): datagram sequences on a simulated clock.
    case subscriber
    /// ForwardingNode.handle(datagram:from:) + service(): datagram sequences from the publisher,
    /// two subscribers and a stranger, on a simulated clock.
    case node
    /// ICEAgent.handle + poll: raw STUN from a peer and a stranger, and requests and responses
    /// the harness signs, on a simulated clock.
    case ice
    /// DTLSAssociation (OpenSSL) fed datagrams as a fresh server and as a client mid-handshake.
    case dtls
    /// JanusSessionEvent(json:): a Janus session's events (VideoRoom and core) as the room model reads them.
    case janus
    /// TURNClient.handle + poll and TURNRelayTransport.unwrap: what a TURN server could send, raw
    /// and as responses the harness signs, on a simulated clock.
    case turn
    /// BundledStreamDemultiplexer.poll: a bundled peer connection's datagrams routed to their
    /// streams' endpoints by SSRC or MID extension (the Janus room's subscriber connection).
    case bundle

    /// The target named by FUZZ_TARGET (exits with a usage message otherwise).
    static let selected: EngineFuzzTarget = {
        guard let name = getenv("FUZZ_TARGET").map({ String(cString: $0) }),
              let target = EngineFuzzTarget(rawValue: name) else {
            print("fuzz-engine: set FUZZ_TARGET to one of: \(allCases.map(\.rawValue).joined(separator: " "))")
            exit(2)
        }
        return target
    }()

    func violation(in bytes: [UInt8]) -> String? {
        switch self {
        case .y4m: return FileReaderChecks.y4m(bytes)
        case .ivf: return FileReaderChecks.ivf(bytes)
        case .wav: return FileReaderChecks.wav(bytes)
        case .pcapfile: return FileReaderChecks.pcapFile(bytes)
        case .srtp: return SRTPCheck.run(bytes)
        case .publisher: return PublisherCheck.run(bytes)
        case .subscriber: return SubscriberCheck.run(bytes)
        case .node: return NodeCheck.run(bytes)
        case .ice: return ICECheck.run(bytes)
        case .dtls: return DTLSCheck.run(bytes)
        case .janus: return JanusEventCheck.run(bytes)
        case .turn: return TURNCheck.run(bytes)
        case .bundle: return BundleCheck.run(bytes)
        }
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = size > 0 && data != nil ? Array(UnsafeBufferPointer(start: data, count: size)) : []
    let target = EngineFuzzTarget.selected
    if let violation = target.violation(in: bytes) {
        fatalError("\(target.rawValue): \(violation)")
    }
    return 0
}
