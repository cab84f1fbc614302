/// Why an IVF file cannot be written or read.
public enum IVFError: Error, Equatable, Sendable {
    /// The file does not start with `DKIF`, or its header size field is below 32.
    case badSignature
    /// The file ended inside a header or a frame.
    case truncated(field: String, needed: Int, available: Int)
    /// The file could not be opened, written or read.
    case io(path: String, errno: Int32)
}
