/**
 * The outcome of one call as the scheduler reports it to a door: success (content after the output
 * pipeline), failure (wire code and model-facing message) or cancellation.
 *
 * @since 0.1.0
 */
import type { ToolErrorCode } from "./errors.js"
import type { Display, LlmPart } from "./result.js"

/**
 * What the person changed of the model's proposal before approving a call: the parameter, both
 * values, and the lines and characters the person added and removed relative to the proposal.
 *
 * @category models
 */
export interface UserModification {
  readonly param: string
  readonly proposal: string
  readonly applied: string
  readonly diffStat: {
    readonly user_added_lines: number
    readonly user_removed_lines: number
    readonly user_added_chars: number
    readonly user_removed_chars: number
  }
}

/** A call that ran and succeeded. @category models */
export interface CallSuccess {
  readonly _tag: "Success"
  readonly callId: string
  readonly name: string
  readonly llmContent: ReadonlyArray<LlmPart>
  /**
   * The text parts of `llmContent` joined, media parts as `[image/png]`-style markers: what
   * `${result.text}` prints (see {@link resultText}).
   */
  readonly text: string
  readonly display: Display
  readonly resultFilePaths: ReadonlyArray<string>
  readonly data: unknown
  /** Set when the person amended the call before approving it. */
  readonly userModified?: UserModification | undefined
}

/** A call that failed, with its wire code and a model-facing message. @category models */
export interface CallFailure {
  readonly _tag: "Failure"
  readonly callId: string
  readonly name: string
  readonly code: ToolErrorCode
  readonly message: string
  readonly display: string
  /** Set when the person amended the call before approving it (the amended call failed). */
  readonly userModified?: UserModification | undefined
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

/** The text a model reads in `parts`: text parts joined, each media part as a `[mime/type]` marker. @category formatting */
export const partsText = (parts: ReadonlyArray<LlmPart>): string =>
  parts.map((part) => (part.type === "text" ? part.text : `[${part.mimeType}]`)).join("")

/**
 * One call's result as text, for logs and programs that are not a model: a success's text
 * ({@link partsText} of its `llmContent`), `<name> failed [<code>]: <message>`, or
 * `<name> cancelled: <message>`.
 * @category formatting
 */
export const resultText = (result: CallResult): string =>
  result._tag === "Success"
    ? partsText(result.llmContent)
    : result._tag === "Failure"
    ? `${result.name} failed [${result.code}]: ${result.message}`
    : `${result.name} cancelled: ${result.message}`
