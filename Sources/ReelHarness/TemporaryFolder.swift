import Foundation

/// A fresh folder of a test's own under the system's temporary directory,
/// removed with everything in it when released.
public final class TemporaryFolder: Sendable {
    public let url: URL

    /// Makes `PREFIX-RANDOM` in the temporary directory.
    public init(_ prefix: String) throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }
}
