/**
 * Progress over MCP: when a `tools/call` carries `_meta.progressToken`, the call's live parts
 * (new shell output lines, an upstream server's progress, a streamed result's text) go to the host
 * as `notifications/progress` for that call, with the text in `message`. Nothing is sent without
 * a token, and the final result is the same with or without one.
 *
 * - Throttled and coalesced: at most one notification per {@link PROGRESS_INTERVAL_MS}; what
 *   arrives in between is joined into the next message (a message keeps its last
 *   {@link MAX_PROGRESS_MESSAGE_CHARS} chars, so memory stays bounded whatever the tool prints).
 * - Bounded per call: at most {@link MAX_PROGRESS_NOTIFICATIONS} notifications and
 *   {@link MAX_PROGRESS_TEXT_CHARS} chars of message text; past either, the relay says so once and
 *   goes quiet (the result still carries the output).
 * - `progress` strictly increases: a tool's own progress value when it moved forward, else the
 *   last value sent plus one (`total` only with the tool's own value).
 * - The relay stops before the result is sent: no notification follows the response.
 *
 * @since 0.2.0
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Latch from "effect/Latch"
import type { LivePart, PartOrigin } from "../tool/index.js"

/** The shortest time between two progress notifications of one call. @category constants */
export const PROGRESS_INTERVAL_MS = 100

/** Notifications per call, at most. @category constants */
export const MAX_PROGRESS_NOTIFICATIONS = 600

/** Chars of message text per call, at most (256 Ki). @category constants */
export const MAX_PROGRESS_TEXT_CHARS = 256 * 1024

/** Chars of one message, at most: coalesced text keeps its tail (16 Ki). @category constants */
export const MAX_PROGRESS_MESSAGE_CHARS = 16 * 1024

/** The last message of a call whose live output passed the per-call bounds. @category constants */
export const PROGRESS_LIMIT_MESSAGE = "[Live output stopped here: this call reached its progress limit. The result holds the output.]"

/** A progress token as MCP carries it. @category models */
export type ProgressToken = string | number

/** The params of one `notifications/progress`. @category models */
export interface ProgressNotificationParams {
  readonly progressToken: ProgressToken
  readonly progress: number
  readonly total?: number
  readonly message?: string
}

/** The live tap of one call. @category models */
export type LiveTap = (part: LivePart, origin: PartOrigin) => Effect.Effect<void>

/** Sends one notification (the SDK's `extra.sendNotification`, bound to the request). @category models */
export type SendProgress = (params: ProgressNotificationParams) => Promise<void>

/** The progress token of a request, if it has one. @category getters */
export const progressTokenOf = (request: { readonly params: { readonly _meta?: unknown } }): ProgressToken | undefined => {
  const meta = request.params._meta
  if (typeof meta !== "object" || meta === null) return undefined
  const token = (meta as { readonly progressToken?: unknown }).progressToken
  return typeof token === "string" || typeof token === "number" ? token : undefined
}

/** The text a live part adds to the next message; `undefined` for parts the host gets otherwise. */
const liveTextOf = (part: LivePart, origin: PartOrigin): string | undefined => {
  if (origin === "result") return undefined
  if (part.type === "progress") return part.message
  if (part.type === "text") return part.text
  return undefined
}

/** One call's relay: what it has not sent yet, and how much it has sent. */
class Pending {
  text = ""
  /** The tool's own progress and total of the last progress part with a value. */
  value: number | undefined
  total: number | undefined
  sent = 0
  sentChars = 0
  lastProgress = 0
  done = false

  add(part: LivePart, origin: PartOrigin): boolean {
    if (this.done) return false
    const text = liveTextOf(part, origin)
    if (text === undefined) return false
    if (part.type === "progress") {
      if (part.progress !== undefined) {
        this.value = part.progress
        this.total = part.total
      }
      // A progress message is a line of its own; output text runs on as it came.
      if (this.text !== "" && !this.text.endsWith("\n") && text !== "") this.text += "\n"
    }
    this.text += text
    if (this.text.length > 2 * MAX_PROGRESS_MESSAGE_CHARS) this.text = this.text.slice(-MAX_PROGRESS_MESSAGE_CHARS)
    return true
  }

  /** The next notification, or `undefined` when nothing is due. */
  take(token: ProgressToken): ProgressNotificationParams | undefined {
    if (this.done) return undefined
    let message = this.text.endsWith("\n") ? this.text.slice(0, -1) : this.text
    if (message.length > MAX_PROGRESS_MESSAGE_CHARS) message = `…${message.slice(-(MAX_PROGRESS_MESSAGE_CHARS - 1))}`
    const own = this.value !== undefined && this.value > this.lastProgress ? this.value : undefined
    if (message === "" && own === undefined) return undefined
    this.text = ""
    // The limit's own message must fit too.
    const last = this.sent === MAX_PROGRESS_NOTIFICATIONS - 1 ||
      this.sentChars + message.length + PROGRESS_LIMIT_MESSAGE.length > MAX_PROGRESS_TEXT_CHARS
    if (last) {
      message = PROGRESS_LIMIT_MESSAGE
      this.done = true
    }
    this.sent++
    this.sentChars += message.length
    this.lastProgress = own ?? this.lastProgress + 1
    return {
      progressToken: token,
      progress: this.lastProgress,
      ...(own !== undefined && this.total !== undefined && this.total >= own ? { total: this.total } : {}),
      ...(message !== "" ? { message } : {})
    }
  }
}

/**
 * Runs `call` with a live tap that relays its parts as progress notifications for `token`
 * (see the module note); without a token, runs it with no tap at all.
 *
 * @category constructors
 */
export const withProgress = <A, E, R>(
  token: ProgressToken | undefined,
  send: SendProgress,
  call: (onPart: LiveTap | undefined) => Effect.Effect<A, E, R>
): Effect.Effect<A, E, R> => {
  if (token === undefined) return call(undefined)
  return Effect.gen(function*() {
    const pending = new Pending()
    const due = yield* Latch.make(false)
    const sendNext = Effect.suspend(() => {
      const params = pending.take(token)
      // A host that went away or refused a notification costs the call nothing.
      return params === undefined ? Effect.void : Effect.ignore(Effect.tryPromise(() => send(params)))
    })
    const relay = yield* Effect.forkChild(
      Effect.forever(Effect.gen(function*() {
        yield* due.await
        yield* due.close
        yield* sendNext
        yield* Effect.sleep(Duration.millis(PROGRESS_INTERVAL_MS))
      }))
    )
    const onPart = (part: LivePart, origin: PartOrigin) => (pending.add(part, origin) ? Effect.asVoid(due.open) : Effect.void)
    return yield* call(onPart).pipe(Effect.ensuring(Fiber.interrupt(relay)))
  })
}
