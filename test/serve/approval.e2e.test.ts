import { assert, describe, it } from "@effect/vitest"
import * as path from "node:path"
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js"
import { Effect } from "effect"
import { connectServe, repoRoot, tempDir } from "../support/serve.js"

const toolsModule = path.join(repoRoot, "test", "fixtures", "serve", "tools.mjs")

describe("toolwright serve --approval default: asking through MCP elicitation", () => {
  it.live("an ask decision round-trips through the client's elicitation handler", () =>
    Effect.gen(function*() {
      const root = yield* tempDir()
      const state = yield* tempDir()
      const client = yield* connectServe(
        ["--root", root, "--state-dir", state, "--tools-module", toolsModule, "--approval", "default"],
        { elicitation: {} }
      )
      const asked: Array<string> = []
      const answers = ["proceed_once", "cancel"]
      client.setRequestHandler(ElicitRequestSchema, (request) => {
        asked.push(request.params.message)
        const decision = answers.shift()
        return decision === "cancel" ? { action: "decline" } : { action: "accept", content: { decision } }
      })
      const allowed = yield* Effect.promise(() => client.callTool({ name: "size_of", arguments: { file_path: "abcd" } }))
      // a path param reaches the tool resolved against the workspace
      assert.deepStrictEqual(allowed.content, [{ type: "text", text: `length ${path.join(root, "abcd").length}` }])
      const declined = yield* Effect.promise(() => client.callTool({ name: "size_of", arguments: { file_path: "xy" } }))
      assert.isTrue(declined.isError)
      assert.strictEqual(declined._meta?.["toolwright/cancelled"], true)
      assert.include((declined.content as Array<{ text: string }>)[0]!.text, "The user declined this size_of call")
      assert.strictEqual(asked.length, 2)
      assert.include(asked[0]!, `size of ${path.join(root, "abcd")}`)
    }), 60_000)

  it.live("without elicitation, an ask decision is refused with a message the model can act on", () =>
    Effect.gen(function*() {
      const root = yield* tempDir()
      const state = yield* tempDir()
      const client = yield* connectServe(["--root", root, "--state-dir", state, "--tools-module", toolsModule, "--approval", "default"])
      const result = yield* Effect.promise(() => client.callTool({ name: "size_of", arguments: { file_path: "abcd" } }))
      assert.isTrue(result.isError)
      const text = (result.content as Array<{ text: string }>)[0]!.text
      assert.include(text, "the host cannot ask for approval")
      assert.include(text, "no one could be asked")
      assert.include(text, "--approval")
      assert.notInclude(text, "The user declined")
      // tool_search changes nothing a host must approve: hosts that auto-allow read-only tools allow it
      const listed = yield* Effect.promise(() => client.listTools())
      const search = listed.tools.find((t) => t.name === "tool_search")
      assert.strictEqual(search?.annotations?.readOnlyHint, true)
    }), 60_000)
})
