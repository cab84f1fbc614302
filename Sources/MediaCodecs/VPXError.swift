internal import CVPX

/// A libvpx failure: the `vpx_codec_err_t` a call returned, the call's name, and libvpx's
/// error detail string (`vpx_codec_error_detail`) when it gave one.
///
/// Every libvpx return code in this module is checked through `VPXError.check(_:call:context:)`,
/// the one place where `vpx_codec_err_t` becomes a Swift error.
public struct VPXError: Error, RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The raw `vpx_codec_err_t` value.
    public let rawValue: Int32
    /// The libvpx function that failed, e.g. `"vpx_codec_encode"`.
    public let call: String
    /// `vpx_codec_error_detail()` of the context, if libvpx gave one.
    public let detail: String?

    /// An error with the given `vpx_codec_err_t` value and no diagnostics.
    public init(rawValue: Int32) {
        self.init(rawValue: rawValue, call: "", detail: nil)
    }

    /// An error with diagnostics: the failing call and libvpx's detail string.
    public init(rawValue: Int32, call: String, detail: String?) {
        self.rawValue = rawValue
        self.call = call
        self.detail = detail
    }

    /// `VPX_CODEC_ERROR`: unspecified error.
    public static let error = VPXError(rawValue: 1)
    /// `VPX_CODEC_MEM_ERROR`: memory operation failed.
    public static let memoryError = VPXError(rawValue: 2)
    /// `VPX_CODEC_ABI_MISMATCH`: the library and headers disagree.
    public static let abiMismatch = VPXError(rawValue: 3)
    /// `VPX_CODEC_INCAPABLE`: the codec lacks a required capability.
    public static let incapable = VPXError(rawValue: 4)
    /// `VPX_CODEC_UNSUP_BITSTREAM`: the bitstream needs an unsupported feature.
    public static let unsupportedBitstream = VPXError(rawValue: 5)
    /// `VPX_CODEC_UNSUP_FEATURE`: the encoded data uses an unsupported feature.
    public static let unsupportedFeature = VPXError(rawValue: 6)
    /// `VPX_CODEC_CORRUPT_FRAME`: the data is corrupt or incomplete.
    public static let corruptFrame = VPXError(rawValue: 7)
    /// `VPX_CODEC_INVALID_PARAM`: an application parameter was invalid.
    public static let invalidParameter = VPXError(rawValue: 8)

    /// Errors compare by code only; `call` and `detail` are diagnostics.
    public static func == (lhs: VPXError, rhs: VPXError) -> Bool { lhs.rawValue == rhs.rawValue }
    /// Hashes the code only, consistent with `==`.
    public func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }

    /// The call, `vpx_codec_err_to_string` of the code, and the detail.
    public var description: String {
        var text = "\(call.isEmpty ? "libvpx" : call): \(String(cString: vpx_codec_err_to_string(vpx_codec_err_t(UInt32(bitPattern: rawValue)))))"
        if let detail, !detail.isEmpty { text += " (\(detail))" }
        return text
    }

    /// The single mapping from a libvpx return code to a thrown `VPXError`.
    /// - Parameters:
    ///   - code: what the C call returned.
    ///   - call: the C function's name, for the message.
    ///   - context: the codec context whose `vpx_codec_error_detail` explains the failure.
    @inline(__always)
    static func check(_ code: vpx_codec_err_t, call: String,
                      context: UnsafeMutablePointer<vpx_codec_ctx_t>? = nil) throws(VPXError) {
        guard code != VPX_CODEC_OK else { return }
        var detail: String? = nil
        if let context, let cDetail = vpx_codec_error_detail(context) { detail = String(cString: cDetail) }
        throw VPXError(rawValue: Int32(bitPattern: code.rawValue), call: call, detail: detail)
    }
}
