/**
 * The `glob` tool (reference §11.2): files matching a glob pattern, under one directory or every
 * workspace root, recently modified files first (newest first), then the rest by path; at most
 * 100 paths shown (fewer when `TOOLWRIGHT_TRUNCATE_LINES` or `TOOLWRIGHT_TRUNCATE_CHARS` say so), the
 * walk stopped after 1,000 matches (`maxCollected` option, `TOOLWRIGHT_GLOB_MAX_COLLECTED`). `.gitignore` and `.toolwrightignore`
 * are honoured, dot files included, symbolic links not followed, matching case-insensitive.
 *
 * @since 0.1.0
 */
import * as path from "node:path"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import { CurrentOutputLimits } from "../../output/index.js"
import { realLocations, Workspace, type WorkspaceService } from "../../session/index.js"
import { defineTool, GlobExecutionError, InvalidToolParams, PathNotInWorkspace, textResult } from "../../tool/index.js"
import { MAX_GLOB_COLLECTED_ENTRIES, RECENCY_THRESHOLD_MS } from "../constants.js"
import { patternTooLong, shortErrorMessage } from "../patternLimits.js"
import { formatGlobResult, type GlobEntry, type GlobLocation, type GlobResult, globSearch, sortFileEntries, validateGlobPattern } from "../glob.js"
import { containingRoot, displayPath, resolveSearchPath, searchRoots } from "./paths.js"
import { GlobParams, globDeclaration } from "./glob.decl.js"

export { GlobParams } from "./glob.decl.js"

/** Typed success of `glob`. @category models */
export interface GlobData {
  /** Every match found (up to the 1,000-entry collection cap), sorted; the text shows the first 100. */
  readonly entries: ReadonlyArray<GlobEntry>
  /** The absolute paths shown. */
  readonly shown: ReadonlyArray<string>
  /** True when the walk stopped at the collection cap. */
  readonly hitCollectionLimit: boolean
  readonly truncated: boolean
}

type Params = typeof GlobParams.Type

/** A `..` segment anywhere in a pattern (also inside braces: `{a,../b}`). */
const PARENT_SEGMENT = /(?:^|[/\\{,])\.\.(?:[/\\},]|$)/

const validate = (p: Params): string | undefined => {
  const tooLong = patternTooLong("pattern", p.pattern)
  if (tooLong !== undefined) return tooLong
  const empty = validateGlobPattern(p.pattern)
  if (empty !== undefined) return empty
  if (PARENT_SEGMENT.test(p.pattern)) {
    return `The pattern "${p.pattern}" contains a ".." segment. Patterns match below the search directory; ` +
      `to search elsewhere in the workspace, pass that directory as path.`
  }
  return undefined
}

/**
 * An absolute pattern is made relative to the root it starts with (the search directory, or the
 * deepest workspace root); one outside every root is refused.
 */
const relativePattern = (workspace: WorkspaceService, pattern: string, target: string | undefined) =>
  Effect.gen(function*() {
    const trimmed = pattern.trim()
    if (!path.isAbsolute(trimmed)) return { pattern: trimmed, root: undefined }
    const candidates = target !== undefined ? [target] : [...workspace.roots].sort((a, b) => b.length - a.length)
    const root = candidates.find((r) => trimmed.startsWith(r.endsWith("/") ? r : `${r}/`))
    if (root === undefined) {
      return yield* new PathNotInWorkspace({
        message: `The pattern "${pattern}" is an absolute path outside the ${target === undefined ? "workspace roots" : `search directory ${target}`}` +
          ` (${(target === undefined ? workspace.roots : [target]).join(", ")}). Use a pattern relative to the search directory, ` +
          `and pass the directory to search as path.`,
        display: "Pattern is outside the workspace."
      })
    }
    const rest = trimmed.slice(root.length).replace(/^\/+/, "")
    if (rest === "") {
      return yield* new InvalidToolParams({ message: `The pattern "${pattern}" names a directory, not files. Add a file pattern such as "/**/*".` })
    }
    return { pattern: rest, root }
  })

/** Runs the engine per root (each with its own `.toolwrightignore` base) and merges: deduplicated, capped, re-sorted. */
const globRoots = Effect.fnUntraced(function*(workspace: WorkspaceService, pattern: string, roots: ReadonlyArray<string>, maxCollected: number) {
  const results = yield* Effect.forEach(roots, (root) => {
    const workspaceRoot = containingRoot(workspace, root)
    return globSearch({
      pattern,
      roots: [root],
      ignore: { gitignore: true, toolwrightIgnore: true, ...(workspaceRoot ? { workspaceRoot } : {}) },
      maxCollected
    })
  })
  if (results.length === 1) return results[0]!
  const seen = new Set<string>()
  const entries = results.flatMap((r) => r.entries).filter((e) => (seen.has(e.path) ? false : (seen.add(e.path), true)))
  const capped = entries.length > maxCollected
  const now = yield* Clock.currentTimeMillis
  const merged: GlobResult = {
    entries: sortFileEntries(capped ? entries.slice(0, maxCollected) : entries, now, RECENCY_THRESHOLD_MS),
    hitCollectionLimit: capped || results.some((r) => r.hitCollectionLimit),
    skippedIgnoreLines: results.flatMap((r) => r.skippedIgnoreLines ?? [])
  }
  return merged
})

/** The environment variable that sets glob's collection cap. @category constants */
export const GLOB_MAX_COLLECTED_ENV_VAR = "TOOLWRIGHT_GLOB_MAX_COLLECTED"

/** Options of {@link makeGlobTool}. @category models */
export interface GlobToolOptions {
  /** Most matches collected before the walk stops; wins over `TOOLWRIGHT_GLOB_MAX_COLLECTED` (default 1,000). */
  readonly maxCollected?: number
  /** Where `TOOLWRIGHT_GLOB_MAX_COLLECTED` is read (default `process.env`). */
  readonly env?: Readonly<Record<string, string | undefined>>
}

/** The collection cap: the option, else the variable (blank = unset), else 1,000; a message when the setting is not a positive integer. */
const collectionCap = (options: GlobToolOptions): number | { readonly invalid: string } => {
  const [value, source] = options.maxCollected !== undefined
    ? [String(options.maxCollected), "the glob maxCollected option"]
    : [(options.env ?? process.env)[GLOB_MAX_COLLECTED_ENV_VAR]?.trim() ?? "", GLOB_MAX_COLLECTED_ENV_VAR]
  if (value === "") return MAX_GLOB_COLLECTED_ENTRIES
  const n = /^\d+$/.test(value) ? Number(value) : NaN
  if (Number.isSafeInteger(n) && n >= 1) return n
  return {
    invalid: `${source} is set to ${JSON.stringify(value)}, which is not a positive integer. glob cannot run until it is fixed; ` +
      `tell the user, and use list_directory meanwhile.`
  }
}

/** The `glob` tool with options (its collection cap). @category constructors */
export const makeGlobTool = (options: GlobToolOptions = {}) => Effect.gen(function*() {
  const workspace = yield* Workspace
  const cap = collectionCap(options)

  return defineTool({
    ...globDeclaration,
    resolvesOwnPaths: true,
    validate,
    invoke: (params) =>
      Effect.gen(function*() {
        const target = params.path === undefined
          ? undefined
          : yield* resolveSearchPath(workspace, params.path, { directory: true })
        const relative = yield* relativePattern(workspace, params.pattern, target)
        const roots = target !== undefined ? [target] : relative.root !== undefined ? [relative.root] : searchRoots(workspace.roots)
        const location: GlobLocation = target !== undefined
          ? { _tag: "Path", path: target }
          : { _tag: "Workspace", directories: workspace.roots.length }
        const where = target === undefined ? "" : ` within ${displayPath(workspace.primaryRoot, target)}`
        return {
          description: `'${params.pattern}'${where}`,
          locations: yield* realLocations(roots),
          defaultPermission: Effect.succeed("allow" as const),
          execute: () =>
            Effect.gen(function*() {
              if (typeof cap !== "number") {
                return yield* new GlobExecutionError({ message: `Error during glob search operation: ${cap.invalid}`, display: `Error: ${cap.invalid}` })
              }
              const result = yield* globRoots(workspace, relative.pattern, roots, cap).pipe(
                Effect.catchDefect((defect) => {
                  const message = shortErrorMessage(defect)
                  return Effect.logWarning("glob: search failed", defect).pipe(Effect.andThen(Effect.fail(
                    new GlobExecutionError({ message: `Error during glob search operation: ${message}`, display: `Error: ${message}` })
                  )))
                })
              )
              const limits = yield* CurrentOutputLimits
              const out = formatGlobResult(result, { pattern: params.pattern, location, maxLines: limits.truncateLines, maxChars: limits.truncateChars })
              const data: GlobData = {
                entries: result.entries,
                shown: out.resultFilePaths,
                hitCollectionLimit: result.hitCollectionLimit,
                truncated: out.truncated
              }
              return textResult(out.llmContent, { display: out.display, data, resultFilePaths: out.resultFilePaths })
            })
        }
      })
  })
})

/** The `glob` tool over the session's workspace (collection cap from `TOOLWRIGHT_GLOB_MAX_COLLECTED`, else 1,000). @category constructors */
export const makeGlob = makeGlobTool()
