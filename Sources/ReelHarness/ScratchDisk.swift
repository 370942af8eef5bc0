import Foundation

/// A small file system of its own for disk-fault tests: a tmpfs of `size`
/// bytes when running as root (it can be made read-only and filled), else a
/// plain directory (it can only be made read-only, with permissions, which
/// root would ignore).
public final class ScratchDisk: @unchecked Sendable {
    // @unchecked: immutable but for files on disk, which the test thread alone changes.
    public let dir: URL
    public let isMounted: Bool
    private var filler: URL { dir.appendingPathComponent(".filler") }

    public init(size: Int = 8 << 20) throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("reel-disk-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        isMounted = getuid() == 0 && (try? Self.mount(["-t", "tmpfs", "-o", "size=\(size),mode=0755", "tmpfs", dir.path])) != nil
    }

    deinit {
        if isMounted {
            try? Self.mount(["-o", "remount,rw", dir.path])
            unmount(dir)
        }
        try? FileManager.default.removeItem(at: dir)
    }

    /// Whether this disk can be filled (it is a tmpfs of its own).
    public var canFill: Bool { isMounted }

    public func makeReadOnly() throws {
        if isMounted { try Self.mount(["-o", "remount,ro", dir.path]); return }
        try setPermissions(file: 0o444, folder: 0o555)
    }

    public func makeWritable() throws {
        if isMounted { try Self.mount(["-o", "remount,rw", dir.path]); return }
        try setPermissions(file: 0o644, folder: 0o755)
    }

    /// Fills the disk to the last byte.
    public func fill() throws {
        guard isMounted else { throw HarnessError("only a tmpfs of our own can be filled (run as root)") }
        let fd = open(filler.path, O_WRONLY | O_CREAT | O_APPEND, 0o600)
        guard fd >= 0 else { throw HarnessError("cannot create the filler: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        let chunk = [UInt8](repeating: 0, count: 65536)
        var size = chunk.count
        while size > 0 {
            if write(fd, chunk, size) < 0 {
                guard errno == ENOSPC else { throw HarnessError("filling: \(String(cString: strerror(errno)))") }
                size /= 2   // top up to the last byte
            }
        }
    }

    public func free() throws {
        try FileManager.default.removeItem(at: filler)
    }

    private func setPermissions(file: Int, folder: Int) throws {
        let walker = FileManager.default.enumerator(atPath: dir.path)
        while let relative = walker?.nextObject() as? String {
            let path = dir.appendingPathComponent(relative).path
            var isDir: ObjCBool = false
            _ = FileManager.default.fileExists(atPath: path, isDirectory: &isDir)
            try FileManager.default.setAttributes([.posixPermissions: isDir.boolValue ? folder : file], ofItemAtPath: path)
        }
        try FileManager.default.setAttributes([.posixPermissions: folder], ofItemAtPath: dir.path)
    }

    private static func mount(_ args: [String]) throws { try runTool("/bin/mount", args) }
}

/// Unmounts a test's file system; one still busy (a process holds a file on it)
/// is detached now, and gone when it lets go.
func unmount(_ dir: URL) {
    if (try? runTool("/bin/umount", [dir.path])) == nil { _ = try? runTool("/bin/umount", ["-l", dir.path]) }
}

/// Runs a system tool (mount, mkfs) quietly; throws when it fails.
func runTool(_ tool: String, _ args: [String]) throws {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: tool)
    p.arguments = args
    p.standardOutput = FileHandle.nullDevice
    p.standardError = FileHandle.nullDevice
    try p.run()
    p.waitUntilExit()
    guard p.terminationStatus == 0 else { throw HarnessError("\(tool) \(args.joined(separator: " ")) failed") }
}
