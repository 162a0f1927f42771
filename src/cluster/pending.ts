/**
 * The approvals a session entity waits for. A session on a runner has one `Approver` for all its
 * batches; each batch provides {@link BatchApprover}, which the session's approver calls, so a
 * request goes to the front that sent that batch and to no other. A request gets a fresh random
 * id, is emitted into the batch's stream, and waits on its own `Deferred` until the front answers,
 * the batch is interrupted (its front went away) or the wait times out. Nothing is persisted: an
 * approval lives in the runner's memory, for one batch.
 *
 * @since 0.3.0
 */
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import { type ApprovalRequest, Approver } from "../run/index.js"
import type { ConfirmationOutcome } from "../tool/index.js"
import { type ApprovalRequestWire, toApprovalRequestWire } from "./approval.js"
import { ApprovalNotPending } from "./protocol.js"

/** How long a batch waits for the front's answer by default. @category constants */
export const DEFAULT_APPROVAL_WAIT = Duration.minutes(5)

/** Why a call is cancelled when the batch's front cannot ask (the reason the serve door gives). @category constants */
export const CANNOT_ASK_REASON = "the host cannot ask for approval"

/** What a batch whose front cannot ask answers: `cancel` as unasked; questions go unasked (no answers). @category constants */
export const cannotAsk = (request: ApprovalRequest): Effect.Effect<ConfirmationOutcome> =>
  Effect.succeed(
    request.details.type === "ask_user_question"
      ? { _tag: "proceed_once" }
      : { _tag: "cancel", reason: CANNOT_ASK_REASON, unasked: true }
  )

/** How one batch's approvals are answered. @category models */
export type BatchAsk = (request: ApprovalRequest) => Effect.Effect<ConfirmationOutcome>

/** The approver of the batch running in this fiber (default: nobody can be asked). @category services */
export const BatchApprover = Context.Reference<BatchAsk>(
  "toolwright/cluster/BatchApprover",
  { defaultValue: () => cannotAsk }
)

/** The session's approver on a runner: it asks whoever the running batch's {@link BatchApprover} is. @category layers */
export const routingApprover: Layer.Layer<Approver> = Approver.layerCallback((request) =>
  Effect.gen(function*() {
    const ask = yield* BatchApprover
    return yield* ask(request)
  })
)

/** A session's pending approvals. @category constructors */
export const makePendingApprovals = Effect.fnUntraced(function*(sessionId: string, wait: Duration.Input) {
  const pending = yield* Ref.make<ReadonlyMap<string, Deferred.Deferred<ConfirmationOutcome>>>(new Map())
  const waitFor = Duration.fromInputUnsafe(wait)
  const without = (id: string) => (map: ReadonlyMap<string, Deferred.Deferred<ConfirmationOutcome>>) => {
    const next = new Map(map)
    next.delete(id)
    return next
  }

  /** A batch's approver: `emit` hands the request to the batch's stream, then the answer is awaited. */
  const asker = (emit: (approvalId: string, request: ApprovalRequestWire) => Effect.Effect<void>) =>
  (request: ApprovalRequest): Effect.Effect<ConfirmationOutcome> =>
    Effect.gen(function*() {
      const approvalId = crypto.randomUUID()
      const answer = yield* Deferred.make<ConfirmationOutcome>()
      yield* Ref.update(pending, (map) => new Map(map).set(approvalId, answer))
      return yield* Effect.gen(function*() {
        yield* emit(approvalId, toApprovalRequestWire(request))
        const outcome = yield* Deferred.await(answer).pipe(Effect.timeoutOption(waitFor))
        if (Option.isSome(outcome)) return outcome.value
        yield* Effect.logWarning(`toolwright: approval ${approvalId} of session "${sessionId}" had no answer within ${Duration.format(waitFor)}: the ${request.tool.name} call is cancelled`)
        return {
          _tag: "cancel",
          reason: `nobody answered the approval request within ${Duration.format(waitFor)}`,
          unasked: true
        } satisfies ConfirmationOutcome
      }).pipe(
        Effect.onInterrupt(() =>
          Effect.logWarning(`toolwright: approval ${approvalId} of session "${sessionId}" was pending when its front went away: the ${request.tool.name} call is cancelled`)
        ),
        Effect.ensuring(Ref.update(pending, without(approvalId)))
      )
    })

  /** Applies the front's answer to the approval it names: once, while its batch waits. */
  const answer = Effect.fnUntraced(function*(approvalId: string, outcome: ConfirmationOutcome) {
    const waiting = yield* Ref.modify(pending, (map) => [map.get(approvalId), without(approvalId)(map)] as const)
    if (waiting === undefined) {
      return yield* new ApprovalNotPending({
        message: `No approval "${approvalId}" is pending in session "${sessionId}": it was answered already, its batch ended ` +
          "(the front went away, the wait timed out, or the runner stopped), or it was never asked here. The answer was not applied."
      })
    }
    yield* Deferred.succeed(waiting, outcome)
  })

  return { asker, answer }
})
