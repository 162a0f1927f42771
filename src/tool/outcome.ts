/**
 * The outcome of one call as the scheduler reports it to a door: success (content after the output
 * pipeline), failure (wire code and model-facing message) or cancellation.
 *
 * @since 0.1.0
 */
import type { ToolErrorCode } from "./errors.js"
import type { Display, LlmPart } from "./result.js"

/** A call that ran and succeeded. @category models */
export interface CallSuccess {
  readonly _tag: "Success"
  readonly callId: string
  readonly name: string
  readonly llmContent: ReadonlyArray<LlmPart>
  readonly display: Display
  readonly resultFilePaths: ReadonlyArray<string>
  readonly data: unknown
}

/** A call that failed, with its wire code and a model-facing message. @category models */
export interface CallFailure {
  readonly _tag: "Failure"
  readonly callId: string
  readonly name: string
  readonly code: ToolErrorCode
  readonly message: string
  readonly display: string
}

/**
 * The code a door reports for a cancelled call (the user declined it, or it was interrupted): not a
 * tool error code, so it is in no list of them.
 * @category constants
 */
export const CANCELLED_CODE = "cancelled"

/** A call the user declined or that was interrupted. @category models */
export interface CallCancelled {
  readonly _tag: "Cancelled"
  readonly callId: string
  readonly name: string
  readonly message: string
}

/** The outcome of one call. @category models */
export type CallResult = CallSuccess | CallFailure | CallCancelled
