import Foundation
import ReelDBus

/// Checks a URI a client asks to play. Accepted: `file://` URIs of readable
/// regular files, absolute paths (turned into `file://` URIs), and `http(s)://`
/// URLs with a host. Everything else is refused with a clear error.
public enum URIValidator {
    public static let schemes = ["file", "http", "https"]

    public static func validate(_ text: String) -> Result<String, BusError> {
        if text.hasPrefix("/") { return checkFile(URL(fileURLWithPath: text)) }
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased() else {
            return .failure(BusError(MPRIS.errorInvalidURI, "not a URI: \(quoted(text))"))
        }
        switch scheme {
        case "file":
            return checkFile(url)
        case "http", "https":
            guard let host = url.host, !host.isEmpty else {
                return .failure(BusError(MPRIS.errorInvalidURI, "URL without a host: \(quoted(text))"))
            }
            return .success(text)
        default:
            return .failure(BusError(MPRIS.errorInvalidURI,
                                     "unsupported URI scheme \"\(scheme)\" (reel plays file, http and https): \(quoted(text))"))
        }
    }

    private static func checkFile(_ url: URL) -> Result<String, BusError> {
        let path = url.path
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            return .failure(BusError(MPRIS.errorNoSuchFile, "no such file: \(path)"))
        }
        guard !isDirectory.boolValue else { return .failure(BusError(MPRIS.errorNoSuchFile, "is a directory: \(path)")) }
        guard FileManager.default.isReadableFile(atPath: path) else {
            return .failure(BusError(MPRIS.errorNoSuchFile, "not readable: \(path)"))
        }
        return .success(url.absoluteString)
    }

    private static func quoted(_ s: String) -> String {
        let shown = s.count > 200 ? String(s.prefix(200)) + "…" : s
        return "\"\(shown)\""
    }
}
