/**
 * The `glob` engine (reference §11.2): fast-glob's pattern semantics with dot files, no symlink
 * traversal, case-insensitive matching, `.gitignore` / `.toolwrightignore` pruning during the
 * walk (see `globWalk.ts`), the 1,000-entry collection cap, and the 24-hour recency sort.
 *
 * @since 0.1.0
 */
import * as fsSync from "node:fs"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import fg from "fast-glob"
import { GlobExecutionError, InvalidToolParams, SearchPathNotADirectory, SearchPathNotFound } from "../tool/index.js"
import { validateBraceExpansion } from "./braces.js"
import { MAX_FILE_COUNT, MAX_GLOB_COLLECTED_ENTRIES, RECENCY_THRESHOLD_MS, TRUNCATE_TOOL_OUTPUT_LINES } from "./constants.js"
import { walkGlob } from "./globWalk.js"
import { type IgnoreOptions, type IgnoreTree, isWithin, makeIgnoreTree } from "./ignore/tree.js"
import { shortErrorMessage, type SkippedIgnoreLineAt, skippedIgnoreLinesNote } from "./patternLimits.js"
import { escapeControlChars } from "./text.js"

/** A glob search over one or more directories. @category models */
export interface GlobRequest {
  /** fast-glob / micromatch pattern (`**\/*.ts`, `src/*.{js,ts}`); a literal existing path is matched literally. */
  readonly pattern: string
  /** Absolute directories to search (duplicates across them are reported once). */
  readonly roots: ReadonlyArray<string>
  readonly ignore: IgnoreOptions
  /** Most matching entries collected before the walk stops (default `MAX_GLOB_COLLECTED_ENTRIES`, 1,000). */
  readonly maxCollected?: number
}

/** A matching file. @category models */
export interface GlobEntry {
  readonly path: string
  readonly mtimeMs: number
}

/** The matching files, recency-sorted. @category models */
export interface GlobResult {
  readonly entries: ReadonlyArray<GlobEntry>
  /** True when the walk stopped at its collection cap (`maxCollected`). */
  readonly hitCollectionLimit: boolean
  /** Ignore-file lines not applied because they cannot compile. */
  readonly skippedIgnoreLines?: ReadonlyArray<SkippedIgnoreLineAt>
}

/** The model-facing message for an empty pattern or one whose braces expand past `MAX_GLOB_BRACE_EXPANSIONS`, or undefined. @category validation */
export const validateGlobPattern = (pattern: string): string | undefined =>
  pattern.trim() === "" ? "The 'pattern' parameter cannot be empty." : validateBraceExpansion(pattern)

/** Recent files (modified less than `thresholdMs` ago) first, newest first; then the rest by path. @category ordering */
export const sortFileEntries = <A extends { readonly path: string; readonly mtimeMs?: number | undefined }>(
  entries: ReadonlyArray<A>,
  nowMs: number,
  thresholdMs: number
): Array<A> =>
  [...entries].sort((a, b) => {
    const mtimeA = a.mtimeMs ?? 0
    const mtimeB = b.mtimeMs ?? 0
    const aRecent = nowMs - mtimeA < thresholdMs
    const bRecent = nowMs - mtimeB < thresholdMs
    if (aRecent && bRecent) return mtimeB - mtimeA
    if (aRecent) return -1
    if (bRecent) return 1
    return a.path.localeCompare(b.path)
  })

/** The real path of `p`, or undefined when it cannot be resolved (a dangling link). */
const realPathOf = (p: string): string | undefined => {
  try {
    return fsSync.realpathSync(p)
  } catch {
    return undefined
  }
}

/**
 * True when a fast-glob entry is a file: a regular file, or a symlink to a file that really lies
 * inside `boundary` (a link out of the root is not reported: its target's mtime would leak).
 */
const isFileEntry = (entry: fg.Entry, boundary: string): boolean => {
  if (entry.dirent.isFile()) return true
  if (!entry.dirent.isSymbolicLink()) return false
  const real = realPathOf(entry.path)
  if (real === undefined || !isWithin(real, boundary)) return false
  return fsSync.statSync(real, { throwIfNoEntry: false })?.isFile() === true
}

/** True when `p` lies below the root and no ignore rule hides it. */
const visibleIn = (tree: IgnoreTree, root: string, p: string): boolean =>
  isWithin(p, root) && p !== root && tree.reasonFor(path.relative(root, p).split(path.sep).join("/"), false) === undefined

/** Collects up to `limit` matching files under one root (`hitLimit` when more exist). */
const globInRoot = Effect.fn("glob.root")(function*(root: string, pattern: string, ignore: IgnoreOptions, limit: number) {
  const tree = yield* Effect.sync(() => makeIgnoreTree(root, ignore))
  if (tree.rootHidden) return { paths: [] as Array<string>, hitLimit: false, skipped: tree.skippedLines() }
  const literal = yield* Effect.sync(() => fsSync.existsSync(path.join(root, pattern)))
  const effective = literal ? fg.escapePath(pattern) : pattern
  const boundary = yield* Effect.sync(() => realPathOf(root) ?? root)
  const paths: Array<string> = []
  const unchecked = new Set<string>()
  let hitLimit = false
  yield* walkGlob(tree, root, effective, boundary, (entry, fromRoot) => {
    // a pattern with `..` or an absolute path can name files outside the root: never report them
    if (!isWithin(entry.path, root) || !isFileEntry(entry, boundary)) return true
    if (paths.length >= limit) {
      hitLimit = true
      return false
    }
    paths.push(entry.path)
    if (!fromRoot) unchecked.add(entry.path)
    return true
  }).pipe(Effect.mapError((error) => {
    const message = shortErrorMessage(error)
    return new GlobExecutionError({ message: `Error during glob search operation: ${message}`, display: `Error: ${message}` })
  }))
  // entries counted towards the cap first, like the walk found them; those below a start directory no rule checked are checked now
  const visible = unchecked.size === 0 ? paths : paths.filter((p) => !unchecked.has(p) || visibleIn(tree, root, p))
  return { paths: visible, hitLimit, skipped: tree.skippedLines() }
})

const checkRoot = Effect.fn("glob.checkRoot")(function*(root: string) {
  const stat = yield* Effect.promise(() => fs.stat(root).catch(() => undefined))
  if (stat === undefined) return yield* new SearchPathNotFound({ message: `Path does not exist: ${root}` })
  if (!stat.isDirectory()) return yield* new SearchPathNotADirectory({ message: `Path is not a directory: ${root}` })
})

/** A path's stats, or undefined (a synchronous `stat`: no thread-pool round trip per match). */
const statOf = (p: string): fsSync.Stats | undefined => {
  try {
    return fsSync.statSync(p, { throwIfNoEntry: false })
  } catch {
    return undefined
  }
}

const comparable = (p: string): string =>
  process.platform === "win32" || process.platform === "darwin" ? p.toLowerCase() : p

/** Finds the files matching a glob under every root, deduplicated and recency-sorted. @category searching */
export const globSearch = Effect.fn("glob.search")(function*(request: GlobRequest) {
  const invalid = validateGlobPattern(request.pattern)
  if (invalid !== undefined) return yield* new InvalidToolParams({ message: invalid })
  const seen = new Set<string>()
  const paths: Array<string> = []
  let hitCollectionLimit = false
  const skippedIgnoreLines: Array<SkippedIgnoreLineAt> = []
  const cap = request.maxCollected ?? MAX_GLOB_COLLECTED_ENTRIES
  for (const root of request.roots) {
    yield* checkRoot(root)
    const remaining = cap - paths.length
    if (remaining <= 0) {
      hitCollectionLimit = true
      break
    }
    const found = yield* globInRoot(root, request.pattern, request.ignore, remaining)
    hitCollectionLimit ||= found.hitLimit
    skippedIgnoreLines.push(...found.skipped)
    for (const p of found.paths) {
      if (seen.has(comparable(p))) continue
      seen.add(comparable(p))
      paths.push(p)
    }
  }
  const stats = yield* Effect.sync(() => paths.map((p) => statOf(p)))
  const entries = paths.flatMap((p, i): Array<GlobEntry> => {
    const stat = stats[i]
    return stat?.isFile() === true ? [{ path: p, mtimeMs: stat.mtimeMs }] : []
  })
  const now = yield* Clock.currentTimeMillis
  const result: GlobResult = {
    entries: sortFileEntries(entries, now, RECENCY_THRESHOLD_MS),
    hitCollectionLimit,
    ...(skippedIgnoreLines.length === 0 ? {} : { skippedIgnoreLines })
  }
  return result
})

/** Where a glob ran, as the header names it. @category models */
export type GlobLocation =
  | { readonly _tag: "Path"; readonly path: string }
  | { readonly _tag: "Workspace"; readonly directories: number }

/** The text and metadata the glob tool returns. @category models */
export interface GlobOutput {
  readonly llmContent: string
  readonly display: string
  readonly resultFilePaths: ReadonlyArray<string>
  readonly truncated: boolean
}

/** `within /abs` / `across N workspace directories` / `in the workspace directory`. @category formatting */
export const describeGlobLocation = (location: GlobLocation): string =>
  location._tag === "Path"
    ? `within ${escapeControlChars(location.path)}`
    : location.directories > 1
    ? `across ${location.directories} workspace directories`
    : "in the workspace directory"

/** How many of the first entries fit in `maxLines` lines of `maxChars` characters in all (at least one). */
const fittingLines = (entries: ReadonlyArray<GlobEntry>, maxLines: number, maxChars: number): number => {
  let used = 0
  const n = Math.min(entries.length, maxLines)
  for (let i = 0; i < n; i++) {
    used += escapeControlChars(entries[i]!.path).length + (i > 0 ? 1 : 0)
    if (used > maxChars) return Math.max(i, 1)
  }
  return maxLines
}

/**
 * Formats a glob result for the model (at most `MAX_FILE_COUNT` paths and `maxLines`, their lines
 * within `maxChars` characters, with the reference trailers). @category formatting
 */
export const formatGlobResult = (
  result: GlobResult,
  options: { readonly pattern: string; readonly location: GlobLocation; readonly maxLines?: number; readonly maxChars?: number }
): GlobOutput => {
  const where = describeGlobLocation(options.location)
  const total = result.entries.length
  const note = skippedIgnoreLinesNote(result.skippedIgnoreLines ?? [])
  if (total === 0) {
    return { llmContent: `No files found matching pattern "${options.pattern}" ${where}${note}`, display: "No files found", resultFilePaths: [], truncated: false }
  }
  const hit = result.hitCollectionLimit
  const fileLimit = fittingLines(result.entries, Math.min(MAX_FILE_COUNT, options.maxLines ?? TRUNCATE_TOOL_OUTPUT_LINES), options.maxChars ?? Infinity)
  const truncated = hit || total > fileLimit
  const shown = (truncated ? result.entries.slice(0, fileLimit) : result.entries).map((e) => e.path)
  let llmContent = `${hit ? "Found at least" : "Found"} ${total} file(s) matching "${options.pattern}" ${where}`
  llmContent += `, sorted by modification time (newest first):\n---\n${shown.map(escapeControlChars).join("\n")}`
  if (hit) {
    llmContent += `\n---\n[Results truncated after scanning ${total} matching files. Narrow the pattern or path.]`
  } else if (truncated) {
    const omitted = total - fileLimit
    llmContent += `\n---\n[${omitted} ${omitted === 1 ? "file" : "files"} truncated] ...`
  }
  return {
    llmContent: llmContent + note,
    display: `${hit ? "Found at least" : "Found"} ${total} matching file(s)${truncated ? " (truncated)" : ""}`,
    resultFilePaths: shown,
    truncated
  }
}
