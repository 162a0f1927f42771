/**
 * The batches a session entity runs and the approvals they wait for. A batch runs in a fiber of
 * the entity and hands out its steps one at a time: an `ApprovalNeeded` for each call that needs a
 * person, then `BatchDone`. `CallBatch` returns the first step; `Answer` applies the front's
 * outcome and returns the next, so a batch that needs no approval costs one round trip.
 *
 * A session on a runner has one `Approver` for all its batches; each batch provides
 * {@link BatchApprover}, which the session's approver calls, so a request goes to the front that
 * sent that batch and to no other. An approval gets a fresh random id and waits on its own
 * `Deferred` until the front answers, the front abandons it (it went away: the batch is
 * interrupted), the front's request is interrupted, or the wait runs out (the call is cancelled;
 * the front's late answer then gets the batch's next step). Nothing is persisted: approvals live in
 * the runner's memory, for one batch.
 *
 * @since 0.3.0
 */
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import * as Ref from "effect/Ref"
import type * as Scope from "effect/Scope"
import { type ApprovalRequest, Approver } from "../run/index.js"
import type { ConfirmationOutcome } from "../tool/index.js"
import { toApprovalRequestWire } from "./approval.js"
import { ApprovalNotPending, type BatchStep, type WireBatch } from "./protocol.js"

/** How long a batch waits for the front's answer by default, in milliseconds. @category constants */
export const DEFAULT_APPROVAL_WAIT_MS = 300_000

/** How long a batch waits for the front's answer by default. @category constants */
export const DEFAULT_APPROVAL_WAIT = Duration.millis(DEFAULT_APPROVAL_WAIT_MS)

/** Why a call is cancelled when the batch's front cannot ask (the reason the serve door gives). @category constants */
export const CANNOT_ASK_REASON = "the host cannot ask for approval"

/** What a batch whose front cannot ask answers: `cancel` as unasked; questions go unasked (no answers). @category constants */
export const cannotAsk = (request: ApprovalRequest): Effect.Effect<ConfirmationOutcome> =>
  Effect.succeed(
    request.details.type === "ask_user_question"
      ? { _tag: "proceed_once" }
      : { _tag: "cancel", reason: CANNOT_ASK_REASON, unasked: true }
  )

/** The outcome of an approval nobody answered within `wait`. @category constructors */
export const unanswered = (wait: Duration.Duration): ConfirmationOutcome => ({
  _tag: "cancel",
  reason: `nobody answered the approval request within ${Duration.format(wait)}`,
  unasked: true
})

/** How one batch's approvals are answered. @category models */
export type BatchAsk = (request: ApprovalRequest) => Effect.Effect<ConfirmationOutcome>

/** The approver of the batch running in this fiber (default: nobody can be asked). @category services */
export const BatchApprover = Context.Reference<BatchAsk>("toolwright/cluster/BatchApprover", { defaultValue: () => cannotAsk })

/** The session's approver on a runner: it asks whoever the running batch's {@link BatchApprover} is. @category layers */
export const routingApprover: Layer.Layer<Approver> = Approver.layerCallback((request) =>
  Effect.gen(function*() {
    const ask = yield* BatchApprover
    return yield* ask(request)
  })
)

interface RunningBatch {
  readonly steps: Queue.Queue<BatchStep>
  readonly fiber: Deferred.Deferred<Fiber.Fiber<void>>
}

type Entry =
  | { readonly _tag: "waiting"; readonly answer: Deferred.Deferred<ConfirmationOutcome>; readonly batch: RunningBatch }
  // The wait ran out (the call was cancelled): the front's late answer gets the batch's next step.
  | { readonly _tag: "expired"; readonly batch: RunningBatch }

/** A session's running batches and pending approvals; batches run in `scope` (the entity's). @category constructors */
export const makeBatches = Effect.fnUntraced(function*(sessionId: string, wait: Duration.Input, scope: Scope.Scope) {
  const pending = yield* Ref.make<ReadonlyMap<string, Entry>>(new Map())
  const waitFor = Duration.fromInputUnsafe(wait)
  const waitMs = Duration.toMillis(waitFor)
  const set = (id: string, entry: Entry | undefined) => (map: ReadonlyMap<string, Entry>) => {
    const next = new Map(map)
    if (entry === undefined) next.delete(id)
    else next.set(id, entry)
    return next
  }
  const take = (id: string) => Ref.modify(pending, (map) => [map.get(id), set(id, undefined)(map)] as const)
  const notPending = (approvalId: string) =>
    new ApprovalNotPending({
      message: `No approval "${approvalId}" is pending in session "${sessionId}": it was answered already, its batch ended ` +
        "(the front went away or the runner stopped), or it was never asked here. The answer was not applied."
    })
  const stop = (batch: RunningBatch) => Effect.flatMap(Deferred.await(batch.fiber), Fiber.interrupt)
  // The front waits for the batch's next step; a front that goes away meanwhile interrupts the batch.
  const nextStep = (batch: RunningBatch) => Queue.take(batch.steps).pipe(Effect.onInterrupt(() => stop(batch)))

  const asker = (batch: RunningBatch) => (request: ApprovalRequest): Effect.Effect<ConfirmationOutcome> =>
    Effect.gen(function*() {
      const approvalId = crypto.randomUUID()
      const answer = yield* Deferred.make<ConfirmationOutcome>()
      yield* Ref.update(pending, set(approvalId, { _tag: "waiting", answer, batch }))
      return yield* Effect.gen(function*() {
        yield* Queue.offer(batch.steps, { _tag: "ApprovalNeeded", approvalId, request: toApprovalRequestWire(request), waitMs })
        const outcome = yield* Deferred.await(answer).pipe(Effect.timeoutOption(waitFor))
        if (Option.isSome(outcome)) return outcome.value
        yield* Ref.update(pending, (map) => map.get(approvalId)?._tag === "waiting" ? set(approvalId, { _tag: "expired", batch })(map) : map)
        yield* Effect.logWarning(`toolwright: approval ${approvalId} of session "${sessionId}" had no answer within ${Duration.format(waitFor)}: the ${request.tool.name} call is cancelled`)
        return unanswered(waitFor)
      }).pipe(
        Effect.onInterrupt(() =>
          Effect.andThen(
            Ref.update(pending, set(approvalId, undefined)),
            Effect.logWarning(`toolwright: approval ${approvalId} of session "${sessionId}" was pending when its front went away: the ${request.tool.name} call is cancelled`)
          )
        )
      )
    })

  /** Runs a batch in its own fiber and returns its first step. */
  const start = <R>(run: (ask: BatchAsk) => Effect.Effect<WireBatch, never, R>, canAsk: boolean) =>
    Effect.gen(function*() {
      const batch: RunningBatch = { steps: yield* Queue.unbounded<BatchStep>(), fiber: yield* Deferred.make<Fiber.Fiber<void>>() }
      const fiber = yield* run(canAsk ? asker(batch) : cannotAsk).pipe(
        Effect.flatMap((done) => Queue.offer(batch.steps, { _tag: "BatchDone", batch: done })),
        Effect.catchCause((cause) => Queue.failCause(batch.steps, cause as Cause.Cause<never>)),
        // An interrupted batch has no next step: a late answer is told so instead of waiting.
        Effect.onInterrupt(() => Queue.failCause(batch.steps, Cause.interrupt())),
        Effect.asVoid,
        Effect.forkIn(scope)
      )
      yield* Deferred.succeed(batch.fiber, fiber)
      return yield* nextStep(batch)
    })

  /** Applies the front's answer to the approval it names (once, while it waits) and returns the batch's next step. */
  const answer = Effect.fnUntraced(function*(approvalId: string, outcome: ConfirmationOutcome) {
    const entry = yield* take(approvalId)
    if (entry === undefined) return yield* notPending(approvalId)
    if (entry._tag === "waiting") yield* Deferred.succeed(entry.answer, outcome)
    return yield* nextStep(entry.batch)
  })

  /** The front will not answer (it went away): the batch that asked is interrupted. */
  const abandon = Effect.fnUntraced(function*(approvalId: string) {
    const entry = yield* take(approvalId)
    if (entry === undefined) return yield* notPending(approvalId)
    yield* stop(entry.batch)
  })

  return { start, answer, abandon }
})
