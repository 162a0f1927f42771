/**
 * Hooks around every call: a pre-call hook may block a call with a reason; a post-call hook observes
 * the outcome and cannot fail it.
 *
 * @since 0.1.0
 */
import { Context, Effect, Layer } from "effect"
import type { Invocation } from "../tool/tool.js"

/** A pre-call hook's verdict. @category models */
export type HookVerdict = { readonly _tag: "Continue" } | { readonly _tag: "Block"; readonly reason: string }

/** What a post-call hook sees. @category models */
export interface CallObservation {
  readonly invocation: Invocation
  readonly outcome: "success" | "failure" | "cancelled"
  readonly data?: unknown
}

/**
 * Pre and post call hooks; the default does nothing.
 *
 * @category services
 */
export class ToolHooks extends Context.Service<ToolHooks, {
  readonly beforeCall: (invocation: Invocation) => Effect.Effect<HookVerdict>
  readonly afterCall: (observation: CallObservation) => Effect.Effect<void>
}>()("toolwright/run/ToolHooks") {
  /** Hooks that do nothing. */
  static readonly layerNoop: Layer.Layer<ToolHooks> = Layer.succeed(
    ToolHooks,
    ToolHooks.of({ beforeCall: () => Effect.succeed({ _tag: "Continue" }), afterCall: () => Effect.void })
  )
}
