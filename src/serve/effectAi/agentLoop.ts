/**
 * A small agent loop over an effect/ai `LanguageModel` and a toolwright session. Each step offers
 * the model the declarations it may see now, asks it for a response with tool-call resolution
 * turned off, and runs **all tool calls of the step as one scheduler batch**: Kind-based
 * concurrency, approvals and the batch output budget apply across the parallel calls exactly as
 * they do for any other door. The results go back as `tool-result` parts and the loop continues
 * until the model answers without calling a tool (or `maxSteps`).
 *
 * Why not effect/ai's own resolution: it hands each call to its handler separately, so the
 * scheduler would see batches of one and the batch budget could never apply across a step.
 * `SessionToolkit.current` is still there for `generateText`/`Chat` users who prefer that.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import { type AiError, LanguageModel, Prompt, type Response } from "effect/ai"
import { ToolRegistry } from "../../registry/index.js"
import { type BatchResult, Scheduler, type ToolCall } from "../../run/index.js"
import {
  type CallFailure,
  type CallResult,
  InvalidToolParams,
  Kind,
  OutputTruncated,
  type ToolInfo,
  ToolNotRegistered
} from "../../tool/index.js"
import { toToolResultPart } from "./results.js"
import { SessionToolkit } from "./toolkit.js"

/** Default cap on model steps of one {@link runAgent}. @category constants */
export const DEFAULT_MAX_STEPS = 25

/** Options of {@link runAgent}. @category models */
export interface AgentOptions {
  /** The conversation so far (a string is one user message). */
  readonly prompt: Prompt.RawInput
  /** Most model steps (requests) before the loop stops; default {@link DEFAULT_MAX_STEPS}. */
  readonly maxSteps?: number | undefined
  /** Passed to the model on every step; default `auto`. */
  readonly toolChoice?: "auto" | "required" | "none" | undefined
  /** Called after every step (log it, render it, stop the world). */
  readonly onStep?: ((step: AgentStep) => Effect.Effect<void>) | undefined
}

/** One model request and the batch of calls it asked for. @category models */
export interface AgentStep {
  /** 0-based. */
  readonly index: number
  /** The tools the model was offered in this step, sorted. */
  readonly toolNames: ReadonlyArray<string>
  readonly response: LanguageModel.GenerateTextResponse<{}, "deferred">
  /** The tool calls of the step, in the model's order. */
  readonly calls: ReadonlyArray<ToolCall>
  /** One result per call, in call order. */
  readonly results: ReadonlyArray<CallResult>
  /** The scheduler batch (absent when no call reached it). */
  readonly batch: BatchResult | undefined
}

/** How a {@link runAgent} ended. @category models */
export interface AgentResult {
  readonly steps: ReadonlyArray<AgentStep>
  /** The whole conversation, the model's last message included. */
  readonly prompt: Prompt.Prompt
  /** The text of the model's last response. */
  readonly text: string
  readonly finishReason: Response.FinishReason
  /** `model`: it answered without calling a tool; `max-steps`: the cap was hit first. */
  readonly stoppedBy: "model" | "max-steps"
}

/** The message for a call to a deferred tool that is not revealed yet. @category errors */
export const notRevealedMessage = (name: string): string =>
  `Tool "${name}" is deferred and has not been loaded yet, so it cannot be called. Call tool_search with query "select:${name}" first; the tool becomes callable on your next turn.`

/** The `output_truncated` message for an edit whose model response was cut at max tokens (reference §10.5b). @category errors */
export const TRUNCATED_EDIT_MESSAGE =
  "Your previous response was truncated due to max_tokens limit, which produced incomplete file content. The tool call has been rejected to prevent writing truncated content to the file. You MUST split the content into smaller parts: first write_file with a skeleton/partial content, then use edit to add the remaining sections incrementally. Do NOT retry with the same large content."

/** Appended to a parameter error when the model response was cut at max tokens (reference §10.5b). @category errors */
export const TRUNCATED_PARAMS_NOTE =
  "Note: Your previous response was truncated due to max_tokens limit, which caused incomplete tool call parameters. Please retry the tool call with complete parameters. If the content is too large for a single response, you MUST split it into smaller parts: first write_file with a skeleton/partial content, then use edit to add the remaining sections incrementally."

const refusal = (call: ToolCall, code: CallFailure["code"], message: string): CallFailure => ({
  _tag: "Failure",
  callId: call.callId,
  name: call.name,
  code,
  message,
  display: message
})

/**
 * Runs the calls of one model step as one scheduler batch. Calls to deferred tools that are not
 * revealed are refused (`tool_not_registered`, telling the model to use `tool_search`); when the
 * response was cut at max tokens, edits are refused (`output_truncated`) and parameter errors get
 * the reference's note. Results come back in call order.
 *
 * @category constructors
 */
export const runStepCalls = Effect.fn("EffectAi.runStepCalls")(function*(
  calls: ReadonlyArray<ToolCall>,
  offered: ReadonlyArray<ToolInfo>,
  options: { readonly truncated?: boolean | undefined } = {}
) {
  const registry = yield* ToolRegistry
  const scheduler = yield* Scheduler
  const byName = new Map(offered.map((info) => [info.name, info]))
  const results: Array<CallResult | undefined> = []
  const runnable: Array<{ readonly index: number; readonly call: ToolCall }> = []
  for (const [index, call] of calls.entries()) {
    const info = byName.get(call.name)
    if (info === undefined && (yield* registry.isDeferredAndHidden(call.name))) {
      results.push(refusal(call, ToolNotRegistered.code, notRevealedMessage(call.name)))
    } else if (options.truncated && info?.kind === Kind.Edit) {
      results.push(refusal(call, OutputTruncated.code, TRUNCATED_EDIT_MESSAGE))
    } else {
      results.push(undefined)
      runnable.push({ index, call })
    }
  }
  const batch = runnable.length === 0 ? undefined : yield* scheduler.runBatch(runnable.map((r) => r.call))
  runnable.forEach(({ index }, i) => {
    const result = batch!.results[i]!
    results[index] = options.truncated && result._tag === "Failure" && result.code === InvalidToolParams.code
      ? { ...result, message: `${result.message}\n\n${TRUNCATED_PARAMS_NOTE}` }
      : result
  })
  return { results: results as ReadonlyArray<CallResult>, batch }
})

/**
 * Runs the agent loop until the model answers without calling a tool, or `maxSteps` requests.
 * Model errors (`AiError`) end the loop; tool failures never do: they are results the model reads.
 *
 * @category constructors
 */
export const runAgent = Effect.fn("EffectAi.runAgent")(function*(options: AgentOptions) {
  const model = yield* LanguageModel.LanguageModel
  const registry = yield* ToolRegistry
  const sessionToolkit = yield* SessionToolkit
  const maxSteps = Math.max(1, options.maxSteps ?? DEFAULT_MAX_STEPS)
  let prompt = Prompt.make(options.prompt)
  const steps: Array<AgentStep> = []
  for (let index = 0; index < maxSteps; index++) {
    // The declarations are read afresh each step: a tool tool_search revealed is offered now.
    const offered = yield* registry.declarations
    const toolkit = yield* sessionToolkit.forDeclarations(offered)
    const response: LanguageModel.GenerateTextResponse<{}, "deferred"> = yield* model.generateText({
      prompt,
      toolkit,
      toolChoice: options.toolChoice ?? "auto",
      disableToolCallResolution: true,
      toolCallValidation: "deferred"
    }) as Effect.Effect<LanguageModel.GenerateTextResponse<{}, "deferred">, AiError.AiError>
    const calls: Array<ToolCall> = response.toolCalls
      .filter((part) => !part.providerExecuted)
      .map((part) => ({ callId: part.id, name: part.name, args: part.params }))
    const ran = calls.length === 0
      ? { results: [], batch: undefined }
      : yield* runStepCalls(calls, offered, { truncated: response.finishReason === "length" })
    prompt = Prompt.concat(prompt, Prompt.fromResponseParts([...response.content, ...ran.results.map(toToolResultPart)]))
    const step: AgentStep = {
      index,
      toolNames: offered.map((info) => info.name),
      response,
      calls,
      results: ran.results,
      batch: ran.batch
    }
    steps.push(step)
    if (options.onStep) yield* options.onStep(step)
    if (calls.length === 0) {
      return { steps, prompt, text: response.text, finishReason: response.finishReason, stoppedBy: "model" } satisfies AgentResult
    }
  }
  const last = steps[steps.length - 1]!
  return {
    steps,
    prompt,
    text: last.response.text,
    finishReason: last.response.finishReason,
    stoppedBy: "max-steps"
  } satisfies AgentResult
})
