/**
 * HTML → Markdown off the event loop: a small pool of worker threads running ./htmlWorker.mjs.
 * Workers start on the first conversion that finds none idle (at most `workers` at once; more
 * conversions wait their turn), stay for the next ones, and are terminated when the layer's scope
 * closes. A conversion past its time cap, or interrupted, terminates its worker (JavaScript cannot
 * be stopped any other way) and a fresh one starts for the next conversion; a worker that runs out
 * of its heap, or whose turndown throws, fails only that conversion.
 *
 * One converter serves a process: `serve --http` shares one among its sessions (see
 * `SessionOptions.htmlConverter`); a lone session builds its own.
 *
 * @since 0.1.0
 */
import { Worker } from "node:worker_threads"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Semaphore from "effect/Semaphore"
import { FetchConversionFailed, FetchConversionTimeout } from "../tool/index.js"

/** Workers a converter runs at most. @category constants */
export const HTML_CONVERTER_WORKERS = 2
/** Heap of one worker (MiB); past it the conversion fails, the process lives on. @category constants */
export const HTML_CONVERTER_HEAP_MB = 512

/** How a converter is built. @category models */
export interface HtmlConverterOptions {
  readonly workers?: number | undefined
  readonly heapMb?: number | undefined
}

/** One conversion. @category models */
export interface ConversionJob {
  readonly html: string
  /** The page, named in error messages. */
  readonly url: string
  readonly timeoutMs: number
}

/** The converter. @category models */
export interface HtmlConverterService {
  /** Markdown, or `fetch_conversion_timeout` / `fetch_conversion_failed`. */
  readonly toMarkdown: (job: ConversionJob) => Effect.Effect<string, FetchConversionFailed | FetchConversionTimeout>
  /** Workers running now (busy or idle): 0 before the first conversion and after the scope closed. */
  readonly workers: Effect.Effect<number>
}

type Answer = { readonly ready: true } | { readonly markdown: string } | { readonly error: string }

const failed = (url: string, why: string) =>
  new FetchConversionFailed({
    message: `Converting ${url} from HTML to Markdown failed: ${why}. ` +
      "Fetch it again with format \"html\" to get the source as sent, or fetch a smaller page (one section, a print or raw version).",
    display: `Conversion failed: ${why}`
  })

const timedOut = (url: string, timeoutMs: number) =>
  new FetchConversionTimeout({
    message: `Converting ${url} from HTML to Markdown took longer than ${timeoutMs} ms, the conversion time limit of web_fetch, ` +
      "so it was stopped. Fetch it again with format \"html\" to get the source as sent, or fetch a smaller page (one section, a print or raw version).",
    display: `Conversion stopped after ${timeoutMs} ms`
  })

const whyStopped = (error: unknown, heapMb: number): string => {
  const code = (error as { readonly code?: unknown }).code
  if (code === "ERR_WORKER_OUT_OF_MEMORY") return `the page needs more than the converter's ${heapMb} MiB of memory`
  return error instanceof Error ? error.message : String(error)
}

/**
 * Sends `message` (when given) to `worker` and waits for its next answer. The worker's failure
 * (out of memory, an exception at start-up, an exit) fails with `why`. The worker is referenced
 * while waiting (a pending conversion keeps the process alive), unreferenced after.
 */
const answerOf = (worker: Worker, message: string | undefined, heapMb: number) =>
  Effect.callback<Answer, string>((resume) => {
    const done = () => {
      worker.off("message", onMessage).off("error", onError).off("exit", onExit)
      worker.unref()
    }
    const onMessage = (answer: Answer) => {
      done()
      resume(Effect.succeed(answer))
    }
    const onError = (error: unknown) => {
      done()
      resume(Effect.fail(whyStopped(error, heapMb)))
    }
    const onExit = (code: number) => {
      done()
      resume(Effect.fail(`the converter stopped (exit code ${code})`))
    }
    worker.on("message", onMessage).on("error", onError).on("exit", onExit)
    worker.ref()
    if (message !== undefined) worker.postMessage(message)
    return Effect.sync(done)
  })

/**
 * A converter whose workers live in the current scope.
 *
 * @category constructors
 */
export const makeHtmlConverter = Effect.fnUntraced(function*(options: HtmlConverterOptions = {}) {
  const heapMb = options.heapMb ?? HTML_CONVERTER_HEAP_MB
  const permits = yield* Semaphore.make(Math.max(1, options.workers ?? HTML_CONVERTER_WORKERS))
  // Every worker alive, and those waiting for work; both belong to this converter's scope.
  const live = new Set<Worker>()
  const idle: Array<Worker> = []
  const stop = (worker: Worker) =>
    Effect.promise(() => {
      live.delete(worker)
      return worker.terminate().then(() => undefined, () => undefined)
    })
  yield* Effect.addFinalizer(() => Effect.forEach([...live], stop, { discard: true }))

  const start = Effect.gen(function*() {
    // Its stdout is read and dropped: on `serve` over stdio the process's stdout is the MCP stream.
    const worker = new Worker(new URL("./htmlWorker.mjs", import.meta.url), {
      resourceLimits: { maxOldGenerationSizeMb: heapMb },
      stdout: true
    })
    worker.stdout.resume()
    live.add(worker)
    const first = yield* answerOf(worker, undefined, heapMb).pipe(
      Effect.mapError((why) => `the converter did not start: ${why}`),
      Effect.onError(() => stop(worker))
    )
    if ("ready" in first) return worker
    yield* stop(worker)
    return yield* Effect.fail("the converter answered before it was ready")
  })
  const acquire = Effect.suspend(() => {
    const worker = idle.pop()
    return worker !== undefined ? Effect.succeed(worker) : start
  })

  const toMarkdown = Effect.fn("HtmlConverter.toMarkdown")(function*(job: ConversionJob) {
    const convert = Effect.acquireUseRelease(
      acquire,
      (worker) => answerOf(worker, job.html, heapMb),
      // A worker that answered goes back to the pool; one that failed, timed out or was interrupted
      // mid-page is terminated (its conversion cannot be stopped otherwise).
      (worker, exit) => Exit.isSuccess(exit) ? Effect.sync(() => void idle.push(worker)) : stop(worker)
    )
    const answer = yield* convert.pipe(
      Effect.mapError((why) => failed(job.url, why)),
      Effect.timeoutOrElse({ duration: job.timeoutMs, orElse: () => Effect.fail(timedOut(job.url, job.timeoutMs)) }),
      Semaphore.withPermits(permits, 1)
    )
    if ("markdown" in answer) return answer.markdown
    return yield* failed(job.url, "error" in answer ? answer.error : "the converter answered out of turn")
  })
  return { toMarkdown, workers: Effect.sync(() => live.size) } satisfies HtmlConverterService
})

/**
 * The HTML → Markdown converter of `web_fetch`.
 *
 * @category services
 */
export class HtmlConverter extends Context.Service<HtmlConverter, HtmlConverterService>()("toolwright/web/HtmlConverter") {
  /** A converter with its own workers, terminated when the layer closes. */
  static readonly layer = (options: HtmlConverterOptions = {}): Layer.Layer<HtmlConverter> =>
    Layer.effect(HtmlConverter, Effect.map(makeHtmlConverter(options), HtmlConverter.of))
}
