// The libFuzzer executable for every target that needs the engine's modules (see
// EngineFuzzTarget). scripts/fuzz-engine.sh builds it with `swift build --sanitize=fuzzer
// --sanitize=address` (SwiftPM then compiles with -parse-as-library and links libFuzzer's main)
// and picks the target with FUZZ_TARGET; FUZZ_WRITE_SEEDS=DIR writes the seed corpora instead.
import Glibc

/// libFuzzer calls this once before the first input (compiler-rt FuzzerInterface.h).
@_cdecl("LLVMFuzzerInitialize")
public func fuzzInitialize(_ argc: UnsafeMutablePointer<CInt>?,
                           _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>?) -> CInt {
    if let directory = getenv("FUZZ_WRITE_SEEDS").map({ String(cString: $0) }) {
        do {
            try SeedCorpus.write(into: directory)
            exit(0)
        } catch {
            print("fuzz-engine: writing seeds failed: \(error)")
            exit(1)
        }
    }
    _ = EngineFuzzTarget.selected  // exits with a usage message if FUZZ_TARGET is wrong
    _ = FuzzKeys.keepCryptoBackendLoaded
    return 0
}
