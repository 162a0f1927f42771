/**
 * A session's registry as an `effect/ai` Toolkit. Each tool is declared with its own JSON Schema
 * (passed through unchanged, not re-derived) and its handler runs the call through the session's
 * {@link Scheduler}: validation, policy, approval, execution and the output budget all apply, and a
 * failure comes back to the model as a result carrying its wire code, never as an error that ends
 * the turn.
 *
 * The toolkit reflects the declarations *when it is built*: pass {@link SessionToolkit}'s `current`
 * (an Effect) as `toolkit` and effect/ai rebuilds it on every `generateText` call, so a tool that
 * `tool_search` revealed is part of the next turn's toolkit.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import type * as JsonSchema from "effect/JsonSchema"
import * as Layer from "effect/Layer"
import * as Ref from "effect/Ref"
import * as Semaphore from "effect/Semaphore"
import { Tool, Toolkit } from "effect/ai"
import { ToolRegistry } from "../../registry/index.js"
import { Scheduler } from "../../run/index.js"
import {
  CONCURRENCY_SAFE_KINDS,
  type Display,
  type LivePart,
  mcpAnnotations,
  type PartOrigin,
  type ToolInfo
} from "../../tool/index.js"
import { successModelOutput, toAiResult, ToolCallError, ToolCallOutput } from "./results.js"

/** A toolwright tool as effect/ai sees it: raw JSON Schema params, `{ output }` or `{ error, code }`. @category models */
export type SessionTool = Tool.Dynamic<string, {
  readonly parameters: JsonSchema.JsonSchema
  readonly success: typeof ToolCallOutput
  readonly failure: typeof ToolCallError
  readonly failureMode: "return"
}>

/** The tools of a session toolkit, by name. @category models */
export type SessionTools = Record<string, SessionTool>

/** A session toolkit with its handlers, ready for `LanguageModel.generateText({ toolkit })`. @category models */
export type SessionToolkitWithHandler = Toolkit.WithHandler<SessionTools>

/**
 * One toolwright tool as an effect/ai dynamic tool: the name, description and JSON Schema of the
 * declaration as they are, the MCP hints as effect/ai annotations, the success sent to the model
 * as text and files.
 *
 * @category constructors
 */
export const toAiTool = (info: ToolInfo): SessionTool => {
  const hints = mcpAnnotations(info)
  const tool = Tool.dynamic(info.name, {
    description: info.description,
    parameters: info.parametersJsonSchema as JsonSchema.JsonSchema,
    success: ToolCallOutput,
    failure: ToolCallError,
    failureMode: "return",
    toModelOutput: successModelOutput
  }) as unknown as SessionTool
  return tool
    .annotate(Tool.Title, hints.title)
    .annotate(Tool.Readonly, hints.readOnlyHint)
    .annotate(Tool.Destructive, hints.destructiveHint)
    .annotate(Tool.Idempotent, hints.idempotentHint)
    .annotate(Tool.OpenWorld, hints.openWorldHint) as SessionTool
}

const liveText = (chunk: Display): string | undefined =>
  typeof chunk === "string" ? chunk : chunk._tag === "AnsiOutput" ? chunk.ansi : undefined

/**
 * Builds a session toolkit over the current declarations of the registry.
 *
 * @category services
 */
export class SessionToolkit extends Context.Service<SessionToolkit, SessionToolkit.Service>()("toolwright/serve/SessionToolkit") {
  /** The service over the session's registry and scheduler. */
  static readonly layer: Layer.Layer<SessionToolkit, never, ToolRegistry | Scheduler> = Layer.effect(
    SessionToolkit,
    Effect.suspend(() => make)
  )
  /**
   * The service with options: `onPart` receives every call's live parts while it runs (progress,
   * new shell output lines, a streamed result's text) with the call's id, which is effect/ai's
   * `toolCallId` when it gives one.
   */
  static readonly layerWith = (options: SessionToolkit.Options): Layer.Layer<SessionToolkit, never, ToolRegistry | Scheduler> =>
    Layer.effect(SessionToolkit, Effect.suspend(() => makeWith(options)))
}

/** @since 0.1.0 */
export declare namespace SessionToolkit {
  /** @category models */
  export interface Options {
    /**
     * The live tap of every call (see `SchedulerOptions.onPart`). Parts of origin `result` are
     * the finished output, which the model gets as the tool result anyway.
     */
    readonly onPart?: ((callId: string, part: LivePart, origin: PartOrigin) => Effect.Effect<void>) | undefined
  }
  /** @category models */
  export interface Service {
    /**
     * The toolkit of the declarations the model sees now (revealed deferred tools included),
     * with handlers that run every call through the scheduler as a batch of one. Pass this
     * Effect itself as `toolkit`: effect/ai evaluates it on every request.
     */
    readonly current: Effect.Effect<SessionToolkitWithHandler>
    /** The toolkit of the given declarations (the agent loop builds one per step). */
    readonly forDeclarations: (declarations: ReadonlyArray<ToolInfo>) => Effect.Effect<SessionToolkitWithHandler>
  }
}

/**
 * Makes the service. Handler calls of one effect/ai step run concurrently (effect/ai's own
 * `concurrency`), each as its own scheduler batch; a session-wide read/write lock keeps the
 * scheduler's rule that a call which is not concurrency-safe by its Kind (edits, shell commands)
 * never runs beside another call. For one batch per step (the batch budget across parallel
 * calls), use the agent loop.
 *
 * @category constructors
 */
export const makeWith = (
  options: SessionToolkit.Options
): Effect.Effect<SessionToolkit.Service, never, ToolRegistry | Scheduler> => Effect.gen(function*() {
  const registry = yield* ToolRegistry
  const scheduler = yield* Scheduler
  const maxReaders = 1_000_000
  const lock = yield* Semaphore.make(maxReaders)
  const counter = yield* Ref.make(0)

  const handlerFor = (info: ToolInfo) => {
    const permits = CONCURRENCY_SAFE_KINDS.has(info.kind) ? 1 : maxReaders
    return (params: unknown, context: Toolkit.HandlerContext<SessionTool>) =>
      Effect.gen(function*() {
        const callId = context.toolCallId ?? `effect-ai-${yield* Ref.updateAndGet(counter, (n) => n + 1)}`
        const result = yield* scheduler.runOne({ callId, name: info.name, args: params }, {
          onOutput: (_id, chunk) => {
            const text = liveText(chunk)
            return text === undefined ? Effect.void : context.preliminary({ output: text })
          },
          ...(options.onPart ? { onPart: options.onPart } : {})
        }).pipe(Semaphore.withPermits(lock, permits))
        const ai = toAiResult(result)
        return ai.isFailure ? yield* Effect.fail(ai.value) : ai.value
      })
  }

  const forDeclarations = (declarations: ReadonlyArray<ToolInfo>) => {
    const toolkit = Toolkit.make(...declarations.map(toAiTool)) as unknown as Toolkit.Toolkit<SessionTools>
    const handlers: Record<string, ReturnType<typeof handlerFor>> = {}
    for (const info of declarations) handlers[info.name] = handlerFor(info)
    return Effect.flatMap(
      toolkit.toHandlers(handlers as never),
      (context) => Effect.provideContext(toolkit, context)
    ) as Effect.Effect<SessionToolkitWithHandler>
  }

  return {
    current: Effect.flatMap(registry.declarations, forDeclarations),
    forDeclarations
  }
})

/** Makes the service without options (see {@link makeWith}). @category constructors */
export const make: Effect.Effect<SessionToolkit.Service, never, ToolRegistry | Scheduler> = makeWith({})
