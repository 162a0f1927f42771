/**
 * What the SQL-backed stores (sessions, the task board) share about failing: every operation on a
 * call's path has a deadline ({@link SQL_OPERATION_TIMEOUT_MS}, {@link withDeadline}) so a database
 * that hangs ends in a typed error instead of a stuck call, and {@link describeSqlFailure} turns a
 * driver error into words a model or a person can act on (unreachable, login refused, no such
 * database). No driver is loaded here: only the error's shape.
 *
 * @since 0.2.0
 */
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import type { SqlError } from "effect/sql/SqlError"

/**
 * How long one SQL operation of a store (a load, a save, one task board read or change, connecting
 * included) may take before it fails (ms). Connecting alone gives up after 5 s.
 * @category constants
 */
export const SQL_OPERATION_TIMEOUT_MS = 10_000

/**
 * Runs `effect`, failing with `onTimeout()` once `ms` pass. Unlike `Effect.timeout`, it does not
 * wait for the interrupted work to wind down (the PostgreSQL driver drains a hung connection for
 * up to 5 s more): that finishes in the background. Interrupting the caller interrupts the work.
 * @category combinators
 */
export const withDeadline = <A, E, R, E2>(
  effect: Effect.Effect<A, E, R>,
  ms: number,
  onTimeout: () => E2
): Effect.Effect<A, E | E2, R> =>
  Effect.gen(function*() {
    const fiber = yield* Effect.forkDetach(effect)
    const exit = yield* Fiber.await(fiber).pipe(
      Effect.timeoutOption(ms),
      Effect.onInterrupt(() => Effect.forkDetach(Fiber.interrupt(fiber)))
    )
    if (Option.isNone(exit)) {
      yield* Effect.forkDetach(Fiber.interrupt(fiber))
      return yield* Effect.fail(onTimeout())
    }
    return yield* exit.value
  })

/** The server's or the socket's own words for the failure, when they say more than the driver's. */
const detailOf = (e: SqlError): string => {
  const cause = e.reason.cause
  const said = cause instanceof Error ? cause.message : ""
  return said !== "" && !e.reason.message.includes(said) ? `${e.reason.message}: ${said}` : e.reason.message || "no detail"
}

/** The SQLSTATE of a server error (`3D000`), when the driver kept it. */
const sqlStateOf = (e: SqlError): string | undefined => {
  const cause = e.reason.cause
  return typeof cause === "object" && cause !== null && "code" in cause && typeof cause.code === "string" ? cause.code : undefined
}

/** Whether nothing reached the database: the failure happened while connecting. @category predicates */
export const failedToConnect = (e: SqlError): boolean => "operation" in e.reason && e.reason.operation === "connect"

/**
 * What went wrong with the database, for a message: "cannot be reached (…)", "refused the login
 * (…)", "has no database of that name (…)", … each with what to check. Never contains a password
 * (the driver's and the server's texts do not carry the URL).
 * @category texts
 */
export const describeSqlFailure = (e: SqlError): string => {
  const detail = detailOf(e)
  const state = sqlStateOf(e)
  if (state === "3D000") return `has no database of that name (${detail}); create it or fix the database name in the URL`
  if (state === "57P03") return `is starting up or shutting down (${detail}); try again in a moment`
  switch (e.reason._tag) {
    case "ConnectionError":
      return `cannot be reached (${detail}); check that it is running and that the host and port in the URL are right`
    case "AuthenticationError":
      return `refused the login (${detail}); check the user name and password in the URL`
    case "AuthorizationError":
      return `refused access (${detail}); the user needs the right to create and write the toolwright tables`
    case "StatementTimeoutError":
    case "LockTimeoutError":
      return `gave up on the statement (${detail}); it may be overloaded, try again later`
    default:
      return `failed (${e.reason._tag}: ${detail})`
  }
}
