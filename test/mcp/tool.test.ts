import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { parseMcpConfig } from "../../src/mcp/config.js"
import type { DiscoveredTool } from "../../src/mcp/discovery.js"
import { makeMcpTool } from "../../src/mcp/tool.js"
import type { Upstream } from "../../src/mcp/upstream.js"
import * as Registry from "../../src/registry/registry.js"
import { Kind } from "../../src/tool/kind.js"

const validator = Effect.succeed(new AjvJsonSchemaValidator())
// Naming, validation and registration never touch the connection.
const noUpstream = undefined as unknown as Upstream

const discovered = (name: string, extra: Partial<DiscoveredTool> = {}): DiscoveredTool => ({
  name,
  title: undefined,
  description: `does ${name}`,
  inputSchema: { type: "object", properties: { n: { type: "integer", minimum: 1 } }, required: ["n"] },
  annotations: undefined,
  ...extra
})

const serverNamed = (name: string, entry: Record<string, unknown> = {}) =>
  Effect.map(parseMcpConfig({ mcpServers: { [name]: { command: "x", ...entry } } }).pipe(Effect.orDie), (c) => c.servers[0]!)

describe("upstream tools as our tools", () => {
  it.effect("names follow §13.2 (provider-safe, hash suffix); display, kind, hint", () =>
    Effect.gen(function*() {
      const server = yield* serverNamed("zybio", { description: "Literature search for biologists" })
      const dotted = makeMcpTool({ upstream: noUpstream, server, tool: discovered("literature.search_pubmed", { annotations: { readOnlyHint: true } }), validator })
      assert.strictEqual(dotted.name, "mcp__zybio__literature_search_pubmed_0bhdeaz")
      assert.strictEqual(dotted.displayName, "literature.search_pubmed (zybio MCP Server)")
      assert.strictEqual(dotted.kind, Kind.Read)
      assert.strictEqual(dotted.searchHint, "mcp zybio Literature search for biologists")
      const plain = makeMcpTool({ upstream: noUpstream, server, tool: discovered("literature_search_pubmed"), validator })
      assert.strictEqual(plain.name, "mcp__zybio__literature_search_pubmed")
      assert.strictEqual(plain.kind, Kind.Other)
      const long = yield* serverNamed("s".repeat(40))
      assert.strictEqual(
        makeMcpTool({ upstream: noUpstream, server: long, tool: discovered("t".repeat(53)), validator }).name,
        `mcp__${"s".repeat(40)}__${"t".repeat(8)}_0x4v2c9`
      )
    }))

  it.effect("validates against the JSON Schema; non-object args are refused", () =>
    Effect.gen(function*() {
      const server = yield* serverNamed("v")
      const tool = makeMcpTool({ upstream: noUpstream, server, tool: discovered("count"), validator })
      assert.strictEqual((yield* Effect.flip(tool.build({ n: 0 }))).message, "params.n: must be >= 1")
      assert.strictEqual((yield* Effect.flip(tool.build([1]))).message, "params: must be an object, got [1]")
      const ok = yield* tool.build({ n: 2 })
      assert.strictEqual(ok.description, `{"n":2}`)
      assert.strictEqual(yield* ok.defaultPermission, "ask")
      assert.deepStrictEqual(yield* ok.confirmation, {
        type: "mcp",
        title: "Confirm MCP Tool Execution",
        serverName: "v",
        toolName: "count",
        toolDisplayName: "count (v MCP Server)"
      })
      // A schema the validator cannot compile: the upstream validates instead.
      const odd = makeMcpTool({ upstream: noUpstream, server, tool: discovered("odd", { inputSchema: { type: "object", properties: {}, $ref: "#/nowhere" } }), validator })
      assert.isDefined(yield* odd.build({ anything: 1 }))
    }))

  it.effect("a name clash between servers: the registry renames the later tool to its qualified name", () =>
    Effect.gen(function*() {
      const registry = yield* Registry.make()
      const a = yield* serverNamed("a")
      const ab = yield* serverNamed("a__b")
      // mcp__a__b__c from both: server "a" tool "b__c", and server "a__b" tool "c".
      const first = yield* registry.register(makeMcpTool({ upstream: noUpstream, server: a, tool: discovered("b__c"), validator }))
      const second = yield* registry.register(makeMcpTool({ upstream: noUpstream, server: ab, tool: discovered("c"), validator }))
      assert.deepStrictEqual(first, { _tag: "Registered", name: "mcp__a__b__c" })
      assert.deepStrictEqual(second, { _tag: "Renamed", from: "mcp__a__b__c", name: "mcp__a__b__mcp__a__b__c" })
      const renamed = yield* registry.ensure("mcp__a__b__mcp__a__b__c")
      assert.strictEqual(renamed.serverName, "a__b")
      assert.strictEqual(renamed.displayName, "c (a__b MCP Server)")
    }))
})
