/**
 * `toolwright serve` on stdin/stdout: the session behind the bounded {@link ServeStdioTransport},
 * with stdout kept for JSON-RPC alone and the reason for stopping always said on stderr.
 *
 * @since 0.1.0
 */
import * as Config from "effect/Config"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { watchParent } from "./parentWatch.js"
import { type ServeOptions, serveUntilClosed } from "./server.js"
import { MAX_SERVE_MESSAGE_BYTES, ServeStdioTransport } from "./stdioTransport.js"

/** The environment variable overriding {@link MAX_SERVE_MESSAGE_BYTES}. @category constants */
export const MAX_SERVE_MESSAGE_BYTES_ENV = "TOOLWRIGHT_MAX_SERVE_MESSAGE_BYTES"

const say = (line: string) => Effect.sync(() => process.stderr.write(`toolwright serve: ${line}\n`))

/**
 * Stdout carries the MCP stream: anything printed with `console.log`/`info`/`debug` (Effect's
 * default logger among them, a library's stray print, the runtime's report of a fatal error) goes
 * to stderr instead. For the serve process only; it never prints anything else.
 */
const keepStdoutForProtocol = Effect.sync(() => {
  console.log = console.error
  console.info = console.error
  console.debug = console.error
})

/** The largest message the serve door reads: {@link MAX_SERVE_MESSAGE_BYTES}, or its environment override. @category constructors */
export const configuredMaxMessageBytes = Config.option(
  Config.schema(Schema.Int.check(Schema.isGreaterThanOrEqualTo(1024)), MAX_SERVE_MESSAGE_BYTES_ENV)
).pipe(Effect.map((value) => value._tag === "Some" ? value.value : MAX_SERVE_MESSAGE_BYTES))

/**
 * Serves one session on stdin/stdout until the host closes stdin or dies (the parent pid changes),
 * then closes the session: its process trees are killed. A fatal failure is said on stderr and fails
 * the effect (the process then exits non-zero).
 *
 * @category constructors
 */
export const serveStdio = Effect.fnUntraced(function*(options: ServeOptions) {
  yield* keepStdoutForProtocol
  const maxMessageBytes = yield* configuredMaxMessageBytes
  const transport = new ServeStdioTransport({ maxMessageBytes })
  let reason = "stdin closed"
  yield* Effect.scoped(Effect.gen(function*() {
    yield* watchParent(Effect.promise(() => {
      reason = "the host process is gone"
      return transport.close()
    }))
    yield* serveUntilClosed(options, transport)
  })).pipe(
    Effect.tapCause((cause) => say(`stopping on a fatal error: ${String(cause)}`))
  )
  yield* say(`${reason}; the session ends`)
})
