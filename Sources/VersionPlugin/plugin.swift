import PackagePlugin

/// Gives the target it is applied to `reelVersion`, made from the package's VERSION file.
@main
struct VersionPlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let version = context.package.directoryURL.appending(path: "VERSION")
        let output = context.pluginWorkDirectoryURL.appending(path: "Version.swift")
        return [.buildCommand(displayName: "Version.swift from VERSION", executable: try context.tool(named: "reel-version").url,
                              arguments: [version.path, output.path], inputFiles: [version], outputFiles: [output])]
    }
}
