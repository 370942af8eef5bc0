import Glibc

/// What an image file is, by its first bytes rather than its name: a cover must be an image
/// (a `cover.jpg` may be anything, a link to a key among them).
public enum ImageSniff {
    /// The MIME type of data that starts with `head` (at least its first 12 bytes): JPEG, PNG, GIF
    /// or WebP; nil for anything else.
    public static func type(of head: [UInt8]) -> String? {
        func starts(_ magic: [UInt8], at offset: Int = 0) -> Bool {
            head.count >= offset + magic.count && Array(head[offset..<offset + magic.count]) == magic
        }
        if starts([0xFF, 0xD8, 0xFF]) { return "image/jpeg" }
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return "image/png" }
        if starts(Array("GIF87a".utf8)) || starts(Array("GIF89a".utf8)) { return "image/gif" }
        if starts(Array("RIFF".utf8)), starts(Array("WEBP".utf8), at: 8) { return "image/webp" }
        return nil
    }

    /// The MIME type of the image in an open file, read from its start; nil when it is none.
    public static func type(ofOpen fd: Int32) -> String? {
        var head = [UInt8](repeating: 0, count: 12)
        let got = head.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
        return got > 0 ? type(of: Array(head[..<got])) : nil
    }

    /// The MIME type of the regular file at `path` when it is an image (opened without waiting:
    /// a FIFO named cover.jpg holds nothing); nil otherwise.
    public static func type(ofFile path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        return type(ofOpen: fd)
    }
}

extension Paths {
    /// Whether the file at `path` is, links resolved, in one of `folders` (themselves resolved).
    public static func resolves(_ path: String, into folders: [String]) -> Bool {
        guard let real = realPath(path) else { return false }
        return folders.compactMap(realPath).contains { isInside(real, folder: $0) }
    }

    /// The folder a path names its file in (as written, links not resolved).
    public static func folder(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }
}
