/**
 * Regex matching off the event loop. The JS engine's `RegExp` backtracks: `(a+)+$` on a
 * 31-character line never ends, and `.*a.*b.*c` is cubic on a long line. Nothing about a
 * pattern's text makes it safe to run on the main thread, so the JS backend sends every line
 * to a worker thread that holds the compiled regex and answers with the indices that match.
 * The main thread keeps serving other calls meanwhile. A batch gets `REGEX_BATCH_TIMEOUT_MS`;
 * past it, or when the search is interrupted (the grep timeout, a cancelled call), the worker is
 * terminated, which stops a match in the middle. The
 * worker's heap is capped (`resourceLimits`), so a pattern that eats memory fails typed.
 *
 * The worker is a short inline script (`eval`), so it runs the same from the tsc build and
 * from the bundle, and needs no module of ours.
 *
 * @since 0.1.0
 */
import { Worker } from "node:worker_threads"
import * as Effect from "effect/Effect"
import { ExecutionTimeout, GrepExecutionError } from "../../tool/index.js"
import { MAX_MATCH_LINE_CHARS, REGEX_BATCH_TIMEOUT_MS, REGEX_WORKER_HEAP_MB } from "../constants.js"

const WORKER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads")
const regex = new RegExp(workerData.source, workerData.flags)
const longLine = workerData.longLine
parentPort.on("message", (lines) => {
  const hits = []
  const at = []
  for (let i = 0; i < lines.length; i++) {
    if (lines[i].length > longLine) {
      const found = regex.exec(lines[i])
      if (found !== null) {
        hits.push(i)
        at.push(found.index)
      }
    } else if (regex.test(lines[i])) {
      hits.push(i)
      at.push(-1)
    }
  }
  parentPort.postMessage({ hits, at })
})
`

/** The lines of a batch that match. @category models */
export interface LineHits {
  /** The indices of the lines that match, ascending. */
  readonly hits: ReadonlyArray<number>
  /**
   * Per hit, where its first match starts (a character index) when the line is longer than
   * `MAX_MATCH_LINE_CHARS` (it will be shown cut around it), else -1.
   */
  readonly at: ReadonlyArray<number>
}

/** Matches lines against one regex in a worker thread. @category models */
export interface RegexMatcher {
  readonly matchLines: (lines: ReadonlyArray<string>) => Effect.Effect<LineHits, GrepExecutionError | ExecutionTimeout>
}

const workerFailure = (error: unknown, heapMb: number): GrepExecutionError => {
  const code = (error as { readonly code?: unknown } | undefined)?.code
  const message = code === "ERR_WORKER_OUT_OF_MEMORY"
    ? `the regular expression ran out of memory (over ${heapMb} MB) while matching. Simplify the pattern: ` +
      `avoid nested or repeated quantifiers over the same text such as (a+)+ or (.*)*, or search a narrower path.`
    : `the regex worker failed: ${error instanceof Error ? error.message : String(error)}`
  return new GrepExecutionError({ message })
}

/** Sends one batch and waits for its answer (interruption terminates the worker through the scope). */
const ask = (worker: Worker, lines: ReadonlyArray<string>, heapMb: number) =>
  Effect.callback<LineHits, GrepExecutionError>((resume) => {
    const cleanup = () => {
      worker.unref()
      worker.off("message", onMessage)
      worker.off("error", onError)
      worker.off("exit", onExit)
    }
    const onMessage = (hits: LineHits) => {
      cleanup()
      resume(Effect.succeed(hits))
    }
    const onError = (error: unknown) => {
      cleanup()
      resume(Effect.fail(workerFailure(error, heapMb)))
    }
    const onExit = (code: number) => {
      cleanup()
      resume(Effect.fail(workerFailure(new Error(`the worker exited (code ${code})`), heapMb)))
    }
    worker.on("message", onMessage)
    worker.on("error", onError)
    worker.on("exit", onExit)
    worker.ref()
    worker.postMessage(lines)
    return Effect.sync(cleanup)
  })

/** A batch that ran past its deadline: the pattern backtracks catastrophically. */
const tooSlow = (regex: RegExp, lines: ReadonlyArray<string>, deadlineMs: number) =>
  new ExecutionTimeout({
    message: `The pattern /${regex.source}/ took more than ${deadlineMs / 1000} s to match ${lines.length} line(s) and the search ` +
      `was stopped: it backtracks catastrophically on this text. Simplify it: avoid nested or adjacent quantifiers over the same ` +
      `text such as (a+)+, (.*)* or .*a.*b.*, and anchor or shorten what it must scan. Patterns without back-references or ` +
      `lookaround run on ripgrep's linear-time engine when rg is installed.`,
    display: "Pattern too slow."
  })

/**
 * A matcher for `regex` whose worker lives as long as the enclosing scope (terminated when it
 * closes, a match in progress included). A batch that takes longer than `deadlineMs` fails with
 * `ExecutionTimeout` (the scope then terminates the worker); one that needs more than `heapMb`
 * of heap fails with `GrepExecutionError`.
 * @category constructors
 */
export const makeRegexMatcher = Effect.fnUntraced(function*(
  regex: RegExp,
  deadlineMs: number = REGEX_BATCH_TIMEOUT_MS,
  heapMb: number = REGEX_WORKER_HEAP_MB
) {
  const worker = yield* Effect.acquireRelease(
    Effect.sync(() =>
      new Worker(WORKER_SOURCE, {
        eval: true,
        workerData: { source: regex.source, flags: regex.flags.replace(/[gy]/g, ""), longLine: MAX_MATCH_LINE_CHARS },
        resourceLimits: { maxOldGenerationSizeMb: heapMb, maxYoungGenerationSizeMb: Math.min(32, heapMb) },
        stdout: true,
        stderr: true
      })
    ),
    (w) => Effect.promise(() => w.terminate())
  )
  // a worker with nothing pending must not keep the process alive (`ask` refs it while a batch runs)
  yield* Effect.sync(() => worker.unref())
  const matcher: RegexMatcher = {
    matchLines: (lines) =>
      lines.length === 0 ? Effect.succeed({ hits: [], at: [] }) : ask(worker, lines, heapMb).pipe(
        Effect.timeoutOrElse({ duration: deadlineMs, orElse: () => Effect.fail(tooSlow(regex, lines, deadlineMs)) })
      )
  }
  return matcher
})
