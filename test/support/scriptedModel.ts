/**
 * A scripted model on 127.0.0.1 speaking the OpenAI chat-completions protocol (streamed or not), so
 * a real agent host (Qwen Code) can be driven headless without a real model: each request gets the
 * next step of the script — a tool call or a final text — computed from what the host sent (the
 * tool results so far). Every request is kept, so a test can assert on what the model was shown.
 */
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { Effect } from "effect"

/** One chat message as the host sent it, content flattened to text. */
export interface SeenMessage {
  readonly role: string
  readonly text: string
  readonly toolCalls: ReadonlyArray<{ readonly name: string; readonly arguments: string }>
}

/** One request the host made. */
export interface SeenRequest {
  readonly tools: ReadonlyArray<string>
  readonly messages: ReadonlyArray<SeenMessage>
}

/** What the model answers: call one tool, or end the turn with a text. */
export type ModelStep =
  | { readonly tool: string; readonly args: Record<string, unknown> }
  | { readonly text: string }

/** The script: the next step given the request (and the steps already taken). */
export type ModelScript = (request: SeenRequest, taken: number) => ModelStep

const flatten = (content: unknown): string =>
  typeof content === "string"
    ? content
    : Array.isArray(content)
    ? content.map((p) => (typeof p === "object" && p !== null && "text" in p ? String(p.text) : "")).join("")
    : ""

const seen = (body: Record<string, any>): SeenRequest => ({
  tools: (body["tools"] ?? []).map((t: any) => t.function?.name ?? t.name),
  messages: (body["messages"] ?? []).map((m: any): SeenMessage => ({
    role: m.role,
    text: flatten(m.content),
    toolCalls: (m.tool_calls ?? []).map((c: any) => ({ name: c.function?.name, arguments: c.function?.arguments ?? "" }))
  }))
})

const usage = { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 }

/** Starts the model (closed with the scope): its base URL (`…/v1`) and the requests it received. */
export const scriptedModel = (script: ModelScript) =>
  Effect.acquireRelease(
    Effect.callback<{ readonly server: http.Server; readonly requests: Array<SeenRequest> }>((resume) => {
      const requests: Array<SeenRequest> = []
      const server = http.createServer((req, res) => {
        let raw = ""
        req.on("data", (d) => (raw += d))
        req.on("end", () => {
          if (req.method !== "POST" || !(req.url ?? "").endsWith("/chat/completions")) {
            res.writeHead(404).end()
            return
          }
          const body = JSON.parse(raw) as Record<string, any>
          const request = seen(body)
          requests.push(request)
          const step = script(request, requests.length - 1)
          const id = `chatcmpl-${requests.length}`
          const call = "tool" in step
            ? { id: `call_${requests.length}`, type: "function", function: { name: step.tool, arguments: JSON.stringify(step.args) } }
            : undefined
          const finish = call ? "tool_calls" : "stop"
          if (body["stream"] === true) {
            const chunk = (delta: unknown, finishReason: string | null, extra: object = {}) =>
              `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created: 1, model: "scripted", choices: [{ index: 0, delta, finish_reason: finishReason }], ...extra })}\n\n`
            res.writeHead(200, { "content-type": "text/event-stream" })
            res.write(chunk(call ? { role: "assistant", tool_calls: [{ index: 0, ...call }] } : { role: "assistant", content: (step as { text: string }).text }, null))
            res.write(chunk({}, finish, { usage }))
            res.end("data: [DONE]\n\n")
          } else {
            const message = call ? { role: "assistant", content: null, tool_calls: [call] } : { role: "assistant", content: (step as { text: string }).text }
            res.writeHead(200, { "content-type": "application/json" })
            res.end(JSON.stringify({ id, object: "chat.completion", created: 1, model: "scripted", choices: [{ index: 0, message, finish_reason: finish }], usage }))
          }
        })
      })
      server.listen(0, "127.0.0.1", () => resume(Effect.succeed({ server, requests })))
    }),
    ({ server }) => Effect.callback<void>((resume) => void server.close(() => resume(Effect.void)))
  ).pipe(Effect.map(({ server, requests }) => ({
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    requests
  })))
