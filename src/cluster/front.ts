/**
 * The front: a process that hosts no session and routes each session's messages to the runner
 * holding its shard (a client-only member of the cluster). A door (the HTTP server, an agent
 * backend) calls {@link ClusterFront} with a session id; the cluster finds the runner.
 *
 * @since 0.3.0
 */
import * as NodeClusterSocket from "@effect/platform-node/NodeClusterSocket"
import * as NodeCrypto from "@effect/platform-node/NodeCrypto"
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import { RunnerStorage, ShardingConfig, SqlMessageStorage, SqlRunnerStorage } from "effect/cluster"
import { lostBatch, SessionUnavailable, ToolSession, type WireBatch, type WireCall, workspaceGroupOf } from "./protocol.js"
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
  readonly listTools: (sessionId: string) => Effect.Effect<{ readonly tools: ReadonlyArray<unknown>; readonly runner: string }, SessionUnavailable>
}>()("toolwright/cluster/ClusterFront") {}

/** How a front waits for a runner. @category models */
export interface FrontOptions {
  /** The PostgreSQL URL shared by every runner and front of the cluster. */
  readonly sqlUrl: string
  /**
   * How long a message waits for a runner before the front checks that some runner mounts the
   * session's workspace group (default 5 s); then again each time this passes. Without one the
   * call fails `session_unavailable` instead of waiting for ever.
   */
  readonly unmountedGroupWait?: Duration.Input | undefined
}

/** Default of {@link FrontOptions.unmountedGroupWait}. @category constants */
export const DEFAULT_UNMOUNTED_GROUP_WAIT = Duration.seconds(5)

const unmounted = (sessionId: string, group: string) =>
  new SessionUnavailable({
    message: `The session "${sessionId}" cannot start: no runner mounts workspace group "${group}". ` +
      `Start a runner with --group ${group} on the machine that holds that workspace, or use a session id of a group a runner mounts (NAME@GROUP).`
  })

/**
 * Builds the front's service from a sharding layer's entity client and the cluster's runner
 * registry (which groups the live runners mount).
 * @category constructors
 */
export const make = (options: { readonly unmountedGroupWait?: Duration.Input | undefined } = {}) =>
  Effect.gen(function*() {
    const clientFor = yield* ToolSession.client
    const runners = yield* RunnerStorage.RunnerStorage
    const wait = options.unmountedGroupWait ?? DEFAULT_UNMOUNTED_GROUP_WAIT
    // The groups of the healthy runners, read at most once a second however many calls wait.
    const online = yield* Effect.cachedWithTTL(
      runners.getRunners.pipe(
        Effect.map((list) => new Set(list.flatMap(([runner, healthy]) => healthy ? runner.groups : []))),
        Effect.option
      ),
      Duration.seconds(1)
    )
    // The groups some runner has answered for through this front: a call of such a group that then
    // finds no runner may have reached one that went away (session_runner_lost, not "cannot start").
    const answered = yield* Ref.make<ReadonlySet<string>>(new Set())
    const sawAnswer = (group: string) =>
      Effect.flatMap(Ref.get(answered), (seen) => seen.has(group) ? Effect.void : Ref.set(answered, new Set([...seen, group])))
    const mounted = (group: string) =>
      // The registry unreachable: keep waiting as the cluster does, it retries the message.
      Effect.map(online, (groups) => Option.isNone(groups) || groups.value.has(group))
    // A message for a shard no runner holds is retried by the cluster for ever. The watch is a
    // timer while the message gets an answer within `wait`; after that it checks that some runner
    // mounts the group, and again every `wait`. No runner at the first check, for a group that no
    // runner has answered for through this front, means the call never ran (session_unavailable);
    // otherwise the group's runners went away while it waited or ran (`onGone`: whether it took
    // effect is unknown).
    const watch = <A>(sessionId: string, onGone: Effect.Effect<A, SessionUnavailable>) => {
      const group = workspaceGroupOf(sessionId)
      return Effect.gen(function*() {
        for (let round = 0;; round++) {
          yield* Effect.sleep(wait)
          if (yield* mounted(group)) continue
          if (round === 0 && !(yield* Ref.get(answered)).has(group)) return yield* unmounted(sessionId, group)
          return yield* onGone
        }
      })
    }
    const callBatch = Effect.fn("ClusterFront.callBatch")(function*(sessionId: string, calls: ReadonlyArray<WireCall>) {
      const gone = Effect.sync((): WireBatch => ({
        results: lostBatch(sessionId, calls, `went away, and no runner mounts workspace group "${workspaceGroupOf(sessionId)}" now`),
        runner: ""
      }))
      return yield* clientFor(sessionId).CallBatch({ calls }).pipe(
        Effect.catchCause((cause) => {
          const unavailable = Cause.findErrorOption(cause).pipe(Option.filter((e) => e instanceof SessionUnavailable))
          if (Option.isSome(unavailable)) return Effect.fail(unavailable.value as SessionUnavailable)
          if (Cause.hasInterruptsOnly(cause)) return Effect.failCause(cause as Cause.Cause<never>)
          const why = `stopped or could not be reached while this call ran (${Cause.pretty(cause).split("\n")[0]})`
          return Effect.succeed({ results: lostBatch(sessionId, calls, why), runner: "" } satisfies WireBatch)
        }),
        Effect.tap((batch) => batch.runner === "" ? Effect.void : sawAnswer(workspaceGroupOf(sessionId))),
        Effect.raceFirst(watch(sessionId, gone))
      )
    })
    const listTools = Effect.fn("ClusterFront.listTools")(function*(sessionId: string) {
      return yield* clientFor(sessionId).ListTools().pipe(
        Effect.catchCause((cause) => {
          const unavailable = Cause.findErrorOption(cause).pipe(Option.filter((e) => e instanceof SessionUnavailable))
          if (Option.isSome(unavailable)) return Effect.fail(unavailable.value as SessionUnavailable)
          return Effect.fail(new SessionUnavailable({ message: `The session "${sessionId}" could not be reached: ${Cause.pretty(cause).split("\n")[0]}` }))
        }),
        Effect.raceFirst(watch(sessionId, Effect.fail(unmounted(sessionId, workspaceGroupOf(sessionId)))))
      )
    })
    return ClusterFront.of({ callBatch, listTools })
  })

/**
 * A front over the cluster whose membership is kept in the PostgreSQL at `sqlUrl`.
 * @category layers
 */
export const layer = (options: FrontOptions): Layer.Layer<ClusterFront, unknown> => {
  const config = ShardingConfig.layerFromEnv({ runnerAddress: Option.none() })
  // The front's own storage layers (not NodeClusterSocket's), so that it can read the runner registry.
  const storage = Layer.mergeAll(
    SqlMessageStorage.layer.pipe(Layer.provide(NodeCrypto.layerDigest)),
    Layer.orDie(SqlRunnerStorage.layer)
  ).pipe(Layer.provide(config))
  const sharding = NodeClusterSocket.layer({ storage: "byo", clientOnly: true, shardingConfig: { runnerAddress: Option.none() } }).pipe(
    Layer.provideMerge(storage)
  )
  return Layer.effect(ClusterFront, make(options)).pipe(Layer.provide(sharding), Layer.provide(sqlLayer(options.sqlUrl)))
}
