import { assert, describe, it } from "@effect/vitest"
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js"
import { Effect } from "effect"
import { connectServeWith, tempDir } from "../support/serve.js"

type Content = Array<{ type: string; text: string }>
const textOf = (result: unknown) => (result as { readonly content: Content }).content.map((p) => p.text).join("\n")
const listedNames = (client: { listTools: () => Promise<{ tools: Array<{ name: string }> }> }) =>
  Effect.map(Effect.promise(() => client.listTools()), (r) => r.tools.map((t) => t.name))

describe("deferred tools in a host that never re-lists: `toolwright serve --deferred proxy`", () => {
  it.live("tool_search reveals task_stop and call_tool calls it; unrevealed and unknown names are refused", () =>
    Effect.gen(function*() {
      const root = yield* tempDir()
      const state = yield* tempDir()
      const { client } = yield* connectServeWith({ args: ["--root", root, "--state-dir", state, "--deferred", "proxy"] })
      // a host that ignores list_changed: it lists once and never again
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => undefined)
      const call = (name: string, args: Record<string, unknown>) => Effect.promise(() => client.callTool({ name, arguments: args }))
      const listed = yield* listedNames(client)
      assert.include(listed, "call_tool")
      assert.notInclude(listed, "task_stop")
      assert.deepStrictEqual(listed, [...listed].sort())

      const started = textOf(yield* call("run_shell_command", { command: "sleep 60", is_background: true }))
      const id = /^id: (bg_[0-9a-f]{8})$/m.exec(started)![1]!

      const early = yield* call("call_tool", { name: "task_stop", arguments: { task_id: id } })
      assert.isTrue(early.isError)
      assert.strictEqual(early._meta?.["toolwright/errorType"], "tool_not_registered")
      assert.include(textOf(early), `tool_search with query "select:task_stop"`)
      const unknown = yield* call("call_tool", { name: "no_such_tool", arguments: {} })
      assert.strictEqual(unknown._meta?.["toolwright/errorType"], "tool_not_registered")
      assert.include(textOf(unknown), "tool_search")
      const malformed = yield* call("call_tool", { arguments: {} })
      assert.strictEqual(malformed._meta?.["toolwright/errorType"], "invalid_tool_params")

      yield* call("tool_search", { query: "select:task_stop" })
      const stopped = yield* call("call_tool", { name: "task_stop", arguments: { task_id: id } })
      assert.isUndefined(stopped.isError, textOf(stopped))
      assert.include(textOf(stopped), `Cancellation requested for background shell "${id}". Final status: cancelled`)
      // through the same validation as a direct call
      const invalid = yield* call("call_tool", { name: "task_stop", arguments: {} })
      assert.strictEqual(invalid._meta?.["toolwright/errorType"], "invalid_tool_params")
    }), 60_000)

  it.live("the default follows clientInfo.name (Qwen Code: proxy; an unknown host: list-changed); the flag overrides it", () =>
    Effect.gen(function*() {
      const root = yield* tempDir()
      const state = yield* tempDir()
      const args = ["--root", root, "--state-dir", state]
      const qwen = yield* connectServeWith({ args, clientName: "qwen-cli-mcp-client-toolwright" })
      assert.include(yield* listedNames(qwen.client), "call_tool")
      const other = yield* connectServeWith({ args })
      assert.notInclude(yield* listedNames(other.client), "call_tool")
      const overridden = yield* connectServeWith({ args: [...args, "--deferred", "list-changed"], clientName: "qwen-cli-mcp-client-toolwright" })
      assert.notInclude(yield* listedNames(overridden.client), "call_tool")
      // without proxy, call_tool is no tool at all
      const direct = yield* Effect.promise(() => other.client.callTool({ name: "call_tool", arguments: { name: "task_stop" } }))
      assert.strictEqual(direct._meta?.["toolwright/errorType"], "tool_not_registered")
    }), 60_000)

  it.live("--deferred off lists every tool up front; TOOLWRIGHT_DEFERRED sets the mode too", () =>
    Effect.gen(function*() {
      const root = yield* tempDir()
      const state = yield* tempDir()
      const off = yield* connectServeWith({ args: ["--root", root, "--state-dir", state, "--deferred", "off"] })
      const all = yield* listedNames(off.client)
      assert.includeMembers(all, ["task_stop", "send_message", "read_file"])
      assert.notInclude(all, "call_tool")
      const stopped = yield* Effect.promise(() => off.client.callTool({ name: "task_stop", arguments: { task_id: "bg_00000000" } }))
      assert.strictEqual(stopped._meta?.["toolwright/errorType"], "task_stop_not_found")
      const byEnv = yield* connectServeWith({ args: ["--root", root, "--state-dir", state], extraEnv: { TOOLWRIGHT_DEFERRED: "proxy" } })
      assert.include(yield* listedNames(byEnv.client), "call_tool")
    }), 60_000)
})
