import Foundation

/// An ext4 file system on a loop device, mounted with `errors=remount-ro`,
/// that can be made to fail as a real disk does: the kernel turns it
/// read-only under open files (a plain `remount,ro` is refused while a file
/// is open for writing). Takes root and a loop device; `isMounted` says
/// whether it got them.
public final class FailingDisk: @unchecked Sendable {
    // @unchecked: immutable but for the mount, which the test thread alone changes.
    public let dir: URL
    public private(set) var isMounted = false
    private let image: URL

    public init(size: Int = 32 << 20) throws {
        let name = "reel-ext4-\(UUID().uuidString.prefix(8))"
        dir = FileManager.default.temporaryDirectory.appendingPathComponent(name)
        image = FileManager.default.temporaryDirectory.appendingPathComponent(name + ".img")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        guard getuid() == 0, FileManager.default.createFile(atPath: image.path, contents: nil),
              truncate(image.path, off_t(size)) == 0,
              (try? runTool("/sbin/mkfs.ext4", ["-q", "-F", image.path])) != nil else { return }
        _ = try? mount()
    }

    deinit {
        if isMounted { unmount(dir) }
        try? FileManager.default.removeItem(at: dir)
        try? FileManager.default.removeItem(at: image)
    }

    /// The kernel finds an error and turns the file system read-only, as it
    /// does when a disk fails: writes fail with EROFS from then on, open files or not.
    public func fail() throws {
        let device = try loopDevice()
        try "reel test".write(toFile: "/sys/fs/ext4/\(device)/trigger_fs_error", atomically: false, encoding: .utf8)
    }

    /// Checks and mounts it again, writable (nothing may hold a file on it).
    public func repair() throws {
        try runTool("/bin/umount", [dir.path])
        isMounted = false
        _ = try? runTool("/sbin/e2fsck", ["-f", "-y", image.path])
        try mount()
    }

    private func mount() throws {
        try runTool("/bin/mount", ["-o", "loop,errors=remount-ro", image.path, dir.path])
        isMounted = true
    }

    /// The loop device's name (loop0) from the mount table.
    private func loopDevice() throws -> String {
        let mounts = try String(contentsOfFile: "/proc/self/mounts", encoding: .utf8)
        guard let line = mounts.split(separator: "\n").first(where: { $0.split(separator: " ").dropFirst().first == Substring(dir.path) }),
              let device = line.split(separator: " ").first else { throw HarnessError("\(dir.path) is not mounted") }
        return String(device.split(separator: "/").last!)
    }
}
