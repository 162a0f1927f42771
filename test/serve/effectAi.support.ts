/**
 * A scripted effect/ai LanguageModel for tests (no network): each request is answered by the next
 * step of a script, which sees what the model would see (the prompt, the offered tools).
 */
import { Effect, Layer, Ref, Stream } from "effect"
import { LanguageModel, type Prompt, type Response, Tool } from "effect/ai"

/** What one request to the scripted model carried. */
export interface ModelRequest {
  readonly step: number
  readonly prompt: Prompt.Prompt
  readonly tools: ReadonlyArray<Tool.Any>
  readonly toolNames: ReadonlyArray<string>
}

/** One scripted answer: the encoded response parts for a request. */
export type ScriptStep = (request: ModelRequest) => ReadonlyArray<Response.PartEncoded>

/** A scripted model layer and what it was asked. */
export const scriptedModel = (script: ReadonlyArray<ScriptStep>) =>
  Effect.gen(function*() {
    const requests = yield* Ref.make<ReadonlyArray<ModelRequest>>([])
    const layer = Layer.effect(
      LanguageModel.LanguageModel,
      LanguageModel.make({
        generateText: (options) =>
          Effect.gen(function*() {
            const seen = yield* Ref.get(requests)
            const request: ModelRequest = {
              step: seen.length,
              prompt: options.prompt,
              tools: options.tools,
              toolNames: options.tools.map((t) => t.name).sort()
            }
            yield* Ref.set(requests, [...seen, request])
            const step = script[request.step]
            if (step === undefined) return yield* Effect.die(new Error(`the model script has no step ${request.step}`))
            return [...step(request)]
          }),
        streamText: () => Stream.die(new Error("streamText is not scripted"))
      })
    )
    return { layer, requests: Ref.get(requests) }
  })

/** A tool-call part. */
export const toolCall = (id: string, name: string, params: unknown): Response.PartEncoded => ({ type: "tool-call", id, name, params })

/** A text part. */
export const text = (value: string): Response.PartEncoded => ({ type: "text", text: value })

/** A finish part. */
export const finish = (reason: Response.FinishReason = "tool-calls"): Response.PartEncoded => ({
  type: "finish",
  reason,
  usage: { inputTokens: {}, outputTokens: {} }
})

/** The tool results of the last tool message of a prompt, as the model reads them. */
export const lastToolResults = (prompt: Prompt.Prompt) => {
  const message = [...prompt.content].reverse().find((m) => m.role === "tool")
  if (message === undefined || message.role !== "tool") return []
  return message.content.flatMap((part) =>
    part.type === "tool-result"
      ? [{
        id: part.id,
        name: part.name,
        isFailure: part.isFailure,
        result: part.result as Record<string, unknown>,
        /** What the model reads: the model output text, else the JSON result. */
        text: part.modelOutput
          ? part.modelOutput.map((p) => (p.type === "text" ? p.text : `[file ${p.mediaType}]`)).join("\n")
          : JSON.stringify(part.result),
        modelOutput: part.modelOutput
      }]
      : []
  )
}

/** The JSON Schema a provider sends for a tool. */
export const jsonSchemaOf = (tool: Tool.Any) => Tool.getJsonSchema(tool)
