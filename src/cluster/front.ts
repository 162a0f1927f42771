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
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import type { ConfirmationOutcome } from "../tool/index.js"
import { type ApprovalRequestWire, toApprovalRequest, toOutcomeWire } from "./approval.js"
import { cannotAsk } from "./pending.js"
import { type ApprovalNeeded, lostBatch, SessionUnavailable, ToolSession, type WireBatch, type WireCall } from "./protocol.js"
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
   * interrupts the batch on its runner (a pending approval ends its call cancelled).
   */
  readonly callBatch: (
    sessionId: string,
    calls: ReadonlyArray<WireCall>,
    options?: CallBatchOptions
  ) => Effect.Effect<WireBatch, SessionUnavailable>
  /** The session's tool declarations (MCP `tools/list` entries). */
  readonly listTools: (sessionId: string) => Effect.Effect<{ readonly tools: ReadonlyArray<unknown>; readonly runner: string }, SessionUnavailable>
}>()("toolwright/cluster/ClusterFront") {}

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
    const approve = options?.approve
    // Each approval is asked in its own fiber (the stream goes on), ended with the batch.
    const answer = (needed: ApprovalNeeded) =>
      (approve ?? cannotAskWire)(needed.request).pipe(
        Effect.flatMap((outcome) => client.Answer({ approvalId: needed.approvalId, outcome: toOutcomeWire(outcome) })),
        Effect.catchCause((cause) =>
          Cause.hasInterruptsOnly(cause)
            ? Effect.void
            : Effect.logWarning(`toolwright: the answer to approval ${needed.approvalId} of session "${sessionId}" was not applied: ${Cause.pretty(cause).split("\n")[0]}`)
        ),
        Effect.forkScoped
      )
    const done = client.CallBatch({ calls, canAsk: approve !== undefined }).pipe(
      Stream.mapEffect((event) => event._tag === "ApprovalNeeded" ? Effect.as(answer(event), undefined) : Effect.succeed(event.batch)),
      Stream.filter((batch): batch is WireBatch => batch !== undefined),
      Stream.runLast,
      Effect.flatMap(Option.match({
        onNone: () => Effect.die(new Error("the batch's stream ended without its results")),
        onSome: Effect.succeed
      })),
      Effect.scoped
    )
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
  return ClusterFront.of({ callBatch, listTools })
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
