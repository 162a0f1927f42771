/**
 * What an effect/ai model reads back from a toolwright call: a success is `{ output }` (the text the
 * output pipeline produced, plus media) and is sent to the model as plain text and files; a
 * failure or a cancellation is `{ error, code }`, so the model always sees the wire code.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { Prompt, Response } from "effect/ai"
import { type CallResult, CANCELLED_CODE, resourceLinkText } from "../../tool/index.js"

/** One media part of a result (an image a tool returned), base64. @category schemas */
export const ToolCallMedia = Schema.Struct({
  type: Schema.Literals(["image", "audio", "file"]),
  mimeType: Schema.String,
  data: Schema.String
}).annotate({ identifier: "toolwright/ToolCallMedia" })

/** The success value of every toolwright tool in an effect/ai toolkit. @category schemas */
export const ToolCallOutput = Schema.Struct({
  /** The text the model reads (after truncation and the batch budget). */
  output: Schema.String,
  media: Schema.optionalKey(Schema.Array(ToolCallMedia))
}).annotate({ identifier: "toolwright/ToolCallOutput" })

/** The success value of a toolwright tool call. @category models */
export type ToolCallOutput = typeof ToolCallOutput.Type

/**
 * The failure value of every toolwright tool in an effect/ai toolkit: the model-facing message and
 * the wire code (`file_not_found`, …; `cancelled` when the user declined or the call was interrupted).
 *
 * @category schemas
 */
export const ToolCallError = Schema.Struct({
  error: Schema.String,
  code: Schema.String
}).annotate({ identifier: "toolwright/ToolCallError" })

/** The failure value of a toolwright tool call. @category models */
export type ToolCallError = typeof ToolCallError.Type

/** The `code` of a call the user declined or that was interrupted (not a tool error code). @category constants */
export { CANCELLED_CODE }

/** The text a success with no text at all is sent as (reference §10.5b). @category constants */
export const EMPTY_SUCCESS_OUTPUT = "Tool execution succeeded."

/** A call result as the value effect/ai carries: success output or failure. @category converters */
export const toAiResult = (
  result: CallResult
): { readonly isFailure: false; readonly value: ToolCallOutput } | { readonly isFailure: true; readonly value: ToolCallError } => {
  switch (result._tag) {
    case "Success": {
      const text = result.llmContent.flatMap((p) =>
        p.type === "text" ? [p.text] : p.type === "resource_link" ? [resourceLinkText(p)] : []
      ).join("\n")
      const media = result.llmContent.flatMap((p) =>
        p.type === "text" || p.type === "resource_link" ? [] : [{ type: p.type, mimeType: p.mimeType, data: p.data }]
      )
      const output = text === "" && media.length === 0 ? EMPTY_SUCCESS_OUTPUT : text
      return { isFailure: false, value: media.length > 0 ? { output, media } : { output } }
    }
    case "Failure":
      return { isFailure: true, value: { error: result.message, code: result.code } }
    case "Cancelled":
      return { isFailure: true, value: { error: result.message, code: CANCELLED_CODE } }
  }
}

/**
 * What the model is sent for a success: the text as a text part and each media part as a file
 * part, instead of the JSON-encoded `{ output }` (no escaped newlines, no wasted tokens).
 *
 * @category converters
 */
export const successModelOutput = (output: ToolCallOutput): ReadonlyArray<Prompt.ToolModelOutputPart> => [
  ...(output.output === "" ? [] : [Prompt.makePart("text", { text: output.output })]),
  ...(output.media ?? []).map((m) => Prompt.makePart("file", { data: m.data, mediaType: m.mimeType }))
]

/** A finished call as an effect/ai `tool-result` response part (for the agent loop). @category converters */
export const toToolResultPart = (result: CallResult): Response.ToolResultPart<string, ToolCallOutput, ToolCallError> => {
  const ai = toAiResult(result)
  const common = { id: result.callId, name: result.name, providerExecuted: false, preliminary: false } as const
  return ai.isFailure
    ? Response.makePart("tool-result", { ...common, isFailure: true, result: ai.value, encodedResult: ai.value })
    : Response.makePart("tool-result", {
      ...common,
      isFailure: false,
      result: ai.value,
      encodedResult: ai.value,
      modelOutput: successModelOutput(ai.value)
    })
}
