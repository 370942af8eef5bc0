/// A property read asked of mpv without waiting (`mpv_get_property_async`): what it is for, and
/// the generation of what asked, so that an answer to an older question is told apart. Both travel
/// in mpv's reply_userdata: the purpose in the top byte, the generation below it.
struct PropertyRead: Equatable {
    enum Purpose: UInt64 {
        case audioFormat = 1, bitrate, seekable, duration, fileSize, chapters, metadata, trackList

        /// mpv's name of the property.
        var property: String {
            switch self {
            case .audioFormat: "audio-params"
            case .bitrate: "audio-bitrate"
            case .seekable: "seekable"
            case .duration: "duration"
            case .fileSize: "file-size"
            case .chapters: "chapter-list"
            case .metadata: "metadata"
            case .trackList: "track-list"
            }
        }
    }

    let purpose: Purpose
    let generation: UInt64

    init(_ purpose: Purpose, generation: UInt64) {
        self.purpose = purpose
        self.generation = generation & Self.generationMask
    }

    init?(userdata: UInt64) {
        guard let purpose = Purpose(rawValue: userdata >> 56) else { return nil }
        self.init(purpose, generation: userdata)
    }

    var userdata: UInt64 { purpose.rawValue << 56 | generation }

    private static let generationMask: UInt64 = (1 << 56) - 1
}
