import { assert, describe, it } from "@effect/vitest"
import * as path from "node:path"
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js"
import { Deferred, Effect } from "effect"
import { connectServe, repoRoot, tempDir } from "../support/serve.js"

const toolsModule = path.join(repoRoot, "test", "fixtures", "serve", "tools.mjs")

describe("toolwright serve (stdio, the built CLI)", () => {
  it.live("lists tools, reveals a deferred tool through tool_search, notifies list_changed, and runs it", () =>
    Effect.gen(function*() {
      const root = yield* tempDir()
      const state = yield* tempDir()
      const client = yield* connectServe(["--root", root, "--state-dir", state, "--tools-module", toolsModule])

      const instructions = client.getInstructions() ?? ""
      assert.include(instructions, "<system-reminder>")
      assert.include(instructions, `- "echo_deferred": "Echoes a message back. Deferred: reachable through tool_search."`)

      const before = yield* Effect.promise(() => client.listTools())
      const beforeNames = before.tools.map((t) => t.name)
      assert.includeMembers(beforeNames, ["size_of", "tool_search"])
      assert.notInclude(beforeNames, "echo_deferred")
      assert.deepStrictEqual(beforeNames, [...beforeNames].sort((a, b) => a.localeCompare(b)))
      assert.strictEqual(before.tools.find((t) => t.name === "tool_search")!.annotations?.readOnlyHint, true)

      const changed = yield* Deferred.make<void>()
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
        Deferred.doneUnsafe(changed, Effect.void)
      })

      const search = yield* Effect.promise(() =>
        client.callTool({ name: "tool_search", arguments: { query: "select:echo_deferred" } })
      )
      assert.isUndefined(search.isError)
      const text = (search.content as Array<{ type: string; text: string }>)[0]!.text
      assert.match(text, /^<functions>\n<function>\{"name":"echo_deferred"/)
      yield* Deferred.await(changed).pipe(Effect.timeout("5 seconds"))

      const after = yield* Effect.promise(() => client.listTools())
      assert.deepStrictEqual(after.tools.map((t) => t.name).sort(), [...beforeNames, "echo_deferred"].sort())

      const echoed = yield* Effect.promise(() => client.callTool({ name: "echo_deferred", arguments: { message: "hi" } }))
      assert.deepStrictEqual(echoed.content, [{ type: "text", text: "echo: hi" }])
    }), 60_000)

  it.live("reports failures with isError and the wire code in _meta", () =>
    Effect.gen(function*() {
      const root = yield* tempDir()
      const state = yield* tempDir()
      const client = yield* connectServe(["--root", root, "--state-dir", state, "--tools-module", toolsModule])

      const unknown = yield* Effect.promise(() => client.callTool({ name: "no_such_tool", arguments: {} }))
      assert.isTrue(unknown.isError)
      assert.strictEqual(unknown._meta?.["toolwright/errorType"], "tool_not_registered")

      const invalid = yield* Effect.promise(() => client.callTool({ name: "size_of", arguments: { file_path: 3 } }))
      assert.isTrue(invalid.isError)
      assert.strictEqual(invalid._meta?.["toolwright/errorType"], "invalid_tool_params")
      assert.include((invalid.content as Array<{ text: string }>)[0]!.text, "params.file_path")

      const failed = yield* Effect.promise(() => client.callTool({ name: "tool_search", arguments: { query: "select:echo_deferred" } }))
      assert.isUndefined(failed.isError)
      const fail = yield* Effect.promise(() => client.callTool({ name: "echo_deferred", arguments: { message: "fail" } }))
      assert.isTrue(fail.isError)
      assert.strictEqual(fail._meta?.["toolwright/errorType"], "execution_failed")
      assert.deepStrictEqual(fail.content, [{ type: "text", text: "asked to fail" }])

      // yolo (the default) allows an `ask` tool inside the workspace
      const ok = yield* Effect.promise(() => client.callTool({ name: "size_of", arguments: { file_path: "abc" } }))
      // a path param reaches the tool resolved against the workspace
      assert.deepStrictEqual(ok.content, [{ type: "text", text: `length ${path.join(root, "abc").length}` }])
    }), 60_000)
})
