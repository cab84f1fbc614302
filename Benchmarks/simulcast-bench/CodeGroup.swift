/// The groups issue 27 splits a call's CPU time into, by the shared object perf saw a thread in
/// (`PerfProfile`): the four C libraries that do the media work, the kernel, and everything else.
enum CodeGroup: String, CaseIterable, Codable, Sendable {
    case libvpx
    case libopus
    case libyuv
    /// libsrtp2 and the crypto it runs on. Debian builds libsrtp2 on NSS (`ldd libsrtp2.so.1`:
    /// libnss3, libnspr4, libplc4, libplds4, libnssutil3; NSS loads libsoftokn3 and
    /// libfreeblpriv3, where AES runs); OpenSSL's libcrypto counts here too (DTLS and SFrame use
    /// it, and libsrtp2 where it is built on OpenSSL).
    case srtpCrypto
    /// System calls (sockets, futexes, timers), interrupts and page faults taken by the process.
    case kernel
    /// The engine's own code and what it runs on: the executable, the Swift runtime and
    /// concurrency library, Dispatch, Foundation, libc, the dynamic loader, the vDSO.
    case everythingElse

    var label: String {
        switch self {
        case .libvpx: return "libvpx (VP8 encode, decode)"
        case .libopus: return "libopus (Opus encode, decode)"
        case .libyuv: return "libyuv (scaling)"
        case .srtpCrypto: return "libsrtp2 + its crypto (NSS; OpenSSL libcrypto)"
        case .kernel: return "kernel (system calls: sockets, futexes, timers)"
        case .everythingElse: return "everything else (the engine: executable, Swift runtime, Foundation, libc)"
        }
    }

    /// The media work the engine hands to C: the part everything else is compared with.
    var isCodecOrCrypto: Bool { self != .kernel && self != .everythingElse }

    /// Shared objects of libsrtp2 and its crypto, by name before ".so".
    static let cryptoObjects: Set<String> = ["libsrtp2", "libcrypto", "libnss3", "libnssutil3", "libnspr4", "libplc4",
                                             "libplds4", "libsoftokn3", "libfreeblpriv3", "libfreebl3"]

    /// The group of a shared object as perf names it ("libvpx.so.7", "[kernel.kallsyms]").
    init(object: String) {
        if object.hasPrefix("[kernel") {
            self = .kernel
            return
        }
        let name = String(object.prefix { $0 != "." })
        switch name {
        case "libvpx": self = .libvpx
        case "libopus": self = .libopus
        case "libyuv": self = .libyuv
        case _ where Self.cryptoObjects.contains(name): self = .srtpCrypto
        default: self = .everythingElse
        }
    }
}
