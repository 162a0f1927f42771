import * as fs from "node:fs"
import * as path from "node:path"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber, Layer } from "effect"
import { parseMcpConfig } from "../../src/mcp/config.js"
import { MAX_RECONNECT_ATTEMPTS } from "../../src/mcp/constants.js"
import { isAlive } from "../../src/process/tree.js"
import { McpGateway } from "../../src/mcp/service.js"
import { BoundedStdioTransport } from "../../src/mcp/stdioTransport.js"
import { Scheduler } from "../../src/run/scheduler.js"
import type { CallResult } from "../../src/tool/outcome.js"
import { tempDir } from "../support/serve.js"
import { testSession } from "../support/session.js"
import { eventually, fixtureEntry, fixtureServer, readLog } from "./support.js"

const withSession = <A, E, R>(mcpServers: Record<string, unknown>, body: Effect.Effect<A, E, R>) =>
  Effect.flatMap(parseMcpConfig({ mcpServers }).pipe(Effect.orDie), (config) =>
    body.pipe(Effect.provide(testSession([], { mcp: { config } }).layer as Layer.Layer<any>))) as Effect.Effect<A, E, Exclude<R, any>>

const call = (name: string, args: unknown = {}) =>
  Effect.flatMap(Scheduler, (s) => s.runOne({ callId: "c", name, args }))

const textOf = (result: CallResult): string => {
  assert.strictEqual(result._tag, "Success", JSON.stringify(result).slice(0, 2000))
  return result._tag === "Success" ? result.llmContent.flatMap((p) => (p.type === "text" ? [p.text] : [])).join("") : ""
}

const failureOf = (result: CallResult) => {
  assert.strictEqual(result._tag, "Failure", JSON.stringify(result).slice(0, 2000))
  return result as Extract<CallResult, { _tag: "Failure" }>
}

describe("resilience against a misbehaving upstream", () => {
  it.live("a server that exits mid-call: mcp_tool_error, and the next call succeeds after a restart", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir()
      const log = path.join(dir, "log")
      yield* withSession({ flaky: fixtureEntry({ FIXTURE_LOG: log, FIXTURE_CHILD: "1" }) }, Effect.gen(function*() {
        const crashed = failureOf(yield* call("mcp__flaky__crash"))
        assert.strictEqual(crashed.code, "mcp_tool_error")
        assert.include(crashed.message, `The connection to MCP server "flaky" was lost while 'crash' was running: the server process exited with code 1`)
        assert.include(crashed.message, "The call may or may not have taken effect; the server will be restarted on the next call.")
        // Not idempotent: the call was not re-sent.
        assert.strictEqual(readLog(log).starts.length, 1)
        // The dead server's orphan (its child process) was stopped with it.
        const orphan = readLog(log).children[0]!
        yield* eventually(Effect.sync(() => (isAlive(orphan) ? undefined : true)), "the orphan to stop")
        assert.strictEqual(textOf(yield* call("mcp__flaky__echo", { message: "back" })), "echo: back")
        assert.strictEqual(readLog(log).starts.length, 2)
      }))
    }), 30_000)

  it.live("a read-only call is re-sent after each loss, at most 3 reconnects, then mcp_tool_error", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir()
      const log = path.join(dir, "log")
      yield* withSession({ flaky: fixtureEntry({ FIXTURE_LOG: log }) }, Effect.gen(function*() {
        const crashed = failureOf(yield* call("mcp__flaky__crash_readonly"))
        assert.strictEqual(crashed.code, "mcp_tool_error")
        assert.include(crashed.message, `it was lost again on each of ${MAX_RECONNECT_ATTEMPTS} reconnect attempts`)
        assert.strictEqual(readLog(log).starts.length, 1 + MAX_RECONNECT_ATTEMPTS)
      }))
    }), 30_000)

  it.live("an idempotent call that crashes once is re-sent and succeeds", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir()
      const log = path.join(dir, "log")
      yield* withSession({ flaky: fixtureEntry({ FIXTURE_LOG: log, FIXTURE_MARKER: path.join(dir, "marker") }) }, Effect.gen(function*() {
        assert.strictEqual(textOf(yield* call("mcp__flaky__crash_once")), "survived")
        assert.strictEqual(readLog(log).starts.length, 2)
      }))
    }), 30_000)

  it.live("a hanging call hits the idle timeout and never blocks another server", () =>
    Effect.gen(function*() {
      yield* withSession({
        slow: fixtureEntry({}, { idleTimeout: 1_500 }),
        quick: fixtureEntry()
      }, Effect.gen(function*() {
        const hanging = yield* Effect.forkChild(call("mcp__slow__hang"))
        assert.strictEqual(textOf(yield* call("mcp__quick__echo", { message: "meanwhile" })), "echo: meanwhile")
        assert.strictEqual(textOf(yield* call("mcp__slow__echo", { message: "same server" })), "echo: same server")
        assert.isUndefined(hanging.pollUnsafe())
        const timedOut = failureOf(yield* Fiber.join(hanging))
        assert.strictEqual(timedOut.code, "execution_timeout")
        assert.include(timedOut.message, "MCP tool 'hang' on server 'slow' did not respond within 1500ms idle timeout")
        // The server still answers pings, so it is kept.
        assert.strictEqual(textOf(yield* call("mcp__slow__echo", { message: "after" })), "echo: after")
      }))
    }), 30_000)

  it.live("progress resets the idle timer; the whole-call timeout still applies", () =>
    Effect.gen(function*() {
      yield* withSession({
        patient: fixtureEntry({}, { idleTimeout: 600 }),
        strict: fixtureEntry({}, { idleTimeout: 600, timeout: 500 })
      }, Effect.gen(function*() {
        // 8 steps of 150 ms: 1.2 s in all, never 600 ms silent.
        assert.strictEqual(textOf(yield* call("mcp__patient__progress", { steps: 8, delayMs: 150 })), "done after 8 steps")
        const tooLong = failureOf(yield* call("mcp__strict__progress", { steps: 8, delayMs: 150 }))
        assert.strictEqual(tooLong.code, "execution_timeout")
        assert.include(tooLong.message, "MCP tool 'progress' on server 'strict' did not finish within 500ms")
      }))
    }), 30_000)

  it.live("a 10 MB result is bounded by the output budget; the gateway stays up", () =>
    Effect.gen(function*() {
      yield* withSession({ big: fixtureEntry() }, Effect.gen(function*() {
        const result = yield* call("mcp__big__big", { size: 10_000_000 })
        assert.strictEqual(result._tag, "Success")
        const text = textOf(result)
        assert.isBelow(text.length, 600_000)
        assert.match(text, /^<persisted-output>\nOutput too large \(9766 KB\)\. Full output saved to: (\S+)/)
        const saved = /saved to: (\S+)/.exec(text)![1]!
        assert.strictEqual(fs.statSync(saved).size, 10_000_000)
        assert.strictEqual(textOf(yield* call("mcp__big__echo", { message: "alive" })), "echo: alive")
      }))
    }), 60_000)

  it.live("a server killed from outside is restarted on the next call", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir()
      const log = path.join(dir, "log")
      yield* withSession({ victim: fixtureEntry({ FIXTURE_LOG: log }) }, Effect.gen(function*() {
        const gateway = yield* McpGateway
        const pid = readLog(log).starts[0]!
        process.kill(pid, "SIGKILL")
        yield* eventually(
          Effect.map(gateway.statuses, (all) => (all[0]!.state === "disconnected" ? all[0] : undefined)),
          "the death to be noticed"
        )
        assert.strictEqual(textOf(yield* call("mcp__victim__echo", { message: "again" })), "echo: again")
        assert.strictEqual(readLog(log).starts.length, 2)
        yield* eventually(Effect.map(gateway.statuses, (all) => (all[0]!.state === "connected" ? true : undefined)), "reconnected status")
      }))
    }), 30_000)

  it.live("a server that cannot start is reported with its stderr; the others work", () =>
    Effect.gen(function*() {
      yield* withSession({
        broken: fixtureEntry({ FIXTURE_FAIL: "1" }, { discoveryTimeout: 5_000 }),
        missing: { command: "toolwright-no-such-command-xyz" },
        fine: fixtureEntry()
      }, Effect.gen(function*() {
        const gateway = yield* McpGateway
        const statuses = new Map((yield* gateway.statuses).map((s) => [s.name, s]))
        assert.strictEqual(statuses.get("broken")!.state, "failed")
        assert.include(statuses.get("broken")!.message!, "exited with code 3")
        assert.include(statuses.get("broken")!.message!, "fixture: boom, the API key is missing")
        assert.include(statuses.get("broken")!.message!, "(retrying in 1000 ms)")
        assert.strictEqual(statuses.get("missing")!.state, "failed")
        assert.include(statuses.get("missing")!.message!, `command "toolwright-no-such-command-xyz" was not found (is it installed and on PATH?)`)
        assert.strictEqual(statuses.get("fine")!.state, "connected")
        assert.strictEqual(textOf(yield* call("mcp__fine__echo", { message: "ok" })), "echo: ok")
        // A request to it tries to start it again, with backoff, then says it is unreachable.
        const unreachable = failureOf(yield* call("read_mcp_resource", { server_name: "missing", uri: "x://y" }))
        assert.strictEqual(unreachable.code, "mcp_tool_error")
        assert.include(unreachable.message, `MCP server "missing" is unreachable, so 'resources/read x://y' did not run (gave up after ${MAX_RECONNECT_ATTEMPTS} reconnect attempts)`)
      }))
    }), 30_000)

  it.live("a message over the size bound closes the connection with a reason", () =>
    Effect.gen(function*() {
      const transport = new BoundedStdioTransport({
        command: process.execPath,
        args: [fixtureServer],
        env: {},
        cwd: process.cwd(),
        maxMessageBytes: 4_000
      })
      const client = new Client({ name: "t", version: "0" })
      yield* Effect.acquireRelease(Effect.promise(() => client.connect(transport)), () => Effect.promise(() => client.close()))
      const pid = transport.pid!
      const error = yield* Effect.flip(Effect.tryPromise(() => client.callTool({ name: "big", arguments: { size: 10_000 } })))
      assert.include(String(error.cause ?? error), "Connection closed")
      assert.strictEqual(transport.closeReason, "the server sent a message larger than 4000 bytes, so the connection was closed")
      yield* eventually(Effect.sync(() => (isAlive(pid) ? undefined : true)), "the server to stop")
    }), 30_000)
})
