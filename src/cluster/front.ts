/**
 * The front: a process that hosts no session and routes each session's messages to the runner
 * holding its shard (a client-only member of the cluster). A door (the HTTP server, an agent
 * backend) calls {@link ClusterFront} with a session id; the cluster finds the runner. The door
 * also says how to ask a person: each approval a batch needs comes back through the front to the
 * `approve` given with that batch, and its answer goes back to the batch.
 *
 * @since 0.3.0
 */
import * as NodeClusterSocket from "@effect/platform-node/NodeClusterSocket"
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type { ConfirmationOutcome } from "../tool/index.js"
import { type ApprovalRequestWire, toApprovalRequest, toOutcomeWire } from "./approval.js"
import { cannotAsk, unanswered } from "./pending.js"
import { type BatchStep, lostBatch, OutputUnreadable, SessionUnavailable, ToolSession, type WireBatch, type WireCall } from "./protocol.js"
import { sqlLayer } from "./runner.js"

/** How a door answers the approvals of one batch. @category models */
export interface CallBatchOptions {
  /**
   * Asks a person (MCP elicitation, a UI): the request as `toApprovalRequest` turns it back into
   * an `ApprovalRequest`. Without it, a call that needs approval is cancelled as unasked (and
   * `ask_user_question` is not asked), as by a host that cannot ask.
   */
  readonly approve?: (request: ApprovalRequestWire) => Effect.Effect<ConfirmationOutcome>
}

/** The front's view of the cluster. @category services */
export class ClusterFront extends Context.Service<ClusterFront, {
  /**
   * Runs a batch in the session's entity. When the runner stops while the batch runs (or cannot
   * be reached), every call of the batch comes back as a `session_runner_lost` failure: whether it
   * took effect is unknown, and the message is never re-sent by the front. Interrupting it
   * interrupts the batch on its runner (a pending approval ends its call cancelled, and nothing
   * more of the batch runs).
   */
  readonly callBatch: (
    sessionId: string,
    calls: ReadonlyArray<WireCall>,
    options?: CallBatchOptions
  ) => Effect.Effect<WireBatch, SessionUnavailable>
  /** The session's tool declarations (MCP `tools/list` entries). */
  readonly listTools: (
    sessionId: string
  ) => Effect.Effect<{ readonly tools: ReadonlyArray<unknown>; readonly runner: string; readonly instructions?: string | undefined }, SessionUnavailable>
  /** A page of one of the session's saved outputs (MCP `resources/read` contents). */
  readonly readOutput: (
    sessionId: string,
    uri: string
  ) => Effect.Effect<{ readonly contents: ReadonlyArray<unknown> }, SessionUnavailable | OutputUnreadable>
}>()("toolwright/cluster/ClusterFront") {}

/** How long a front that goes away tries to tell the runner. */
const ABANDON_TIMEOUT = Duration.seconds(5)

/** What a batch sent without `approve` answers, should it be asked all the same. */
const cannotAskWire = (request: ApprovalRequestWire) => cannotAsk(toApprovalRequest(request))

/** Builds the front's service from a sharding layer's entity client. @category constructors */
export const make = Effect.gen(function*() {
  const clientFor = yield* ToolSession.client
  const callBatch = Effect.fn("ClusterFront.callBatch")(function*(
    sessionId: string,
    calls: ReadonlyArray<WireCall>,
    options?: CallBatchOptions
  ) {
    const client = clientFor(sessionId)
    const approve = options?.approve ?? cannotAskWire
    // Each step of the batch: an approval is asked (at most as long as the batch waits for it) and
    // answered, which returns the next step. A front interrupted meanwhile abandons the batch.
    const follow = (step: BatchStep): Effect.Effect<WireBatch, unknown> => {
      if (step._tag === "BatchDone") return Effect.succeed(step.batch)
      const { approvalId } = step
      const wait = Duration.millis(step.waitMs)
      return approve(step.request).pipe(
        Effect.timeoutOption(wait),
        Effect.map(Option.getOrElse(() => unanswered(wait))),
        Effect.onInterrupt(() => Effect.ignore(client.Abandon({ approvalId }).pipe(Effect.timeout(ABANDON_TIMEOUT)))),
        Effect.flatMap((outcome) => client.Answer({ approvalId, outcome: toOutcomeWire(outcome) })),
        Effect.flatMap(follow)
      )
    }
    const done = client.CallBatch({ calls, canAsk: options?.approve !== undefined }).pipe(Effect.flatMap(follow))
    return yield* done.pipe(
      Effect.catchCause((cause) => {
        const unavailable = Cause.findErrorOption(cause).pipe(Option.filter((e) => e instanceof SessionUnavailable))
        if (Option.isSome(unavailable)) return Effect.fail(unavailable.value as SessionUnavailable)
        if (Cause.hasInterruptsOnly(cause)) return Effect.failCause(cause as Cause.Cause<never>)
        const why = `stopped or could not be reached while this call ran (${Cause.pretty(cause).split("\n")[0]})`
        return Effect.succeed({ results: lostBatch(sessionId, calls, why), runner: "" } satisfies WireBatch)
      })
    )
  })
  const listTools = Effect.fn("ClusterFront.listTools")(function*(sessionId: string) {
    return yield* clientFor(sessionId).ListTools().pipe(
      Effect.catchCause((cause) => {
        const unavailable = Cause.findErrorOption(cause).pipe(Option.filter((e) => e instanceof SessionUnavailable))
        if (Option.isSome(unavailable)) return Effect.fail(unavailable.value as SessionUnavailable)
        return Effect.fail(new SessionUnavailable({ message: `The session "${sessionId}" could not be reached: ${Cause.pretty(cause).split("\n")[0]}` }))
      })
    )
  })
  const readOutput = Effect.fn("ClusterFront.readOutput")(function*(sessionId: string, uri: string) {
    return yield* clientFor(sessionId).ReadOutput({ uri }).pipe(
      Effect.catchCause((cause) => {
        const failure = Cause.findErrorOption(cause).pipe(
          Option.filter((e) => e instanceof SessionUnavailable || e instanceof OutputUnreadable)
        )
        if (Option.isSome(failure)) return Effect.fail(failure.value as SessionUnavailable | OutputUnreadable)
        return Effect.fail(new SessionUnavailable({ message: `The session "${sessionId}" could not be reached: ${Cause.pretty(cause).split("\n")[0]}` }))
      })
    )
  })
  return ClusterFront.of({ callBatch, listTools, readOutput })
})

/**
 * A client-only member of the cluster whose membership is kept in the PostgreSQL at `sqlUrl`: the
 * sharding a front (or a test talking to `ToolSession` directly) sends messages through.
 * @category layers
 */
export const clientLayer = (options: { readonly sqlUrl: string }) =>
  NodeClusterSocket.layer({ storage: "sql", clientOnly: true, shardingConfig: { runnerAddress: Option.none() } }).pipe(
    Layer.provide(sqlLayer(options.sqlUrl))
  )

/**
 * A front over the cluster whose membership is kept in the PostgreSQL at `sqlUrl`.
 * @category layers
 */
export const layer = (options: { readonly sqlUrl: string }): Layer.Layer<ClusterFront, unknown> =>
  Layer.effect(ClusterFront, make).pipe(Layer.provide(clientLayer(options)))
