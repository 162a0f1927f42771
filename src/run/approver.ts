/**
 * How an `ask` decision is answered: a person through the host (MCP elicitation), a UI callback, a
 * fixed policy, or a test double. Answers of `proceed_always` are remembered by the scheduler for
 * the rest of the session.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Ref from "effect/Ref"
import type { ConfirmationDetails, ConfirmationOutcome, ToolInfo } from "../tool/index.js"

/** What an approver is asked. @category models */
export interface ApprovalRequest {
  readonly tool: ToolInfo
  readonly description: string
  /** The real paths the call will read or write (what the policy decided on). */
  readonly locations?: ReadonlyArray<string> | undefined
  readonly details: ConfirmationDetails
}

/**
 * Answers confirmations.
 *
 * @category services
 */
export class Approver extends Context.Service<Approver, {
  readonly confirm: (request: ApprovalRequest) => Effect.Effect<ConfirmationOutcome>
}>()("toolwright/run/Approver") {
  /** Answers every request with the same outcome (the fallback for hosts that cannot ask). */
  static readonly layerFixed = (outcome: ConfirmationOutcome): Layer.Layer<Approver> =>
    Layer.succeed(Approver, Approver.of({ confirm: () => Effect.succeed(outcome) }))

  /** Asks a function: a UI, a test double. */
  static readonly layerCallback = (
    confirm: (request: ApprovalRequest) => Effect.Effect<ConfirmationOutcome>
  ): Layer.Layer<Approver> => Layer.succeed(Approver, Approver.of({ confirm }))
}

/**
 * A test double that records every request and answers from a script (then with the fallback).
 *
 * @category constructors
 */
export const makeRecordingApprover = Effect.fnUntraced(function*(
  script: ReadonlyArray<ConfirmationOutcome>,
  fallback: ConfirmationOutcome = { _tag: "cancel", reason: "no scripted answer" }
) {
  const requests = yield* Ref.make<ReadonlyArray<ApprovalRequest>>([])
  const answers = yield* Ref.make(script)
  const confirm = (request: ApprovalRequest) =>
    Effect.gen(function*() {
      yield* Ref.update(requests, (all) => [...all, request])
      return yield* Ref.modify(answers, (rest) => [rest[0] ?? fallback, rest.slice(1)] as const)
    })
  return { approver: Approver.of({ confirm }), requests: Ref.get(requests) }
})
