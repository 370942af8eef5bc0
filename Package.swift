// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "reel",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "reeld", targets: ["reeld"]),
        .executable(name: "reel", targets: ["reel"]),
        .executable(name: "reel-scan", targets: ["reel-scan"]),
    ],
    targets: [
        .systemLibrary(name: "CDBus", pkgConfig: "dbus-1", providers: [.apt(["libdbus-1-dev"])]),
        // mpv's headers are on the default include path; its pkg-config cflags
        // carry -D_REENTRANT, which SwiftPM rejects with a warning on every build.
        .systemLibrary(name: "CMPV", providers: [.apt(["libmpv-dev"])]),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CXML2", pkgConfig: "libxml-2.0", providers: [.apt(["libxml2-dev"])]),
        // libxml2's push parser behind a header of C types only (see CXML2/shim.h for why).
        .target(name: "CFeedParser", dependencies: ["CXML2"]),
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        // libavformat (and the libavcodec and libavutil it needs), for the scanner's C only.
        .systemLibrary(name: "CAVFormat", pkgConfig: "libavformat", providers: [.apt(["libavformat-dev"])]),
        // What libavformat reads of a file, behind a header of C types only.
        .target(name: "CMediaScan", dependencies: ["CAVFormat"],
                linkerSettings: [.linkedLibrary("avformat"), .linkedLibrary("avcodec"), .linkedLibrary("avutil")]),
        // timerfd, which Swift's Glibc module leaves out.
        .systemLibrary(name: "CLinux"),
        .target(name: "ReelCore"),
        // Locks, threads and stderr without Foundation, whose ICU the daemon need not load.
        .target(name: "ReelSystem", dependencies: ["CLinux"]),
        .target(name: "ReelSQLite", dependencies: ["CSQLite"]),
        // The scanner's protocol and rules, shared by the scanner process and the library that drives it.
        .target(name: "ReelScan", dependencies: ["ReelCore"]),
        // The scanner process: reads tags, lengths and chapters with libavformat, a file at a time,
        // so that a demuxer that crashes or hangs costs a restart of it, never reeld.
        .executableTarget(name: "reel-scan", dependencies: ["CMediaScan", "ReelScan", "ReelCore", "ReelSystem", "CLinux"]),
        .target(name: "ReelLibrary", dependencies: ["ReelCore", "ReelSQLite", "ReelSystem", "ReelScan", "CFeedParser", "CLinux"]),
        .target(name: "ReelCache", dependencies: ["ReelCore", "ReelSQLite", "ReelSystem", "CCurl", "CLinux"]),
        .target(name: "ReelDBus", dependencies: ["ReelSystem", "CDBus"]),
        .target(name: "ReelMPRIS", dependencies: ["ReelCore", "ReelDBus"]),
        .target(name: "ReelMPV", dependencies: ["ReelCore", "ReelSystem", "CMPV"]),
        // The MPD protocol: a second control bus over the same session as MPRIS.
        .target(name: "ReelMPD", dependencies: ["ReelCore", "ReelSystem"]),
        // Sound for Snapcast: the relay from mpv's FIFO into snapserver's pipe or TCP source.
        .target(name: "ReelSnapcast", dependencies: ["ReelCore", "ReelSystem", "CLinux"]),
        // reeld's options and reeld.conf's keys, one table for both, which reel's `config check` also reads;
        // and the version, made at build time from the VERSION file.
        .executableTarget(name: "reel-version", path: "Sources/reel-version"),
        // The tests' PipeWire recorder: samples stamped with the graph's clock (C: libpipewire's API is
        // macros). Its headers' paths by hand: pkg-config's cflags carry -D_REENTRANT, which SwiftPM refuses.
        .executableTarget(name: "reel-pw-capture", path: "Sources/reel-pw-capture",
                          cSettings: [.unsafeFlags(["-I/usr/include/pipewire-0.3", "-I/usr/include/spa-0.2", "-D_REENTRANT"])],
                          linkerSettings: [.linkedLibrary("pipewire-0.3")]),
        .plugin(name: "VersionPlugin", capability: .buildTool(), dependencies: ["reel-version"], path: "Sources/VersionPlugin"),
        .target(name: "ReelSettings", dependencies: ["ReelCore", "ReelSystem", "ReelSnapcast"], plugins: ["VersionPlugin"]),
        .executableTarget(name: "reeld", dependencies: ["ReelCore", "ReelSystem", "ReelDBus", "ReelMPRIS", "ReelMPD", "ReelMPV", "ReelSnapcast", "ReelLibrary", "ReelCache", "ReelSettings", "CLinux"]),
        .target(name: "ReelCLI", dependencies: ["ReelCore", "ReelDBus", "ReelSettings"]),
        .executableTarget(name: "reel", dependencies: ["ReelCLI", "ReelDBus", "ReelSettings"]),
        .target(name: "ReelHarness", dependencies: ["ReelCore", "ReelSystem", "ReelDBus", "ReelMPRIS"]),
        .executableTarget(name: "reel-bench", dependencies: ["ReelSystem", "ReelDBus", "ReelMPRIS", "ReelHarness", "ReelLibrary"]),
        .testTarget(name: "ReelCoreTests", dependencies: ["ReelCore"]),
        .testTarget(name: "ReelSystemTests", dependencies: ["ReelSystem"]),
        .testTarget(name: "ReelScanTests", dependencies: ["ReelScan", "ReelCore"]),
        .testTarget(name: "ReelDBusTests", dependencies: ["ReelDBus"]),
        .testTarget(name: "ReelCLITests", dependencies: ["ReelCLI", "ReelCore"]),
        .testTarget(name: "ReelSettingsTests", dependencies: ["ReelSettings", "ReelCore"]),
        .testTarget(name: "ReelMPDTests", dependencies: ["ReelMPD", "ReelCore"]),
        .testTarget(name: "ReelSnapcastTests", dependencies: ["ReelSnapcast", "ReelSystem", "ReelCore"]),
        .testTarget(name: "ReelMPRISTests", dependencies: ["ReelMPRIS", "ReelCore", "ReelDBus"]),
        .testTarget(name: "ReelHarnessTests", dependencies: ["ReelHarness", "ReelCore", "ReelDBus", "ReelMPRIS"]),
        .testTarget(name: "ReelLibraryTests", dependencies: ["ReelLibrary", "ReelCore", "ReelSQLite", "ReelHarness"]),
        .testTarget(name: "ReelMPVTests", dependencies: ["ReelMPV", "ReelCore", "ReelHarness", "ReelSystem"]),
        .testTarget(name: "ReelCacheTests", dependencies: ["ReelCache", "ReelCore", "ReelHarness"]),
        .testTarget(name: "IntegrationTests", dependencies: ["ReelCore", "ReelSystem", "ReelDBus", "ReelMPRIS", "ReelMPD", "ReelHarness", "ReelLibrary", "ReelCache", "ReelSQLite", "ReelCLI", "ReelSettings"],
                    exclude: ["Fixtures"]),
    ],
    swiftLanguageModes: [.v6]
)
