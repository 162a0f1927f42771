/**
 * The sessions of the HTTP door: one MCP server and transport per MCP session id, given its
 * backend by a {@link SessionBackend} (the local door's: a toolwright session per MCP session; the
 * cluster front's: a session entity on a runner). For the local door a session's toolwright side
 * (workspace, read cache, revealed tools, background shells) is built after the client's
 * `initialized`, once its roots are known; requests wait for it. Closing a session (DELETE, idle
 * expiry, shutdown) closes its scope: its process trees are killed, and a build still under way is
 * interrupted or, when it wins the race, closed as soon as it ends.
 *
 * @since 0.1.0
 */
import { randomUUID } from "node:crypto"
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js"
import * as Cause from "effect/Cause"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Schema from "effect/Schema"
import * as Scope from "effect/Scope"
import type { Server } from "@modelcontextprotocol/sdk/server/index.js"
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js"
import { GatedTransport } from "./httpGate.js"
import { sessionRoots } from "./httpRoots.js"
import { announcementOf, buildSession, makeMcpServer, type ServeOptions, wireSession } from "./server.js"

/** One MCP session of the HTTP door. @category models */
export interface HttpSession {
  readonly transport: StreamableHTTPServerTransport
  readonly scope: Scope.Closeable
  /** When a request last started or ended (ms since the epoch). */
  lastSeen: number
  /** POST requests being answered (an open GET event stream does not count). */
  inflight: number
  closing: boolean
}

/**
 * A named toolwright session an HTTP client asked for (headers `X-Toolwright-Session: NAME`, and
 * `X-Toolwright-Resume: true` to only continue one), so a client reconnecting gets its read
 * evidence back. @category models
 */
export interface NamedHttpSession {
  readonly name: string
  readonly resume: boolean
}

/** The header naming the toolwright session of an `initialize` POST. @category constants */
export const SESSION_HEADER = "x-toolwright-session"

/** The header that makes {@link SESSION_HEADER} only continue a saved session. @category constants */
export const RESUME_HEADER = "x-toolwright-resume"

/** The named session an `initialize` request's headers ask for, if any. @category constructors */
export const namedSessionOf = (headers: Readonly<Record<string, string | ReadonlyArray<string> | undefined>>): NamedHttpSession | undefined => {
  const name = headers[SESSION_HEADER]
  if (typeof name !== "string" || name === "") return undefined
  const resume = headers[RESUME_HEADER]
  return { name, resume: typeof resume === "string" && /^(1|true|yes)$/i.test(resume) }
}

/** The MCP server of a new session could not be made (the door answers the `initialize` with 503). @category errors */
export class SessionRefused extends Schema.TaggedError<SessionRefused>()("SessionRefused", { message: Schema.String }) {}

/** What the table tells the door's backend about a session it opens. @category models */
export interface OpeningSession {
  /** The MCP session id the `initialize` answer will carry. */
  readonly id: string
  readonly named: NamedHttpSession | undefined
  /** Closed with the session: the backend's resources go here. */
  readonly scope: Scope.Closeable
  /** Whether the session began closing (a build that wins the race must close what it built). */
  readonly closing: () => boolean
}

/**
 * How a door gives a session its MCP server: makes one, sets its handlers and connects it to the
 * session's transport. The local door builds a toolwright session per MCP session
 * ({@link localBackend}); the cluster front routes to a session entity on a runner.
 * @category models
 */
export type SessionBackend = (transport: Transport, session: OpeningSession) => Effect.Effect<Server, SessionRefused>

/** What every session of one door shares. @category models */
export interface SessionTableOptions {
  readonly backend: SessionBackend
  readonly maxMessageBytes: number
  /** Said on stderr. */
  readonly log: (line: string) => void
}

/**
 * The local door's backend: one MCP server per session, and a toolwright session (workspace, read
 * cache, revealed tools, background shells) built after the client's `initialized`, once its roots
 * are known; requests wait for it ({@link GatedTransport}).
 * @category constructors
 */
export const localBackend = (options: {
  readonly session: ServeOptions
  readonly announcement: Effect.Success<ReturnType<typeof announcementOf>>
  readonly log: (line: string) => void
}): SessionBackend =>
  Effect.fnUntraced(function*(transport, opening) {
    const { named, scope } = opening
    const gate = new GatedTransport(transport)
    const mcp = makeMcpServer(options.announcement)
    const initialized = yield* Deferred.make<void>()
    mcp.oninitialized = () => Deferred.doneUnsafe(initialized, Effect.void)
    yield* Scope.addFinalizer(scope, Effect.promise(() => mcp.close().catch(() => undefined)))
    yield* Effect.promise(() => mcp.connect(gate))

    // The toolwright session, in a scope of its own: closed at once when the session began closing
    // while it was being built, else closed with the session.
    const backend = Effect.gen(function*() {
      yield* Deferred.await(initialized)
      const roots = yield* sessionRoots(mcp, options.session.roots, Effect.promise(() => gate.firstHeld))
      const own = yield* Scope.make()
      const sessionOptions = named === undefined
        ? { ...options.session, roots }
        : { ...options.session, roots, sessionId: named.name, resume: named.resume }
      const context = yield* buildSession(sessionOptions, () => mcp).pipe(
        Effect.provideService(Scope.Scope, own),
        Effect.onExit((exit) => Exit.isFailure(exit) ? Scope.close(own, exit) : Effect.void)
      )
      if (opening.closing()) return yield* Scope.close(own, Exit.void)
      yield* Scope.addFinalizer(scope, Scope.close(own, Exit.void))
      yield* wireSession(mcp, context, true, options.session.deferred).pipe(Effect.provideService(Scope.Scope, own))
      gate.open()
    })
    yield* backend.pipe(
      Effect.catchCause((cause) =>
        Effect.sync(() => {
          if (Cause.hasInterruptsOnly(cause)) return
          const message = Cause.squash(cause)
          const code = typeof message === "object" && message !== null && "code" in message && typeof message.code === "string"
            ? `${message.code}: `
            : ""
          const text = code + (message instanceof Error ? message.message : String(message))
          options.log(`session ${opening.id} could not start: ${text}`)
          gate.fail(`The session could not start: ${text}`)
        })
      ),
      Effect.forkIn(scope)
    )
    return mcp
  })

/**
 * The live sessions, by MCP session id, and how to open and close them.
 *
 * @category constructors
 */
export const makeSessionTable = (options: SessionTableOptions) => {
  const sessions = new Map<string, HttpSession>()
  /** Sessions opened for an `initialize` that has not been answered yet. */
  let opening = 0

  const close = Effect.fnUntraced(function*(session: HttpSession, why: string) {
    if (session.closing) return
    session.closing = true
    const id = session.transport.sessionId
    if (id !== undefined && sessions.get(id) === session) sessions.delete(id)
    if (id !== undefined) options.log(`session ${id} closed (${why})`)
    yield* Scope.close(session.scope, Exit.void)
  })

  const open = Effect.fnUntraced(function*(named?: NamedHttpSession) {
    const scope = yield* Scope.make()
    const id = randomUUID()
    let session: HttpSession | undefined
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => id,
      onsessioninitialized: (id) => {
        sessions.set(id, session!)
      },
      maxRequestBodySize: options.maxMessageBytes
    })
    session = { transport, scope, lastSeen: Date.now(), inflight: 0, closing: false }
    const opened = session
    const mcp = yield* options.backend(transport, { id, named, scope, closing: () => opened.closing }).pipe(
      Effect.onError(() => Scope.close(scope, Exit.void))
    )
    const runFork = Effect.runForkWith(yield* Effect.context<never>())
    // DELETE from the client, or the transport closing for any other reason.
    mcp.onclose = () => void runFork(close(opened, "closed by the client"))
    return opened
  })

  return {
    /** The session with this id, if it is open. */
    get: (id: string) => sessions.get(id),
    /** Open sessions plus those being opened. */
    get size() {
      return sessions.size + opening
    },
    /** Counts a session about to be opened, until {@link release}: `size` includes it. */
    reserve: () => void opening++,
    release: () => void opening--,
    /** Opens a session for an `initialize` request. */
    open,
    close,
    /** Closes sessions with no request for `idleMs`. */
    expireIdle: (idleMs: number) =>
      Effect.suspend(() =>
        Effect.forEach(
        [...sessions.values()].filter((s) => s.inflight === 0 && Date.now() - s.lastSeen > idleMs),
        (s) => close(s, `idle for more than ${Math.round(idleMs / 1000)} s`),
          { concurrency: "unbounded", discard: true }
        )
      ),
    /** Closes every session (shutdown). */
    closeAll: (why: string) =>
      Effect.suspend(() => Effect.forEach([...sessions.values()], (s) => close(s, why), { concurrency: "unbounded", discard: true }))
  }
}

/** The session table of one door. @category models */
export type SessionTable = ReturnType<typeof makeSessionTable>
