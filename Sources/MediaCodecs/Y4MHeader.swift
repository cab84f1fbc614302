/// The stream header of a YUV4MPEG2 file: `YUV4MPEG2 W<w> H<h> F<n>:<d> I<i> A<n>:<d> C<cs> X…`.
public struct Y4MHeader: Sendable, Equatable {
    /// `W`: picture width.
    public var width: Int
    /// `H`: picture height.
    public var height: Int
    /// Frame rate as a fraction (`F30000:1001`); 30:1 when absent.
    public var frameRateNumerator: Int
    /// See `frameRateNumerator`.
    public var frameRateDenominator: Int
    /// Interlacing (`I`): `p`, `t`, `b`, `m` or `?`; nil when absent.
    public var interlacing: Character?
    /// Pixel aspect ratio (`A`); nil when absent.
    public var pixelAspect: (numerator: Int, denominator: Int)? {
        get { aspect.map { ($0[0], $0[1]) } }
        set { aspect = newValue.map { [$0.numerator, $0.denominator] } }
    }
    private var aspect: [Int]?
    /// Colour space (`C`), e.g. `420jpeg`; nil when absent (which means 4:2:0).
    public var colorSpace: String?

    /// The 4:2:0 `C` values accepted (all share the I420 memory layout).
    public static let supportedColorSpaces: Set<String> = ["420", "420jpeg", "420paldv", "420mpeg2"]

    /// A header with the given fields (defaults: 30 fps, no `I`, no `C`).
    public init(width: Int, height: Int, frameRateNumerator: Int = 30, frameRateDenominator: Int = 1,
                interlacing: Character? = nil, colorSpace: String? = nil) {
        self.width = width
        self.height = height
        self.frameRateNumerator = frameRateNumerator
        self.frameRateDenominator = frameRateDenominator
        self.interlacing = interlacing
        self.colorSpace = colorSpace
    }

    /// Bytes of one frame's pixels (I420, tight).
    public var frameSize: Int { width * height + 2 * ((width + 1) / 2) * ((height + 1) / 2) }

    /// Parses the header line (without its newline).
    static func parse(_ line: ArraySlice<UInt8>) throws(Y4MError) -> Y4MHeader {
        let signature = Array("YUV4MPEG2".utf8)
        guard line.starts(with: signature) else { throw .badSignature }
        var header = Y4MHeader(width: 0, height: 0)
        var sawWidth = false, sawHeight = false
        for token in line.dropFirst(signature.count).split(separator: UInt8(ascii: " ")) {
            guard let tag = token.first else { continue }
            let value = String(decoding: token.dropFirst(), as: UTF8.self)
            switch tag {
            case UInt8(ascii: "W"):
                guard let w = Int(value), w > 0, w <= VideoFrame.maximumDimension else { throw .badHeader("width 'W\(value)' is not a whole number from 1 to \(VideoFrame.maximumDimension)") }
                header.width = w
                sawWidth = true
            case UInt8(ascii: "H"):
                guard let h = Int(value), h > 0, h <= VideoFrame.maximumDimension else { throw .badHeader("height 'H\(value)' is not a whole number from 1 to \(VideoFrame.maximumDimension)") }
                header.height = h
                sawHeight = true
            case UInt8(ascii: "F"):
                let parts = value.split(separator: ":")
                guard parts.count == 2, let num = Int(parts[0]), let den = Int(parts[1]), num > 0, den > 0
                else { throw .badHeader("frame rate 'F\(value)' is not <numerator>:<denominator>, both above 0") }
                header.frameRateNumerator = num
                header.frameRateDenominator = den
            case UInt8(ascii: "A"):
                let parts = value.split(separator: ":")
                guard parts.count == 2, let num = Int(parts[0]), let den = Int(parts[1]), num >= 0, den >= 0
                else { throw .badHeader("pixel aspect 'A\(value)' is not <numerator>:<denominator>") }
                header.aspect = [num, den]
            case UInt8(ascii: "I"):
                guard value.count == 1 else { throw .badHeader("interlacing 'I\(value)' is not one character") }
                header.interlacing = value.first
            case UInt8(ascii: "C"):
                guard supportedColorSpaces.contains(value) else { throw .unsupportedColorSpace(value) }
                header.colorSpace = value
            case UInt8(ascii: "X"):
                continue  // application-specific extension: ignored
            default:
                throw .badHeader("unknown field '\(String(decoding: token, as: UTF8.self))'")
            }
        }
        guard sawWidth, sawHeight else { throw .badHeader("the \(sawWidth ? "H (height)" : "W (width)") field is missing") }
        return header
    }

    /// Field-by-field equality.
    public static func == (lhs: Y4MHeader, rhs: Y4MHeader) -> Bool {
        lhs.width == rhs.width && lhs.height == rhs.height && lhs.frameRateNumerator == rhs.frameRateNumerator
            && lhs.frameRateDenominator == rhs.frameRateDenominator && lhs.interlacing == rhs.interlacing
            && lhs.aspect == rhs.aspect && lhs.colorSpace == rhs.colorSpace
    }
}
