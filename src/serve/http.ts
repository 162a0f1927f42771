/**
 * `toolwright serve --http [HOST:]PORT`: the MCP door over Streamable HTTP (the SDK's transport on
 * a `node:http` server), many sessions in one process, each its own toolwright session. Bound to
 * 127.0.0.1 unless told otherwise; a non-loopback bind needs a bearer token; `Origin` and (on
 * loopback) `Host` are checked. Idle sessions expire; SIGTERM closes every session (killing its
 * process trees) and the server.
 *
 * @since 0.1.0
 */
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import {
  type AccessPolicy,
  checkAccess,
  isLoopbackHost,
  type ListenAddress,
  loopbackHosts,
  MCP_PATH,
  requireToken
} from "./httpAccess.js"
import { makeLaunchGate } from "../process/index.js"
// floors: start-up — the converter alone (its workers start on the first conversion)
import { makeHtmlConverter } from "../web/converter.js"
import { localBackend, makeSessionTable, namedSessionOf, type SessionTable } from "./httpSessions.js"
import { announcementOf, buildSession, chosenDeferredMode, type ServeOptions } from "./server.js"

/** The HTTP server could not listen (address in use, not available, no permission). @category errors */
export class ListenFailed extends Schema.TaggedError<ListenFailed>()("ListenFailed", { message: Schema.String }) {}

/** What every HTTP door takes: where it listens and who may talk to it. @category models */
export interface DoorOptions {
  readonly address: ListenAddress
  readonly token: string | undefined
  readonly allowedOrigins: ReadonlyArray<string>
  readonly idleTimeoutMs: number
  readonly maxSessions: number
  readonly maxMessageBytes: number
}

/** Options of {@link serveHttp}. @category models */
export interface HttpServeOptions extends DoorOptions {
  readonly session: ServeOptions
}

/** Says a line on stderr, as the door does. @category constructors */
export const say = (line: string) => process.stderr.write(`toolwright serve: ${line}\n`)

const answerError = (res: http.ServerResponse, status: number, message: string, headers: Record<string, string> = {}) => {
  if (res.headersSent) return void res.end()
  res.writeHead(status, { "content-type": "application/json", ...headers })
  res.end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message }, id: null }))
}

/** Keeps a session's idle clock and in-flight count for one request. */
const track = (table: SessionTable, id: string, req: http.IncomingMessage, res: http.ServerResponse) => {
  const session = table.get(id)
  if (session === undefined || req.method !== "POST") return
  session.inflight++
  session.lastSeen = Date.now()
  res.once("close", () => {
    session.inflight--
    session.lastSeen = Date.now()
  })
}

const handler = (
  options: DoorOptions,
  policy: () => AccessPolicy,
  table: SessionTable,
  runPromise: <A, E>(effect: Effect.Effect<A, E>) => Promise<A>
) =>
async (req: http.IncomingMessage, res: http.ServerResponse): Promise<void> => {
  const refusal = checkAccess(policy(), {
    origin: req.headers.origin,
    host: req.headers.host,
    authorization: req.headers.authorization
  })
  if (refusal !== undefined) {
    return answerError(res, refusal.status, refusal.message, refusal.status === 401 ? { "www-authenticate": "Bearer" } : {})
  }
  if (new URL(req.url ?? "/", "http://x").pathname !== MCP_PATH) {
    return answerError(res, 404, `Not found: the MCP endpoint is ${MCP_PATH}.`)
  }
  const id = req.headers["mcp-session-id"]
  if (typeof id === "string") {
    const session = table.get(id)
    if (session === undefined) {
      return answerError(res, 404, "Session not found: it was closed or expired. Start a new session with initialize.")
    }
    track(table, id, req, res)
    return session.transport.handleRequest(req, res)
  }
  if (req.method !== "POST") return answerError(res, 400, "Missing Mcp-Session-Id header: start a session with an initialize POST.")
  if (table.size >= options.maxSessions) {
    return answerError(
      res,
      503,
      `Too many sessions (${options.maxSessions}, --max-sessions). Close a session (DELETE ${MCP_PATH}) or retry after idle ones expire.`
    )
  }
  table.reserve()
  try {
    const opened = await runPromise(Effect.result(table.open(namedSessionOf(req.headers))))
    if (opened._tag === "Failure") return answerError(res, 503, opened.failure.message)
    const session = opened.success
    res.once("close", () => {
      session.lastSeen = Date.now()
    })
    await session.transport.handleRequest(req, res)
    // Not an initialize (the transport answered 400): nothing to keep.
    if (session.transport.sessionId === undefined) await runPromise(table.close(session, "not initialized"))
  } finally {
    table.release()
  }
}

const listen = (server: http.Server, address: ListenAddress) =>
  Effect.callback<AddressInfo, ListenFailed>((resume) => {
    const onError = (error: Error) =>
      resume(Effect.fail(new ListenFailed({ message: `Cannot listen on ${address.host}:${address.port}: ${error.message}` })))
    server.once("error", onError)
    server.listen(address.port, address.host, () => {
      server.off("error", onError)
      resume(Effect.succeed(server.address() as AddressInfo))
    })
  })

/**
 * Serves MCP over HTTP until interrupted (SIGTERM, SIGINT), then closes every session and the
 * server. Says on stderr where it listens.
 *
 * @category constructors
 */
export const serveHttp = Effect.fnUntraced(function*(options: HttpServeOptions) {
  const missing = requireToken(options.address, options.token)
  if (missing !== undefined) return yield* missing
  // Sessions kept in SQL share one pool and store per door (a dead database fails here, at start).
  const sqlUrl = options.session.sqlUrl
  const shared = sqlUrl === undefined || options.session.sqlState !== undefined ? undefined : yield* Effect.flatMap(
    Effect.promise(() => import("../run/sqlState.js")),
    (m) => m.sqlState(sqlUrl)
  )
  const session: ServeOptions = shared === undefined ? options.session : { ...options.session, sqlState: shared }
  // What `initialize` announces is the same for every session (tools and upstreams, not roots):
  // computed once from a session built and closed here.
  const deferred = yield* chosenDeferredMode(session)
  const announcement = yield* Effect.scoped(
    Effect.flatMap(buildSession(session, () => undefined), (context) => announcementOf(context, deferred))
  )
  // One HTML → Markdown converter (at most 2 worker threads) for every session of the process.
  const htmlConverter = session.htmlConverter ?? (yield* makeHtmlConverter())
  // One launch gate for every session of the process: together they start at most K processes at once.
  const launchGate = session.launchGate ?? makeLaunchGate()
  const table = makeSessionTable({
    backend: localBackend({ session: { ...session, deferred, htmlConverter, launchGate }, announcement, log: say }),
    maxMessageBytes: options.maxMessageBytes,
    log: say
  })
  return yield* serveDoor(options, table)
})

/**
 * The HTTP listener of a door over a session table: access checks, the MCP endpoint, the session
 * cap, idle expiry. Runs until interrupted, then closes every session and the server.
 *
 * @category constructors
 */
export const serveDoor = Effect.fnUntraced(function*(options: DoorOptions, table: SessionTable) {
  const missing = requireToken(options.address, options.token)
  if (missing !== undefined) return yield* missing
  const runPromise = Effect.runPromiseWith(yield* Effect.context<never>())
  let policy: AccessPolicy = { token: options.token, allowedOrigins: options.allowedOrigins, allowedHosts: undefined }
  const server = http.createServer((req, res) => {
    handler(options, () => policy, table, runPromise)(req, res).catch((error) => {
      say(`a request failed: ${error instanceof Error ? error.message : String(error)}`)
      answerError(res, 500, "Internal error while handling the request.")
    })
  })
  const bound = yield* Effect.acquireRelease(listen(server, options.address), () =>
    Effect.gen(function*() {
      yield* table.closeAll("the server is stopping")
      yield* Effect.callback<void>((resume) => {
        server.close(() => resume(Effect.void))
        server.closeAllConnections()
      })
    }))
  if (isLoopbackHost(options.address.host)) policy = { ...policy, allowedHosts: loopbackHosts(bound.port) }
  const shown = bound.family === "IPv6" ? `[${bound.address}]` : bound.address
  say(`listening on http://${shown}:${bound.port}${MCP_PATH}`)
  const sweep = Math.max(250, Math.min(options.idleTimeoutMs / 4, 30_000))
  yield* Effect.forkScoped(Effect.forever(Effect.sleep(sweep).pipe(Effect.andThen(table.expireIdle(options.idleTimeoutMs)))))
  return yield* Effect.never
})
