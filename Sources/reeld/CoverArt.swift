import Foundation

/// Finds cover art for a local file: an image beside it, as most music
/// folders have. Stats a handful of names only, so it is cheap on the loop.
enum CoverArt {
    static let names = ["cover.jpg", "cover.png", "folder.jpg", "folder.png", "Cover.jpg", "Folder.jpg", "front.jpg"]

    static func beside(_ uri: String) -> String? {
        guard let url = URL(string: uri), url.isFileURL else { return nil }
        let dir = url.deletingLastPathComponent()
        for name in names {
            let candidate = dir.appendingPathComponent(name)
            if FileManager.default.isReadableFile(atPath: candidate.path) { return candidate.absoluteString }
        }
        return nil
    }
}
