/**
 * Path handling shared by the search tools: cleaning what a model wrote (trim, shell escapes,
 * `~`), resolving it through the workspace boundary, the existence checks of §11, and the
 * short forms shown in descriptions and results.
 *
 * @since 0.1.0
 */
import * as fs from "node:fs/promises"
import * as os from "node:os"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import { displayPath, unescapePath, type WorkspaceService } from "../../session/index.js"
import { SearchPathNotADirectory, SearchPathNotFound } from "../../tool/index.js"

/**
 * What a model wrote as a path, cleaned: trimmed, shell escapes removed (`my\ dir` → `my dir`,
 * a doubled backslash kept) and a leading `~` expanded to the home directory.
 * @category paths
 */
export const cleanPathInput = (input: string): string => {
  const unescaped = unescapePath(input)
  if (unescaped === "~") return os.homedir()
  return unescaped.startsWith("~/") ? path.join(os.homedir(), unescaped.slice(2)) : unescaped
}

export { displayPath }

/** The workspace root (or readable directory) that holds `abs`: the deepest one, if any. @category paths */
export const containingRoot = (workspace: WorkspaceService, abs: string): string | undefined =>
  [...workspace.roots, ...workspace.extraReadableDirs]
    .filter((root) => abs === root || abs.startsWith(root.endsWith(path.sep) ? root : root + path.sep))
    .sort((a, b) => b.length - a.length)[0]

/** Roots to search when no path is given: the workspace roots minus those inside another root. @category paths */
export const searchRoots = (roots: ReadonlyArray<string>): ReadonlyArray<string> =>
  roots.filter((root) => !roots.some((other) => other !== root && root.startsWith(other.endsWith(path.sep) ? other : other + path.sep)))

/** The path's stats, or undefined (on the thread pool: the path is the model's, see disk/disk.ts). */
const statOf = (abs: string) => Effect.promise(() => fs.stat(abs).catch(() => undefined))

const notFound = (abs: string) =>
  new SearchPathNotFound({
    message: `Path does not exist: ${abs}. Check the path (relative paths resolve against the first workspace root), ` +
      `or omit path to search the whole workspace.`,
    display: "Path does not exist."
  })

/**
 * Resolves a search path inside the workspace (or the session's readable directories) and
 * checks that it exists (`search_path_not_found`) and, when `directory`, that it is one
 * (`search_path_not_a_directory`).
 * @category paths
 */
export const resolveSearchPath = Effect.fnUntraced(function*(
  workspace: WorkspaceService,
  input: string,
  options: { readonly directory: boolean }
) {
  const abs = yield* workspace.resolveReadable(cleanPathInput(input))
  const stat = yield* statOf(abs)
  if (stat === undefined) return yield* notFound(abs)
  if (options.directory && !stat.isDirectory()) {
    return yield* new SearchPathNotADirectory({
      message: `Path is not a directory: ${abs}. Pass the directory that contains it, or read the file with read_file.`,
      display: "Path is not a directory."
    })
  }
  return abs
})
