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

/** A tool that returns `size` chars of text (lines of 99 chars + newline), optionally with an image part. */
export const bigTool = (
  name: string,
  options: { readonly maxOutputChars?: number; readonly kind?: Kind; readonly withImage?: boolean; readonly truncateKeep?: "head" | "tail" | "both" } = {}
) =>
  defineTool({
    name,
    displayName: `Big ${name}`,
    description: "Returns a large output.",
    kind: options.kind ?? Kind.Read,
    maxOutputChars: options.maxOutputChars,
    truncateKeep: options.truncateKeep,
    params: Schema.Struct({
      size: Schema.Int.annotate({ description: "chars" }),
      fail: Schema.optionalKey(Schema.Boolean.annotate({ description: "fail with the text as message" }))
    }),
    invoke: (params) =>
      Effect.succeed({
        description: `big ${params.size}`,
        execute: () =>
          Effect.gen(function*() {
            const body = makeText(params.size)
            if (params.fail) return yield* new ExecutionFailed({ message: body })
            const result = textResult(body)
            return options.withImage
              ? { ...result, llmContent: [...result.llmContent, { type: "image" as const, data: "aGk=", mimeType: "image/png" }] }
              : result
          })
      })
  })

/** Deterministic text of exactly `size` chars, in 100-char lines, with unique line numbers. */
export const makeText = (size: number): string => {
  const lines: Array<string> = []
  let total = 0
  for (let i = 0; total < size; i++) {
    const line = `line ${i} `.padEnd(99, "x") + "\n"
    lines.push(line)
    total += line.length
  }
  return lines.join("").slice(0, size)
}

/** A tool that records when it starts and ends, for concurrency tests. */
export const timedTool = (name: string, kind: Kind, log: Array<{ name: string; id: string; start: number; end: number }>, delayMs = 150) =>
  defineTool({
    name,
    displayName: name,
    description: "Sleeps and records its interval.",
    kind,
    params: Schema.Struct({ id: Schema.String.annotate({ description: "label" }) }),
    invoke: (params) =>
      Effect.succeed({
        description: `${name} ${params.id}`,
        execute: () =>
          Effect.gen(function*() {
            const start = performance.now()
            yield* Effect.sleep(delayMs)
            log.push({ name, id: params.id, start, end: performance.now() })
            return textResult(`${name} ${params.id} done`)
          })
      })
  })
