import CLinux
import Glibc
import ReelSystem

/// Follows a folder tree with inotify on a thread of its own and says which paths changed once
/// their writes settle. When the kernel's watches run out it says so once and falls back to
/// asking for the whole tree every `fallbackInterval`; when its event queue overflows it asks for
/// the whole tree once.
public final class FolderWatch: @unchecked Sendable {   // its state is touched only by its own thread after start
    public enum Event: Sendable, Equatable {
        /// These paths (files or folders, there or gone) below the root changed and have settled.
        case changed([String])
        /// Anything may have changed: the whole tree is to be scanned as the music folder is at
        /// start (the fallback's period came, events were lost, or the root itself changed), so
        /// that a folder found missing is said to be, not emptied out of the library.
        case rescan
        /// The tree is watched (as far as watches go): what changes from now on is seen, so a
        /// scan that catches up with what changed before may start.
        case watching
        /// Watches ran out: the tree is only partly watched, and is scanned periodically instead.
        case exhausted(String)
    }

    public let root: String
    private let fallbackInterval: Int64
    private let deliver: @Sendable (Event) -> Void
    private var fd: Int32 = -1
    private var wake: [Int32] = [-1, -1]
    private var folders: [Int32: String] = [:]
    private var settling = SettlingPaths()
    private var exhausted = false
    private var nextFallback: Int64 = .max
    private static let mask: UInt32 = UInt32(IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_CLOSE_WRITE | IN_MODIFY
                                             | IN_ATTRIB | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR | IN_EXCL_UNLINK)

    /// `deliver` is called on the watch's thread.
    public init(root: String, fallbackInterval: Int64, deliver: @escaping @Sendable (Event) -> Void) {
        self.root = root
        self.fallbackInterval = fallbackInterval
        self.deliver = deliver
    }

    /// Starts the thread that sets up the watches (a folder at a time: ten thousand folders are
    /// not walked before the daemon answers), says `.watching` once they are, then reads them.
    public func start() throws(SystemError) {
        fd = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        guard fd >= 0 else { throw SystemError("cannot watch \(root): \(String(cString: strerror(errno)))") }
        guard reel_pipe_cloexec(&wake) == 0 else { throw SystemError("cannot watch \(root): \(String(cString: strerror(errno)))") }
        Threads.start(name: "reel-watch") { [self] in
            watchTree(root)
            deliver(.watching)
            run()
        }
    }

    /// Ends the thread (the watches go with the descriptor).
    public func stop() {
        var byte: UInt8 = 0
        _ = write(wake[1], &byte, 1)
    }

    /// Watches a folder and every folder below it; hidden ones are left out, as the scan leaves them.
    private func watchTree(_ path: String) {
        var stack = [path]
        while let folder = stack.popLast() {
            guard !exhausted else { return }
            let wd = inotify_add_watch(fd, folder, Self.mask)
            if wd < 0 {
                if errno == ENOSPC { runOut() }
                continue   // gone already, or unreadable: the scan says why
            }
            folders[wd] = folder
            guard let dir = opendir(folder) else { continue }
            while let entry = readdir(dir) {
                guard entry.pointee.d_type == UInt8(DT_DIR) || entry.pointee.d_type == UInt8(DT_UNKNOWN) else { continue }
                let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
                guard !name.hasPrefix(".") else { continue }
                let child = folder == "/" ? "/" + name : folder + "/" + name
                if entry.pointee.d_type == UInt8(DT_UNKNOWN) {
                    var info = stat()
                    guard lstat(child, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else { continue }
                }
                stack.append(child)
            }
            closedir(dir)
        }
    }

    private func runOut() {
        exhausted = true
        let limit = (Paths.readSmallFile("/proc/sys/fs/inotify/max_user_watches") ?? "?").trimmed()
        deliver(.exhausted("the system's inotify watches ran out (fs.inotify.max_user_watches is \(limit)) after "
                           + "\(folders.count) folders; rescanning \(root) every \(fallbackInterval / 1_000_000) s instead"))
        nextFallback = monotonicNow() + fallbackInterval
    }

    private func run() {
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let now = monotonicNow()
            let next = min(settling.nextCheck ?? .max, nextFallback)
            let timeout = next == .max ? -1 : Int32(clamping: max(0, (next - now + 999) / 1000))
            var fds = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0), pollfd(fd: wake[0], events: Int16(POLLIN), revents: 0)]
            let ready = poll(&fds, 2, timeout)
            if ready < 0, errno != EINTR { break }
            if fds[1].revents != 0 { break }
            if fds[0].revents & Int16(POLLIN) != 0 {
                while case let count = read(fd, &buffer, buffer.count), count > 0 { parse(buffer, count) }
            }
            let now2 = monotonicNow()
            let due = settling.due(at: now2)
            if now2 >= nextFallback {
                nextFallback = now2 + fallbackInterval
                deliver(.rescan)
            } else if due.contains(root) {
                deliver(.rescan)
            } else if !due.isEmpty {
                deliver(.changed(due))
            }
        }
        close(fd)
        close(wake[0])
        close(wake[1])
    }

    private func parse(_ buffer: [UInt8], _ count: Int) {
        let now = monotonicNow()
        var offset = 0
        // struct inotify_event: wd, mask, cookie, len (4 bytes each), then len bytes of NUL-padded name.
        while offset + 16 <= count {
            let (wd, mask, length): (Int32, UInt32, Int) = buffer.withUnsafeBytes { raw in
                (raw.loadUnaligned(fromByteOffset: offset, as: Int32.self), raw.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self),
                 Int(raw.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self)))
            }
            let nameBytes = buffer[(offset + 16)..<min(offset + 16 + length, count)].prefix { $0 != 0 }
            offset += 16 + length
            if mask & UInt32(IN_Q_OVERFLOW) != 0 {
                // Events were lost: only the whole tree is sure.
                settling.touched(root, writing: nil, at: now)
                continue
            }
            guard let folder = folders[wd] else { continue }
            if mask & UInt32(IN_IGNORED) != 0 { folders[wd] = nil; continue }
            if mask & UInt32(IN_DELETE_SELF | IN_MOVE_SELF) != 0 { settling.touched(folder, writing: nil, at: now); continue }
            let name = String(decoding: nameBytes, as: UTF8.self)
            // Hidden names are not scanned: a download's or a copy's temporary file (rsync's
            // .name.XXXXXX) is seen when it is renamed to its own name.
            guard !name.isEmpty, !name.hasPrefix(".") else { continue }
            let path = folder == "/" ? "/" + name : folder + "/" + name
            let isFolder = mask & UInt32(IN_ISDIR) != 0
            if isFolder, mask & UInt32(IN_MOVED_FROM | IN_DELETE) != 0 { forget(under: path) }
            if isFolder, mask & UInt32(IN_CREATE | IN_MOVED_TO) != 0 { watchTree(path) }
            // Closed, renamed into place, moved away or deleted: nothing is being written under the name.
            let writing: Bool? = isFolder ? nil
                : mask & UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE) != 0 ? false
                : mask & UInt32(IN_CREATE | IN_MODIFY) != 0 ? true : nil
            settling.touched(path, writing: writing, at: now)
        }
    }

    /// A folder moved away or deleted: its watches (and those below it) name paths no longer there.
    private func forget(under path: String) {
        let prefix = path + "/"
        for (wd, folder) in folders where folder == path || folder.hasPrefix(prefix) {
            inotify_rm_watch(fd, wd)
            folders[wd] = nil
        }
    }
}
