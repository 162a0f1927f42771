import { Effect, Schema, Stream } from "effect"
import { defineTool, ExecutionFailed, Kind, streamResult } from "../../../src/tool/index.js"
import type { LlmPart } from "../../../src/tool/result.js"
import { makeText } from "../../support/tools.js"

/** The parts of `text` in chunks of `chunk` chars. */
export const chunksOf = (text: string, chunk: number): Array<LlmPart> => {
  const parts: Array<LlmPart> = []
  for (let at = 0; at < text.length; at += chunk) parts.push({ type: "text", text: text.slice(at, at + chunk) })
  return parts
}

/**
 * The streaming twin of `bigTool`: the same `makeText(size)` as a stream of `chunk`-char text parts,
 * optionally failing after `failAfter` chars.
 */
export const streamTool = (
  name: string,
  options: { readonly maxOutputChars?: number; readonly truncateKeep?: "head" | "tail" | "both"; readonly chunk?: number } = {}
) =>
  defineTool({
    name,
    displayName: `Stream ${name}`,
    description: "Streams a large output.",
    kind: Kind.Read,
    maxOutputChars: options.maxOutputChars,
    truncateKeep: options.truncateKeep,
    params: Schema.Struct({
      size: Schema.Int.annotate({ description: "chars" }),
      failAfter: Schema.optionalKey(Schema.Int.annotate({ description: "fail after this many chars" })),
      withImage: Schema.optionalKey(Schema.Boolean.annotate({ description: "end with an image part" }))
    }),
    invoke: (params) =>
      Effect.succeed({
        description: `stream ${params.size}`,
        execute: () =>
          Effect.sync(() => {
            const text = makeText(params.failAfter ?? params.size)
            const parts = Stream.fromIterable(chunksOf(text, options.chunk ?? 4096))
            const image: Array<LlmPart> = params.withImage ? [{ type: "image", data: "aGk=", mimeType: "image/png" }] : []
            const all = Stream.concat(parts, Stream.fromIterable(image))
            return streamResult(
              params.failAfter === undefined
                ? all
                : Stream.concat(parts, Stream.fail(new ExecutionFailed({ message: `failed after ${params.failAfter} chars` })))
            )
          })
      })
  })
