/**
 * The `ToolSession` entity's behaviour on a runner: the first message for a session id builds a
 * whole session (the same `SessionLayer` a stdio server builds) in the entity's scope, and every
 * later message of that id runs on it. What must outlive the runner goes through the session store
 * (read evidence, restored only for unchanged files); what cannot (running processes) is recorded
 * so that the session, started again on another runner, tells the model what ended.
 *
 * @since 0.3.0
 */
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Ref from "effect/Ref"
import * as Schedule from "effect/Schedule"
import * as Scope from "effect/Scope"
import { Entity, type Sharding } from "effect/cluster"
import { ToolRegistry, wrapSystemReminder } from "../registry/index.js"
import { Approver, Scheduler, SessionLayer } from "../run/index.js"
import { toCallToolResult } from "../serve/index.js"
import { BackgroundShells } from "../shell/index.js"
import { toMcp } from "../tool/index.js"
import { type SessionStoreFailed, Workspace } from "../session/index.js"
import { clusterDir, openInflight, readInflight, type RunningShell, readMarker, writeMarker } from "./marker.js"
import { lostBatch, SessionUnavailable, storeNameOf, ToolSession, type WireBatch, type WireCall } from "./protocol.js"

/** How a runner builds the sessions it hosts. @category models */
export interface RunnerSessionOptions extends Omit<SessionLayer.SessionOptions, "sessionId" | "resume"> {
  /**
   * How long a session without messages and without running background shells stays resident
   * (default 10 minutes). A session that owns a running background shell is never passivated.
   */
  readonly maxIdleTime?: Duration.Input | undefined
  /** How often a resident session checks its background shells (default 2 s). */
  readonly shellCheckInterval?: Duration.Input | undefined
}

/** Default idle time of a session entity without running shells. @category constants */
export const DEFAULT_SESSION_IDLE = Duration.minutes(10)

const runnerName = (address: { readonly host: string; readonly port: number }) => `${address.host}:${address.port}`

const movedNotice = (from: string, to: string, shells: ReadonlyArray<RunningShell>): string =>
  wrapSystemReminder(
    `This session moved from runner ${from} to runner ${to} (the first runner stopped). ` +
      `Background shells it had started ended with it: ${shells.map((s) => `${s.id} (\`${s.command}\`)`).join(", ")}. ` +
      "Their output so far is not available here: start them again if you still need them. " +
      "Files you read are still known unless they changed since; anything else must be read again before an edit."
  )

/**
 * The entity layer: register it on a runner (with a sharding layer below it).
 * @category layers
 */
export const layer = (options: RunnerSessionOptions): Layer.Layer<never, SessionStoreFailed, Sharding.Sharding> =>
  Layer.unwrap(Effect.gen(function*() {
    // Every session of the runner keeps its record in one SQL state (one pool), not a pool each.
    const sqlUrl = options.sqlUrl
    const shared = sqlUrl === undefined || options.sqlState !== undefined ? undefined : yield* Effect.flatMap(
      Effect.promise(() => import("../run/sqlState.js")),
      (m) => m.sqlState(sqlUrl)
    )
    return entityLayer(shared === undefined ? options : { ...options, sqlState: shared })
  }))

const entityLayer = (options: RunnerSessionOptions): Layer.Layer<never, never, Sharding.Sharding> =>
  ToolSession.toLayer(
    Effect.gen(function*() {
      const address = yield* Entity.CurrentAddress
      const runner = runnerName(yield* Entity.CurrentRunnerAddress)
      const scope = yield* Scope.Scope
      const sessionLayer = SessionLayer.layer({ ...options, sessionId: storeNameOf(address.entityId) }).pipe(
        // Approvals are not routed to the front yet: a call that needs one is refused, and the
        // runner's approval mode (default yolo, like `serve`) decides what needs one.
        Layer.provide(Approver.layerFixed({ _tag: "cancel", reason: "approvals are not routed through the cluster", unasked: true }))
      )
      const built = yield* Effect.exit(Layer.buildWithScope(sessionLayer, scope))
      if (Exit.isFailure(built)) {
        const message = `The session "${address.entityId}" could not start on runner ${runner}: ${
          built.cause.reasons.map((r) => r._tag === "Fail" ? (r.error as { message?: string }).message : String(r)).join("; ")
        }`
        const unavailable = Effect.fail(new SessionUnavailable({ message }))
        return ToolSession.of({ CallBatch: () => unavailable, ListTools: () => unavailable })
      }
      const context = built.value
      const scheduler = Context.get(context, Scheduler)
      const registry = Context.get(context, ToolRegistry)
      const shells = Context.get(context, BackgroundShells)
      const stateDir = Context.get(context, Workspace).stateDir

      // What the last runner of this session left behind: shells that ended with it.
      const previous = yield* readMarker(stateDir, address.entityId)
      // The batch the last runner was running when it went away: the cluster re-sends a volatile
      // message whose runner vanished, and such a replay must not run a second time.
      const unfinished = yield* readInflight(stateDir, address.entityId)
      const journal = yield* clusterDir(stateDir).pipe(Effect.orDie)
      const inflight = yield* openInflight(journal, address.entityId).pipe(Scope.provide(scope))
      const notice = yield* Ref.make(
        previous !== undefined && previous.runner !== runner && previous.shells.length > 0
          ? movedNotice(previous.runner, runner, previous.shells)
          : undefined
      )
      const recorded = yield* Ref.make<string | undefined>(undefined)
      const keptAlive = yield* Ref.make(false)
      // Records the running shells (for the next runner) and keeps the entity resident while any run.
      const syncShells = Effect.gen(function*() {
        const running = (yield* shells.list).filter((s) => s.status === "running").map((s) => ({ id: s.id, command: s.command }))
        const key = JSON.stringify(running)
        if ((yield* Ref.get(recorded)) !== key) {
          yield* writeMarker(stateDir, address.entityId, { version: 1, runner, updatedAt: Date.now(), shells: running })
          yield* Ref.set(recorded, key)
        }
        const alive = running.length > 0
        if ((yield* Ref.get(keptAlive)) !== alive) {
          yield* Entity.keepAlive(alive).pipe(Effect.provideService(Entity.CurrentAddress, address))
          yield* Ref.set(keptAlive, alive)
        }
      })
      yield* syncShells
      yield* syncShells.pipe(
        Effect.repeat(Schedule.spaced(options.shellCheckInterval ?? Duration.seconds(2))),
        Effect.forkIn(scope)
      )

      const CallBatch = Effect.fn("ToolSession.CallBatch")(function*(request: {
        readonly requestId: bigint | string
        readonly payload: { readonly calls: ReadonlyArray<WireCall> }
      }) {
        const { payload } = request
        const requestId = String(request.requestId)
        if (requestId === unfinished) {
          const why = "stopped while this call ran, and the cluster delivered it again to runner " + runner
          return { results: lostBatch(address.entityId, payload.calls, why), runner } satisfies WireBatch
        }
        // Recorded before the batch runs and cleared only when it completes: interrupted or killed, it stays.
        yield* inflight.set(requestId)
        const batch = yield* scheduler.runBatch(payload.calls)
        yield* inflight.set(undefined)
        yield* syncShells
        const results = batch.results.map((result, i) => ({
          callId: payload.calls[i]?.callId ?? result.callId,
          result: toCallToolResult(result) as unknown
        }))
        const told = yield* Ref.getAndSet(notice, undefined)
        if (told !== undefined && results.length > 0) {
          const last = results[results.length - 1]!
          const mcp = last.result as { readonly content: ReadonlyArray<unknown> }
          results[results.length - 1] = { ...last, result: { ...mcp, content: [...mcp.content, { type: "text", text: told }] } }
        }
        return { results, runner } satisfies WireBatch
      })
      const ListTools = Effect.fn("ToolSession.ListTools")(function*() {
        const list = yield* registry.declarations
        return { tools: list.map(toMcp) as ReadonlyArray<unknown>, runner }
      })
      return ToolSession.of({ CallBatch, ListTools })
    }),
    { maxIdleTime: options.maxIdleTime ?? DEFAULT_SESSION_IDLE }
  )
