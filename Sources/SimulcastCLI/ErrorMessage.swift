import Foundation

/// The sentence `simulcast` prints for a failure: every error type of the engine and the tool is
/// `CustomStringConvertible` with a readable `description`. Foundation's errors are the exception
/// (their `description` is an `Error Domain=NSCocoaErrorDomain Code=…` dump), so they get their
/// localized text and the path they name.
func errorMessage(_ error: any Error) -> String {
    if let cocoa = error as? CocoaError {
        let path = cocoa.filePath ?? cocoa.url?.path
        return cocoa.localizedDescription + (path.map { " (\($0))" } ?? "")
    }
    return String(describing: error)
}
