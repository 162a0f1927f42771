/**
 * The `ToolSession` entity's behaviour on a runner: the first message for a session id builds a
 * whole session (the same `SessionLayer` a stdio server builds) in the entity's scope, and every
 * later message of that id runs on it, concurrently (like the calls of one MCP connection). What
 * must outlive the runner goes through the session store (read evidence, restored only for
 * unchanged files); what cannot (running processes) is recorded so that the session, started again
 * on another runner, tells the model what ended.
 *
 * Approvals go back to the front that sent the batch: `CallBatch` returns an `ApprovalNeeded` for
 * each call that needs a person (the runner's approval mode and rules decide which) and the
 * front's `Answer` resumes the call and returns the next step, until `BatchDone`. A front that goes
 * away interrupts its batch (`Abandon`, or its request interrupted; a pending approval ends the call
 * cancelled, before anything in the batch ran); a front that never answers is cancelled after the
 * approval wait.
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
import * as Semaphore from "effect/Semaphore"
import { Entity, type Sharding } from "effect/cluster"
import { ToolRegistry, wrapSystemReminder } from "../registry/index.js"
import { Scheduler, SessionLayer } from "../run/index.js"
import { announcementOf, readOutputPage, toCallToolResult, withOutputLinks } from "../serve/index.js"
import { OutputStore } from "../output/index.js"
import { makeLaunchGate } from "../process/index.js"
import { BackgroundShells } from "../shell/index.js"
import { toMcp } from "../tool/index.js"
// floors: start-up — the converter alone (its workers start on the first conversion)
import { makeHtmlConverter } from "../web/converter.js"
import { type SessionStoreFailed, Workspace } from "../session/index.js"
import { clusterDir, openInflight, readInflight, type RunningShell, readMarker, writeMarker } from "./marker.js"
import { fromOutcomeWire } from "./approval.js"
import { type BatchAsk, BatchApprover, DEFAULT_APPROVAL_WAIT, makeBatches, routingApprover } from "./pending.js"
import { lostBatch, OutputUnreadable, SessionUnavailable, storeNameOf, ToolSession, type WireBatch, type WireCall } from "./protocol.js"

/** How a runner builds the sessions it hosts. @category models */
export interface RunnerSessionOptions extends Omit<SessionLayer.SessionOptions, "sessionId" | "resume"> {
  /**
   * How long a session without messages and without running background shells stays resident
   * (default 10 minutes). A session that owns a running background shell is never passivated.
   */
  readonly maxIdleTime?: Duration.Input | undefined
  /** How often a resident session checks its background shells (default 2 s). */
  readonly shellCheckInterval?: Duration.Input | undefined
  /**
   * How long a call waits for the front's answer to its approval (default 5 minutes); then it is
   * cancelled as unasked.
   */
  readonly approvalWait?: Duration.Input | undefined
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
    // Likewise one launch gate (at most K process launches at once on this runner's one JS thread)
    // and one HTML converter (at most 2 worker threads) for every session the runner hosts.
    const launchGate = options.launchGate ?? makeLaunchGate()
    const htmlConverter = options.htmlConverter ?? (yield* makeHtmlConverter())
    return entityLayer({ ...options, launchGate, htmlConverter, ...(shared === undefined ? {} : { sqlState: shared }) })
  }))

const entityLayer = (options: RunnerSessionOptions): Layer.Layer<never, never, Sharding.Sharding> =>
  ToolSession.toLayer(
    Effect.gen(function*() {
      const address = yield* Entity.CurrentAddress
      const runner = runnerName(yield* Entity.CurrentRunnerAddress)
      const scope = yield* Scope.Scope
      // The session's approver asks the front of the batch that needs it (see `pending.ts`); the
      // runner's approval mode (default yolo, like `serve`) and rules decide which calls need one.
      const sessionLayer = SessionLayer.layer({ ...options, sessionId: storeNameOf(address.entityId) }).pipe(
        Layer.provide(routingApprover)
      )
      const built = yield* Effect.exit(Layer.buildWithScope(sessionLayer, scope))
      if (Exit.isFailure(built)) {
        const message = `The session "${address.entityId}" could not start on runner ${runner}: ${
          built.cause.reasons.map((r) => r._tag === "Fail" ? (r.error as { message?: string }).message : String(r)).join("; ")
        }`
        const unavailable = new SessionUnavailable({ message })
        return ToolSession.of({
          CallBatch: () => Effect.fail(unavailable),
          Answer: () => Effect.fail(unavailable),
          Abandon: () => Effect.fail(unavailable),
          ListTools: () => Effect.fail(unavailable),
          ReadOutput: () => Effect.fail(unavailable)
        })
      }
      const context = built.value
      const scheduler = Context.get(context, Scheduler)
      const registry = Context.get(context, ToolRegistry)
      const shells = Context.get(context, BackgroundShells)
      const stateDir = Context.get(context, Workspace).stateDir
      const outputs = Context.get(context, OutputStore)

      // What the last runner of this session left behind: shells that ended with it.
      const previous = yield* readMarker(stateDir, address.entityId)
      // The batches the last runner was running when it went away: the cluster re-sends a volatile
      // message whose runner vanished, and such a replay must not run a second time.
      const unfinished = yield* readInflight(stateDir, address.entityId)
      const journal = yield* clusterDir(stateDir).pipe(Effect.orDie)
      // The batches running here (batches of a session run concurrently), recorded one write at a time.
      const journalFile = yield* openInflight(journal, address.entityId).pipe(Scope.provide(scope))
      const inflight = yield* Ref.make<ReadonlySet<string>>(new Set())
      const journalLock = yield* Semaphore.make(1)
      const record = (change: (ids: ReadonlySet<string>) => ReadonlySet<string>) =>
        journalLock.withPermits(1)(Effect.flatMap(Ref.updateAndGet(inflight, change), journalFile.set))
      const batches = yield* makeBatches(address.entityId, options.approvalWait ?? DEFAULT_APPROVAL_WAIT, scope)
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

      const runBatch = Effect.fn("ToolSession.CallBatch")(function*(
        requestId: string,
        calls: ReadonlyArray<WireCall>,
        ask: BatchAsk
      ) {
        if (unfinished.has(requestId)) {
          const why = "stopped while this call ran, and the cluster delivered it again to runner " + runner
          return { results: lostBatch(address.entityId, calls, why), runner } satisfies WireBatch
        }
        // Recorded before the batch runs and cleared only when it completes: interrupted or killed, it stays.
        yield* record((ids) => new Set([...ids, requestId]))
        const batch = yield* scheduler.runBatch(calls).pipe(Effect.provideService(BatchApprover, ask))
        yield* record((ids) => new Set([...ids].filter((id) => id !== requestId)))
        yield* syncShells
        // A cut result links to its saved output (a `resource_link` the front serves through ReadOutput).
        const results = yield* Effect.forEach(batch.results, (result, i) =>
          Effect.map(withOutputLinks(outputs, result, toCallToolResult(result)), (linked) => ({
            callId: calls[i]?.callId ?? result.callId,
            result: linked.result as unknown
          })))
        const told = yield* Ref.getAndSet(notice, undefined)
        if (told !== undefined && results.length > 0) {
          const last = results[results.length - 1]!
          const mcp = last.result as { readonly content: ReadonlyArray<unknown> }
          results[results.length - 1] = { ...last, result: { ...mcp, content: [...mcp.content, { type: "text", text: told }] } }
        }
        return { results, runner } satisfies WireBatch
      })
      // A batch runs in its own fiber (see `pending.ts`): CallBatch returns its first step, Answer the next.
      const CallBatch = Effect.fn("ToolSession.CallBatch")(function*(request: {
        readonly requestId: bigint | string
        readonly payload: { readonly calls: ReadonlyArray<WireCall>; readonly canAsk: boolean }
      }) {
        const { calls, canAsk } = request.payload
        return yield* batches.start((ask) => runBatch(String(request.requestId), calls, ask), canAsk)
      })
      const Answer = Effect.fn("ToolSession.Answer")(function*(request: {
        readonly payload: { readonly approvalId: string; readonly outcome: Parameters<typeof fromOutcomeWire>[0] }
      }) {
        return yield* batches.answer(request.payload.approvalId, fromOutcomeWire(request.payload.outcome))
      })
      const Abandon = Effect.fn("ToolSession.Abandon")(function*(request: { readonly payload: { readonly approvalId: string } }) {
        yield* batches.abandon(request.payload.approvalId)
      })
      const ListTools = Effect.fn("ToolSession.ListTools")(function*() {
        const list = yield* registry.declarations
        const { instructions } = yield* announcementOf(context, "list-changed")
        return { tools: list.map(toMcp) as ReadonlyArray<unknown>, runner, instructions }
      })
      const ReadOutput = Effect.fn("ToolSession.ReadOutput")(function*(request: { readonly payload: { readonly uri: string } }) {
        return yield* readOutputPage(outputs, request.payload.uri).pipe(
          Effect.mapError((e) => new OutputUnreadable({ errorCode: e.code, message: e.message }))
        )
      })
      return ToolSession.of({ CallBatch, Answer, Abandon, ListTools, ReadOutput })
    }),
    // An answer must reach the entity while the batch that asked waits: messages run concurrently.
    { maxIdleTime: options.maxIdleTime ?? DEFAULT_SESSION_IDLE, concurrency: "unbounded" }
  )
