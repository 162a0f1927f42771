/**
 * Hooks around every call: a pre-call hook may block a call with a reason; a post-call hook observes
 * the outcome and cannot fail it. A hook that judges paths reads `invocation.locations`, the real
 * paths the tool resolved and will touch (what the policy decided on), never the raw params. Event hooks see what a call changes (a todo created or completed):
 * in the `validation` phase they may block the change, in the `postWrite` phase they only observe.
 *
 * @since 0.1.0
 */
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { HookVerdict, Invocation, ToolEvent, ToolEventHooks } from "../tool/index.js"

/** A hook's verdict (re-exported from the tool model, where tools see it). @category models */
export type { HookVerdict, ToolEvent } from "../tool/index.js"

/** What a post-call hook sees. @category models */
export interface CallObservation {
  readonly invocation: Invocation
  readonly outcome: "success" | "failure" | "cancelled"
  readonly data?: unknown
}

/** What an event hook sees: the call, the phase and the event. @category models */
export interface EventObservation {
  readonly invocation: Invocation
  /** `validation`: before the change, a `Block` stops it. `postWrite`: after it, the verdict is ignored. */
  readonly phase: "validation" | "postWrite"
  readonly event: ToolEvent
}

/** The hook functions; `onEvent` is optional. @category models */
export interface ToolHooksService {
  /** Runs after the policy and any approval, before `execute`; `invocation.locations` are the paths at stake. */
  readonly beforeCall: (invocation: Invocation) => Effect.Effect<HookVerdict>
  readonly afterCall: (observation: CallObservation) => Effect.Effect<void>
  /** Tool events (todo created / completed), in both phases. */
  readonly onEvent?: ((observation: EventObservation) => Effect.Effect<HookVerdict>) | undefined
}

const CONTINUE: HookVerdict = { _tag: "Continue" }

/**
 * Pre and post call hooks; the default does nothing.
 *
 * @category services
 */
export class ToolHooks extends Context.Service<ToolHooks, ToolHooksService>()("toolwright/run/ToolHooks") {
  /** Hooks that do nothing. */
  static readonly layerNoop: Layer.Layer<ToolHooks> = Layer.succeed(
    ToolHooks,
    ToolHooks.of({ beforeCall: () => Effect.succeed({ _tag: "Continue" }), afterCall: () => Effect.void })
  )

  /** Hooks from the functions given; the missing ones do nothing. */
  static readonly layer = (hooks: Partial<ToolHooksService>): Layer.Layer<ToolHooks> =>
    Layer.succeed(
      ToolHooks,
      ToolHooks.of({
        beforeCall: hooks.beforeCall ?? (() => Effect.succeed(CONTINUE)),
        afterCall: hooks.afterCall ?? (() => Effect.void),
        onEvent: hooks.onEvent
      })
    )
}

const describeCause = (cause: Cause.Cause<unknown>): string => {
  const error = cause.reasons.find(Cause.isFailReason)?.error ?? cause.reasons.find(Cause.isDieReason)?.defect
  return error instanceof Error ? error.message : String(error ?? "interrupted")
}

/**
 * The event hooks one invocation's `execute` receives, or undefined when there is no `onEvent`.
 * A validation hook that fails blocks the change (fail closed, with the failure as the reason); a
 * post-write hook that fails is logged and the call goes on.
 *
 * @category constructors
 */
export const eventHooksFor = (hooks: ToolHooksService, invocation: Invocation): ToolEventHooks | undefined => {
  const onEvent = hooks.onEvent
  if (onEvent === undefined) return undefined
  return {
    validate: (event) =>
      onEvent({ invocation, phase: "validation", event }).pipe(
        Effect.catchCause((cause) =>
          Effect.as(
            Effect.logWarning(`toolwright: ${event._tag} validation hook failed`, cause),
            { _tag: "Block", reason: `the ${event._tag} hook failed (${describeCause(cause)})` } as HookVerdict
          )
        )
      ),
    committed: (event) =>
      onEvent({ invocation, phase: "postWrite", event }).pipe(
        Effect.asVoid,
        Effect.catchCause((cause) => Effect.logWarning(`toolwright: ${event._tag} post-write hook failed`, cause))
      )
  }
}
