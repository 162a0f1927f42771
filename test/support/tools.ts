/**
 * Small real tools for tests of the tool model, registry, scheduler and doors.
 */
import { Effect, Schema } from "effect"
import { defineTool, ExecutionFailed, Kind, PathParam, textResult } from "../../src/tool/index.js"

/** A deferred read tool that echoes its message; `fail: true` makes it fail with execution_failed. */
export const echoTool = (name = "echo_deferred", options: { readonly deferred?: boolean; readonly kind?: Kind; readonly delayMs?: number } = {}) =>
  defineTool({
    name,
    displayName: `Echo ${name}`,
    description: `Echoes a message back (${name}). Useful for testing deferred disclosure.`,
    kind: options.kind ?? Kind.Read,
    shouldDefer: options.deferred ?? true,
    searchHint: "echo repeat message",
    params: Schema.Struct({
      message: Schema.String.annotate({ description: "What to echo" }),
      fail: Schema.optionalKey(Schema.Boolean.annotate({ description: "Fail instead" }))
    }),
    invoke: (params) =>
      Effect.succeed({
        description: `echo ${params.message}`,
        execute: () =>
          Effect.gen(function*() {
            if (options.delayMs) yield* Effect.sleep(options.delayMs)
            if (params.fail) return yield* new ExecutionFailed({ message: `asked to fail: ${params.message}` })
            return textResult(params.message, { data: { echoed: params.message } })
          })
      })
  })

/** A tool with a path param and a value check, for validation and path-activation tests. */
export const touchTool = defineTool({
  name: "touch_path",
  displayName: "TouchPath",
  description: "Pretends to touch a file.",
  kind: Kind.Edit,
  params: Schema.Struct({
    file_path: PathParam("The file to touch"),
    count: Schema.optionalKey(Schema.Int.annotate({ description: "How many times" }))
  }),
  validate: (p) => (p.count !== undefined && p.count < 0 ? "params.count: must not be negative" : undefined),
  invoke: (params) =>
    Effect.succeed({
      description: `touch ${params.file_path}`,
      defaultPermission: Effect.succeed("ask" as const),
      execute: () => Effect.succeed(textResult(`touched ${params.file_path}`, { data: { count: params.count ?? 1 } }))
    })
})
