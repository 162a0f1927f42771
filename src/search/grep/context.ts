/**
 * What every grep backend shares: preparing a search (pattern, root, ignore view, glob) and
 * turning raw per-file matches into the one {@link GrepResult} shape, after the same
 * visibility checks for all backends.
 *
 * External tools are only trusted to *find* lines; which files may appear is decided here:
 * the ignore rules, the glob filter, regular files only (no symlinks), at most
 * `MAX_SEARCH_FILE_BYTES`, and no NUL byte anywhere (binary). So a backend that searches more
 * than it should still answers exactly what the JS engine answers.
 *
 * @since 0.1.0
 */
import * as fs from "node:fs"
import * as fsp from "node:fs/promises"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import { GrepExecutionError } from "../../tool/index.js"
import { MAX_SEARCH_FILE_BYTES, TRUNCATE_TOOL_OUTPUT_LINES } from "../constants.js"
import { compilePathGlob, type PathGlob, pathGlobAllows } from "../ignore/patterns.js"
import { type IgnoreTree, makeIgnoreTree } from "../ignore/tree.js"
import { patternUncompilable } from "../patternLimits.js"
import { compileGrepPattern, type CompiledPattern } from "../regex/compile.js"
import type { GrepBackendName, GrepMatch, GrepRequest, GrepResult } from "./types.js"

/** A prepared search. @category models */
export interface SearchContext {
  readonly request: GrepRequest
  readonly compiled: CompiledPattern
  /** The directory processes run in: the root, or a file root's parent. */
  readonly dir: string
  /** The base name when the root is a file. */
  readonly fileName: string | undefined
  readonly tree: IgnoreTree
  readonly glob: PathGlob | undefined
  /** How many matches the result keeps. */
  readonly keep: number
}

/** Matches found per relative path: how many, and the first `keep` of them as `[line number, text]`. @category models */
export interface RawMatches {
  readonly keep: number
  readonly files: Map<string, { count: number; readonly lines: Array<readonly [number, string]> }>
}

/** An empty collection keeping at most `keep` lines per file (memory stays bounded). @category constructors */
export const makeRawMatches = (keep: number): RawMatches => ({ keep, files: new Map() })

/** Prepares a search: compiles the pattern and glob and builds the ignore view. @category constructors */
export const makeSearchContext = Effect.fn("grep.context")(function*(request: GrepRequest) {
  const compiled = compileGrepPattern(request.pattern, request.caseSensitive === true)
  if (!compiled.ok) return yield* new GrepExecutionError({ message: compiled.message })
  const root = path.resolve(request.root)
  const stat = yield* Effect.try({
    try: () => fs.statSync(root),
    catch: (e) => new GrepExecutionError({ message: `Path does not exist: ${request.root} (${String(e)})` })
  })
  const isFile = !stat.isDirectory()
  const dir = isFile ? path.dirname(root) : root
  const tree = yield* Effect.sync(() => makeIgnoreTree(dir, request.ignore))
  const wantsGlob = request.glob !== undefined && request.glob !== ""
  const glob = wantsGlob ? compilePathGlob(request.glob!) : undefined
  if (wantsGlob && glob === undefined) return yield* new GrepExecutionError({ message: patternUncompilable("glob", request.glob!) })
  const context: SearchContext = {
    request: { ...request, root },
    compiled: compiled.value,
    dir,
    fileName: isFile ? path.basename(root) : undefined,
    tree,
    glob,
    keep: Math.min(request.limit ?? Infinity, TRUNCATE_TOOL_OUTPUT_LINES)
  }
  return context
})

/** True when the glob filter lets a file through (a negated glob also checks its directories). */
const globAllowsFile = (glob: PathGlob | undefined, rel: string): boolean => {
  if (glob === undefined) return true
  if (!pathGlobAllows(glob, rel, false)) return false
  if (!glob.negated) return true
  const parts = rel.split("/")
  for (let i = 1; i < parts.length; i++) {
    if (!pathGlobAllows(glob, parts.slice(0, i).join("/"), true)) return false
  }
  return true
}

/** True when the ignore rules and the glob let the file at `rel` appear. @category filtering */
export const fileVisible = (context: SearchContext, rel: string): boolean => {
  if (!globAllowsFile(context.glob, rel)) return false
  if (context.fileName !== undefined) {
    if (context.tree.rootHidden) return false
    return context.tree.classify(context.tree.stateOf(context.dir), context.fileName, false) !== "toolwright"
  }
  return context.tree.reasonFor(rel, false) === undefined
}

/** What a file a backend reported is: searchable text, over the size cap, or something else (a link, binary, gone). */
const inspectFile = async (abs: string): Promise<"Text" | "TooLarge" | "Other"> => {
  const stat = await fsp.lstat(abs).catch(() => undefined)
  if (stat === undefined || !stat.isFile()) return "Other"
  if (stat.size > MAX_SEARCH_FILE_BYTES) return "TooLarge"
  const bytes = await fsp.readFile(abs).catch(() => undefined)
  return bytes !== undefined && !bytes.includes(0) ? "Text" : "Other"
}

/** True when the path is a regular file of searchable size without a NUL byte. @category filtering */
export const isSearchableTextFile = async (abs: string): Promise<boolean> => (await inspectFile(abs)) === "Text"

/** Orders matches by path (code unit order), then line. @category ordering */
export const compareMatches = (a: GrepMatch, b: GrepMatch): number =>
  a.path < b.path ? -1 : a.path > b.path ? 1 : a.line - b.line

const byLine = (a: readonly [number, string], b: readonly [number, string]): number => a[0] - b[0]

/**
 * Turns raw matches into a result: visibility checks (and file checks when `inspect`), order, caps.
 * Files are ordered by path (code unit order) and lines by number, so only the first `keep` lines
 * become {@link GrepMatch} values; the total counts every line of every visible file.
 * @category constructors
 */
export const finalizeMatches = Effect.fn("grep.finalize")(function*(
  context: SearchContext,
  raw: RawMatches,
  options: {
    readonly inspect: boolean
    /** The backend already applied {@link fileVisible} to every file it kept. */
    readonly visibilityChecked?: boolean
    readonly engine: GrepBackendName
    readonly fallbackReason?: string
    /** Absolute paths of files the backend skipped for their size. */
    readonly skippedLargeFiles?: ReadonlyArray<string>
  }
) {
  const absOf = (rel: string) => (context.fileName !== undefined ? context.request.root : path.join(context.dir, rel))
  let files = [...raw.files.keys()]
  if (options.visibilityChecked !== true) files = files.filter((rel) => fileVisible(context, rel))
  const skippedLargeFiles = [...(options.skippedLargeFiles ?? [])]
  if (options.inspect) {
    const searchable = yield* Effect.forEach(files, (rel) => Effect.promise(() => inspectFile(absOf(rel))), {
      concurrency: 16
    })
    files.forEach((rel, i) => {
      if (searchable[i] === "TooLarge") skippedLargeFiles.push(absOf(rel))
    })
    files = files.filter((_, i) => searchable[i] === "Text")
  }
  files.sort() // code unit order, like `a < b`, without a comparator call per pair
  const matches: Array<GrepMatch> = []
  let totalMatches = 0
  for (const rel of files) {
    const found = raw.files.get(rel)!
    totalMatches += found.count
    if (matches.length >= context.keep) continue
    const abs = absOf(rel)
    for (const [line, text] of found.lines.sort(byLine)) {
      if (matches.length >= context.keep) break
      matches.push({ path: rel, absolutePath: abs, line, text })
    }
  }
  const result: GrepResult = {
    matches,
    totalMatches,
    engine: options.engine,
    ...(options.fallbackReason === undefined ? {} : { fallbackReason: options.fallbackReason }),
    ...(skippedLargeFiles.length === 0 ? {} : { skippedLargeFiles: skippedLargeFiles.sort() }),
    ...(context.tree.skippedLines().length === 0 ? {} : { skippedIgnoreLines: context.tree.skippedLines() })
  }
  return result
})

/** Records a match (lines of a file arrive in order; only the first `keep` are stored). @category constructors */
export const addRawMatch = (raw: RawMatches, rel: string, line: number, text: string): void => {
  const found = raw.files.get(rel)
  if (found === undefined) raw.files.set(rel, { count: 1, lines: raw.keep > 0 ? [[line, text]] : [] })
  else {
    found.count++
    if (found.lines.length < raw.keep) found.lines.push([line, text])
  }
}
