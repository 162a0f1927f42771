/**
 * The `grep_search` tool (reference §11.1): a case-insensitive regex search over the workspace
 * (every root, or one file or directory), printed in the reference's ripgrep shape
 * (`path:line:text` under a `Found N matches` header, line and character caps with a
 * `[N lines truncated]` trailer). The engine has four backends that agree (see
 * `src/search/grep/`); the tool picks one at run time unless the constructor option or
 * `TOOLWRIGHT_GREP_BACKEND` forces one. Hits count as partial reads in the session's read cache.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import { CurrentOutputLimits } from "../../output/index.js"
import { launchWaitSoFar, withLaunchBudget } from "../../process/index.js"
import { FileReadCache, realLocations, Workspace } from "../../session/index.js"
import { defineTool, ExecutionTimeout, GrepExecutionError, streamResult, textChunks } from "../../tool/index.js"
import { GREP_MAX_OUTPUT_CHARS, GREP_TIMEOUT_MS } from "../constants.js"
import { formatGrepResult, type SearchLocation, type SearchOutput } from "../grep/format.js"
import { grepSearch } from "../grep/search.js"
import { makeGrepBackendSelector } from "../grep/select.js"
import type { GrepBackendName, GrepMatch, GrepRequest, GrepResult } from "../grep/types.js"
import { compilePathGlob } from "../ignore/patterns.js"
import { patternTooLong, patternUncompilable, shortErrorMessage } from "../patternLimits.js"
import { validateGrepPattern } from "../regex/compile.js"
import { grepBackendChoice } from "./backend.js"
import { recordGrepReads } from "./grepReads.js"
import { containingRoot, displayPath, resolveSearchPath, searchRoots } from "./paths.js"
import { GrepSearchParams, grepSearchDeclaration } from "./grepSearch.decl.js"

export { GrepSearchParams } from "./grepSearch.decl.js"

/** Typed success of `grep_search`. @category models */
export interface GrepSearchData {
  /** The matches in the result (up to the line cap), `path` as shown to the model. */
  readonly matches: ReadonlyArray<GrepMatch>
  /** Matching lines in total, shown or not (a lower bound when `totalIsLowerBound`). */
  readonly totalMatches: number
  /** True when the search stopped at its cap (`min(limit, 1000)` lines): more lines match than it counted. */
  readonly totalIsLowerBound?: boolean
  /** True when lines or characters were cut. */
  readonly truncated: boolean
  /** The engine that ran each search (one per root searched). */
  readonly engines: ReadonlyArray<GrepBackendName>
  /** Why a backend handed a query to the JS engine, when one did. */
  readonly fallbackReasons: ReadonlyArray<string>
  /** Files recorded as (partially) read in the session's read cache. */
  readonly filesRecordedAsRead: number
  /** Files not searched because they are over the 20 MiB cap (as far as the backend can tell; see `GrepResult`). */
  readonly skippedLargeFiles: ReadonlyArray<string>
  /** Time its processes waited for a launch slot (ms; absent when none did), not counted against the time budget. */
  readonly launchWaitMs?: number
}

/** Options of {@link makeGrepSearchTool}. @category models */
export interface GrepSearchToolOptions {
  /** Forces a backend (`auto`: choose at run time). Wins over `TOOLWRIGHT_GREP_BACKEND`. */
  readonly backend?: GrepBackendName | "auto"
  /** The environment to read `TOOLWRIGHT_GREP_BACKEND` from (default `process.env`). */
  readonly env?: Readonly<Record<string, string | undefined>>
  /** Wall-clock budget of one call, not counting waits at the launch gate (default `GREP_TIMEOUT_MS`, 60 s). */
  readonly timeoutMs?: number
}

type Params = typeof GrepSearchParams.Type

const validate = (p: Params): string | undefined => {
  const invalid = validateGrepPattern(p.pattern)
  if (invalid !== undefined || p.glob === undefined || p.glob === "") return invalid
  return patternTooLong("glob", p.glob) ?? (compilePathGlob(p.glob) === undefined ? patternUncompilable("glob", p.glob) : undefined)
}

const describe = (p: Params, where: string | undefined): string =>
  `'${p.pattern}'${where === undefined ? "" : ` in ${where}`}${p.glob ? ` (filter: '${p.glob}')` : ""}`

/** The search did not finish within its budget: nothing partial is returned, the model is told how to narrow it. */
const timedOut = (p: Params, timeoutMs: number) =>
  new ExecutionTimeout({
    message: `grep_search for '${p.pattern}' did not finish within ${timeoutMs / 1000} s and was stopped. ` +
      `Narrow it: pass a smaller path or a glob, or simplify the pattern — nested or adjacent quantifiers over the same ` +
      `text such as (a+)+, (.*)* or .*a.*b.* can take exponential time on long lines, and backreferences (\\1) make every ` +
      `backend fall back to the slower JS engine.`,
    display: `Timed out after ${timeoutMs / 1000} s.`
  })

const execError = (message: string) =>
  new GrepExecutionError({ message: `Error during grep search operation: ${message}`, display: `Error: ${message}` })

/** Formats within `budget` characters in total (header and trailer included), so the tool's own cut applies, not the pipeline's. */
const formatWithin = (result: GrepResult, options: Parameters<typeof formatGrepResult>[1], budget: number): SearchOutput => {
  let maxChars = budget
  let out = formatGrepResult(result, { ...options, maxChars })
  for (let i = 0; i < 3 && out.llmContent.length > budget && maxChars > 0; i++) {
    maxChars = Math.max(0, maxChars - (out.llmContent.length - budget))
    out = formatGrepResult(result, { ...options, maxChars })
  }
  return out
}

/**
 * Merges the per-root results: paths as the model should pass them back (worked out once per
 * file), duplicates (`path:line`, from nested roots) once. One root's result has none to look for.
 */
const mergeResults = (primaryRoot: string, results: ReadonlyArray<GrepResult>) => {
  const shownAs = new Map<string, string>()
  const seenLines = results.length > 1 ? new Map<string, Set<number>>() : undefined
  const matches: Array<GrepMatch> = []
  let duplicates = 0
  for (const result of results) {
    for (const match of result.matches) {
      if (seenLines !== undefined) {
        const lines = seenLines.get(match.absolutePath) ?? new Set<number>()
        if (lines.has(match.line)) {
          duplicates++
          continue
        }
        seenLines.set(match.absolutePath, lines.add(match.line))
      }
      let shown = shownAs.get(match.absolutePath)
      if (shown === undefined) {
        shown = displayPath(primaryRoot, match.absolutePath)
        shownAs.set(match.absolutePath, shown)
      }
      matches.push({ ...match, path: shown })
    }
  }
  const totalMatches = results.reduce((n, r) => n + r.totalMatches, 0) - duplicates
  const totalIsLowerBound = results.some((r) => r.totalIsLowerBound === true)
  return { matches, totalMatches, totalIsLowerBound }
}

/**
 * The `grep_search` tool with options (a forced backend); {@link makeGrepSearch} is the default.
 * @category constructors
 */
export const makeGrepSearchTool = (options: GrepSearchToolOptions = {}) =>
  Effect.gen(function*() {
    const workspace = yield* Workspace
    const cache = yield* FileReadCache
    const choice = yield* Effect.sync(() => grepBackendChoice(options.backend, options.env ?? process.env))
    const select = yield* makeGrepBackendSelector()
    const timeoutMs = options.timeoutMs ?? GREP_TIMEOUT_MS

    return defineTool({
      ...grepSearchDeclaration,
      resolvesOwnPaths: true,
      validate,
      invoke: (params) =>
        Effect.gen(function*() {
          const target = params.path === undefined
            ? undefined
            : yield* resolveSearchPath(workspace, params.path, { directory: false })
          const roots = target === undefined ? searchRoots(workspace.roots) : [target]
          const where = target === undefined ? undefined : displayPath(workspace.primaryRoot, target)
          const location: SearchLocation = where === undefined
            ? { _tag: "Workspace", directories: workspace.roots.length }
            : { _tag: "Path", path: where }
          return {
            description: describe(params, where),
            locations: yield* realLocations(roots),
            defaultPermission: Effect.succeed("allow" as const),
            execute: () =>
              Effect.gen(function*() {
                if (choice._tag === "Invalid") return yield* execError(choice.message)
                const force = choice._tag === "Forced" ? { force: choice.backend, select } : { select }
                const startedMs = yield* Effect.sync(() => Date.now())
                const requestFor = (root: string): GrepRequest => {
                  const workspaceRoot = containingRoot(workspace, root)
                  return {
                    pattern: params.pattern,
                    root,
                    ignore: { gitignore: true, toolwrightIgnore: true, ...(workspaceRoot ? { workspaceRoot } : {}) },
                    ...(params.glob !== undefined && params.glob !== "" ? { glob: params.glob } : {}),
                    ...(params.limit !== undefined ? { limit: params.limit } : {}),
                    ...(params.case_sensitive === true ? { caseSensitive: true } : {})
                  }
                }
                const searched = Effect.forEach(roots, (root) => grepSearch(requestFor(root), force), { concurrency: 4 }).pipe(
                  Effect.flatMap((results) => Effect.map(launchWaitSoFar, (launchWaitMs) => ({ results, launchWaitMs })))
                )
                // The budget leaves out time its processes waited at the launch gate; past it the
                // search is interrupted, which kills its processes and terminates its regex worker.
                const { results, launchWaitMs } = yield* withLaunchBudget(searched, timeoutMs, () => timedOut(params, timeoutMs)).pipe(
                  Effect.catchTag("GrepExecutionError", (e) => Effect.fail(execError(e.message))),
                  Effect.catchDefect((defect) =>
                    Effect.logWarning("grep_search: search failed", defect).pipe(
                      Effect.andThen(Effect.fail(execError(shortErrorMessage(defect))))
                    )
                  )
                )
                const merged = mergeResults(workspace.primaryRoot, results)
                const limits = yield* CurrentOutputLimits
                const skippedLargeFiles = results.flatMap((r) => r.skippedLargeFiles ?? []).map((p) => displayPath(workspace.primaryRoot, p))
                const out = formatWithin(
                  {
                    matches: merged.matches,
                    totalMatches: merged.totalMatches,
                    ...(merged.totalIsLowerBound ? { totalIsLowerBound: true } : {}),
                    engine: results[0]?.engine ?? "js",
                    ...(skippedLargeFiles.length === 0 ? {} : { skippedLargeFiles: [...new Set(skippedLargeFiles)] }),
                    skippedIgnoreLines: results.flatMap((r) => r.skippedIgnoreLines ?? [])
                  },
                  {
                    pattern: params.pattern,
                    location,
                    maxLines: limits.truncateLines,
                    ...(params.glob ? { glob: params.glob } : {}),
                    ...(params.limit !== undefined ? { limit: params.limit } : {}),
                    ...(params.case_sensitive === true ? { caseSensitive: true } : {})
                  },
                  Math.min(GREP_MAX_OUTPUT_CHARS, limits.truncateChars)
                )
                const recorded = yield* recordGrepReads(cache, out.resultFilePaths, merged.matches.slice(0, out.fullyShown).filter((m) => m.cutBefore === undefined), startedMs)
                const shown = Math.min(merged.matches.length, params.limit ?? Infinity, limits.truncateLines)
                const data: GrepSearchData = {
                  matches: merged.matches.slice(0, shown),
                  totalMatches: merged.totalMatches,
                  ...(merged.totalIsLowerBound ? { totalIsLowerBound: true } : {}),
                  truncated: out.truncated,
                  engines: results.map((r) => r.engine),
                  fallbackReasons: results.flatMap((r) => (r.fallbackReason === undefined ? [] : [r.fallbackReason])),
                  filesRecordedAsRead: recorded,
                  skippedLargeFiles,
                  ...(launchWaitMs > 0 ? { launchWaitMs } : {})
                }
                // Into the output pipeline as a stream of chunks (the live tap sees them as they go in).
                return streamResult(textChunks(out.llmContent), { display: out.display, data, resultFilePaths: out.resultFilePaths })
              })
          }
        })
    })
  })

/** The `grep_search` tool over the session's workspace and read cache (backend: `TOOLWRIGHT_GREP_BACKEND`, else auto). @category constructors */
export const makeGrepSearch = makeGrepSearchTool()
