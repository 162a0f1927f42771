/**
 * A minimal `effect/ai` LanguageModel for any OpenAI-compatible Chat Completions endpoint (OpenAI,
 * OpenRouter, Ollama, vLLM, LM Studio, …), configured by environment:
 *
 * - `OPENAI_API_KEY`   the key (any value for a local server)
 * - `OPENAI_BASE_URL`  default `https://api.openai.com/v1`
 * - `OPENAI_MODEL`     default `gpt-4.1-mini`
 *
 * It exists so the example runs without a provider package. With `@effect/ai-openai` or
 * `@effect/ai-anthropic` installed, use their layer instead (e.g.
 * `OpenAiLanguageModel.model("gpt-4.1")` with `OpenAiClient.layerConfig(...)`): the agent loop only
 * needs *a* `LanguageModel`.
 */
import { Config, Effect, Layer, Redacted, Stream } from "effect"
import { AiError, LanguageModel, Prompt, type Response, Tool } from "effect/ai"

interface ChatToolCall {
  readonly id: string
  readonly type: "function"
  readonly function: { readonly name: string; readonly arguments: string }
}

type ChatMessage =
  | { readonly role: "system" | "user"; readonly content: string | ReadonlyArray<unknown> }
  | { readonly role: "assistant"; readonly content: string | null; readonly tool_calls?: ReadonlyArray<ChatToolCall> }
  | { readonly role: "tool"; readonly tool_call_id: string; readonly content: string }

interface ChatCompletion {
  readonly choices: ReadonlyArray<{
    readonly finish_reason: string | null
    readonly message: { readonly content: string | null; readonly tool_calls?: ReadonlyArray<ChatToolCall> }
  }>
  readonly usage?: { readonly prompt_tokens?: number; readonly completion_tokens?: number }
}

const dataUrl = (data: string | Uint8Array | URL, mediaType: string): string =>
  data instanceof URL ? data.href : `data:${mediaType};base64,${typeof data === "string" ? data : Buffer.from(data).toString("base64")}`

/** Prompt messages as Chat Completions messages. */
export const toChatMessages = (prompt: Prompt.Prompt): Array<ChatMessage> =>
  prompt.content.flatMap((message): Array<ChatMessage> => {
    switch (message.role) {
      case "system":
        return [{ role: "system", content: message.content }]
      case "user":
        return [{
          role: "user",
          content: message.content.map((part) =>
            part.type === "text"
              ? { type: "text", text: part.text }
              : { type: "image_url", image_url: { url: dataUrl(part.data, part.mediaType) } }
          )
        }]
      case "assistant": {
        const text = message.content.flatMap((p) => (p.type === "text" ? [p.text] : [])).join("")
        const calls = message.content.flatMap((p): Array<ChatToolCall> =>
          p.type === "tool-call" && !p.providerExecuted
            ? [{ id: p.id, type: "function", function: { name: p.name, arguments: JSON.stringify(p.params ?? {}) } }]
            : []
        )
        return [{ role: "assistant", content: text === "" ? null : text, ...(calls.length > 0 ? { tool_calls: calls } : {}) }]
      }
      case "tool":
        return message.content.flatMap((p): Array<ChatMessage> =>
          p.type === "tool-result"
            ? [{
              role: "tool",
              tool_call_id: p.id,
              content: p.modelOutput !== undefined ? Prompt.toolModelOutputToText(p.modelOutput) : JSON.stringify(p.result)
            }]
            : []
        )
    }
  })

const finishReason = (reason: string | null): Response.FinishReason =>
  reason === "stop" ? "stop"
  : reason === "length" ? "length"
  : reason === "tool_calls" || reason === "function_call" ? "tool-calls"
  : reason === "content_filter" ? "content-filter"
  : "other"

const parseArguments = (raw: string): unknown => {
  try {
    return JSON.parse(raw === "" ? "{}" : raw)
  } catch {
    // Handed on as is: the tool's validation tells the model what is wrong with it.
    return raw
  }
}

/** A Chat Completions response as effect/ai response parts. */
export const toResponseParts = (completion: ChatCompletion): Array<Response.PartEncoded> => {
  const choice = completion.choices[0]
  if (choice === undefined) return [{ type: "finish", reason: "other", usage: { inputTokens: {}, outputTokens: {} } }]
  const parts: Array<Response.PartEncoded> = []
  if (choice.message.content) parts.push({ type: "text", text: choice.message.content })
  for (const call of choice.message.tool_calls ?? []) {
    parts.push({ type: "tool-call", id: call.id, name: call.function.name, params: parseArguments(call.function.arguments) })
  }
  parts.push({
    type: "finish",
    reason: finishReason(choice.finish_reason),
    usage: {
      inputTokens: { total: completion.usage?.prompt_tokens },
      outputTokens: { total: completion.usage?.completion_tokens }
    }
  })
  return parts
}

const toolChoiceOf = (choice: LanguageModel.ProviderOptions["toolChoice"]): unknown =>
  typeof choice === "string"
    ? choice
    : "tool" in choice
    ? { type: "function", function: { name: choice.tool } }
    : choice.mode === "required" ? "required" : "auto"

const fail = (method: string, description: string) =>
  AiError.make({ module: "OpenAiCompatible", method, reason: new AiError.UnknownError({ description }) })

/** The LanguageModel layer, configured by OPENAI_API_KEY / OPENAI_BASE_URL / OPENAI_MODEL. */
export const layer: Layer.Layer<LanguageModel.LanguageModel, Config.ConfigError> = Layer.effect(
  LanguageModel.LanguageModel,
  Effect.gen(function*() {
    const apiKey = yield* Config.Redacted("OPENAI_API_KEY")
    const baseUrl = yield* Config.String("OPENAI_BASE_URL").pipe(Config.withDefault("https://api.openai.com/v1"))
    const model = yield* Config.String("OPENAI_MODEL").pipe(Config.withDefault("gpt-4.1-mini"))
    const url = `${baseUrl.replace(/\/$/, "")}/chat/completions`

    const generateText = (options: LanguageModel.ProviderOptions) =>
      Effect.gen(function*() {
        const tools = options.tools.map((tool) => ({
          type: "function",
          function: { name: tool.name, description: Tool.getDescription(tool) ?? "", parameters: Tool.getJsonSchema(tool) }
        }))
        const body = {
          model,
          messages: toChatMessages(options.prompt),
          ...(tools.length > 0 ? { tools, tool_choice: toolChoiceOf(options.toolChoice) } : {})
        }
        const response = yield* Effect.tryPromise({
          try: (signal) =>
            fetch(url, {
              method: "POST",
              signal,
              headers: { "content-type": "application/json", authorization: `Bearer ${Redacted.value(apiKey)}` },
              body: JSON.stringify(body)
            }),
          catch: (error) =>
            AiError.make({
              module: "OpenAiCompatible",
              method: "generateText",
              reason: new AiError.NetworkError({ reason: "TransportError", method: "POST", url, description: String(error) })
            })
        })
        const text = yield* Effect.tryPromise({
          try: () => response.text(),
          catch: (error) => fail("generateText", `reading the response failed: ${String(error)}`)
        })
        if (!response.ok) return yield* fail("generateText", `HTTP ${response.status} from ${url}: ${text.slice(0, 2_000)}`)
        const completion = yield* Effect.try({
          try: () => JSON.parse(text) as ChatCompletion,
          catch: () => fail("generateText", `the response is not JSON: ${text.slice(0, 2_000)}`)
        })
        return toResponseParts(completion)
      })

    return yield* LanguageModel.make({
      generateText,
      // The agent loop does not stream; this example provider does not either.
      streamText: () => Stream.fail(fail("streamText", "streaming is not implemented by this example provider; use generateText"))
    })
  })
)
