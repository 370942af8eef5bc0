import Glibc

/// File-system paths as plain strings (NSString's path methods without Foundation).
public enum Paths {
    /// The extension of the last component, lower-cased ("" when none): `/a/B.MP3` → `mp3`.
    public static func fileExtension(_ path: String) -> String {
        let name = path.split(separator: "/").last ?? ""
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return "" }
        return name[name.index(after: dot)...].lowercased()
    }

    /// The folder holding `path`: `/a/b.mp3` → `/a`, `/b` → `/`.
    public static func directory(of path: String) -> String {
        var trimmed = Substring(path)
        while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        guard let slash = trimmed.lastIndex(of: "/") else { return "." }
        return slash == trimmed.startIndex ? "/" : String(trimmed[..<slash])
    }

    /// `$HOME`, else the password database's home of the user.
    public static var home: String {
        if let home = getenv("HOME").map({ String(cString: $0) }), home.hasPrefix("/") { return home }
        if let entry = getpwuid(getuid()), let dir = entry.pointee.pw_dir { return String(cString: dir) }
        return "/"
    }

    /// An XDG base directory: `$XDG_DATA_HOME` and its kin when set to an
    /// absolute path (the spec ignores a relative one), else its default under home.
    public enum BaseDirectory: String {
        case data = "XDG_DATA_HOME", cache = "XDG_CACHE_HOME", config = "XDG_CONFIG_HOME"
        var fallback: String {
            switch self {
            case .data: "/.local/share"
            case .cache: "/.cache"
            case .config: "/.config"
            }
        }
    }

    public static func base(_ directory: BaseDirectory, environment: [String: String]) -> String {
        environment[directory.rawValue].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? home + directory.fallback
    }

    /// The user's music folder: `XDG_MUSIC_DIR` in `$XDG_CONFIG_HOME/user-dirs.dirs`
    /// (as xdg-user-dirs writes it, `"$HOME/Music"`), else `~/Music`.
    public static func musicFolder(environment: [String: String]) -> String {
        let file = base(.config, environment: environment) + "/user-dirs.dirs"
        if let text = readSmallFile(file) {
            for line in text.split(separator: "\n") where line.hasPrefix("XDG_MUSIC_DIR=") {
                var value = line.dropFirst("XDG_MUSIC_DIR=".count)
                if value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 2 { value = value.dropFirst().dropLast() }
                if value.hasPrefix("$HOME") { return normalized(home + value.dropFirst(5)) }
                if value.hasPrefix("/") { return normalized(String(value)) }
            }
        }
        return home + "/Music"
    }

    /// `~` and `~/…` as the home folder; an absolute path without a trailing slash; nil for a relative one.
    public static func expandingHome(_ text: String) -> String? {
        if text == "~" { return home }
        if text.hasPrefix("~/") { return normalized(home + text.dropFirst(1)) }
        return text.hasPrefix("/") ? normalized(text) : nil
    }

    private static func normalized(_ path: String) -> String {
        var trimmed = Substring(path)
        while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        return String(trimmed)
    }

    /// The path with every symbolic link, `.` and `..` resolved; nil when it does not exist.
    public static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// Whether `path` is `folder` or lies below it (both absolute, as written: resolve links first).
    public static func isInside(_ path: String, folder: String) -> Bool {
        if folder == "/" { return path.hasPrefix("/") }
        return path == folder || path.hasPrefix(folder + "/")
    }

    /// A file's text when it is a regular file of at most 64 KiB.
    public static func readSmallFile(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, info.st_size <= 64 << 10 else { return nil }
        var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
        let count = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        return count >= 0 ? String(decoding: bytes[..<count], as: UTF8.self) : nil
    }

    /// Creates `path` and the folders above it that are missing (`mkdir -p`), new ones with `mode`.
    /// Throws the reason in words.
    public static func createDirectory(_ path: String, mode: mode_t = 0o755) throws(SystemError) {
        var info = stat()
        if stat(path, &info) == 0 {
            guard (info.st_mode & S_IFMT) == S_IFDIR else { throw SystemError("cannot create \(path): a file is in the way") }
            return
        }
        let parent = directory(of: path)
        if parent != path, parent != "." { try createDirectory(parent, mode: mode) }
        guard mkdir(path, mode) == 0 || errno == EEXIST else {
            throw SystemError("cannot create \(path): \(String(cString: strerror(errno)))")
        }
    }
}

/// A failed system call, in words for the user.
public struct SystemError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
