import { spawn } from "node:child_process"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import {
  KILL_GRACE_MS,
  MAX_LIST_PAGES,
  MAX_RESOURCES_PER_SERVER,
  MAX_SERVER_INSTRUCTIONS_CHARS,
  MAX_TOOL_DESCRIPTION_CHARS,
  MAX_TOOL_SCHEMA_CHARS,
  MAX_TOOLS_PER_SERVER
} from "../../src/mcp/constants.js"
import { isAlive, killProcessTree } from "../../src/process/tree.js"
import { BoundedStdioTransport } from "../../src/mcp/stdioTransport.js"
import { makeUpstream } from "../../src/mcp/upstream.js"
import { decodeServer, eventually, fixtureEntry } from "./support.js"

const catalogOf = (env: Record<string, string>) =>
  Effect.gen(function*() {
    const server = yield* decodeServer("bounded", fixtureEntry(env))
    const upstream = yield* makeUpstream(server, { cwd: process.cwd(), roots: [process.cwd()] })
    return yield* upstream.ensure.pipe(Effect.orDie)
  })

describe("discovery bounds", () => {
  it.live("tools: count, description and schema limits at their edges; duplicates; pagination", () =>
    Effect.gen(function*() {
      // 6 special tools + the generated ones: one more than the limit in all.
      const catalog = yield* catalogOf({
        FIXTURE_MANY_TOOLS: String(MAX_TOOLS_PER_SERVER - 5),
        FIXTURE_PAGE_SIZE: "100",
        FIXTURE_MANY_RESOURCES: String(MAX_RESOURCES_PER_SERVER + 1),
        FIXTURE_INSTRUCTIONS_SIZE: String(MAX_SERVER_INSTRUCTIONS_CHARS + 1)
      })
      const byName = new Map(catalog.tools.map((t) => [t.name, t]))
      // 1001 declared: the first 1000 are kept; the oversized schema and the duplicate go after that.
      assert.strictEqual(catalog.tools.length, MAX_TOOLS_PER_SERVER - 2)
      assert.isTrue(catalog.warnings.some((w) => w === `tools: more than ${MAX_TOOLS_PER_SERVER} entries; the rest were ignored`))
      assert.strictEqual(byName.get("desc_exact")!.description.length, MAX_TOOL_DESCRIPTION_CHARS)
      assert.isFalse(byName.get("desc_exact")!.description.endsWith("…"))
      assert.strictEqual(byName.get("desc_over")!.description.length, MAX_TOOL_DESCRIPTION_CHARS)
      assert.isTrue(byName.get("desc_over")!.description.endsWith("…"))
      assert.isTrue(byName.has("schema_exact"))
      assert.strictEqual(JSON.stringify(byName.get("schema_exact")!.inputSchema).length, MAX_TOOL_SCHEMA_CHARS)
      assert.isFalse(byName.has("schema_over"))
      assert.isTrue(catalog.warnings.some((w) => w.startsWith(`tools: "schema_over" has an input schema of ${MAX_TOOL_SCHEMA_CHARS + 1} chars`)))
      assert.strictEqual(byName.get("dup")!.description, "first")
      assert.isTrue(catalog.warnings.includes(`tools: "dup" is declared twice; the first declaration is used`))
      // The generated tools came over 10 pages.
      assert.isTrue(byName.has(`t${MAX_TOOLS_PER_SERVER - 7}`))
      assert.strictEqual(catalog.resources.length, MAX_RESOURCES_PER_SERVER)
      assert.strictEqual(catalog.instructions!.length, MAX_SERVER_INSTRUCTIONS_CHARS)
    }), 30_000)

  it.live("a cursor that never advances stops the listing", () =>
    Effect.gen(function*() {
      const catalog = yield* catalogOf({ FIXTURE_MANY_TOOLS: "20", FIXTURE_PAGE_SIZE: "3", FIXTURE_CURSOR_LOOP: "1" })
      // Page 1 (no cursor) and page 2 (cursor "same", the same 3 tools again); the repeated cursor ends it.
      assert.strictEqual(catalog.tools.length, 3)
      assert.isTrue(catalog.warnings.includes(`tools: "desc_exact" is declared twice; the first declaration is used`))
    }), 30_000)

  it.live("at most MAX_LIST_PAGES pages are followed", () =>
    Effect.gen(function*() {
      const catalog = yield* catalogOf({ FIXTURE_MANY_TOOLS: String(MAX_LIST_PAGES + 20), FIXTURE_PAGE_SIZE: "1" })
      // 100 entries, less the oversized schema and the duplicate.
      assert.strictEqual(catalog.tools.length, MAX_LIST_PAGES - 2)
      assert.isTrue(catalog.warnings.includes(`tools: more than ${MAX_LIST_PAGES} pages; the rest were ignored`))
    }), 30_000)
})

describe("stdio transport bounds", () => {
  const notification = (size: number) => {
    const base = JSON.stringify({ jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: "" } })
    return JSON.stringify({ jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: "x".repeat(size - base.length) } })
  }

  it.live("a message of exactly the bound passes; one byte more closes the connection", () =>
    Effect.gen(function*() {
      const max = 2_000
      const script = `process.stdout.write(${JSON.stringify(`${notification(max)}\n${notification(max + 1)}\n`)}); setInterval(() => {}, 1000)`
      const transport = new BoundedStdioTransport({ command: process.execPath, args: ["-e", script], env: {}, cwd: process.cwd(), maxMessageBytes: max })
      const sizes: Array<number> = []
      transport.onmessage = (message) => void sizes.push(JSON.stringify(message).length)
      yield* Effect.acquireRelease(Effect.promise(() => transport.start()), () => Effect.promise(() => transport.close()))
      yield* eventually(Effect.sync(() => transport.closeReason), "the oversized message")
      assert.deepStrictEqual(sizes, [max])
      assert.strictEqual(transport.closeReason, `the server sent a message larger than ${max} bytes, so the connection was closed`)
    }), 30_000)
})

describe("process-tree kill grace", () => {
  it.live("a process that ignores SIGTERM is killed after the grace period", () =>
    Effect.gen(function*() {
      const child = spawn(process.execPath, ["-e", "process.on('SIGTERM', () => {}); setInterval(() => {}, 1000)"], { stdio: "ignore" })
      yield* Effect.sleep("150 millis") // let it install its handler
      yield* killProcessTree(child.pid!, { graceMs: 300 })
      yield* eventually(Effect.sync(() => (isAlive(child.pid!) ? undefined : true)), "SIGKILL", KILL_GRACE_MS)
    }), 30_000)
})
