/**
 * Finding the files over the size cap before git grep or system grep runs. Neither has a size
 * limit, and both read a file to its end: a 20 GiB sparse file held them for minutes. One `find`
 * walk (pruning the VCS directories) lists them; git grep then excludes them by exact path, and
 * system grep, which can only exclude by base name, hands the search to the JS engine.
 *
 * @since 0.1.0
 */
import * as path from "node:path"
import * as Effect from "effect/Effect"
import { GrepExecutionError } from "../../tool/index.js"
import { DEFAULT_EXCLUDED_NAMES, MAX_SEARCH_FILE_BYTES } from "../constants.js"
import { decodeLossy } from "../text.js"
import { runProcess, searchEnv } from "../searchProcess.js"
import { fileVisible, type SearchContext } from "./context.js"

/** `find`'s `-size +NM`: larger than N MiB (sizes round up to whole MiB, so one byte over counts). */
const SIZE_TEST = `+${Math.floor(MAX_SEARCH_FILE_BYTES / (1024 * 1024))}M`

/**
 * The visible regular files over `MAX_SEARCH_FILE_BYTES` below a directory search's root
 * (relative paths; none for a file root, which `grepSearch` already checked).
 * @category searching
 */
export const findLargeFiles = Effect.fn("grep.findLargeFiles")(function*(context: SearchContext) {
  if (context.fileName !== undefined) return [] as ReadonlyArray<string>
  const prune = [...DEFAULT_EXCLUDED_NAMES].flatMap((name, i) => (i === 0 ? ["-name", name] : ["-o", "-name", name]))
  const args = [".", "(", ...prune, ")", "-prune", "-o", "-type", "f", "-size", SIZE_TEST, "-print0"]
  const chunks: Array<Buffer> = []
  const exit = yield* runProcess("find", args, {
    cwd: context.dir,
    env: searchEnv(),
    onLine: (line) => chunks.push(line, Buffer.from("\n"))
  }).pipe(Effect.catchTag("ProcessError", (e) => Effect.fail(new GrepExecutionError({ message: `could not look for files over the size cap: ${e.message}` }))))
  if (exit.exitCode !== 0 && chunks.length === 0) {
    return yield* new GrepExecutionError({ message: `could not look for files over the size cap: ${exit.stderr.trim() || `find exited with ${String(exit.exitCode)}`}` })
  }
  return decodeLossy(Buffer.concat(chunks))
    .split("\0")
    .filter((p) => p.startsWith("./"))
    .map((p) => p.slice(2))
    .filter((rel) => fileVisible(context, rel))
    .map((rel) => rel.split(path.sep).join("/"))
})
