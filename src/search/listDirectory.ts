/**
 * The `list_directory` engine (reference §11.3): one directory's entries, directories first,
 * with `ignore` globs on base names, `.gitignore` / `.toolwrightignore` filtering (counted), the
 * 100-entry cap and the reference's texts.
 *
 * @since 0.1.0
 */
import type { Dirent } from "node:fs"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import { LsExecutionError, PathIsNotADirectory, type PermissionDenied, readRefusal } from "../tool/index.js"
import { MAX_ENTRY_COUNT, TRUNCATE_TOOL_OUTPUT_LINES } from "./constants.js"
import { compileRegexEagerly } from "./ignore/patterns.js"
import { type IgnoreOptions, makeIgnoreTree } from "./ignore/tree.js"
import { patternTooLong, patternUncompilable, type SkippedIgnoreLineAt, skippedIgnoreLinesNote } from "./patternLimits.js"
import { escapeControlChars } from "./text.js"

/** A directory listing request. @category models */
export interface ListDirectoryRequest {
  /** Absolute path of the directory. */
  readonly path: string
  /** Simple globs (`*`, `?`) matched against entry base names; matching entries are left out. */
  readonly ignore?: ReadonlyArray<string>
  /** Which ignore files filter the listing (the reference's `file_filtering_options`). */
  readonly fileFiltering: IgnoreOptions
}

/** One listed entry. @category models */
export interface ListEntry {
  readonly name: string
  readonly path: string
  readonly isDirectory: boolean
  readonly size: number
  readonly mtimeMs: number
}

/** A listing: every visible entry, sorted, and what the ignore files hid. @category models */
export interface ListDirectoryResult {
  readonly path: string
  readonly entries: ReadonlyArray<ListEntry>
  /** True when the directory has no entries at all (before any filtering). */
  readonly empty: boolean
  readonly gitIgnored: number
  readonly toolwrightIgnored: number
  /** Ignore-file lines not applied because they cannot compile. */
  readonly skippedIgnoreLines?: ReadonlyArray<SkippedIgnoreLineAt>
}

/** The reference's `shouldIgnore` pattern: `*` → `.*`, `?` → `.`, anchored; undefined when it cannot compile (too large). @category matching */
export const compileIgnoreGlob = (pattern: string): RegExp | undefined => {
  const source = pattern.replace(/[.+^${}()|[\]\\]/g, "\\$&").replace(/\*/g, ".*").replace(/\?/g, ".")
  return compileRegexEagerly(`^${source}$`)
}

/** The model-facing refusal of `ignore` globs that are too long or cannot compile, or undefined. @category validation */
export const validateIgnoreGlobs = (patterns: ReadonlyArray<string> | undefined): string | undefined => {
  for (const [i, pattern] of (patterns ?? []).entries()) {
    const invalid = patternTooLong(`ignore[${i}]`, pattern) ??
      (compileIgnoreGlob(pattern) === undefined ? patternUncompilable(`ignore[${i}]`, pattern) : undefined)
    if (invalid !== undefined) return invalid
  }
  return undefined
}

/** True when a base name matches one of the `ignore` globs (one that cannot compile matches nothing). @category matching */
export const matchesIgnoreGlob = (name: string, patterns: ReadonlyArray<string> | undefined): boolean =>
  (patterns ?? []).some((pattern) => compileIgnoreGlob(pattern)?.test(name) === true)

const message = (e: unknown): string => (e instanceof Error ? e.message : String(e))
const lsError = (dir: string) => (e: unknown): PermissionDenied | LsExecutionError =>
  readRefusal(e, dir, "listing directory") ??
    new LsExecutionError({ message: `Error listing directory: ${message(e)}`, display: "Error: Failed to list directory." })

/** Lists a directory: directories first, then files, each by name. @category listing */
export const listDirectory = Effect.fn("ls.list")(function*(request: ListDirectoryRequest) {
  const dir = request.path
  const stat = yield* Effect.tryPromise({ try: () => fs.stat(dir), catch: lsError(dir) })
  if (!stat.isDirectory()) {
    return yield* new PathIsNotADirectory({ message: `Error: Path is not a directory: ${dir}`, display: "Error: Path is not a directory." })
  }
  const dirents = yield* Effect.tryPromise({ try: () => fs.readdir(dir, { withFileTypes: true }), catch: lsError(dir) })
  if (dirents.length === 0) {
    const empty: ListDirectoryResult = { path: dir, entries: [], empty: true, gitIgnored: 0, toolwrightIgnored: 0 }
    return empty
  }
  const tree = yield* Effect.sync(() => makeIgnoreTree(dir, request.fileFiltering, { defaultExcludes: false }))
  const state = tree.stateOf(dir, new Set(dirents.map((d) => d.name)))
  const ignoreGlobs = (request.ignore ?? []).flatMap((pattern) => compileIgnoreGlob(pattern) ?? [])
  const stats = yield* Effect.forEach(dirents, (d: Dirent) => Effect.promise(() => fs.stat(path.join(dir, d.name)).catch(() => undefined)), {
    concurrency: 32
  })
  let gitIgnored = 0
  let toolwrightIgnored = 0
  const entries: Array<ListEntry> = []
  for (const [i, dirent] of dirents.entries()) {
    const entryStat = stats[i]
    const isDirectory = entryStat?.isDirectory() ?? dirent.isDirectory()
    const gitMeta = dirent.name === ".git" && request.fileFiltering.gitignore && tree.insideWorkTree
    const reason = gitMeta ? "git" : tree.classify(state, dirent.name, isDirectory)
    if (reason === "git") gitIgnored++
    else if (reason === "toolwright") toolwrightIgnored++
    else if (!ignoreGlobs.some((glob) => glob.test(dirent.name)) && entryStat !== undefined) {
      entries.push({
        name: dirent.name,
        path: path.join(dir, dirent.name),
        isDirectory,
        size: isDirectory ? 0 : entryStat.size,
        mtimeMs: entryStat.mtimeMs
      })
    }
  }
  entries.sort((a, b) => (a.isDirectory !== b.isDirectory ? (a.isDirectory ? -1 : 1) : a.name.localeCompare(b.name)))
  const skippedIgnoreLines = tree.skippedLines()
  const result: ListDirectoryResult = {
    path: dir,
    entries,
    empty: false,
    gitIgnored,
    toolwrightIgnored,
    ...(skippedIgnoreLines.length === 0 ? {} : { skippedIgnoreLines })
  }
  return result
})

/** Formats a listing for the model (`[DIR] ` prefixes, 100-entry cap, ignored counts). @category formatting */
export const formatListDirectory = (
  result: ListDirectoryResult,
  options: { readonly maxLines?: number } = {}
): { readonly llmContent: string; readonly display: string; readonly truncated: boolean } => {
  if (result.empty) return { llmContent: `Directory ${escapeControlChars(result.path)} is empty.`, display: "Directory is empty.", truncated: false }
  const total = result.entries.length
  const limit = Math.min(MAX_ENTRY_COUNT, options.maxLines ?? TRUNCATE_TOOL_OUTPUT_LINES)
  const truncated = total > limit
  const shown = truncated ? result.entries.slice(0, limit) : result.entries
  let llmContent = `Listed ${total} item(s) in ${escapeControlChars(result.path)}:\n---\n${shown.map((e) => `${e.isDirectory ? "[DIR] " : ""}${escapeControlChars(e.name)}`).join("\n")}`
  if (truncated) {
    const omitted = total - limit
    llmContent += `\n---\n[${omitted} ${omitted === 1 ? "item" : "items"} truncated] ...`
  }
  const ignored: Array<string> = []
  if (result.gitIgnored > 0) ignored.push(`${result.gitIgnored} git-ignored`)
  if (result.toolwrightIgnored > 0) ignored.push(`${result.toolwrightIgnored} toolwright-ignored`)
  if (ignored.length > 0) llmContent += `\n\n(${ignored.join(", ")})`
  llmContent += skippedIgnoreLinesNote(result.skippedIgnoreLines ?? [])
  let display = `Listed ${total} item(s)`
  if (ignored.length > 0) display += ` (${ignored.join(", ")})`
  if (truncated) display += " (truncated)"
  return { llmContent, display, truncated }
}
