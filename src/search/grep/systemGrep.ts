/**
 * The system `grep -r` backend (GNU grep): always case-insensitive (unlike the reference's
 * fallback), binary files read as text (`-a`) and dropped by the shared post-filter, which
 * also applies `.gitignore`, `.toolwrightignore`, the glob, the size cap and the symlink rule.
 * grep has no size limit and reads a file to its end (a 20 GiB sparse file took minutes), and it
 * excludes by base name only: a tree holding a file over the cap is searched by the JS engine.
 * The pattern is emitted as PCRE (`-P -i`) when grep supports it, else as POSIX ERE (`-E`)
 * with every letter spelled out in its Unicode case closure (glibc's `-i` folds differently).
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import { GrepExecutionError } from "../../tool/index.js"
import { DEFAULT_EXCLUDED_NAMES } from "../constants.js"
import { probeExitCode, runProcess, searchEnv } from "../searchProcess.js"
import { decodeLossy, stripLineEnding } from "../text.js"
import { addRawMatch, finalizeMatches, makeRawMatches, makeSearchContext, type RawMatches, type SearchContext } from "./context.js"
import { searchWithJs } from "./js.js"
import { findLargeFiles } from "./largeFiles.js"
import type { GrepBackend, GrepRequest } from "./types.js"

/** Regex dialect of system grep: PCRE (`-P`) or POSIX ERE (`-E`). @category models */
export type GrepDialect = "pcre" | "ere"

/** Parses one `path NUL line:text` record of `grep -n -H --null`. */
const parseGrepLine = (raw: RawMatches, line: Buffer): void => {
  const nul = line.indexOf(0)
  const colon = nul < 0 ? -1 : line.indexOf(0x3a, nul + 1)
  if (colon < 0) return
  const lineNumber = Number(line.subarray(nul + 1, colon).toString("latin1"))
  if (!Number.isInteger(lineNumber)) return
  const file = decodeLossy(line.subarray(0, nul))
  addRawMatch(raw, file.startsWith("./") ? file.slice(2) : file, lineNumber, decodeLossy(stripLineEnding(line.subarray(colon + 1))))
}

const runGrep = Effect.fn("grep.grep.run")(function*(context: SearchContext, dialect: GrepDialect, source: string) {
  const args = ["-r", "-n", "-H", "--null", "-a", "-s", ...(dialect === "pcre" ? (context.compiled.caseSensitive ? ["-P"] : ["-P", "-i"]) : ["-E"])]
  for (const name of DEFAULT_EXCLUDED_NAMES) args.push(`--exclude-dir=${name}`)
  args.push("-e", source, "--", context.fileName ?? ".")
  const raw = makeRawMatches(context.keep)
  const exit = yield* runProcess("grep", args, { cwd: context.dir, env: searchEnv(), onLine: (l) => parseGrepLine(raw, l) }).pipe(
    Effect.catchTag("ProcessError", (e) => Effect.fail(new GrepExecutionError({ message: e.message })))
  )
  return { exit, raw }
})

/** Searches with system grep in the given dialect (falling back to JS where it cannot express the query). @category searching */
export const searchWithSystemGrep = Effect.fn("grep.grep")(function*(request: GrepRequest, dialect: GrepDialect) {
  const context = yield* makeSearchContext(request)
  const emitted = context.compiled.emit(dialect)
  if (emitted._tag === "Unsupported") return yield* searchWithJs(context, { from: "grep", reason: emitted.reason })
  const large = yield* findLargeFiles(context)
  if (large.length > 0) {
    return yield* searchWithJs(context, { from: "grep", reason: `grep cannot skip the ${large.length} file(s) over the size cap by path` })
  }
  const { exit, raw } = yield* runGrep(context, dialect, emitted.source)
  if (exit.exitCode === 2 && exit.stderr.trim() !== "") {
    return yield* searchWithJs(context, { from: "grep", reason: `grep rejected the translated pattern: ${exit.stderr.trim()}` })
  }
  if (exit.exitCode !== 0 && exit.exitCode !== 1 && exit.exitCode !== 2) {
    return yield* new GrepExecutionError({ message: `grep failed: exit code ${String(exit.exitCode ?? exit.signal)}` })
  }
  return yield* finalizeMatches(context, raw, { inspect: true, engine: "grep" })
})

/** The system grep backend; `dialect` forces PCRE or ERE (default: PCRE when grep supports it). @category constructors */
export const makeSystemGrepBackend = Effect.fn("grep.grep.make")(function*(options: { readonly dialect?: GrepDialect } = {}) {
  const cwd = process.cwd()
  if ((yield* probeExitCode("grep", ["--version"], cwd)) !== 0) {
    return yield* new GrepExecutionError({ message: "grep is not available on PATH" })
  }
  const dialect = options.dialect ?? (
    (yield* probeExitCode("grep", ["-P", "-i", "-e", "\\x{100}(?=x)", "/dev/null"], cwd, searchEnv())) === 1 ? "pcre" : "ere"
  )
  const backend: GrepBackend = { name: "grep", search: (request) => searchWithSystemGrep(request, dialect) }
  return backend
})
