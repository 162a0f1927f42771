/**
 * The `git grep` backend: `git grep --no-index` run in the search root, which walks the work
 * tree with git's own `.gitignore` handling (`--exclude-standard`), including untracked files
 * and nested repositories. `-c` overrides neutralise the user settings that change the output
 * (`grep.fullName`, `grep.lineNumber`, `grep.column`, `core.quotePath`) and the global
 * `core.excludesFile`, while keeping the rest (such as `safe.directory`).
 *
 * Binary files are searched as text (`-a`, so `.gitattributes` cannot hide text files) and
 * dropped by the shared post-filter, which also applies `.toolwrightignore`, the glob, the
 * size cap and the symlink rule. git grep has no size limit of its own: files over the cap are
 * found first (`largeFiles.ts`) and excluded by exact path. The pattern is emitted as PCRE (`-P`). git's ERE engine
 * (glibc `regexec`) takes quadratic time on long lines (seconds for one 20 kB minified line), so
 * a git built without PCRE hands every query to the JS engine instead, saying so in the result.
 *
 * @since 0.1.0
 */
import * as path from "node:path"
import * as Effect from "effect/Effect"
import { GrepExecutionError } from "../../tool/index.js"
import { probeExitCode, runProcess, searchEnv } from "../searchProcess.js"
import { decodeLossy, stripLineEnding } from "../text.js"
import { charIndexOfByte, isLongLine } from "./cutLine.js"
import { addRawMatch, finalizeMatches, makeRawMatches, makeSearchContext, type RawMatches, type SearchContext } from "./context.js"
import { searchWithJs } from "./js.js"
import { findLargeFiles } from "./largeFiles.js"
import type { GrepBackend, GrepRequest } from "./types.js"

const GIT_CONFIG = [
  "-c", "core.quotePath=false", "-c", "grep.fullName=false", "-c", "grep.lineNumber=false",
  "-c", "grep.column=false", "-c", "grep.patternType=basic", "-c", "core.excludesFile=/dev/null"
]

/** Parses one `path NUL line NUL column NUL text` record of `git grep -z -n --column` (the column: 1 + the first hit's byte offset). */
const parseGitLine = (raw: RawMatches, line: Buffer): void => {
  const a = line.indexOf(0)
  const b = a < 0 ? -1 : line.indexOf(0, a + 1)
  const c = b < 0 ? -1 : line.indexOf(0, b + 1)
  if (c < 0) return
  const lineNumber = Number(line.subarray(a + 1, b).toString("latin1"))
  if (!Number.isInteger(lineNumber)) return
  const bytes = stripLineEnding(line.subarray(c + 1))
  const text = decodeLossy(bytes)
  const column = isLongLine(text) ? Number(line.subarray(b + 1, c).toString("latin1")) : NaN
  const hit = Number.isInteger(column) && column >= 1 ? charIndexOfByte(bytes, column - 1) : undefined
  addRawMatch(raw, decodeLossy(line.subarray(0, a)), lineNumber, text, hit)
}

const runGitGrep = Effect.fn("grep.git-grep.run")(function*(context: SearchContext, source: string, large: ReadonlyArray<string>) {
  const tree = context.tree
  const excludeStandard =
    context.request.ignore.gitignore && tree.insideWorkTree && !tree.rootGitIgnored && context.fileName === undefined
  const args = [
    ...GIT_CONFIG, "grep", "--no-index", excludeStandard ? "--exclude-standard" : "--no-exclude-standard",
    "--no-color", "-n", "--column", "-z", "-a", ...(context.compiled.caseSensitive ? [] : ["-i"]), "-P", "-e", source
  ]
  if (context.fileName !== undefined) args.push("--", `:(literal)${context.fileName}`)
  else if (large.length > 0) args.push("--", ".", ...large.map((rel) => `:(exclude,literal)${rel}`))
  const raw = makeRawMatches(context.keep)
  const exit = yield* runProcess("git", args, { cwd: context.dir, env: searchEnv(), onLine: (l) => parseGitLine(raw, l) }).pipe(
    Effect.catchTag("ProcessError", (e) => Effect.fail(new GrepExecutionError({ message: e.message })))
  )
  return { exit, raw }
})

/** Searches with `git grep -P` (falling back to JS where PCRE is missing or cannot express the query). @category searching */
export const searchWithGitGrep = Effect.fn("grep.git-grep")(function*(request: GrepRequest, pcre: boolean) {
  const context = yield* makeSearchContext(request)
  if (!pcre) return yield* searchWithJs(context, { from: "git-grep", reason: "git was built without PCRE support" })
  const emitted = context.compiled.emit("pcre")
  if (emitted._tag === "Unsupported") return yield* searchWithJs(context, { from: "git-grep", reason: emitted.reason })
  const large = yield* findLargeFiles(context)
  const { exit, raw } = yield* runGitGrep(context, emitted.source, large)
  if (exit.exitCode === 128 && /regex|pcre|pattern|parenthes|bracket|repetition/i.test(exit.stderr)) {
    return yield* searchWithJs(context, { from: "git-grep", reason: `git grep rejected the translated pattern: ${exit.stderr.trim()}` })
  }
  if (exit.exitCode !== 0 && exit.exitCode !== 1) {
    const detail = exit.stderr.trim() || `exit code ${String(exit.exitCode ?? exit.signal)}`
    return yield* new GrepExecutionError({ message: `git grep failed: ${detail}` })
  }
  return yield* finalizeMatches(context, raw, {
    inspect: true,
    engine: "git-grep",
    skippedLargeFiles: large.map((rel) => path.join(context.dir, rel))
  })
})

/** The `git grep` backend, or a `GrepExecutionError` when git is not on PATH. @category constructors */
export const makeGitGrepBackend = Effect.fn("grep.git-grep.make")(function*() {
  const cwd = process.cwd()
  if ((yield* probeExitCode("git", ["--version"], cwd)) !== 0) {
    return yield* new GrepExecutionError({ message: "git is not available on PATH" })
  }
  const probe = ["grep", "--no-index", "-P", "-i", "-e", "\\x{100}(?=x)", "--", ":(literal)toolwright-probe-none"]
  const pcre = (yield* probeExitCode("git", probe, cwd, searchEnv())) === 1
  const backend: GrepBackend = { name: "git-grep", search: (request) => searchWithGitGrep(request, pcre) }
  return backend
})
