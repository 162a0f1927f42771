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
import type { ConfirmationOutcome } from "../tool/index.js"
import { type ApprovalRequestWire, toApprovalRequest, toOutcomeWire } from "./approval.js"
import { cannotAsk, unanswered } from "./pending.js"
import { type BatchStep, lostBatch, OutputUnreadable, SessionUnavailable, ToolSession, type WireBatch, type WireCall, workspaceGroupOf } from "./protocol.js"
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

/** The first line of a cause, for a message. */
const firstLine = (cause: Cause.Cause<unknown>): string => Cause.pretty(cause).split("\n")[0] ?? ""

/** An RPC's failure: its own typed errors (`keep`) as they are; anything else "could not be reached". */
const typedOrUnreachable = <E>(sessionId: string, keep: (e: unknown) => e is E) =>
(cause: Cause.Cause<unknown>): Effect.Effect<never, E | SessionUnavailable> => {
  const failure = Cause.findErrorOption(cause).pipe(Option.filter(keep))
  return Option.isSome(failure)
    ? Effect.fail(failure.value)
    : Effect.fail(new SessionUnavailable({ message: `The session "${sessionId}" could not be reached: ${firstLine(cause)}` }))
}

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
    const callBatch = Effect.fn("ClusterFront.callBatch")(function*(
      sessionId: string,
      calls: ReadonlyArray<WireCall>,
      options?: CallBatchOptions
    ) {
      const client = clientFor(sessionId)
      const approve = options?.approve ?? cannotAskWire
      const gone = Effect.sync((): WireBatch => ({
        results: lostBatch(sessionId, calls, `went away, and no runner mounts workspace group "${workspaceGroupOf(sessionId)}" now`),
        runner: ""
      }))
      // Each step of the batch: an approval is asked (at most as long as the batch waits for it) and
      // answered, which returns the next step. A front interrupted meanwhile abandons the batch.
      const follow = (step: BatchStep): Effect.Effect<WireBatch, unknown> => {
        if (step._tag === "BatchDone") return Effect.succeed(step.batch)
        const { approvalId } = step
        const waitFor = Duration.millis(step.waitMs)
        return approve(step.request).pipe(
          Effect.timeoutOption(waitFor),
          Effect.map(Option.getOrElse(() => unanswered(waitFor))),
          Effect.onInterrupt(() => Effect.ignore(client.Abandon({ approvalId }).pipe(Effect.timeout(ABANDON_TIMEOUT)))),
          Effect.flatMap((outcome) => client.Answer({ approvalId, outcome: toOutcomeWire(outcome) })),
          Effect.flatMap(follow)
        )
      }
      return yield* client.CallBatch({ calls, canAsk: options?.approve !== undefined }).pipe(
        Effect.flatMap(follow),
        Effect.catchCause((cause) => {
          const unavailable = Cause.findErrorOption(cause).pipe(Option.filter((e) => e instanceof SessionUnavailable))
          if (Option.isSome(unavailable)) return Effect.fail(unavailable.value as SessionUnavailable)
          if (Cause.hasInterruptsOnly(cause)) return Effect.failCause(cause as Cause.Cause<never>)
          const why = `stopped or could not be reached while this call ran (${firstLine(cause)})`
          return Effect.succeed({ results: lostBatch(sessionId, calls, why), runner: "" } satisfies WireBatch)
        }),
        Effect.tap((batch) => batch.runner === "" ? Effect.void : sawAnswer(workspaceGroupOf(sessionId))),
        Effect.raceFirst(watch(sessionId, gone))
      )
    })
    const listTools = Effect.fn("ClusterFront.listTools")(function*(sessionId: string) {
      return yield* clientFor(sessionId).ListTools().pipe(
        Effect.catchCause(typedOrUnreachable(sessionId, (e): e is SessionUnavailable => e instanceof SessionUnavailable)),
        Effect.raceFirst(watch(sessionId, Effect.fail(unmounted(sessionId, workspaceGroupOf(sessionId)))))
      )
    })
    const readOutput = Effect.fn("ClusterFront.readOutput")(function*(sessionId: string, uri: string) {
      return yield* clientFor(sessionId).ReadOutput({ uri }).pipe(
        Effect.catchCause(typedOrUnreachable(
          sessionId,
          (e): e is SessionUnavailable | OutputUnreadable => e instanceof SessionUnavailable || e instanceof OutputUnreadable
        ))
      )
    })
    return ClusterFront.of({ callBatch, listTools, readOutput })
  })

/**
 * A client-only member of the cluster whose membership is kept in the PostgreSQL at `sqlUrl`,
 * with the runner registry the front reads: the sharding a front (or a test talking to
 * `ToolSession` directly) sends messages through.
 * @category layers
 */
export const clientLayer = (options: { readonly sqlUrl: string }) => {
  const config = ShardingConfig.layerFromEnv({ runnerAddress: Option.none() })
  // The front's own storage layers (not NodeClusterSocket's), so that it can read the runner registry.
  const storage = Layer.mergeAll(
    SqlMessageStorage.layer.pipe(Layer.provide(NodeCrypto.layerDigest)),
    Layer.orDie(SqlRunnerStorage.layer)
  ).pipe(Layer.provide(config))
  return NodeClusterSocket.layer({ storage: "byo", clientOnly: true, shardingConfig: { runnerAddress: Option.none() } }).pipe(
    Layer.provideMerge(storage),
    Layer.provide(sqlLayer(options.sqlUrl))
  )
}

/**
 * A front over the cluster whose membership is kept in the PostgreSQL at `sqlUrl`.
 * @category layers
 */
export const layer = (options: FrontOptions): Layer.Layer<ClusterFront, unknown> =>
  Layer.effect(ClusterFront, make(options)).pipe(Layer.provide(clientLayer(options)))
