/**
 * Stand-ins the registry lists in place of a lazy tool: one for a tool known only by its
 * declaration (loaded on its first call, then kept), one for a tool whose resources are released
 * when idle (acquired again by the next call).
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import {
  type AnyTool,
  type ExecutionFailed,
  JsonSchemaParams,
  type ToolInfo,
  type ToolNotRegistered
} from "../tool/index.js"

type LoadError = ToolNotRegistered | ExecutionFailed

/**
 * A stand-in for a tool known only by its declaration: it is listed and searched like the tool, and
 * each call first loads the real tool (the registry's loader runs the factory once).
 *
 * @category constructors
 */
export const declaredTool = (info: ToolInfo, load: Effect.Effect<AnyTool, LoadError>): AnyTool => {
  let real: AnyTool | undefined
  const loaded = Effect.map(load, (tool) => (real = tool))
  return {
    ...info,
    params: JsonSchemaParams,
    toAutoClassifierInput: (params) => real?.toAutoClassifierInput(params) ?? "",
    build: (args, context) => Effect.flatMap(loaded, (tool) => tool.build(args, context)),
    call: (params, context) => Effect.flatMap(loaded, (tool) => tool.call(params, context)),
    withName: (name) => declaredTool({ ...info, name }, Effect.map(loaded, (tool) => tool.withName(name)))
  }
}

/**
 * A stand-in for a tool whose resources are released after an idle time. `acquire` takes a
 * reference to the tool's resources for the enclosing scope (acquiring them if they were released);
 * building a call and running it each hold one, so nothing is released under a running call. A call
 * built before a release and run after it is built again on the newly acquired tool.
 *
 * @category constructors
 */
export const idleTool = (
  info: ToolInfo,
  params: AnyTool["params"],
  acquire: Effect.Effect<AnyTool, LoadError, Scope.Scope>
): AnyTool => {
  let last: AnyTool | undefined
  const acquireTool = Effect.map(acquire, (tool) => (last = tool))
  return {
    ...info,
    params,
    toAutoClassifierInput: (input) => last?.toAutoClassifierInput(input) ?? "",
    build: (args, context) =>
      Effect.scoped(Effect.gen(function*() {
        const tool = yield* acquireTool
        const invocation = yield* tool.build(args, context)
        return invocation.mapExecute((execute, executeContext) =>
          Effect.scoped(Effect.flatMap(acquireTool, (now) =>
            now === tool
              ? execute
              : Effect.flatMap(now.build(args, context), (rebuilt) => rebuilt.execute(executeContext))))
        )
      })),
    call: (input, context) => Effect.scoped(Effect.flatMap(acquireTool, (tool) => tool.call(input, context))),
    withName: (name) => idleTool({ ...info, name }, params, Effect.map(acquire, (tool) => tool.withName(name)))
  }
}
