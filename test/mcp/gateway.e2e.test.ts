import * as fs from "node:fs"
import * as path from "node:path"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { LoggingMessageNotificationSchema, ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js"
import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Queue } from "effect"
import { ADDED_MCP_TOOLS_INTRO } from "../../src/registry/toolSearch/reminder.js"
import { cliPath, tempDir } from "../support/serve.js"
import { isAlive } from "../../src/process/tree.js"
import { eventually, everythingEntry, fixtureEntry, readLog } from "./support.js"

type Content = Array<{ type: string; text?: string }>
const texts = (content: unknown) => (content as Content).flatMap((c) => (c.type === "text" ? [c.text!] : [])).join("\n")

/** Spawns the built `toolwright serve` with the args; handlers are in place before `initialize`. */
const connectGateway = (args: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const listChanged = yield* Queue.unbounded<void>()
    const logs: Array<{ level: string; logger?: string | undefined; data: unknown }> = []
    const client = new Client({ name: "host", version: "0.0.0" }, { capabilities: {} })
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      Queue.offerUnsafe(listChanged, undefined)
    })
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
      logs.push(n.params)
    })
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [cliPath, "serve", ...args],
      stderr: "pipe",
      env: { ...process.env, NO_COLOR: "1" } as Record<string, string>
    })
    yield* Effect.acquireRelease(Effect.promise(() => client.connect(transport)), () => Effect.promise(() => client.close()))
    return { client, listChanged, logs }
  })

describe("toolwright serve --config (the built CLI as an MCP gateway)", () => {
  it.live("host → toolwright → upstreams: tool_search finds an upstream tool, list_changed, the call, and upstream changes flow through", () =>
    Effect.gen(function*() {
      const root = yield* tempDir()
      const state = yield* tempDir()
      const config = path.join(root, "mcp.json")
      const log = path.join(state, "fixture.log")
      fs.writeFileSync(config, JSON.stringify({
        mcpServers: {
          fixture: fixtureEntry({ FIXTURE_LOG: log, FIXTURE_CHILD: "1" }),
          everything: everythingEntry(),
          broken: { command: "toolwright-no-such-command-xyz" },
          invalid: { command: 42 }
        }
      }))
      const { client, listChanged, logs } = yield* connectGateway(["--root", root, "--state-dir", state, "--config", config])

      // initialize: the MCP server instructions first, the deferred-tools reminder last, upstream tools listed.
      const instructions = client.getInstructions() ?? ""
      assert.include(instructions, "### fixture\nUse echo to check the connection.")
      assert.include(instructions, `#### fixture\n- "mcp__fixture__big": "Returns size chars of text."`)
      assert.include(instructions, `- "mcp__fixture__echo": "Echoes a message back."`)
      assert.include(instructions, `- "mcp__everything__echo"`)
      assert.isBelow(instructions.indexOf("### fixture\nUse echo"), instructions.indexOf("#### fixture"))
      assert.deepStrictEqual(client.getServerCapabilities()?.prompts, { listChanged: true })

      // A short tool list: upstream tools are deferred.
      const before = (yield* Effect.promise(() => client.listTools())).tools.map((t) => t.name)
      assert.include(before, "tool_search")
      assert.isFalse(before.some((n) => n.startsWith("mcp__")))

      // The host finds an upstream tool through tool_search and is told the list changed.
      yield* Queue.clear(listChanged)
      const search = yield* Effect.promise(() => client.callTool({ name: "tool_search", arguments: { query: "select:mcp__everything__echo,mcp__fixture__toggle" } }))
      assert.include(texts(search.content), `"name":"mcp__everything__echo"`)
      yield* Queue.take(listChanged).pipe(Effect.timeout("10 seconds"))
      const after = (yield* Effect.promise(() => client.listTools())).tools
      const echo = after.find((t) => t.name === "mcp__everything__echo")!
      assert.strictEqual(echo.title, "echo (everything MCP Server)")
      assert.isTrue(echo.annotations?.readOnlyHint)
      assert.isTrue(echo.annotations?.openWorldHint)

      // ...and calls it.
      const echoed = yield* Effect.promise(() => client.callTool({ name: "mcp__everything__echo", arguments: { message: "through the gateway" } }))
      assert.isUndefined(echoed.isError)
      assert.strictEqual(texts(echoed.content), "Echo: through the gateway")

      // An upstream list_changed reaches the host, and the model is told on the next result.
      yield* Queue.clear(listChanged)
      const toggled = yield* Effect.promise(() => client.callTool({ name: "mcp__fixture__toggle", arguments: {} }))
      assert.include(texts(toggled.content), "extra added")
      yield* Queue.take(listChanged).pipe(Effect.timeout("10 seconds"))
      const next = yield* Effect.promise(() => client.callTool({ name: "mcp__everything__echo", arguments: { message: "again" } }))
      const nextText = texts(next.content)
      assert.include(nextText, "Echo: again")
      assert.include(nextText, ADDED_MCP_TOOLS_INTRO)
      assert.include(nextText, `- "mcp__fixture__extra": "Appears when toggle is called."`)

      // Upstream prompts are prompts of the gateway.
      const prompts = (yield* Effect.promise(() => client.listPrompts())).prompts
      const greet = prompts.find((p) => p.name === "fixture__greet")!
      assert.strictEqual(greet.title, "greet (fixture MCP Server)")
      assert.include(prompts.map((p) => p.name), "everything__simple-prompt")
      const got = yield* Effect.promise(() => client.getPrompt({ name: "fixture__greet", arguments: { name: "Ada" } }))
      assert.deepStrictEqual(got.messages, [{ role: "user", content: { type: "text", text: "Say hello to Ada." } }])
      const unknown = yield* Effect.flip(Effect.tryPromise(() => client.getPrompt({ name: "nope__nothing" })))
      assert.include(String(unknown.cause), `Prompt "nope__nothing" is not offered by any connected MCP server.`)

      // Upstream status reaches the host as log notifications; the bad servers did not stop the others.
      yield* eventually(Effect.sync(() => (logs.length >= 4 ? true : undefined)), "the status log lines")
      const lines = logs.filter((l) => l.logger === "toolwright/mcp").map((l) => `${l.level} ${String(l.data)}`)
      assert.isTrue(lines.some((l) => l.startsWith(`info MCP server "fixture": connected over stdio`)), lines.join("\n"))
      assert.isTrue(lines.some((l) => l.startsWith(`error MCP server "broken": failed`) && l.includes("was not found")), lines.join("\n"))
      assert.isTrue(lines.some((l) => l.startsWith(`error MCP server "invalid": invalid`) && l.includes(`field "command"`)), lines.join("\n"))

      // A failing upstream call keeps its wire code.
      const failed = yield* Effect.promise(() => client.callTool({ name: "tool_search", arguments: { query: "select:mcp__fixture__fail" } }))
      assert.isUndefined(failed.isError)
      const fail = yield* Effect.promise(() => client.callTool({ name: "mcp__fixture__fail", arguments: {} }))
      assert.isTrue(fail.isError)
      assert.strictEqual(fail._meta?.["toolwright/errorType"], "mcp_tool_error")

      // The host leaves: the gateway stops its upstreams, process trees included.
      const { starts, children } = readLog(log)
      assert.isTrue(isAlive(starts[0]!) && isAlive(children[0]!))
      yield* Effect.promise(() => client.close())
      yield* eventually(Effect.sync(() => (!isAlive(starts[0]!) && !isAlive(children[0]!) ? true : undefined)), "the upstream tree to stop")
    }), 90_000)

  it.live("a config file that cannot be used stops serve with a precise message", () =>
    Effect.gen(function*() {
      const root = yield* tempDir()
      const config = path.join(root, "mcp.json")
      fs.writeFileSync(config, "{ not json")
      const { spawnSync } = yield* Effect.promise(() => import("node:child_process"))
      const run = spawnSync(process.execPath, [cliPath, "tools", "--root", root, "--config", config], { encoding: "utf8" })
      assert.notStrictEqual(run.status, 0)
      assert.include(run.stderr + run.stdout, `MCP config file ${config} is not valid JSON`)
    }), 30_000)

  it.live("toolwright tools --config --all lists upstream tools", () =>
    Effect.gen(function*() {
      const root = yield* tempDir()
      const state = yield* tempDir()
      const config = path.join(root, "mcp.json")
      fs.writeFileSync(config, JSON.stringify({ mcpServers: { fixture: fixtureEntry({}, { includeTools: ["echo"] }) } }))
      const { spawnSync } = yield* Effect.promise(() => import("node:child_process"))
      const run = spawnSync(process.execPath, [cliPath, "tools", "--root", root, "--state-dir", state, "--config", config, "--all", "--format", "openai"], { encoding: "utf8" })
      assert.strictEqual(run.status, 0, run.stderr)
      const names = (JSON.parse(run.stdout) as Array<{ function: { name: string } }>).map((t) => t.function.name)
      assert.includeMembers(names, ["mcp__fixture__echo", "read_mcp_resource", "tool_search"])
      assert.notInclude(names, "mcp__fixture__crash")
    }), 30_000)
})
