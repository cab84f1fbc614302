// The libFuzzer entry point for every wire parser. scripts/fuzz.sh compiles it together with all
// of Sources/RTPWire into one binary and picks the parser with FUZZ_TARGET (rtp, rtpview, vp8, opus, rtcp, framing,
// pcap, stun, sdp: the cases of WireRoundTripCheck). A violated invariant traps on purpose, so libFuzzer
// records the input as a finding under Tests/Fuzz/FailCases/<target>/.
import Glibc

let fuzzTarget: WireRoundTripCheck = {
    guard let name = getenv("FUZZ_TARGET").map({ String(cString: $0) }),
          let target = WireRoundTripCheck(rawValue: name) else {
        fatalError("set FUZZ_TARGET to one of: \(WireRoundTripCheck.allCases.map(\.rawValue))")
    }
    return target
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    if let violation = fuzzTarget.violation(in: Array(UnsafeBufferPointer(start: data, count: size))) {
        fatalError("\(fuzzTarget.rawValue): \(violation)")
    }
    return 0
}
