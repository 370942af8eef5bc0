import Glibc

/// reeld's files in `$XDG_RUNTIME_DIR/reel/` (the folder made 0700): the MPD
/// protocol's socket, the FIFO of the Snapcast output. nil without a runtime directory.
enum RuntimeFile {
    /// `NAME.EXTENSION`, or `NAME.instancePID.EXTENSION` for an `--instance` daemon.
    static func path(_ name: String, _ fileExtension: String, environment: [String: String], instance: Bool) -> String? {
        guard let runtime = environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/") else { return nil }
        let folder = runtime + "/reel"
        mkdir(folder, 0o700)
        return folder + (instance ? "/\(name).instance\(getpid()).\(fileExtension)" : "/\(name).\(fileExtension)")
    }
}
