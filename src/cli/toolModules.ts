/**
 * Extra tools from user modules (`--tools-module FILE`): an ES module that exports `tools`, an
 * array of tools made with `defineTool` (or a default export of that array).
 *
 * @since 0.1.0
 */
import { pathToFileURL } from "node:url"
import * as nodePath from "node:path"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { ToolFactory } from "../registry/index.js"
import type { AnyTool } from "../tool/index.js"

/** A tools module could not be loaded. @category errors */
export class ToolModuleError extends Schema.TaggedError<ToolModuleError>()("ToolModuleError", { message: Schema.String }) {}

const isTool = (u: unknown): u is AnyTool =>
  typeof u === "object" && u !== null && typeof (u as AnyTool).name === "string" && typeof (u as AnyTool).build === "function"

/** Imports a tools module and returns one factory per tool. @category constructors */
export const loadToolModule = (file: string): Effect.Effect<ReadonlyArray<ToolFactory>, ToolModuleError> =>
  Effect.gen(function*() {
    const url = pathToFileURL(nodePath.resolve(file)).href
    const mod = yield* Effect.tryPromise({
      try: () => import(url) as Promise<Record<string, unknown>>,
      catch: (error) => new ToolModuleError({ message: `Cannot import tools module ${file}: ${String(error)}` })
    })
    const exported = mod["tools"] ?? mod["default"]
    if (!Array.isArray(exported) || !exported.every(isTool)) {
      return yield* new ToolModuleError({
        message: `Tools module ${file} must export \`tools\` (or a default export): an array of tools made with defineTool.`
      })
    }
    return exported.map((tool): ToolFactory => ({ name: tool.name, load: Effect.succeed(tool) }))
  })
