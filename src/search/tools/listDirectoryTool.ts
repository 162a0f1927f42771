/**
 * The `list_directory` tool (reference §11.3): one directory's entries, directories first with a
 * `[DIR] ` prefix, then files, each by name; `ignore` globs on base names; entries hidden by
 * `.gitignore` / `.toolwrightignore` left out and counted; at most 100 entries shown.
 *
 * Unlike the reference, `path` may also be relative (to the first workspace root), like every
 * other path param here.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import { CurrentOutputLimits } from "../../output/index.js"
import { realLocation, Workspace } from "../../session/index.js"
import { defineTool, LsExecutionError, textResult } from "../../tool/index.js"
import { formatListDirectory, listDirectory, type ListEntry, validateIgnoreGlobs } from "../listDirectory.js"
import { cleanPathInput, containingRoot, displayPath } from "./paths.js"
import { ListDirectoryParams, listDirectoryDeclaration } from "./listDirectory.decl.js"

export { ListDirectoryParams } from "./listDirectory.decl.js"

/** Typed success of `list_directory`. @category models */
export interface ListDirectoryData {
  /** The directory listed (absolute). */
  readonly path: string
  /** Every visible entry, sorted (the text shows the first 100). */
  readonly entries: ReadonlyArray<ListEntry>
  readonly gitIgnored: number
  readonly toolwrightIgnored: number
  readonly truncated: boolean
}

/** The `list_directory` tool over the session's workspace. @category constructors */
export const makeListDirectory = Effect.gen(function*() {
  const workspace = yield* Workspace

  return defineTool({
    ...listDirectoryDeclaration,
    resolvesOwnPaths: true,
    validate: (params) => validateIgnoreGlobs(params.ignore),
    invoke: (params) =>
      Effect.gen(function*() {
        const abs = yield* workspace.resolveReadable(cleanPathInput(params.path))
        const workspaceRoot = containingRoot(workspace, abs)
        const filtering = params.file_filtering_options
        return {
          description: displayPath(workspace.primaryRoot, abs),
          locations: [yield* realLocation(abs)],
          defaultPermission: Effect.succeed("allow" as const),
          execute: () =>
            Effect.gen(function*() {
              const result = yield* listDirectory({
                path: abs,
                ...(params.ignore !== undefined ? { ignore: params.ignore } : {}),
                fileFiltering: {
                  gitignore: filtering?.respect_git_ignore ?? true,
                  toolwrightIgnore: filtering?.respect_toolwright_ignore ?? true,
                  ...(workspaceRoot ? { workspaceRoot } : {})
                }
              }).pipe(
                Effect.catchTag("LsExecutionError", (e) =>
                  Effect.fail(
                    new LsExecutionError({
                      message: `${e.message}. Check the path (relative paths resolve against ${workspace.primaryRoot}); ` +
                        `list its parent directory or use glob to find it.`,
                      display: e.display ?? "Error: Failed to list directory."
                    })
                  ))
              )
              const limits = yield* CurrentOutputLimits
              const out = formatListDirectory(result, { maxLines: limits.truncateLines })
              const data: ListDirectoryData = {
                path: abs,
                entries: result.entries,
                gitIgnored: result.gitIgnored,
                toolwrightIgnored: result.toolwrightIgnored,
                truncated: out.truncated
              }
              return textResult(out.llmContent, { display: out.display, data })
            })
        }
      })
  })
})
