/**
 * The ripgrep backend: `rg --json`, with the pattern emitted in Rust regex syntax.
 *
 * ripgrep is told to behave like the canonical rules (hidden files searched, CRLF line ends,
 * no BOM sniffing, `.ignore` and global gitignore off, VCS directories excluded) and its answer
 * still goes through the shared post-filter, asked once per file while ripgrep still runs. Files
 * over the 20 MiB cap are dropped from what ripgrep reports (see `rgJson.ts`); ripgrep is kept
 * from reading them either by `--max-filesize` (a `stat` of every file it walks) or, where a
 * process's open files can be seen (Linux), by watching the run and doing it again with
 * `--max-filesize` when it opens one (see `sizeWatch.ts`); a directory where that happened is
 * searched with `--max-filesize` for {@link RGIGNORE_RECHECK_MS}. A search with a `limit` runs with `--sort path`: ripgrep
 * prints files in tree order, so once more matches than the result keeps are in, the answer is
 * known and ripgrep is stopped. Without a limit every match is counted, so ripgrep walks in
 * parallel (`--sort path` makes it single-threaded) and the lines kept are trimmed as files end.
 *
 * ripgrep 14 skips `.rgignore` files with `--no-ignore-dot`; ripgrep 13 always reads them, so
 * there a search runs with `--no-ignore` (the post-filter then applies the git rules) when a
 * `.rgignore` exists at or above the root, or below it: that last one is a walk (`rg --files`),
 * done once per root and remembered while the `.rgignore` files it found and the root keep their
 * modification times, for at most {@link RGIGNORE_RECHECK_MS}.
 *
 * @since 0.1.0
 */
import * as fs from "node:fs"
import * as path from "node:path"
import * as Clock from "effect/Clock"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import { GrepExecutionError, type LaunchQueueTimeout } from "../../tool/index.js"
import { DEFAULT_EXCLUDED_NAMES, MAX_SEARCH_FILE_BYTES } from "../constants.js"
import { isSimpleBasenameGlob } from "../ignore/patterns.js"
import { runProcess, searchEnv } from "../searchProcess.js"
import { finalizeMatches, fileVisible, makeSearchContext, type RawMatches, type SearchContext } from "./context.js"
import { searchWithJs } from "./js.js"
import { makeRgCollector, type RgField } from "./rgJson.js"
import { canWatchOpenFiles, openFileOverCap, WATCH_INTERVAL_MS } from "./sizeWatch.js"
import type { GrepBackend, GrepRequest } from "./types.js"

type RgRun =
  | { readonly _tag: "Done"; readonly raw: RawMatches; readonly stoppedEarly: boolean }
  | { readonly _tag: "RegexRejected"; readonly reason: string }
  /** A watched run (no `--max-filesize`) opened a file over the size cap and was stopped. */
  | { readonly _tag: "OverCap"; readonly file: string }

/**
 * How the installed ripgrep treats `.rgignore` files: 14 and later skip them with
 * `--no-ignore-dot` (ripgrep#2198); 13 always reads them, so a search must find out whether one
 * could hide anything.
 * @category models
 */
export type RgIgnoreHandling = "obeys-flags" | "detect"

/**
 * How long a root's `.rgignore` walk is trusted: a `.rgignore` created deep in the tree (which
 * changes no modification time the cache watches) is noticed within this time. The walk costs
 * about what a full search of the tree costs; ten minutes makes it rare on trees whose full
 * search takes seconds.
 */
export const RGIGNORE_RECHECK_MS = 10 * 60_000

/** What a walk found below one search directory. */
interface RgIgnoreWalk {
  /** The `.rgignore` files found, with their modification times. */
  readonly files: ReadonlyArray<readonly [string, number]>
  readonly dirMtime: number
  readonly at: number
}

/** What a backend remembers per search directory (a few hundred directories at most). */
interface RgCache {
  /** The last `.rgignore` walk. */
  readonly walks: Map<string, RgIgnoreWalk>
  /** The walks under way (at most one per directory; others wait for it). */
  readonly walking: Map<string, Deferred.Deferred<boolean, GrepExecutionError | LaunchQueueTimeout>>
  /** When a watched run last met a file over the size cap there: searched with `--max-filesize` for `recheckMs`. */
  readonly overCap: Map<string, number>
  /** How long a walk, or a file over the cap, is trusted (default {@link RGIGNORE_RECHECK_MS}). */
  readonly recheckMs: number
  /** True when runs are watched for files over the cap instead of passing `--max-filesize` (see `sizeWatch.ts`). */
  readonly watch: boolean
}

const CACHE_LIMIT = 256

const REGEX_ERROR = /regex|error parsing|size limit|repetition|unclosed|unrecognized|not allowed/i

/**
 * Flags of every search. `sizeCap`: `--max-filesize`, oversized files skipped while walking, not
 * read and then dropped (a 200 MB one-line file took minutes), at the cost of a `stat` per file.
 */
const baseFlags = (context: SearchContext, options: { readonly noIgnore: boolean; readonly sizeCap: boolean }): Array<string> => {
  const flags = ["--no-config", "--hidden", "--no-ignore-dot", "--no-ignore-global"]
  if (options.sizeCap) flags.push("--max-filesize", String(MAX_SEARCH_FILE_BYTES))
  if (options.noIgnore) flags.push("--no-ignore")
  else if (!context.request.ignore.gitignore) flags.push("--no-ignore-vcs")
  for (const name of DEFAULT_EXCLUDED_NAMES) flags.push("--glob", `!${name}`)
  return flags
}

/** True when a `.rgignore` file exists in the search directory or above it (ripgrep reads parents' too). */
const rgIgnoreAbove = (context: SearchContext): boolean => {
  for (let d = context.dir; ; d = path.dirname(d)) {
    if (fs.lstatSync(path.join(d, ".rgignore"), { throwIfNoEntry: false }) !== undefined) return true
    if (path.dirname(d) === d) return false
  }
}

const mtimeOf = (file: string): number | undefined => {
  try {
    return fs.statSync(file, { throwIfNoEntry: false })?.mtimeMs
  } catch {
    return undefined
  }
}

/** True while a remembered walk still holds: same modification times, and recent enough. */
const walkHolds = (walk: RgIgnoreWalk, dir: string, now: number, recheckMs: number): boolean =>
  now - walk.at < recheckMs && mtimeOf(dir) === walk.dirMtime &&
  walk.files.every(([file, mtime]) => mtimeOf(file) === mtime)

/** The `.rgignore` walk of one search directory (`rg --files`), remembered in `cache`. */
const walkRgIgnore = Effect.fnUntraced(function*(context: SearchContext, cache: RgCache, now: number) {
  const found: Array<string> = []
  // a listing reads no file, so no size cap (it would stat every file)
  const args = ["--files", ...baseFlags(context, { noIgnore: false, sizeCap: false }), "--glob", ".rgignore", "."]
  yield* runProcess("rg", args, { cwd: context.dir, env: searchEnv(), onLine: (line) => found.push(path.join(context.dir, line.toString("utf8"))) }).pipe(
    Effect.catchTag("ProcessError", (e) => Effect.fail(new GrepExecutionError({ message: e.code === "ENOENT" ? RG_MISSING : e.message })))
  )
  const files = found.map((file): readonly [string, number] => [file, mtimeOf(file) ?? -1])
  if (cache.walks.size >= CACHE_LIMIT) cache.walks.clear()
  cache.walks.set(context.dir, { files, dirMtime: mtimeOf(context.dir) ?? -1, at: now })
  return files.length > 0
})

/**
 * True when a `.rgignore` file exists below the search directory: a walk (`rg --files`), remembered
 * in `cache`. Searches of a directory whose walk is under way wait for it (sessions starting
 * together walk once); when that walk fails or is interrupted, each walks for itself.
 */
const rgIgnoreBelow = Effect.fn("grep.ripgrep.rgignore")(function*(context: SearchContext, cache: RgCache) {
  const now = yield* Clock.currentTimeMillis
  const known = cache.walks.get(context.dir)
  if (known !== undefined && walkHolds(known, context.dir, now, cache.recheckMs)) return known.files.length > 0
  const running = cache.walking.get(context.dir)
  if (running !== undefined) {
    const shared = yield* Effect.exit(Deferred.await(running))
    if (Exit.isSuccess(shared)) return shared.value
  }
  const mine = Deferred.makeUnsafe<boolean, GrepExecutionError | LaunchQueueTimeout>()
  cache.walking.set(context.dir, mine)
  return yield* walkRgIgnore(context, cache, now).pipe(
    Effect.onExit((exit) =>
      Effect.sync(() => {
        if (cache.walking.get(context.dir) === mine) cache.walking.delete(context.dir)
        Deferred.doneUnsafe(mine, exit)
      })
    )
  )
})

/** The size of a file, or undefined when it cannot be stat'ed. */
const sizeOf = (file: string | Buffer): number | undefined => {
  try {
    return fs.statSync(file, { throwIfNoEntry: false })?.size
  } catch {
    return undefined
  }
}

/** The file a `path` field names (as bytes when its name is not UTF-8). */
const fileOf = (context: SearchContext, field: RgField | undefined): string | Buffer => {
  if (context.fileName !== undefined) return context.request.root
  if (field?.text !== undefined) return path.join(context.dir, field.text)
  return Buffer.concat([Buffer.from(`${context.dir}/`), Buffer.from(field?.bytes ?? "", "base64")])
}

/** The message of a missing `rg`. */
const RG_MISSING = "ripgrep (rg) is not available on PATH"

/** Looks at a run's open files every {@link WATCH_INTERVAL_MS}; stops it (`stop`) when one is over the size cap, and never ends. */
const watchRun = (spawned: { pid: number | undefined; overCap: string | undefined }, stop: AbortController) =>
  Effect.gen(function*() {
    for (;;) {
      yield* Effect.sleep(Duration.millis(WATCH_INTERVAL_MS))
      const file = spawned.pid === undefined ? undefined : openFileOverCap(spawned.pid)
      if (file !== undefined) {
        spawned.overCap = file
        stop.abort()
        return yield* Effect.never
      }
    }
  })

/**
 * Runs `rg --json` and collects its matches (see `rgJson.ts`); with a limit, `--sort path`, stopped
 * once the result is complete. `watch`: without `--max-filesize`, stopped (`OverCap`) when it opens
 * a file over the size cap.
 */
const runRg = Effect.fn("grep.ripgrep.run")(function*(
  context: SearchContext,
  source: string,
  options: { readonly noIgnore: boolean; readonly watch: boolean }
) {
  // with a limit, files in tree order so that ripgrep can be stopped at the cap; without one, every match counts: a parallel walk
  const args = [
    "--json",
    ...(context.stopsAtCap ? ["--sort", "path"] : []),
    "--crlf",
    "--encoding",
    "none",
    context.compiled.caseSensitive ? "--case-sensitive" : "--ignore-case",
    ...baseFlags(context, { noIgnore: options.noIgnore, sizeCap: !options.watch })
  ]
  const glob = context.request.glob
  if (glob !== undefined && glob !== "" && isSimpleBasenameGlob(glob)) args.push("--iglob", glob)
  args.push("--regexp", source, "--", context.fileName ?? ".")
  const stop = new AbortController()
  const { raw, onLine, state } = makeRgCollector({
    keep: context.keep,
    fileSize: (field) => sizeOf(fileOf(context, field)),
    visible: (rel) => fileVisible(context, rel),
    ordered: context.stopsAtCap,
    ...(context.stopsAtCap ? { onCapped: () => stop.abort() } : {})
  })
  const spawned: { pid: number | undefined; overCap: string | undefined } = { pid: undefined, overCap: undefined }
  const run = runProcess("rg", args, {
    cwd: context.dir,
    env: searchEnv(),
    onLine,
    signal: stop.signal,
    onSpawn: (pid) => (spawned.pid = pid)
  }).pipe(
    Effect.catchTag("ProcessError", (e) => Effect.fail(new GrepExecutionError({ message: e.code === "ENOENT" ? RG_MISSING : e.message })))
  )
  const exit = yield* (options.watch ? Effect.raceFirst(run, watchRun(spawned, stop)) : run)
  if (spawned.overCap !== undefined) {
    const overCap: RgRun = { _tag: "OverCap", file: spawned.overCap }
    return overCap
  }
  if (state.parseFailure !== undefined) {
    return yield* new GrepExecutionError({ message: `ripgrep printed unexpected output: ${state.parseFailure}` })
  }
  if (!exit.aborted) {
    if (exit.exitCode === 2 && REGEX_ERROR.test(exit.stderr) && !state.sawSummary) {
      const rejected: RgRun = { _tag: "RegexRejected", reason: `ripgrep rejected the translated pattern: ${exit.stderr.trim()}` }
      return rejected
    }
    if (exit.exitCode !== 0 && exit.exitCode !== 1 && !(exit.exitCode === 2 && state.sawSummary)) {
      const detail = exit.stderr.trim() || `exit code ${String(exit.exitCode ?? exit.signal)}`
      return yield* new GrepExecutionError({ message: `ripgrep failed: ${detail}` })
    }
  }
  const done: RgRun = { _tag: "Done", raw, stoppedEarly: exit.aborted }
  return done
})

/**
 * A directory search, watched for files over the size cap unless its directory is known to hold
 * one (see `sizeWatch.ts`): a run stopped for one is done again with `--max-filesize`, and the
 * directory remembered.
 */
const runSizeGuarded = Effect.fnUntraced(function*(context: SearchContext, source: string, cache: RgCache, noIgnore: boolean) {
  const now = yield* Clock.currentTimeMillis
  const seen = cache.overCap.get(context.dir)
  const watch = cache.watch && (seen === undefined || now - seen >= cache.recheckMs)
  const first = yield* runRg(context, source, { noIgnore, watch })
  if (first._tag !== "OverCap") return first
  if (cache.overCap.size >= CACHE_LIMIT) cache.overCap.clear()
  cache.overCap.set(context.dir, now)
  return yield* runRg(context, source, { noIgnore, watch: false })
})

/** One search with the `.rgignore` files ripgrep 13 reads made harmless: `--no-ignore` when one exists at, above or below the root. */
const runDetecting = Effect.fnUntraced(function*(context: SearchContext, source: string, cache: RgCache) {
  const noIgnore = (yield* Effect.sync(() => rgIgnoreAbove(context))) || (yield* rgIgnoreBelow(context, cache))
  return yield* runSizeGuarded(context, source, cache, noIgnore)
})

/** Searches with ripgrep (falling back to the JS engine for queries Rust regex cannot express). @category searching */
export const searchWithRipgrep = Effect.fn("grep.ripgrep")(function*(
  request: GrepRequest,
  handling: RgIgnoreHandling = "detect",
  cache: RgCache = { walks: new Map(), walking: new Map(), overCap: new Map(), recheckMs: RGIGNORE_RECHECK_MS, watch: false }
) {
  const context = yield* makeSearchContext(request)
  const emitted = context.compiled.emit("rust")
  if (emitted._tag === "Unsupported") return yield* searchWithJs(context, { from: "ripgrep", reason: emitted.reason })
  // a file root: the size cap was checked before (`grepSearch`), and ripgrep is told it again (one stat)
  const run = context.fileName !== undefined
    ? yield* runRg(context, emitted.source, { noIgnore: handling === "detect", watch: false })
    : handling === "detect"
    ? yield* runDetecting(context, emitted.source, cache)
    : yield* runSizeGuarded(context, emitted.source, cache, false)
  if (run._tag === "OverCap") return yield* Effect.die(new Error("an unwatched ripgrep run was stopped for a file over the size cap"))
  if (run._tag === "RegexRejected") return yield* searchWithJs(context, { from: "ripgrep", reason: run.reason })
  return yield* finalizeMatches(context, run.raw, { inspect: context.fileName !== undefined, visibilityChecked: true, engine: "ripgrep" })
})

/**
 * The ripgrep backend for a ripgrep whose `.rgignore` handling is known (it remembers each root's
 * `.rgignore` walk, and a file over the size cap met there, for `recheckMs`, default
 * {@link RGIGNORE_RECHECK_MS}). `watch` (default: when this system shows a process's open files)
 * runs directory searches without `--max-filesize`, watched instead (see `sizeWatch.ts`).
 * @category backends
 */
export const ripgrepBackend = (
  handling: RgIgnoreHandling,
  options: { readonly recheckMs?: number; readonly watch?: boolean } = {}
): GrepBackend => {
  const cache: RgCache = {
    walks: new Map(),
    walking: new Map(),
    overCap: new Map(),
    recheckMs: options.recheckMs ?? RGIGNORE_RECHECK_MS,
    watch: options.watch ?? canWatchOpenFiles()
  }
  return { name: "ripgrep", search: (request) => searchWithRipgrep(request, handling, cache) }
}
/** How `rg --version`'s first line (`ripgrep 13.0.0`) says ripgrep treats `.rgignore`; unknown versions are checked. @category probes */
export const rgIgnoreHandling = (versionLine: string): RgIgnoreHandling => {
  const major = /^ripgrep (\d+)\./.exec(versionLine.trim())?.[1]
  return major !== undefined && Number(major) >= 14 ? "obeys-flags" : "detect"
}

/** The ripgrep backend, or a `GrepExecutionError` when `rg` is not on PATH. @category constructors */
export const makeRipgrepBackend = Effect.fn("grep.ripgrep.make")(function*() {
  const lines: Array<string> = []
  const exit = yield* runProcess("rg", ["--version"], { cwd: process.cwd(), onLine: (line) => lines.push(line.toString("utf8")) }).pipe(
    Effect.map(Option.some),
    Effect.catchTag("ProcessError", () => Effect.succeed(Option.none()))
  )
  if (exit._tag === "None" || exit.value.exitCode !== 0) return yield* new GrepExecutionError({ message: RG_MISSING })
  return ripgrepBackend(rgIgnoreHandling(lines[0] ?? ""))
})
