/**
 * The example provider (examples/openai-compatible.ts) against a local OpenAI-compatible HTTP
 * server: the agent loop sends our declarations as function tools, reads the tool calls back,
 * and sends the results as tool messages. (The example itself is type-checked, not run.)
 */
import { assert, describe, it } from "@effect/vitest"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { ConfigProvider, Effect, Layer } from "effect"
import * as OpenAiCompatible from "../../examples/openai-compatible.js"
import { runAgent, SessionToolkit } from "../../src/serve/effectAi.js"
import { testSession } from "../support/session.js"
import { echoTool } from "../support/tools.js"

type Body = { model: string; messages: Array<Record<string, any>>; tools?: Array<Record<string, any>>; tool_choice?: unknown }

const fakeServer = (replies: ReadonlyArray<(body: Body) => unknown>) =>
  Effect.acquireRelease(
    Effect.callback<{ readonly url: string; readonly bodies: Array<Body>; readonly server: http.Server }>((resume) => {
      const bodies: Array<Body> = []
      const server = http.createServer((req, res) => {
        let raw = ""
        req.on("data", (d) => (raw += d))
        req.on("end", () => {
          const body = JSON.parse(raw) as Body
          bodies.push(body)
          const reply = replies[bodies.length - 1]
          res.writeHead(reply ? 200 : 500, { "content-type": "application/json" })
          res.end(JSON.stringify(reply ? reply(body) : { error: "no more scripted replies" }))
        })
      })
      server.listen(0, "127.0.0.1", () => {
        const { port } = server.address() as AddressInfo
        resume(Effect.succeed({ url: `http://127.0.0.1:${port}/v1`, bodies, server }))
      })
    }),
    ({ server }) => Effect.callback<void>((resume) => void server.close(() => resume(Effect.void)))
  )

describe("the example OpenAI-compatible provider", () => {
  it.live("drives the agent loop over HTTP: function tools out, tool calls in, tool messages back", () =>
    Effect.gen(function*() {
      const server = yield* fakeServer([
        () => ({
          choices: [{
            finish_reason: "tool_calls",
            message: { content: null, tool_calls: [{ id: "call_1", type: "function", function: { name: "echo", arguments: `{"message":"ping"}` } }] }
          }],
          usage: { prompt_tokens: 10, completion_tokens: 5 }
        }),
        () => ({ choices: [{ finish_reason: "stop", message: { content: "pong received" } }] })
      ])
      const s = testSession([echoTool("echo", { deferred: false })], { mode: "yolo" })
      const config = ConfigProvider.layer(ConfigProvider.fromEnv({ env: { OPENAI_API_KEY: "test-key", OPENAI_BASE_URL: server.url, OPENAI_MODEL: "m1" } }))
      const result = yield* runAgent({ prompt: "ping it" }).pipe(
        Effect.provide(Layer.mergeAll(SessionToolkit.layer.pipe(Layer.provideMerge(s.layer)), OpenAiCompatible.layer.pipe(Layer.provide(config))))
      )
      assert.strictEqual(result.text, "pong received")
      const [first, second] = server.bodies
      assert.strictEqual(first!.model, "m1")
      assert.deepStrictEqual(first!.tools!.map((t) => t["function"].name).sort(), ["echo", "tool_search"])
      const echo = first!.tools!.find((t) => t["function"].name === "echo")!
      assert.deepStrictEqual(echo["function"].parameters, echoTool("echo").parametersJsonSchema)
      assert.strictEqual(first!.tool_choice, "auto")
      assert.deepStrictEqual(second!.messages.slice(1), [
        { role: "assistant", content: null, tool_calls: [{ id: "call_1", type: "function", function: { name: "echo", arguments: `{"message":"ping"}` } }] },
        { role: "tool", tool_call_id: "call_1", content: "ping" }
      ])
    }), 30_000)
})
