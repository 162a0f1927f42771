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
import { cutAroundHit, isLongLine, type StoredLine } from "./cutLine.js"
import { makeRegexMatcher } from "./regexWorker.js"
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
  /**
   * True when the request has a `limit`: the search stops once more than `keep` lines match and
   * reports a lower bound. Without one it counts every match (and ripgrep walks in parallel).
   */
  readonly stopsAtCap: boolean
}

/**
 * What a backend gathered for one file: how many matching lines, and the ones stored (see
 * {@link StoredLine}: a long line is stored cut when its hit is known, whole until then).
 * @category models
 */
export interface RawFile {
  count: number
  readonly lines: Array<StoredLine>
}

/**
 * Matches found per relative path. An `ordered` collection receives files in tree order (ripgrep
 * with `--sort path`, the JS engine): it stores at most `keep` lines in all, the first ones. An
 * unordered one (git grep, grep) stores at most `keep` lines per file, since any file may turn out
 * to come first. Either way a file's count is kept whole.
 * @category models
 */
export interface RawMatches {
  readonly keep: number
  readonly ordered: boolean
  readonly files: Map<string, RawFile>
  /** Lines stored across all files. */
  stored: number
}

/** An empty collection (see {@link RawMatches}; `ordered`: files arrive in tree order). @category constructors */
export const makeRawMatches = (keep: number, options: { readonly ordered?: boolean } = {}): RawMatches => ({
  keep,
  ordered: options.ordered === true,
  files: new Map(),
  stored: 0
})

/** Forgets a file (a backend found it binary or too large), freeing its stored lines for later files. @category constructors */
export const dropRawFile = (raw: RawMatches, rel: string): void => {
  const found = raw.files.get(rel)
  if (found === undefined) return
  raw.stored -= found.lines.length
  raw.files.delete(rel)
}

/**
 * Tree order of two relative paths: component by component, names in code point order (`a/b`
 * before `a.txt`, as a depth-first walk with sorted directories meets them, and as ripgrep's
 * `--sort path` prints them). In code units, `/` ranks below every character and surrogates above
 * the rest of the BMP, which is code point order. @category ordering
 */
export const compareTreeOrder = (a: string, b: string): number => {
  const n = Math.min(a.length, b.length)
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i)
    const y = b.charCodeAt(i)
    if (x !== y) return rankOf(x) - rankOf(y)
  }
  return a.length - b.length
}

const rankOf = (unit: number): number => (unit === 0x2f ? -1 : unit >= 0xd800 && unit <= 0xdfff ? unit + 0x2800 : unit)

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
    keep: Math.min(request.limit ?? Infinity, TRUNCATE_TOOL_OUTPUT_LINES),
    stopsAtCap: request.limit !== undefined
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

/** Orders matches by path (tree order, see {@link compareTreeOrder}), then line. @category ordering */
export const compareMatches = (a: GrepMatch, b: GrepMatch): number => compareTreeOrder(a.path, b.path) || a.line - b.line

const byLine = (a: StoredLine, b: StoredLine): number => a[0] - b[0]

/** Files inspected at once when a backend's answer must be checked file by file. */
const INSPECT_CHUNK = 16

/**
 * Turns raw matches into a result: visibility checks (and file checks when `inspect`), order, caps.
 * Files are taken in tree order ({@link compareTreeOrder}) and lines by number; the first `keep`
 * lines become {@link GrepMatch} values. With a `limit` ({@link SearchContext.stopsAtCap}),
 * counting stops once more than `keep` lines are found: the total is then `keep + 1` with
 * `totalIsLowerBound`, whichever backend ran and however far it got (ripgrep and the JS engine
 * stop there; git grep and grep run to the end), and files past that point are never inspected.
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
  files.sort(compareTreeOrder)
  const skippedLargeFiles = [...(options.skippedLargeFiles ?? [])]
  const matches: Array<GrepMatch> = []
  const stopAt = context.stopsAtCap ? context.keep : Infinity
  let totalMatches = 0
  for (let at = 0; at < files.length && totalMatches <= stopAt; at += options.inspect ? INSPECT_CHUNK : files.length) {
    let chunk = options.inspect ? files.slice(at, at + INSPECT_CHUNK) : files
    if (options.inspect) {
      const kinds = yield* Effect.forEach(chunk, (rel) => Effect.promise(() => inspectFile(absOf(rel))), { concurrency: INSPECT_CHUNK })
      chunk.forEach((rel, i) => {
        if (kinds[i] === "TooLarge") skippedLargeFiles.push(absOf(rel))
      })
      chunk = chunk.filter((_, i) => kinds[i] === "Text")
    }
    for (const rel of chunk) {
      if (totalMatches > stopAt) break
      const found = raw.files.get(rel)!
      totalMatches += found.count
      if (matches.length >= context.keep) continue
      const abs = absOf(rel)
      for (const [line, text, cutBefore, cutAfter] of found.lines.sort(byLine)) {
        if (matches.length >= context.keep) break
        matches.push(cutBefore + cutAfter === 0 ? { path: rel, absolutePath: abs, line, text } : { path: rel, absolutePath: abs, line, text, cutBefore, cutAfter })
      }
    }
  }
  const capped = totalMatches > stopAt
  const result: GrepResult = {
    matches: yield* cutLongLines(context, matches),
    totalMatches: capped ? context.keep + 1 : totalMatches,
    ...(capped ? { totalIsLowerBound: true } : {}),
    engine: options.engine,
    ...(options.fallbackReason === undefined ? {} : { fallbackReason: options.fallbackReason }),
    ...(skippedLargeFiles.length === 0 ? {} : { skippedLargeFiles: skippedLargeFiles.sort() }),
    ...(context.tree.skippedLines().length === 0 ? {} : { skippedIgnoreLines: context.tree.skippedLines() })
  }
  return result
})

/**
 * Cuts the long lines a backend stored whole (it could not tell where their first hit is): the JS
 * regex finds it, in the worker, since a backtracking pattern may take any time on a long line.
 */
const cutLongLines = Effect.fnUntraced(function*(context: SearchContext, matches: Array<GrepMatch>) {
  const uncut = matches.flatMap((m, i) => (m.cutBefore === undefined && isLongLine(m.text) ? [i] : []))
  if (uncut.length === 0) return matches
  const found = yield* Effect.scoped(Effect.gen(function*() {
    const matcher = yield* makeRegexMatcher(context.compiled.regex)
    return yield* matcher.matchLines(uncut.map((i) => matches[i]!.text))
  }))
  const hitAt = new Map(found.hits.map((line, k) => [line, found.at[k]!]))
  for (const [k, i] of uncut.entries()) {
    const match = matches[i]!
    const [, text, cutBefore, cutAfter] = cutAroundHit(match.line, match.text, Math.max(0, hitAt.get(k) ?? 0))
    matches[i] = { ...match, text, cutBefore, cutAfter }
  }
  return matches
})

/**
 * Records a match (a file's lines arrive in order). Stored: while fewer than `keep` lines are
 * stored in all (ordered) or in this file (unordered); the rest are only counted. `hit`, when the
 * backend knows it, is the character index of the line's first hit: a long line is then stored
 * cut around it (see `cutLine.ts`); without it, a long line is stored whole and cut at the end.
 * @category constructors
 */
export const addRawMatch = (raw: RawMatches, rel: string, line: number, text: string, hit?: number): void => {
  let found = raw.files.get(rel)
  if (found === undefined) {
    found = { count: 0, lines: [] }
    raw.files.set(rel, found)
  }
  found.count++
  if (raw.ordered ? raw.stored < raw.keep : found.lines.length < raw.keep) {
    found.lines.push(hit === undefined ? [line, text, 0, 0] : cutAroundHit(line, text, hit))
    raw.stored++
  }
}

/**
 * Trims an unordered collection to the first `keep` lines in tree order (counts stay whole). Only
 * for files whose answer is final: a later file can then never need a trimmed line.
 * @category constructors
 */
export const pruneRawMatches = (raw: RawMatches): void => {
  const files = [...raw.files.entries()].filter(([, f]) => f.lines.length > 0).sort(([a], [b]) => compareTreeOrder(a, b))
  let kept = 0
  for (const [, found] of files) {
    const room = Math.max(0, raw.keep - kept)
    if (found.lines.length > room) {
      found.lines.sort(byLine)
      raw.stored -= found.lines.length - room
      found.lines.length = room
    }
    kept += found.lines.length
  }
}

/** Counts one more matching line of a file already recorded, without its text (past what an ordered collection stores). @category constructors */
export const countRawMatch = (raw: RawMatches, rel: string): void => {
  const found = raw.files.get(rel)
  if (found !== undefined) found.count++
}
