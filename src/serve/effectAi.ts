/**
 * `toolwright/effect-ai`: a toolwright session as an `effect/ai` Toolkit, and an agent loop that
 * runs each model step's tool calls as one scheduler batch.
 *
 * ```ts
 * import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
 * import { Approver, SessionLayer } from "toolwright"
 * import { runAgent, SessionToolkit } from "toolwright/effect-ai"
 *
 * const session = SessionToolkit.layer.pipe(
 *   Layer.provideMerge(SessionLayer.layer({ roots: [process.cwd()] })),
 *   Layer.provide(Approver.layerFixed({ _tag: "proceed_once" }))
 * )
 * const program = runAgent({ prompt: "Fix the failing test" }).pipe(Effect.provide(session))
 * // provide a LanguageModel layer from your provider package as well
 * ```
 *
 * @since 0.1.0
 */
export {
  type AgentOptions,
  type AgentResult,
  type AgentStep,
  DEFAULT_MAX_STEPS,
  notRevealedMessage,
  runAgent,
  runStepCalls,
  TRUNCATED_EDIT_MESSAGE,
  TRUNCATED_PARAMS_NOTE
} from "./effectAi/agentLoop.js"
export {
  CANCELLED_CODE,
  EMPTY_SUCCESS_OUTPUT,
  successModelOutput,
  toAiResult,
  ToolCallError,
  ToolCallMedia,
  ToolCallOutput,
  toToolResultPart
} from "./effectAi/results.js"
export {
  make as makeSessionToolkit,
  type SessionTool,
  SessionToolkit,
  type SessionToolkitWithHandler,
  type SessionTools,
  toAiTool
} from "./effectAi/toolkit.js"
