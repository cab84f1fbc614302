import Foundation
import PackagePlugin

/// Build-tool plugin of `ReadmeSnippetTests`: before the target compiles, `ReadmeSnippetExtractor`
/// turns every ```swift block of the package's README.md into a function of a generated source
/// file. The README is the command's input, so editing it rebuilds the snippets: they are
/// compiled against the public API on every `swift build --build-tests` and cannot drift.
@main struct ReadmeSnippetsPlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let readme = context.package.directoryURL.appendingPathComponent("README.md")
        let output = context.pluginWorkDirectoryURL.appendingPathComponent("ReadmeSnippets.swift")
        return [
            .buildCommand(displayName: "Extracting the Swift snippets of README.md",
                          executable: try context.tool(named: "ReadmeSnippetExtractor").url,
                          arguments: [readme.path, output.path],
                          inputFiles: [readme], outputFiles: [output]),
        ]
    }
}
