import Glibc
import EngineCore
import SessionCore
import RTPWire
import SRTP

/// How the endpoint targets read their input: a variant byte (which configuration the endpoint
/// gets), then records `[control, advance, length (16 bits, big-endian, low 12 bits used),
/// datagram…]`, so the fuzzer explores sequences of datagrams in simulated time.
///
/// `control` bits 0–2 choose the source address; bit 3 asks the harness to protect the datagram
/// with the keys the endpoint expects from that source (so SRTP endpoints are reachable past
/// authentication); bit 4 runs the endpoint's timers after the datagram; bit 5 flips a bit of the
/// (protected) datagram; bit 6 turns the record into an endpoint-specific action (the datagram
/// bytes are its parameters). `advance` moves the clock before the datagram: 0–199 ms in steps of
/// 1 ms, then 216 ms up to 1096 ms in 16 ms steps.
struct DatagramScript {
    struct Record {
        var control: UInt8
        var advanceMicroseconds: Int64
        var datagram: [UInt8]

        var source: Int { Int(control & 7) }
        var protect: Bool { control & 0x08 != 0 }
        var service: Bool { control & 0x10 != 0 }
        var corrupt: Bool { control & 0x20 != 0 }
        var isAction: Bool { control & 0x40 != 0 }
    }

    var variant: UInt8
    var records: [Record]

    init(_ bytes: [UInt8]) {
        var cursor = ByteCursor(bytes[...])
        variant = cursor.byte() ?? 0
        records = []
        while let control = cursor.byte() {
            let advance = Int64(cursor.byte() ?? 0)
            let milliseconds = advance < 200 ? advance : 200 + (advance - 199) * 16
            let length = Int((cursor.uint16() ?? 0) & 0x0FFF)
            records.append(Record(control: control, advanceMicroseconds: milliseconds * 1000,
                                  datagram: cursor.bytes(length)))
        }
    }

    /// The inverse of `init`, for seeds.
    static func encode(variant: UInt8, _ records: [Record]) -> [UInt8] {
        var bytes = [variant]
        for record in records {
            let milliseconds = record.advanceMicroseconds / 1000
            let advance = milliseconds < 200 ? milliseconds : min(255, 200 + max(0, milliseconds - 216 + 15) / 16)
            precondition(record.datagram.count <= 0x0FFF, "seed datagram too long")
            bytes += [record.control, UInt8(advance), UInt8(record.datagram.count >> 8), UInt8(record.datagram.count & 0xFF)]
            bytes += record.datagram
        }
        return bytes
    }
}

/// The endpoints' clock, advanced only by the script.
final class SimulatedClock: @unchecked Sendable {
    /// Microseconds; starts away from zero so "never" and "at start" differ.
    private(set) var now: Int64 = 10_000_000
    /// Wall clock: a fixed Unix time plus `now`.
    var wallMicroseconds: UInt64 { 1_700_000_000_000_000 &+ UInt64(now) }
    func advance(_ microseconds: Int64) { now += microseconds }

    var mediaClock: MediaClock {
        MediaClock(monotonicMicroseconds: { [self] in now }, wallMicroseconds: { [self] in Int64(wallMicroseconds) })
    }
}

/// What the harness does to a record's datagram before the endpoint sees it.
struct DatagramPreparer {
    private var scratch = [UInt8](repeating: 0, count: 4096 + SRTPSession.maxTrailerLength)

    /// Protects `datagram` with `session` when the record asks for it (RTP or RTCP by the RFC 5761
    /// rule; datagrams SRTP refuses stay as they are), then flips a bit if asked.
    mutating func prepare(_ record: DatagramScript.Record, with session: SRTPSession?) -> [UInt8] {
        var datagram = record.datagram
        if record.protect, let session, let kind = try? RTPOrRTCP.classify(datagram) {
            let result: Result<Int, SRTPError> = datagram.withUnsafeBytes { input in
                scratch.withUnsafeMutableBytes { output in
                    Result { () throws(SRTPError) -> Int in
                        kind == .rtcp ? try session.protectRTCP(input, into: output) : try session.protectRTP(input, into: output)
                    }
                }
            }
            if case let .success(length) = result { datagram = Array(scratch[0..<length]) }
        }
        if record.corrupt, !datagram.isEmpty {
            datagram[Int(record.advanceMicroseconds / 1000) % datagram.count] ^= 0x10
        }
        return datagram
    }
}

/// The amplification invariant (ARCHITECTURE: a small input never causes a large output): what an
/// endpoint sends in answer to the script stays below 64 bytes per input byte, plus 64 KiB, plus
/// 32 KiB (256 kbit) per simulated second for what is paced by time (reports, feedback, a
/// retransmission budget). Answering a NACK datagram with every packet it names, as often as
/// its items repeat, exceeds it.
///
/// FUZZ_AMPLIFICATION_CHECK=off turns the check off (scripts/fuzz-engine.sh does so only for
/// targets listed in Tests/Fuzz/known-findings.txt).
struct OutputBudget {
    static let isChecked: Bool = getenv("FUZZ_AMPLIFICATION_CHECK").map { String(cString: $0) } != "off"
    static let bytesPerInputByte = 64
    static let constantBytes = 64 * 1024
    static let bytesPerSimulatedSecond = 32 * 1024

    let inputBytes: Int
    let startMicroseconds: Int64
    /// Bytes the endpoint sent in answer to the script.
    var sentBytes = 0

    init(inputBytes: Int, clock: SimulatedClock) {
        self.inputBytes = inputBytes
        startMicroseconds = clock.now
    }

    func violation(at clock: SimulatedClock, what: String) -> String? {
        let seconds = Int((clock.now - startMicroseconds + 999_999) / 1_000_000)
        let limit = Self.bytesPerInputByte * inputBytes + Self.constantBytes + Self.bytesPerSimulatedSecond * seconds
        guard Self.isChecked, sentBytes > limit else { return nil }
        return "amplification: \(what) sent \(sentBytes) bytes for a \(inputBytes)-byte input over \(seconds) simulated s (limit \(limit))"
    }
}

/// A publisher transport that counts (and, for seeds, keeps) what is sent; receives nothing.
final class CountingTransport: DatagramTransport {
    /// Where a fuzzed publisher sends (nothing listens: the datagrams stay here).
    static let peer = NetworkEndpoint.loopback(port: 6000)
    let localEndpoint = NetworkEndpoint.loopback(port: 5004)
    private(set) var bytes = 0
    private(set) var datagrams = 0
    /// Set to keep every datagram (seed generation).
    var kept: [(destination: NetworkEndpoint, bytes: [UInt8])]?

    func send(_ datagram: UnsafeRawBufferPointer, to destination: NetworkEndpoint) throws(NetworkError) {
        bytes += datagram.count
        datagrams += 1
        kept?.append((destination, Array(datagram)))
    }

    func receive(into buffer: UnsafeMutableRawBufferPointer, timeoutMilliseconds: Int32)
        throws(NetworkError) -> (count: Int, from: NetworkEndpoint)?
    {
        nil
    }
}

/// A forwarding-node link that counts (and, for seeds, keeps) what would reach a subscriber;
/// nothing goes to the socket.
final class CountingLink: ForwardingLink {
    private(set) var bytes = 0
    var kept: [[UInt8]]?

    func transmit(_ datagram: ArraySlice<UInt8>, nowMilliseconds: Int64, deliver: (ArraySlice<UInt8>) -> Void) {
        bytes += datagram.count
        kept?.append(Array(datagram))
    }
}
