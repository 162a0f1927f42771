import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, type Layer, Scope, Stream } from "effect"
import { parseMcpConfig } from "../../src/mcp/config.js"
import { makeMcpPool, type McpPool } from "../../src/mcp/pool.js"
import { isAlive } from "../../src/process/tree.js"
import { McpGateway } from "../../src/mcp/service.js"
import { Scheduler } from "../../src/run/scheduler.js"
import type { CallResult } from "../../src/tool/outcome.js"
import { recordLogs } from "../support/logs.js"
import { tempDir } from "../support/serve.js"
import { makeTempDir, testSession } from "../support/session.js"
import { eventually, fixtureEntry, readLog } from "./support.js"

/** Runs `body` in a session of the given workspace pool. */
const inSession = <A, E, R>(pool: McpPool["Service"], mcpServers: Record<string, unknown>, body: Effect.Effect<A, E, R>) =>
  Effect.flatMap(parseMcpConfig({ mcpServers }).pipe(Effect.orDie), (config) =>
    body.pipe(Effect.provide(testSession([], { mcp: { config, pool } }).layer as Layer.Layer<any>))) as Effect.Effect<A, E, Exclude<R, any>>

const echo = (server: string, message: string) =>
  Effect.flatMap(Scheduler, (s) => s.runOne({ callId: "p", name: `mcp__${server}__echo`, args: { message } }))
const textOf = (result: CallResult): string => {
  assert.strictEqual(result._tag, "Success", JSON.stringify(result).slice(0, 2000))
  return result._tag === "Success" ? result.llmContent.flatMap((p) => (p.type === "text" ? [p.text] : [])).join("") : ""
}
const statuses = Effect.flatMap(McpGateway, (g) => g.statuses)

describe("the workspace transport pool", () => {
  it.live("sessions of one workspace share one connection per server", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir()
      const log = path.join(dir, "log")
      const pool = yield* makeMcpPool({ cwd: dir, roots: [dir] })
      const servers = { shared: fixtureEntry({ FIXTURE_LOG: log }) }
      yield* inSession(pool, servers, Effect.gen(function*() {
        assert.strictEqual(textOf(yield* echo("shared", "first session")), "echo: first session")
        yield* inSession(pool, servers, Effect.gen(function*() {
          assert.strictEqual(textOf(yield* echo("shared", "second session")), "echo: second session")
        }))
        // The second session closed; the first still has its connection.
        assert.strictEqual(textOf(yield* echo("shared", "still")), "echo: still")
      }))
      assert.strictEqual(readLog(log).starts.length, 1)
      const snapshot = yield* pool.snapshot
      assert.deepStrictEqual(snapshot.entries.map((e) => e.name), ["shared"])
      assert.strictEqual(snapshot.subprocessCount, 1)
    }), 30_000)

  it.live("a changed config is a different connection (fingerprint)", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir()
      const log = path.join(dir, "log")
      const pool = yield* makeMcpPool({ cwd: dir, roots: [dir] })
      yield* inSession(pool, { s: fixtureEntry({ FIXTURE_LOG: log, V: "1" }) }, echo("s", "a"))
      yield* inSession(pool, { s: fixtureEntry({ FIXTURE_LOG: log, V: "2" }) }, echo("s", "b"))
      assert.strictEqual(readLog(log).starts.length, 2)
      assert.strictEqual((yield* pool.snapshot).entries.length, 2)
    }), 30_000)

  it.live("draining kills local servers' process trees; an idle connection closes by itself", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir()
      const log = path.join(dir, "log")
      const pool = yield* makeMcpPool({ cwd: dir, roots: [dir], idleTimeToLiveMs: 200 })
      yield* inSession(pool, { tree: fixtureEntry({ FIXTURE_LOG: log, FIXTURE_CHILD: "1" }) }, Effect.gen(function*() {
        yield* echo("tree", "x")
        const { starts, children } = readLog(log)
        assert.isTrue(isAlive(starts[0]!) && isAlive(children[0]!))
        yield* pool.drain
        assert.isFalse(isAlive(starts[0]!))
        assert.isFalse(isAlive(children[0]!))
        assert.strictEqual((yield* pool.snapshot).subprocessCount, 0)
        // The next call reconnects.
        assert.strictEqual(textOf(yield* echo("tree", "again")), "echo: again")
      }))
      const second = readLog(log)
      assert.strictEqual(second.starts.length, 2)
      // No session holds it any more: closed after the idle time, tree and all.
      yield* eventually(
        Effect.sync(() => (!isAlive(second.starts[1]!) && !isAlive(second.children[1]!) ? true : undefined)),
        "the idle server to be closed"
      )
    }), 30_000)

  it.live("closing the pool closes every connection", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir()
      const log = path.join(dir, "log")
      const scope = yield* Scope.make()
      const pool = yield* makeMcpPool({ cwd: dir, roots: [dir] }).pipe(Scope.provide(scope))
      yield* inSession(pool, { a: fixtureEntry({ FIXTURE_LOG: log, FIXTURE_CHILD: "1" }) }, echo("a", "x"))
      const { starts, children } = readLog(log)
      assert.isTrue(isAlive(starts[0]!))
      yield* Scope.close(scope, Exit.void)
      assert.isFalse(isAlive(starts[0]!))
      assert.isFalse(isAlive(children[0]!))
    }), 30_000)

  it.live("budget (enforce): servers beyond the cap are refused in declaration order, with one message", () => {
    const logs = recordLogs()
    return Effect.gen(function*() {
      const dir = makeTempDir()
      const pool = yield* makeMcpPool({ cwd: dir, roots: [dir], budget: { maxServers: 1, mode: "enforce" }, idleTimeToLiveMs: 100 })
      yield* inSession(pool, { first: fixtureEntry(), second: fixtureEntry(), third: fixtureEntry() }, Effect.gen(function*() {
        const all = new Map((yield* statuses).map((s) => [s.name, s]))
        assert.strictEqual(all.get("first")!.state, "connected")
        assert.strictEqual(all.get("second")!.state, "refused")
        assert.strictEqual(
          all.get("second")!.message,
          `The workspace MCP budget of 1 server is exhausted, so "second" was not started. Raise "mcpBudget.maxServers" in the MCP config, or disable servers you do not need.`
        )
        assert.strictEqual(all.get("third")!.state, "refused")
        const read = yield* Effect.flatMap(Scheduler, (s) => s.runOne({ callId: "r", name: "read_mcp_resource", args: { server_name: "third", uri: "x://y" } }))
        // the refusal, then (the budget is full) the warning owed to the model as a reminder
        const message = read._tag === "Failure" ? read.message : ""
        assert.isTrue(message.startsWith(all.get("third")!.message ?? "?"), message)
        assert.include(message, "<system-reminder>\n1 of 1 MCP server slots of this workspace are in use")
      }))
      // An idle connection holds its slot until it closes; then another server gets it.
      yield* eventually(Effect.map(pool.snapshot, (snap) => (snap.reserved.length === 0 ? true : undefined)), "the slot to free")
      yield* inSession(pool, { second: fixtureEntry() }, Effect.gen(function*() {
        assert.strictEqual((yield* statuses)[0]!.state, "connected")
      }))
      // The one message is also the session's warning log (recorded here, not printed).
      assert.include(
        logs.lines,
        `WARN toolwright: The workspace MCP budget of 1 server is exhausted, so "second", "third" were not started. Raise "mcpBudget.maxServers" in the MCP config, or disable servers you do not need.`
      )
    }).pipe(Effect.provide(logs.layer))
  }, 30_000)

  it.live("budget: the same server name shares one slot; warn mode warns once and refuses nothing", () => {
    const logs = recordLogs()
    return Effect.gen(function*() {
      const dir = makeTempDir()
      const pool = yield* makeMcpPool({ cwd: dir, roots: [dir], budget: { maxServers: 1, mode: "enforce" } })
      yield* inSession(pool, { s: fixtureEntry({ V: "1" }) }, Effect.gen(function*() {
        yield* inSession(pool, { s: fixtureEntry({ V: "2" }) }, Effect.gen(function*() {
          assert.strictEqual((yield* statuses)[0]!.state, "connected")
        }))
      }))
      const warnPool = yield* makeMcpPool({ cwd: dir, roots: [dir], budget: { maxServers: 2, mode: "warn" } })
      const warnings = yield* warnPool.warnings
      yield* inSession(warnPool, { a: fixtureEntry(), b: fixtureEntry(), c: fixtureEntry() }, Effect.gen(function*() {
        assert.deepStrictEqual((yield* statuses).map((s) => s.state), ["connected", "connected", "connected"])
      }))
      const [warning] = yield* warnings.pipe(Stream.take(1), Stream.runCollect)
      assert.deepStrictEqual(warning, { _tag: "BudgetWarning", reserved: 2, budget: 2, mode: "warn" })
      const warned = yield* eventually(
        Effect.sync(() => logs.lines.find((line) => line.includes("2 of 2 MCP server slots of this workspace are in use"))),
        "the warn-mode log"
      )
      assert.strictEqual(warned, "WARN toolwright: 2 of 2 MCP server slots of this workspace are in use (budget in warn mode: nothing is refused).")
    }).pipe(Effect.provide(logs.layer))
  }, 30_000)
})
