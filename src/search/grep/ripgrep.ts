/**
 * The ripgrep backend: `rg --json`, with the pattern emitted in Rust regex syntax.
 *
 * ripgrep is told to behave like the canonical rules (hidden files searched, CRLF line ends,
 * no BOM sniffing, `.ignore` and global gitignore off, VCS directories excluded) and its answer
 * still goes through the shared post-filter, asked once per file while ripgrep still runs; files
 * over the 20 MiB cap are skipped by ripgrep itself (`--max-filesize`) and checked again on the
 * files it reports (see `rgJson.ts`). ripgrep 14 skips `.rgignore`
 * files with `--no-ignore-dot`; ripgrep 13 always reads them, so there the search runs with
 * `--debug`, whose log names the ignore file behind every path ripgrep skips, and reruns with
 * `--no-ignore` (the post-filter then applies the git rules) only when a `.rgignore` hid
 * something — one process per search, no second walk of the tree, unless the log grows too long.
 *
 * @since 0.1.0
 */
import * as fs from "node:fs"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import { GrepExecutionError } from "../../tool/index.js"
import { DEFAULT_EXCLUDED_NAMES, MAX_SEARCH_FILE_BYTES } from "../constants.js"
import { isSimpleBasenameGlob } from "../ignore/patterns.js"
import { probeExitCode, runProcess, searchEnv } from "../searchProcess.js"
import { fileVisible, finalizeMatches, makeSearchContext, type RawMatches, type SearchContext } from "./context.js"
import { searchWithJs } from "./js.js"
import { makeRgCollector, type RgField } from "./rgJson.js"
import type { GrepBackend, GrepRequest } from "./types.js"

type RgRun =
  | { readonly _tag: "Done"; readonly raw: RawMatches; readonly rgignoreHid: boolean }
  | { readonly _tag: "RegexRejected"; readonly reason: string }
  | { readonly _tag: "DebugOverflow" }

/**
 * How the installed ripgrep treats `.rgignore` files: 14 and later skip them with
 * `--no-ignore-dot` (ripgrep#2198); 13 always reads them, so a search must find out whether one
 * hid anything.
 * @category models
 */
export type RgIgnoreHandling = "obeys-flags" | "detect"

/**
 * Bytes of `--debug` log a search reads before it stops and finds `.rgignore` files with a walk
 * instead (~40 lines). ripgrep writes its log a few bytes per system call, ~0.5 ms a line: a
 * search that logs little (a tree with few ignored paths) is cheapest with the log, one that logs
 * much (every ignored file is a line) with the walk beside it.
 */
const DEBUG_BUDGET = 8 * 1024

const REGEX_ERROR = /regex|error parsing|size limit|repetition|unclosed|unrecognized|not allowed/i

/** Flags of every search. */
const baseFlags = (context: SearchContext, noIgnore: boolean): Array<string> => {
  // --max-filesize: oversized files are skipped while walking, not read and then dropped (a 200 MB one-line file took minutes)
  const flags = ["--no-config", "--hidden", "--no-ignore-dot", "--no-ignore-global", "--max-filesize", String(MAX_SEARCH_FILE_BYTES)]
  if (noIgnore) flags.push("--no-ignore")
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

/** True when a `.rgignore` file exists below the search directory (a walk of the tree: `rg --files`). */
const rgIgnoreBelow = Effect.fn("grep.ripgrep.rgignore")(function*(context: SearchContext) {
  const args = ["--files", ...baseFlags(context, false), "--glob", ".rgignore", "."]
  return (yield* probeExitCode("rg", args, context.dir, searchEnv())) === 0
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

/**
 * Runs `rg --json` and collects its matches (see `rgJson.ts`); with `debug`, also whether a
 * `.rgignore` rule hid a path — or `DebugOverflow` when the log outgrew its budget and the search
 * was stopped.
 */
const runRg = Effect.fn("grep.ripgrep.run")(function*(context: SearchContext, source: string, options: {
  readonly noIgnore: boolean
  readonly debug: boolean
}) {
  const args = ["--json", "--crlf", "--encoding", "none", context.compiled.caseSensitive ? "--case-sensitive" : "--ignore-case", ...baseFlags(context, options.noIgnore)]
  if (options.debug) args.push("--debug")
  const glob = context.request.glob
  if (glob !== undefined && glob !== "" && isSimpleBasenameGlob(glob)) args.push("--iglob", glob)
  args.push("--regexp", source, "--", context.fileName ?? ".")
  const stop = new AbortController()
  const { raw, dropped, onLine, onStderrLine, state } = makeRgCollector({
    keep: context.keep,
    fileSize: (field) => sizeOf(fileOf(context, field)),
    visible: (rel) => fileVisible(context, rel),
    debugBudget: DEBUG_BUDGET,
    onDebugOverflow: () => stop.abort()
  })
  const exit = yield* runProcess("rg", args, { cwd: context.dir, env: searchEnv(), onLine, onStderrLine, signal: stop.signal }).pipe(
    Effect.mapError((e) => new GrepExecutionError({ message: e.code === "ENOENT" ? RG_MISSING : e.message }))
  )
  if (exit.aborted) {
    const overflow: RgRun = { _tag: "DebugOverflow" }
    return overflow
  }
  if (state.parseFailure !== undefined) {
    return yield* new GrepExecutionError({ message: `ripgrep printed unexpected output: ${state.parseFailure}` })
  }
  if (exit.exitCode === 2 && REGEX_ERROR.test(exit.stderr) && !state.sawSummary) {
    const rejected: RgRun = { _tag: "RegexRejected", reason: `ripgrep rejected the translated pattern: ${exit.stderr.trim()}` }
    return rejected
  }
  if (exit.exitCode !== 0 && exit.exitCode !== 1 && !(exit.exitCode === 2 && state.sawSummary)) {
    const detail = exit.stderr.trim() || `exit code ${String(exit.exitCode ?? exit.signal)}`
    return yield* new GrepExecutionError({ message: `ripgrep failed: ${detail}` })
  }
  for (const rel of dropped) raw.files.delete(rel)
  const done: RgRun = { _tag: "Done", raw, rgignoreHid: state.rgignoreHid }
  return done
})

/** Search directories whose `--debug` log outgrew its budget, searched with a walk for `.rgignore` files from then on (a few hundred at most). */
interface Noisy {
  readonly dirs: Set<string>
}

const NOISY_LIMIT = 256

/**
 * One search with the `.rgignore` files ripgrep 13 reads made harmless: a `.rgignore` above the
 * root means `--no-ignore` from the start (the post-filter applies the git rules); otherwise the
 * search runs with `--debug` and reruns with `--no-ignore` only when the log shows a `.rgignore`
 * hid something. A tree whose log outgrows its budget (many ignored files, each one log line) is
 * searched again without `--debug`, beside a walk that looks for `.rgignore` files, and is
 * remembered in `noisy` so that later searches there start that way.
 */
const runDetecting = Effect.fnUntraced(function*(context: SearchContext, source: string, noisy: Noisy) {
  if (yield* Effect.sync(() => rgIgnoreAbove(context))) return yield* runRg(context, source, { noIgnore: true, debug: false })
  if (!noisy.dirs.has(context.dir)) {
    const first = yield* runRg(context, source, { noIgnore: false, debug: true })
    if (first._tag === "Done" && first.rgignoreHid) return yield* runRg(context, source, { noIgnore: true, debug: false })
    if (first._tag !== "DebugOverflow") return first
    if (noisy.dirs.size >= NOISY_LIMIT) noisy.dirs.clear()
    noisy.dirs.add(context.dir)
  }
  const [below, second] = yield* Effect.all([rgIgnoreBelow(context), runRg(context, source, { noIgnore: false, debug: false })], {
    concurrency: 2
  })
  return below && second._tag === "Done" ? yield* runRg(context, source, { noIgnore: true, debug: false }) : second
})

/** Searches with ripgrep (falling back to the JS engine for queries Rust regex cannot express). @category searching */
export const searchWithRipgrep = Effect.fn("grep.ripgrep")(function*(
  request: GrepRequest,
  handling: RgIgnoreHandling = "detect",
  noisy: Noisy = { dirs: new Set() }
) {
  const context = yield* makeSearchContext(request)
  const emitted = context.compiled.emit("rust")
  if (emitted._tag === "Unsupported") return yield* searchWithJs(context, { from: "ripgrep", reason: emitted.reason })
  const run = handling === "detect"
    ? yield* runDetecting(context, emitted.source, noisy)
    : yield* runRg(context, emitted.source, { noIgnore: false, debug: false })
  if (run._tag === "RegexRejected") return yield* searchWithJs(context, { from: "ripgrep", reason: run.reason })
  if (run._tag === "DebugOverflow") return yield* new GrepExecutionError({ message: "ripgrep stopped unexpectedly" })
  return yield* finalizeMatches(context, run.raw, { inspect: context.fileName !== undefined, visibilityChecked: true, engine: "ripgrep" })
})

/** The ripgrep backend for a ripgrep whose `.rgignore` handling is known (it remembers the trees with long `--debug` logs). @category backends */
export const ripgrepBackend = (handling: RgIgnoreHandling): GrepBackend => {
  const noisy: Noisy = { dirs: new Set() }
  return { name: "ripgrep", search: (request) => searchWithRipgrep(request, handling, noisy) }
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
    Effect.option
  )
  if (exit._tag === "None" || exit.value.exitCode !== 0) return yield* new GrepExecutionError({ message: RG_MISSING })
  return ripgrepBackend(rgIgnoreHandling(lines[0] ?? ""))
})
