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
import * as fs from "node:fs/promises"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import { GrepExecutionError } from "../../tool/errors.js"
import { MAX_SEARCH_FILE_BYTES, TRUNCATE_TOOL_OUTPUT_LINES } from "../constants.js"
import { compilePathGlob, type PathGlob, pathGlobAllows } from "../ignore/patterns.js"
import { type IgnoreTree, makeIgnoreTree } from "../ignore/tree.js"
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
  const compiled = compileGrepPattern(request.pattern)
  if (!compiled.ok) return yield* new GrepExecutionError({ message: compiled.message })
  const root = path.resolve(request.root)
  const stat = yield* Effect.tryPromise({
    try: () => fs.stat(root),
    catch: (e) => new GrepExecutionError({ message: `Path does not exist: ${request.root} (${String(e)})` })
  })
  const isFile = !stat.isDirectory()
  const dir = isFile ? path.dirname(root) : root
  const tree = yield* Effect.promise(() => makeIgnoreTree(dir, request.ignore))
  const context: SearchContext = {
    request: { ...request, root },
    compiled: compiled.value,
    dir,
    fileName: isFile ? path.basename(root) : undefined,
    tree,
    glob: request.glob === undefined || request.glob === "" ? undefined : compilePathGlob(request.glob),
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
export const fileVisible = async (context: SearchContext, rel: string): Promise<boolean> => {
  if (!globAllowsFile(context.glob, rel)) return false
  if (context.fileName !== undefined) {
    if (context.tree.rootHidden) return false
    const state = await context.tree.stateOf(context.dir)
    return context.tree.classify(state, context.fileName, false) !== "toolwright"
  }
  return (await context.tree.reasonFor(rel, false)) === undefined
}

/** True when the path is a regular file of searchable size without a NUL byte. @category filtering */
export const isSearchableTextFile = async (abs: string): Promise<boolean> => {
  const stat = await fs.lstat(abs).catch(() => undefined)
  if (stat === undefined || !stat.isFile() || stat.size > MAX_SEARCH_FILE_BYTES) return false
  const bytes = await fs.readFile(abs).catch(() => undefined)
  return bytes !== undefined && !bytes.includes(0)
}

/** Orders matches by path (code unit order), then line. @category ordering */
export const compareMatches = (a: GrepMatch, b: GrepMatch): number =>
  a.path < b.path ? -1 : a.path > b.path ? 1 : a.line - b.line

/** The matches of one file, or none when the file may not appear. */
const checkedMatches = async (
  context: SearchContext,
  rel: string,
  found: { readonly count: number; readonly lines: ReadonlyArray<readonly [number, string]> },
  inspect: boolean
): Promise<{ readonly count: number; readonly matches: ReadonlyArray<GrepMatch> }> => {
  const abs = context.fileName !== undefined ? context.request.root : path.join(context.dir, rel)
  if (!(await fileVisible(context, rel))) return { count: 0, matches: [] }
  if (inspect && !(await isSearchableTextFile(abs))) return { count: 0, matches: [] }
  return { count: found.count, matches: found.lines.map(([line, text]) => ({ path: rel, absolutePath: abs, line, text })) }
}

/** Turns raw matches into a result: visibility checks (and file checks when `inspect`), order, caps. @category constructors */
export const finalizeMatches = Effect.fn("grep.finalize")(function*(
  context: SearchContext,
  raw: RawMatches,
  options: { readonly inspect: boolean; readonly engine: GrepBackendName; readonly fallbackReason?: string }
) {
  const kept = yield* Effect.forEach(
    [...raw.files.entries()],
    ([rel, found]) => Effect.promise(() => checkedMatches(context, rel, found, options.inspect)),
    { concurrency: 16 }
  )
  const all = kept.flatMap((k) => k.matches).sort(compareMatches)
  const result: GrepResult = {
    matches: all.length > context.keep ? all.slice(0, context.keep) : all,
    totalMatches: kept.reduce((n, k) => n + k.count, 0),
    engine: options.engine,
    ...(options.fallbackReason === undefined ? {} : { fallbackReason: options.fallbackReason })
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
