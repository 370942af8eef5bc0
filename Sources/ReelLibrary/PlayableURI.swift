import ReelCore
import FoundationEssentials
import Glibc

/// Checks a URI a client asks to play. Accepted: `file://` URIs of readable
/// regular files, absolute paths (turned into `file://` URIs), and `http(s)://`
/// URLs with a host. Everything else is refused with a clear error.
public enum PlayableURI {
    /// The longest URI or path taken (servers refuse URLs past 8 KiB; Linux paths end at 4 KiB).
    public static let longest = 16 << 10

    public static func validate(_ text: String) -> Result<String, URIProblem> {
        guard text.utf8.count <= longest else {
            return .failure(URIProblem.invalid("a URI of \(text.utf8.count) bytes is too long (at most \(longest)): \(quoted(text))"))
        }
        if text.hasPrefix("/") { return checkFile(URL(fileURLWithPath: text)) }
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased() else {
            return .failure(URIProblem.invalid("not a URI: \(quoted(text))"))
        }
        switch scheme {
        case "file":
            // D-Bus strings are UTF-8, so such a name can only come percent-encoded; say so rather than mangle it.
            guard URLParts.percentDecoded(url.path) != nil, URLParts.percentDecoded(text) != nil else {
                return .failure(URIProblem.invalid("file name is not valid UTF-8: \(quoted(text))"))
            }
            return checkFile(url)
        case "http", "https":
            if let problem = URLParts.remoteProblem(text) {
                return .failure(URIProblem.invalid("\(problem): \(quoted(text))"))
            }
            guard let host = url.host, !host.isEmpty else {
                return .failure(URIProblem.invalid("URL without a host: \(quoted(text))"))
            }
            return .success(text)
        default:
            return .failure(URIProblem.invalid(
                "unsupported URI scheme \"\(scheme)\" (reel plays file, http and https): \(quoted(text))"))
        }
    }

    /// Like `validate`, but a local M3U/M3U8/PLS playlist becomes its entries
    /// (those that can be played; the rest are left out), so that mpv never
    /// expands a playlist behind the engine's back.
    public static func expand(_ text: String) -> Result<[String], URIProblem> {
        validate(text).flatMap { uri in
            guard let url = URL(string: uri), url.isFileURL, Importer.isPlaylist(url.path) else { return .success([uri]) }
            let expansion = Importer.playlistEntries(url.path)
            // Only the first problem is told, and only when nothing plays: the rest are counted, not written out.
            var firstProblem = expansion.problems.first.map { "\($0.0): \($0.1)" }
            var problemCount = expansion.problems.count
            var entries: [String] = []
            for entry in expansion.entries {
                switch validate(entry) {
                case .success(let uri): entries.append(uri)
                case .failure(let problem):
                    problemCount += 1
                    if firstProblem == nil { firstProblem = problem.description }
                }
            }
            guard !entries.isEmpty else {
                // Say why, or the user is left to guess among missing files, relative names and the entry limit.
                let more = problemCount - 1
                let why = firstProblem.map { ": " + quoted($0) + (more > 0 ? " and \(more) more problem" + (more > 1 ? "s" : "") : "") }
                    ?? " (it lists no entries)"
                return .failure(URIProblem.invalid("the playlist \(url.path) has nothing reel can play\(why)"))
            }
            return .success(entries)
        }
    }

    private static func checkFile(_ url: URL) -> Result<String, URIProblem> {
        let path = url.path
        var info = stat()
        guard stat(path, &info) == 0 else {
            return .failure(URIProblem.noSuchFile("no such file: \(path)"))
        }
        switch info.st_mode & S_IFMT {
        case S_IFREG: break
        case S_IFDIR: return .failure(URIProblem.noSuchFile("is a directory: \(path)"))
        case S_IFIFO: return .failure(URIProblem.invalid("is a named pipe (FIFO), not a file reel can play: \(path)"))
        default: return .failure(URIProblem.invalid("not a regular file: \(path)"))
        }
        guard access(path, R_OK) == 0 else {
            return .failure(URIProblem.noSuchFile("not readable: \(path)"))
        }
        return .success(url.absoluteString)
    }

    private static func quoted(_ s: String) -> String {
        // What a client sent is shown, not obeyed: a newline must not start a new line of a log or an error.
        let shown = (s.count > 200 ? String(s.prefix(200)) + "…" : s).escapingControls()
        return "\"\(shown)\""
    }
}
