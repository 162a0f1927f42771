/**
 * The ripgrep backend: `rg --json`, with the pattern emitted in Rust regex syntax.
 *
 * ripgrep is told to behave like the canonical rules (hidden files searched, CRLF line ends,
 * no BOM sniffing, `.ignore` and global gitignore off, VCS directories excluded, 20 MiB cap)
 * and its answer still goes through the shared post-filter. ripgrep 13 always reads `.rgignore`
 * files; when one exists above or below the root, the search reruns with `--no-ignore` and the
 * post-filter applies the git rules instead.
 *
 * @since 0.1.0
 */
import * as fs from "node:fs/promises"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import { GrepExecutionError } from "../../tool/errors.js"
import { DEFAULT_EXCLUDED_NAMES } from "../constants.js"
import { isSimpleBasenameGlob } from "../ignore/patterns.js"
import { probeExitCode, runProcess, searchEnv } from "../process.js"
import { decodeLossy, stripLineEnding } from "../text.js"
import { addRawMatch, finalizeMatches, makeRawMatches, makeSearchContext, type RawMatches, type SearchContext } from "./context.js"
import { searchWithJs } from "./js.js"
import type { GrepBackend, GrepRequest } from "./types.js"

type RgRun =
  | { readonly _tag: "Done"; readonly raw: RawMatches }
  | { readonly _tag: "RegexRejected"; readonly reason: string }

interface RgData {
  readonly path?: { readonly text?: string; readonly bytes?: string }
  readonly lines?: { readonly text?: string; readonly bytes?: string }
  readonly line_number?: number
  readonly binary_offset?: number | null
}

const REGEX_ERROR = /regex|error parsing|size limit|repetition|unclosed|unrecognized|not allowed/i

const textOf = (field: { readonly text?: string; readonly bytes?: string } | undefined): Buffer =>
  field?.text !== undefined ? Buffer.from(field.text, "utf8") : Buffer.from(field?.bytes ?? "", "base64")

const relPath = (p: string): string => (p.startsWith("./") ? p.slice(2) : p)

/** Flags shared by the search and the `.rgignore` probe. */
const baseFlags = (context: SearchContext, noIgnore: boolean): Array<string> => {
  const flags = ["--no-config", "--hidden", "--no-ignore-dot", "--no-ignore-global"]
  if (noIgnore) flags.push("--no-ignore")
  else if (!context.request.ignore.gitignore) flags.push("--no-ignore-vcs")
  for (const name of DEFAULT_EXCLUDED_NAMES) flags.push("--glob", `!${name}`)
  return flags
}

/** True when a `.rgignore` file could change what ripgrep searches. */
const rgIgnorePresent = Effect.fn("grep.ripgrep.rgignore")(function*(context: SearchContext) {
  const ancestors: Array<string> = []
  for (let d = context.dir; ; d = path.dirname(d)) {
    ancestors.push(path.join(d, ".rgignore"))
    if (path.dirname(d) === d) break
  }
  const found = yield* Effect.promise(() =>
    Promise.all(ancestors.map((f) => fs.lstat(f).then(() => true, () => false))).then((xs) => xs.some(Boolean))
  )
  if (found || context.fileName !== undefined) return found
  const args = ["--files", ...baseFlags(context, false), "--glob", ".rgignore", "."]
  return (yield* probeExitCode("rg", args, context.dir, searchEnv())) === 0
})

interface RgCollector {
  readonly raw: RawMatches
  readonly binary: Set<string>
  readonly onLine: (line: Buffer) => void
  readonly state: { sawSummary: boolean; parseFailure: string | undefined }
}

const parseEvent = (line: Buffer): { readonly type?: string; readonly data?: RgData } | undefined => {
  try {
    return JSON.parse(line.toString("utf8")) as { readonly type?: string; readonly data?: RgData }
  } catch {
    return undefined
  }
}

/** Collects the `match` and `end` events of `rg --json` output. */
const makeCollector = (keep: number): RgCollector => {
  const raw = makeRawMatches(keep)
  const binary = new Set<string>()
  const state: RgCollector["state"] = { sawSummary: false, parseFailure: undefined }
  const onLine = (line: Buffer) => {
    const event = parseEvent(line)
    if (event === undefined) state.parseFailure = line.toString("utf8").slice(0, 200)
    if (event?.data === undefined) return
    if (event.type === "summary") state.sawSummary = true
    const rel = relPath(decodeLossy(textOf(event.data.path)))
    if (event.type === "end" && event.data.binary_offset !== null && event.data.binary_offset !== undefined) binary.add(rel)
    if (event.type === "match" && event.data.line_number !== undefined) {
      addRawMatch(raw, rel, event.data.line_number, decodeLossy(stripLineEnding(textOf(event.data.lines))))
    }
  }
  return { raw, binary, onLine, state }
}

/** Runs `rg --json` and collects its matches, minus files ripgrep saw a NUL byte in. */
const runRg = Effect.fn("grep.ripgrep.run")(function*(context: SearchContext, source: string, noIgnore: boolean) {
  const args = [
    "--json", "--crlf", "--encoding", "none", "--max-filesize", "20M", "--ignore-case",
    ...baseFlags(context, noIgnore)
  ]
  const glob = context.request.glob
  if (glob !== undefined && glob !== "" && isSimpleBasenameGlob(glob)) args.push("--iglob", glob)
  args.push("--regexp", source, "--", context.fileName ?? ".")
  const { raw, binary, onLine, state } = makeCollector(context.keep)
  const exit = yield* runProcess("rg", args, { cwd: context.dir, env: searchEnv(), onLine }).pipe(
    Effect.mapError((e) => new GrepExecutionError({ message: e.message }))
  )
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
  for (const rel of binary) raw.files.delete(rel)
  const done: RgRun = { _tag: "Done", raw }
  return done
})

/** Searches with ripgrep (falling back to the JS engine for queries Rust regex cannot express). @category searching */
export const searchWithRipgrep = Effect.fn("grep.ripgrep")(function*(request: GrepRequest) {
  const context = yield* makeSearchContext(request)
  const emitted = context.compiled.emit("rust")
  if (emitted._tag === "Unsupported") return yield* searchWithJs(context, { from: "ripgrep", reason: emitted.reason })
  const [rgignore, first] = yield* Effect.all([rgIgnorePresent(context), runRg(context, emitted.source, false)], {
    concurrency: 2
  })
  const run = rgignore && first._tag === "Done" ? yield* runRg(context, emitted.source, true) : first
  if (run._tag === "RegexRejected") return yield* searchWithJs(context, { from: "ripgrep", reason: run.reason })
  return yield* finalizeMatches(context, run.raw, { inspect: context.fileName !== undefined, engine: "ripgrep" })
})

/** The ripgrep backend value (use {@link makeRipgrepBackend} to check that `rg` is installed). @category backends */
export const ripgrepBackend: GrepBackend = { name: "ripgrep", search: searchWithRipgrep }

/** The ripgrep backend, or a `GrepExecutionError` when `rg` is not on PATH. @category constructors */
export const makeRipgrepBackend = Effect.fn("grep.ripgrep.make")(function*() {
  const code = yield* probeExitCode("rg", ["--version"], process.cwd())
  if (code !== 0) return yield* new GrepExecutionError({ message: "ripgrep (rg) is not available on PATH" })
  return ripgrepBackend
})
