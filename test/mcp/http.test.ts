import { assert, describe, it } from "@effect/vitest"
import { Effect, type Layer } from "effect"
import { parseMcpConfig } from "../../src/mcp/config.js"
import { McpGateway } from "../../src/mcp/service.js"
import { Scheduler } from "../../src/run/scheduler.js"
import type { CallResult } from "../../src/tool/outcome.js"
import { startSse, startStreamableHttp } from "../fixtures/mcp/http.mjs"
import { recordLogs } from "../support/logs.js"
import { testSession } from "../support/session.js"

const withSession = <A, E, R>(mcpServers: Record<string, unknown>, body: Effect.Effect<A, E, R>) =>
  Effect.flatMap(parseMcpConfig({ mcpServers }).pipe(Effect.orDie), (config) =>
    body.pipe(Effect.provide(testSession([], { mcp: { config } }).layer as Layer.Layer<any>))) as Effect.Effect<A, E, Exclude<R, any>>

const streamable = (options: { readonly token?: string } = {}) =>
  Effect.acquireRelease(Effect.promise(() => startStreamableHttp(options)), (s) => Effect.promise(() => s.close()))
const sse = Effect.acquireRelease(Effect.promise(() => startSse()), (s) => Effect.promise(() => s.close()))

const call = (name: string, args: unknown = {}) => Effect.flatMap(Scheduler, (s) => s.runOne({ callId: "h", name, args }))
const textOf = (result: CallResult): string => {
  assert.strictEqual(result._tag, "Success", JSON.stringify(result).slice(0, 2000))
  return result._tag === "Success" ? result.llmContent.flatMap((p) => (p.type === "text" ? [p.text] : [])).join("") : ""
}
const statusOf = (name: string) => Effect.flatMap(McpGateway, (g) => Effect.map(g.statuses, (all) => all.find((s) => s.name === name)!))

describe("HTTP upstreams (127.0.0.1)", () => {
  it.live("streamable HTTP with headers: discovery, calls, progress", () =>
    Effect.gen(function*() {
      const server = yield* streamable({ token: "s3cret" })
      yield* withSession({
        remote: { url: server.url, headers: { Authorization: "Bearer ${FIXTURE_TOKEN:-s3cret}", "X-Fixture": "yes" } }
      }, Effect.gen(function*() {
        const status = yield* statusOf("remote")
        assert.strictEqual(status.state, "connected")
        assert.strictEqual(status.transport, "streamable-http")
        assert.strictEqual(textOf(yield* call("mcp__remote__echo", { message: "over http" })), "echo: over http")
        const chunks: Array<string> = []
        const progress = yield* Effect.flatMap(Scheduler, (s) =>
          s.runOne({ callId: "p", name: "mcp__remote__progress", args: { steps: 2, delayMs: 5 } }, {
            onOutput: (_, chunk) => Effect.sync(() => void chunks.push(String(chunk)))
          }))
        assert.strictEqual(textOf(progress), "done after 2 steps")
        assert.deepStrictEqual(chunks, ["step 1 (progress 1/2)", "step 2 (progress 2/2)"])
        assert.include(server.seenHeaders, "yes")
      }))
    }), 30_000)

  it.live("a server that forgot the session is reconnected transparently for a read-only call", () =>
    Effect.gen(function*() {
      const server = yield* streamable()
      yield* withSession({ remote: { url: server.url } }, Effect.gen(function*() {
        assert.strictEqual(textOf(yield* call("mcp__remote__echo", { message: "one" })), "echo: one")
        assert.strictEqual(server.sessions.size, 1)
        server.sessions.clear()
        assert.strictEqual(textOf(yield* call("mcp__remote__echo", { message: "two" })), "echo: two")
        assert.strictEqual(server.sessions.size, 1)
      }))
    }), 30_000)

  it.live("wrong credentials: the server is reported with a hint, nothing else breaks", () => {
    const logs = recordLogs()
    return Effect.gen(function*() {
      const server = yield* streamable({ token: "right" })
      yield* withSession({ remote: { url: server.url, type: "http", headers: { Authorization: "Bearer wrong" } } }, Effect.gen(function*() {
        const status = yield* statusOf("remote")
        assert.strictEqual(status.state, "failed")
        assert.include(status.message!, "401")
        assert.include(status.message!, `check the "headers" of this server in the MCP config`)
      }))
      // The same report goes to the operator's log (recorded here, not printed).
      const logged = logs.lines.filter((line) => line.startsWith(`WARN toolwright: MCP server "remote" (${server.url}) could not be connected: HTTP 401`))
      assert.strictEqual(logged.length, 1, logs.lines.join("\n"))
    }).pipe(Effect.provide(logs.layer))
  }, 30_000)

  it.live("an old SSE server is reached through the fallback", () =>
    Effect.gen(function*() {
      const server = yield* sse
      yield* withSession({ legacy: { url: server.url } }, Effect.gen(function*() {
        const status = yield* statusOf("legacy")
        assert.strictEqual(status.state, "connected")
        assert.strictEqual(status.transport, "sse")
        assert.strictEqual(textOf(yield* call("mcp__legacy__echo", { message: "sse" })), "echo: sse")
        assert.strictEqual(server.streams(), 1)
      }))
    }), 30_000)
})
