/**
 * The front: a process that hosts no session and routes each session's messages to the runner
 * holding its shard (a client-only member of the cluster). A door (the HTTP server, an agent
 * backend) calls {@link ClusterFront} with a session id; the cluster finds the runner.
 *
 * @since 0.3.0
 */
import * as NodeClusterSocket from "@effect/platform-node/NodeClusterSocket"
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { lostBatch, OutputUnreadable, SessionUnavailable, ToolSession, type WireBatch, type WireCall } from "./protocol.js"
import { sqlLayer } from "./runner.js"

/** The front's view of the cluster. @category services */
export class ClusterFront extends Context.Service<ClusterFront, {
  /**
   * Runs a batch in the session's entity. When the runner stops while the batch runs (or cannot
   * be reached), every call of the batch comes back as a `session_runner_lost` failure: whether it
   * took effect is unknown, and the message is never re-sent by the front.
   */
  readonly callBatch: (sessionId: string, calls: ReadonlyArray<WireCall>) => Effect.Effect<WireBatch, SessionUnavailable>
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

/** Builds the front's service from a sharding layer's entity client. @category constructors */
export const make = Effect.gen(function*() {
  const clientFor = yield* ToolSession.client
  const callBatch = Effect.fn("ClusterFront.callBatch")(function*(sessionId: string, calls: ReadonlyArray<WireCall>) {
    return yield* clientFor(sessionId).CallBatch({ calls }).pipe(
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
 * A front over the cluster whose membership is kept in the PostgreSQL at `sqlUrl`.
 * @category layers
 */
export const layer = (options: { readonly sqlUrl: string }): Layer.Layer<ClusterFront, unknown> =>
  Layer.effect(ClusterFront, make).pipe(
    Layer.provide(NodeClusterSocket.layer({ storage: "sql", clientOnly: true, shardingConfig: { runnerAddress: Option.none() } })),
    Layer.provide(sqlLayer(options.sqlUrl))
  )
