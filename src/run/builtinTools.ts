/**
 * The built-in tools of a session as a service, so that an embedder can replace one tool's
 * implementation (a remote `run_shell_command`, say) without forking the registry or the catalog.
 * A session reads this service when it is built; without it, the catalog as shipped.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type { AnyTool, ToolDeclaration } from "../tool/index.js"
import {
  type BuiltinDeclarations,
  type BuiltinTool,
  builtinCatalog,
  type BuiltinToolName,
  type SessionServices
} from "./catalog.js"

/**
 * A replacement for a built-in tool's implementation.
 *
 * @category models
 */
export interface BuiltinImplementation<D extends ToolDeclaration = ToolDeclaration> {
  /** The declaration to list the tool under (the built-in's name and params type). Default: the built-in's own. */
  readonly declaration?: D | undefined
  /**
   * Builds the tool on its first call, with the session's services. It receives the declaration
   * it is listed under: `defineTool({ ...declaration, invoke })` keeps the declared params and
   * description, so the list a model sees is the same before and after the first call.
   */
  readonly make: (declaration: D) => Effect.Effect<AnyTool, unknown, SessionServices>
}

/**
 * The built-in tools a session registers (their declarations and how each is built).
 *
 * @category services
 */
export class BuiltinTools extends Context.Service<BuiltinTools, {
  readonly tools: ReadonlyArray<BuiltinTool>
}>()("toolwright/run/BuiltinTools") {
  /** The catalog as shipped. */
  static readonly layer: Layer.Layer<BuiltinTools> = Layer.succeed(BuiltinTools, BuiltinTools.of({ tools: builtinCatalog }))

  /** The built-ins in effect: the provided service, else the catalog as shipped. */
  static readonly current: Effect.Effect<BuiltinTools["Service"]> = Effect.map(
    Effect.serviceOption(BuiltinTools),
    Option.getOrElse(() => BuiltinTools.of({ tools: builtinCatalog }))
  )

  /**
   * Replaces the implementation of some built-ins, keeping their declarations unless given new
   * ones. Provide it to the session layer: `SessionLayer.layer(options).pipe(Layer.provide(
   * BuiltinTools.override({ run_shell_command: { make: ... } })))`. Overrides stack: one provided
   * to another starts from the other's tools.
   */
  static readonly override = (
    replacements: { readonly [Name in BuiltinToolName]?: BuiltinImplementation<BuiltinDeclarations[Name]> }
  ): Layer.Layer<BuiltinTools> =>
    Layer.effect(
      BuiltinTools,
      Effect.gen(function*() {
        const { tools } = yield* BuiltinTools.current
        const byName = replacements as Partial<Record<string, BuiltinImplementation>>
        const replaced = yield* Effect.forEach(tools, (tool): Effect.Effect<BuiltinTool> => {
          const replacement = byName[tool.name]
          if (replacement === undefined) return Effect.succeed(tool)
          const declaration = replacement.declaration
          if (declaration === undefined) {
            // The built-in's own declaration: listed as before, its module imported on the first call.
            return Effect.succeed({ ...tool, make: Effect.flatMap(tool.declaration, (own) => replacement.make(own)) })
          }
          if (declaration.name !== tool.name) {
            return Effect.die(new Error(
              `BuiltinTools.override: the declaration given for "${tool.name}" is named ` +
                `"${declaration.name}"; a replacement keeps the built-in's name.`
            ))
          }
          return Effect.succeed({
            name: tool.name,
            get info() {
              return declaration.info
            },
            declaration: Effect.succeed(declaration),
            make: Effect.suspend(() => replacement.make(declaration))
          })
        })
        return BuiltinTools.of({ tools: replaced })
      })
    )
}
