/**
 * One request to an upstream, made resilient: a connection that cannot be made or is lost is
 * retried with exponential backoff (at most {@link MAX_RECONNECT_ATTEMPTS} reconnects per request;
 * a request in flight is re-sent only when that is safe), the whole request is bounded by a
 * timeout, and silence by an idle timeout that progress notifications reset. Progress is delivered
 * in order, before the result.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Queue from "effect/Queue"
import * as Schema from "effect/Schema"
import { MAX_RECONNECT_ATTEMPTS, RECONNECT_BASE_DELAY_MS } from "./constants.js"
import { classifyFailure, type LiveConnection, type ProgressParams } from "./connection.js"
import type { McpConnectError } from "./errors.js"

/** Why a request to an upstream failed. @category errors */
export class UpstreamFailure extends Schema.TaggedError<UpstreamFailure>()("UpstreamFailure", {
  reason: Schema.Literals(["unreachable", "connection_lost", "protocol", "timeout", "idle_timeout", "other"]),
  message: Schema.String,
  /** Reconnects tried for this request. */
  reconnects: Schema.Number,
  /** JSON-RPC error code, for `protocol`. */
  code: Schema.optionalKey(Schema.Number)
}) {}

/** A progress notification. @category models */
export type Progress = ProgressParams

/** How one request runs. @category models */
export interface RequestOptions {
  /** Whole request, reconnects included. */
  readonly timeoutMs: number
  /** Silence (no result, no progress) allowed; 0 disables. */
  readonly idleTimeoutMs: number
  /** Re-send the request after the connection was lost while it was in flight (safe for reads). */
  readonly resendAfterLoss: boolean
  readonly onProgress?: ((progress: Progress) => Effect.Effect<void>) | undefined
}

/** What a request needs from its upstream. @category models */
export interface RequestContext {
  readonly serverName: string
  /** The live connection, connecting first if needed. */
  readonly ensureLive: Effect.Effect<{ readonly live: LiveConnection; readonly generation: number }, McpConnectError>
  /** Drops the connection if it is still the given one. */
  readonly invalidate: (generation: number) => Effect.Effect<void>
  /** Checks (in the background) whether the server still answers after a timeout. */
  readonly healthCheckLater: (generation: number | undefined) => Effect.Effect<void>
}

/** Sends the request on a live connection; `onprogress` receives its progress notifications. @category models */
export type RunRequest<A> = (live: LiveConnection, signal: AbortSignal, onprogress: (p: Progress) => void) => Promise<A>

/** The rejection of a request that stayed silent for too long. */
const IDLE = Symbol("idle")

/**
 * Runs `body` with an idle timer: it rejects with {@link IDLE} (and aborts the request, so the
 * server is told to cancel it) when `touch` is not called for `ms`; 0 disables the timer.
 */
const withIdleTimeout = <A>(
  outer: AbortSignal,
  ms: number,
  body: (signal: AbortSignal, touch: () => void) => Promise<A>
): Promise<A> => {
  if (ms <= 0) return body(outer, () => undefined)
  const controller = new AbortController()
  const forward = () => controller.abort(outer.reason)
  outer.addEventListener("abort", forward, { once: true })
  return new Promise<A>((resolve, reject) => {
    let timer: ReturnType<typeof setTimeout> | undefined
    const touch = () => {
      clearTimeout(timer)
      timer = setTimeout(() => {
        reject(IDLE)
        controller.abort()
      }, ms)
    }
    touch()
    body(controller.signal, touch).then(resolve, reject).finally(() => {
      clearTimeout(timer)
      outer.removeEventListener("abort", forward)
    })
  })
}

const failure = (reason: UpstreamFailure["reason"], message: string, reconnects = 0, code?: number) =>
  new UpstreamFailure({ reason, message, reconnects, ...(code !== undefined ? { code } : {}) })

/**
 * Runs one request with reconnects, timeouts and progress.
 *
 * @category constructors
 */
export const runRequest = <A>(
  context: RequestContext,
  label: string,
  run: RunRequest<A>,
  opts: RequestOptions
): Effect.Effect<A, UpstreamFailure> =>
  Effect.suspend(() => {
    const { serverName } = context
    let lastGeneration: number | undefined
    return Effect.gen(function*() {
      let reconnects = 0
      for (;;) {
        const attempt = Effect.gen(function*() {
          const { live, generation } = yield* context.ensureLive.pipe(
            Effect.mapError((e) => failure("unreachable", e.message, reconnects))
          )
          lastGeneration = generation
          // Progress goes to a deliverer fiber, in order; there is none when nobody listens.
          const onProgress = opts.onProgress
          const progress = onProgress ? yield* Queue.unbounded<Progress | null>() : undefined
          const deliverer = progress && onProgress
            ? yield* Effect.forkChild(Effect.gen(function*() {
              for (;;) {
                const next = yield* Queue.take(progress)
                if (next === null) return
                yield* onProgress(next)
              }
            }))
            : undefined
          const result = yield* Effect.tryPromise({
            try: (signal) =>
              withIdleTimeout(signal, opts.idleTimeoutMs, (idleSignal, touch) =>
                run(live, idleSignal, (p) => {
                  touch()
                  if (progress) Queue.offerUnsafe(progress, p)
                })),
            catch: (error) => {
              if (error === IDLE) {
                return failure(
                  "idle_timeout",
                  `MCP tool '${label}' on server '${serverName}' did not respond within ${opts.idleTimeoutMs}ms idle timeout`,
                  reconnects
                )
              }
              const c = classifyFailure(error)
              if (c._tag === "ConnectionLost" || live.isClosed()) {
                return failure("connection_lost", live.closeReason() ?? c.message, reconnects)
              }
              return c._tag === "Protocol"
                ? failure("protocol", c.message, reconnects, c.code)
                : failure("other", c.message, reconnects)
            }
          })
          // Progress that arrived with the result is delivered before it returns.
          if (progress && deliverer) {
            Queue.offerUnsafe(progress, null)
            yield* Fiber.join(deliverer)
          }
          return result
        })
        const exit = yield* Effect.exit(attempt)
        if (Exit.isSuccess(exit)) return exit.value
        const found = exit.cause.reasons.find((r) => r._tag === "Fail")
        if (!found || found._tag !== "Fail") return yield* Effect.failCause(exit.cause)
        const error = found.error
        if (error.reason === "connection_lost" && lastGeneration !== undefined) yield* context.invalidate(lastGeneration)
        if (error.reason === "idle_timeout") yield* context.healthCheckLater(lastGeneration)
        // A request lost in flight that is not safe to re-send fails at once, whatever came before.
        if (error.reason === "connection_lost" && !opts.resendAfterLoss) return yield* failure("connection_lost", error.message, 0)
        const retryable = error.reason === "unreachable" || error.reason === "connection_lost"
        if (!retryable || reconnects >= MAX_RECONNECT_ATTEMPTS) return yield* error
        yield* Effect.sleep(RECONNECT_BASE_DELAY_MS * 2 ** reconnects)
        reconnects++
      }
    }).pipe(
      Effect.timeoutOrElse({
        duration: opts.timeoutMs,
        orElse: () =>
          Effect.andThen(
            context.healthCheckLater(lastGeneration),
            Effect.fail(failure("timeout", `MCP tool '${label}' on server '${serverName}' did not finish within ${opts.timeoutMs}ms`))
          )
      })
    )
  })
