import ReelCore
import ReelDBus

/// Property values of reel's object, read from a snapshot.
enum PropertyValues {
    static let mimeTypes = [
        "audio/mpeg", "audio/mp4", "audio/aac", "audio/flac", "audio/x-flac", "audio/ogg", "audio/opus",
        "audio/vorbis", "audio/wav", "audio/x-wav", "audio/webm", "audio/x-matroska", "audio/x-ms-wma",
        "audio/x-aiff", "audio/x-ape", "audio/x-wavpack", "audio/x-mpegurl", "application/ogg",
        "video/mp4", "video/webm", "video/x-matroska", "video/ogg", "video/quicktime", "video/x-msvideo",
        "video/mpeg", "video/x-flv", "video/3gpp",
    ]

    /// The current entry's chapters, as (start in µs, title).
    static func chapters(_ s: Snapshot) -> DBusValue { chapters(s.current?.metadata.chapters ?? []) }

    static func chapters(_ list: [Chapter]) -> DBusValue {
        .array(elementSignature: "(xs)", list.map { .structure([.int64($0.start), .string($0.title)]) })
    }

    static func value(_ interface: String, _ name: String, host: any Session, version: String) -> DBusValue? {
        let s = host.snapshot
        return switch (interface, name) {
        case (MPRIS.root, "CanQuit"): .boolean(true)
        case (MPRIS.root, "CanRaise"): .boolean(false)
        case (MPRIS.root, "HasTrackList"): .boolean(true)
        case (MPRIS.root, "Identity"): .string("reel")
        case (MPRIS.root, "DesktopEntry"): .string("reel")
        case (MPRIS.root, "SupportedUriSchemes"): .strings(URLParts.playableSchemes)
        case (MPRIS.root, "SupportedMimeTypes"): .strings(mimeTypes)
        case (MPRIS.player, "PlaybackStatus"): .string(s.status.rawValue)
        case (MPRIS.player, "LoopStatus"): .string(s.loop.rawValue)
        case (MPRIS.player, "Rate"): .double(s.rate)
        case (MPRIS.player, "Shuffle"): .boolean(s.shuffle)
        case (MPRIS.player, "Metadata"): MetadataMap.of(s.current, chapter: s.chapter)
        case (MPRIS.player, "Volume"): .double(s.volume)
        case (MPRIS.player, "Position"): .int64(host.position())
        case (MPRIS.player, "MinimumRate"): .double(Engine.minimumRate)
        case (MPRIS.player, "MaximumRate"): .double(Engine.maximumRate)
        case (MPRIS.player, "CanGoNext"): .boolean(s.canGoNext)
        case (MPRIS.player, "CanGoPrevious"): .boolean(s.canGoPrevious)
        case (MPRIS.player, "CanPlay"): .boolean(s.canPlay)
        case (MPRIS.player, "CanPause"): .boolean(s.canPause)
        case (MPRIS.player, "CanSeek"): .boolean(s.canSeek)
        case (MPRIS.player, "CanControl"): .boolean(true)
        case (MPRIS.trackList, "Tracks"): .objectPaths(TrackWindow.ids(host.queue).map(TrackID.path))
        case (MPRIS.trackList, "CanEditTracks"): .boolean(true)
        case (MPRIS.reel, "LastError"): .string(s.lastError ?? "")
        case (MPRIS.reel, "Version"): .string(version)
        case (MPRIS.reel, "ControlAddresses"): .strings(host.controlAddresses)
        case (MPRIS.reel, "AudioOutput"): .string(host.audioOutput)
        case (MPRIS.reel, "ReplayGain"): .string(s.replayGain.rawValue)
        case (MPRIS.reel, "Video"): .boolean(s.video)
        case (MPRIS.reel, "Chapters"): chapters(s)
        case (MPRIS.reel, "Chapter"): .int32(Int32(clamping: s.chapter ?? -1))
        case (MPRIS.reel, "ChapterKeys"): .string(s.chapterKeys.rawValue)
        case (MPRIS.reel, "SleepTimer"): .string(s.sleep?.name ?? "off")
        case (MPRIS.reel, "SleepLeft"): .int64(host.sleepLeft() ?? -1)
        case (MPRIS.reel, "TimeSaved"): .int64(s.timeSaved ?? -1)
        case (MPRIS.reel, "Activity"): .string(s.activity ?? "")
        case (MPRIS.reel, "LibraryError"): .string(host.libraryError ?? "")
        default: nil
        }
    }
}
