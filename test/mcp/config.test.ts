import * as fs from "node:fs"
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { expandEnvReferences, isAlwaysLoaded, loadMcpConfigFile, parseMcpConfig } from "../../src/mcp/config.js"
import { fingerprint, poolKey } from "../../src/mcp/fingerprint.js"
import {
  DEFAULT_MCP_TOOL_IDLE_TIMEOUT_MS,
  DEFAULT_MCP_TOOL_TIMEOUT_MS,
  DEFAULT_REMOTE_DISCOVERY_TIMEOUT_MS,
  DEFAULT_STDIO_DISCOVERY_TIMEOUT_MS,
  MAX_DISCOVERY_TIMEOUT_MS,
  MIN_DISCOVERY_TIMEOUT_MS
} from "../../src/mcp/constants.js"
import { tempDir } from "../support/serve.js"

const parse = (input: unknown, env: Record<string, string> = {}) => parseMcpConfig(input, { env })

describe("MCP config", () => {
  it.effect("decodes stdio and HTTP servers with defaults", () =>
    Effect.gen(function*() {
      const config = yield* parse({
        mcpServers: {
          local: { command: "node", args: ["server.js"], env: { A: "1" }, cwd: "tools" },
          remote: { url: "https://example.com/mcp", headers: { Authorization: "Bearer x" } }
        }
      })
      assert.deepStrictEqual(config.problems, [])
      const [local, remote] = config.servers
      assert.deepStrictEqual(local!.transport, { _tag: "stdio", command: "node", args: ["server.js"], env: { A: "1" }, cwd: "tools" })
      assert.strictEqual(local!.timeoutMs, DEFAULT_MCP_TOOL_TIMEOUT_MS)
      assert.strictEqual(local!.idleTimeoutMs, DEFAULT_MCP_TOOL_IDLE_TIMEOUT_MS)
      assert.strictEqual(local!.discoveryTimeoutMs, DEFAULT_STDIO_DISCOVERY_TIMEOUT_MS)
      assert.isFalse(local!.trust)
      assert.isFalse(local!.alwaysLoadTools)
      assert.isUndefined(local!.includeTools)
      assert.deepStrictEqual(remote!.transport, { _tag: "http", url: "https://example.com/mcp", headers: { Authorization: "Bearer x" }, protocol: "auto" })
      assert.strictEqual(remote!.discoveryTimeoutMs, DEFAULT_REMOTE_DISCOVERY_TIMEOUT_MS)
      assert.isUndefined(config.budget)
    }))

  it.effect("picks the HTTP protocol from type / httpUrl", () =>
    Effect.gen(function*() {
      const config = yield* parse({
        mcpServers: {
          a: { url: "http://127.0.0.1:1/sse", type: "sse" },
          b: { httpUrl: "http://127.0.0.1:1/mcp" },
          c: { url: "http://127.0.0.1:1/mcp", type: "http" }
        }
      })
      assert.deepStrictEqual(config.servers.map((s) => s.transport._tag === "http" ? s.transport.protocol : ""), ["sse", "streamable", "streamable"])
    }))

  it.effect("a bad server gets a message naming it and the field; the others still load", () =>
    Effect.gen(function*() {
      const config = yield* parse({
        mcpServers: {
          good: { command: "node" },
          badArgs: { command: "node", args: ["ok", 3] },
          badTimeout: { command: "node", timeout: -5 },
          neither: { cwd: "/tmp" },
          both: { command: "node", url: "http://x" },
          badUrl: { url: "ftp://example.com" },
          notObject: "npx server"
        }
      })
      assert.deepStrictEqual(config.servers.map((s) => s.name), ["good"])
      const byServer = new Map(config.problems.map((p) => [p.server, p]))
      assert.strictEqual(byServer.get("badArgs")!.field, "args[1]")
      assert.strictEqual(
        byServer.get("badArgs")!.message,
        `MCP server "badArgs" is invalid and was skipped: field "args[1]": Expected string, got 3.`
      )
      assert.strictEqual(byServer.get("badTimeout")!.field, "timeout")
      assert.include(byServer.get("badTimeout")!.message, `field "timeout": Expected a value greater than 0, got -5`)
      assert.include(byServer.get("neither")!.message, `has neither "command"`)
      assert.strictEqual(byServer.get("both")!.message, `MCP server "both" has both "command" and "url"; keep only one.`)
      assert.strictEqual(byServer.get("badUrl")!.field, "url")
      assert.include(byServer.get("badUrl")!.message, "must be an http:// or https:// URL")
      assert.include(byServer.get("notObject")!.message, `MCP server "notObject" must be an object`)
      assert.isTrue(config.problems.every((p) => p.severity === "error"))
    }))

  it.effect("unknown and foreign fields are warnings, not errors", () =>
    Effect.gen(function*() {
      const config = yield* parse({ mcpServers: { s: { command: "node", oauth: {}, comand: "x", headers: { A: "b" } } } })
      assert.strictEqual(config.servers.length, 1)
      assert.deepStrictEqual(config.problems.map((p) => [p.severity, p.field]), [["warning", "oauth"], ["warning", "comand"], ["warning", "headers"]])
      assert.include(config.problems[1]!.message, `unknown field "comand" is ignored`)
    }))

  it.effect("expands ${VAR} and ${VAR:-default}; an unset variable skips the server and names it", () =>
    Effect.gen(function*() {
      const config = yield* parse({
        mcpServers: {
          ok: { command: "${BIN}", args: ["--token=${TOKEN:-none}"], env: { KEY: "${TOKEN:-fallback}" } },
          remote: { url: "https://${HOST}/mcp", headers: { Authorization: "Bearer ${SECRET}" } }
        }
      }, { BIN: "/usr/bin/node", HOST: "example.com" })
      assert.deepStrictEqual(config.servers[0]!.transport, {
        _tag: "stdio",
        command: "/usr/bin/node",
        args: ["--token=none"],
        env: { KEY: "fallback" },
        cwd: undefined
      })
      const problem = config.problems.find((p) => p.server === "remote")!
      assert.strictEqual(problem.field, "headers.Authorization")
      assert.strictEqual(
        problem.message,
        `MCP server "remote" was skipped: field "headers.Authorization" uses \${SECRET}, but that variable is not set. Set it in the environment, or write \${NAME:-default}.`
      )
      assert.deepStrictEqual(expandEnvReferences("a${X}b${Y:-y}", { X: "1" }), { value: "a1by", missing: [] })
    }))

  it.effect("clamps the discovery timeout to its range (edges)", () =>
    Effect.gen(function*() {
      const config = yield* parse({
        mcpServers: {
          low: { command: "n", discoveryTimeout: 99 },
          min: { command: "n", discoveryTimeout: MIN_DISCOVERY_TIMEOUT_MS },
          max: { command: "n", discoveryTimeoutMs: MAX_DISCOVERY_TIMEOUT_MS },
          high: { command: "n", discoveryTimeout: MAX_DISCOVERY_TIMEOUT_MS + 1 }
        }
      })
      assert.deepStrictEqual(config.servers.map((s) => s.discoveryTimeoutMs), [100, 100, 300_000, 300_000])
    }))

  it.effect("reads the budget; a bad budget is a warning and no budget applies", () =>
    Effect.gen(function*() {
      const ok = yield* parse({ mcpServers: {}, mcpBudget: { maxServers: 4 } })
      assert.deepStrictEqual(ok.budget, { maxServers: 4, mode: "enforce" })
      const warn = yield* parse({ mcpServers: {}, mcpBudget: { maxServers: 2, mode: "warn" } })
      assert.deepStrictEqual(warn.budget, { maxServers: 2, mode: "warn" })
      const bad = yield* parse({ mcpServers: {}, mcpBudget: { maxServers: 0 } })
      assert.isUndefined(bad.budget)
      assert.strictEqual(bad.problems[0]!.field, "mcpBudget")
    }))

  it.effect("reads the serve door's deferred mode; a bad one is a warning and ignored", () =>
    Effect.gen(function*() {
      const ok = yield* parse({ mcpServers: {}, deferred: "proxy" })
      assert.strictEqual(ok.deferred, "proxy")
      assert.isUndefined((yield* parse({ mcpServers: {} })).deferred)
      const bad = yield* parse({ mcpServers: {}, deferred: "sometimes" })
      assert.isUndefined(bad.deferred)
      assert.strictEqual(bad.problems[0]!.field, "deferred")
      assert.include(bad.problems[0]!.message, `"list-changed", "proxy", "off"`)
    }))

  it.effect("whole-file problems fail with a precise message", () =>
    Effect.gen(function*() {
      const noServers = yield* Effect.flip(parse({ servers_: {} }))
      assert.include(noServers.message, `has no "mcpServers" object`)
      const notObject = yield* Effect.flip(parse({ mcpServers: [] }))
      assert.include(notObject.message, `"mcpServers" must be an object keyed by server name, got []`)
      const vscode = yield* parse({ servers: { a: { command: "n" } } })
      assert.strictEqual(vscode.servers.length, 1)
    }))

  it.effect("loads a file; a missing file and bad JSON are reported with the path", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir()
      const file = path.join(dir, "mcp.json")
      fs.writeFileSync(file, JSON.stringify({ mcpServers: { a: { command: "node" } } }))
      assert.strictEqual((yield* loadMcpConfigFile(file)).servers[0]!.name, "a")
      const missing = yield* Effect.flip(loadMcpConfigFile(path.join(dir, "nope.json")))
      assert.include(missing.message, "does not exist; check the --config path")
      fs.writeFileSync(file, "{ mcpServers: ")
      const bad = yield* Effect.flip(loadMcpConfigFile(file))
      assert.include(bad.message, `MCP config file ${file} is not valid JSON`)
    }))

  it.effect("the fingerprint depends on how a server is reached, not on key order or policy", () =>
    Effect.gen(function*() {
      const a = yield* parse({ mcpServers: { s: { command: "n", env: { A: "1", B: "2" }, trust: true } } })
      const b = yield* parse({ mcpServers: { s: { env: { B: "2", A: "1" }, command: "n", includeTools: ["x"] } } })
      const c = yield* parse({ mcpServers: { s: { command: "n", env: { A: "1", B: "3" } } } })
      assert.strictEqual(fingerprint(a.servers[0]!.transport), fingerprint(b.servers[0]!.transport))
      assert.notStrictEqual(fingerprint(a.servers[0]!.transport), fingerprint(c.servers[0]!.transport))
      assert.match(poolKey("s", a.servers[0]!.transport), /^s::[0-9a-f]{16}$/)
    }))

  it.effect("alwaysLoadTools: true or a list of tool names", () =>
    Effect.gen(function*() {
      const config = yield* parse({ mcpServers: { all: { command: "n", alwaysLoadTools: true }, some: { command: "n", alwaysLoadTools: ["a"] } } })
      assert.isTrue(isAlwaysLoaded(config.servers[0]!, "anything"))
      assert.isTrue(isAlwaysLoaded(config.servers[1]!, "a"))
      assert.isFalse(isAlwaysLoaded(config.servers[1]!, "b"))
    }))
})
