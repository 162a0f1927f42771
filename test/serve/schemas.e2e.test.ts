/**
 * Schemas say what the descriptions say, through `toolwright serve` as a host calls it: read_file's
 * offset and limit are bounded in the JSON Schema and refused by it, and the task tools take
 * snake_case params with their old camelCase names still accepted. Run `npm run build` first.
 */
import { assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { Effect } from "effect"
import { connectServe, tempDir } from "../support/serve.js"

type Content = Array<{ type: string; text?: string }>
const textOf = (result: unknown) => ((result as { content: Content }).content).map((c) => c.text ?? "").join("")

describe("honest schemas over toolwright serve", () => {
  it.live("read_file: a negative offset and a zero limit are schema errors; the JSON Schema bounds them", () =>
    Effect.gen(function*() {
      const root = yield* tempDir()
      const state = yield* tempDir()
      fs.writeFileSync(path.join(root, "a.txt"), "one\ntwo\nthree\n")
      const client = yield* connectServe(["--root", root, "--state-dir", state])
      const tools = (yield* Effect.promise(() => client.listTools())).tools
      const read = tools.find((t) => t.name === "read_file")!
      const props = read.inputSchema.properties as Record<string, Record<string, unknown>>
      assert.strictEqual(props["offset"]!["minimum"], 0)
      assert.strictEqual(props["limit"]!["minimum"], 1)

      const negative = yield* Effect.promise(() => client.callTool({ name: "read_file", arguments: { file_path: "a.txt", offset: -9007199254740991 } }))
      assert.isTrue(negative.isError)
      assert.strictEqual(negative._meta?.["toolwright/errorType"], "invalid_tool_params")
      assert.include(textOf(negative), "params.offset: Offset must be a non-negative integer")
      const zero = yield* Effect.promise(() => client.callTool({ name: "read_file", arguments: { file_path: "a.txt", limit: 0 } }))
      assert.include(textOf(zero), "params.limit: Limit must be a positive integer")
      const fine = yield* Effect.promise(() => client.callTool({ name: "read_file", arguments: { file_path: "a.txt", offset: 1, limit: 1 } }))
      assert.include(textOf(fine), "two")
    }), 60_000)

  it.live("task tools: snake_case params listed; camelCase aliases accepted; both spellings at once refused", () =>
    Effect.gen(function*() {
      const root = yield* tempDir()
      const state = yield* tempDir()
      const client = yield* connectServe(["--root", root, "--state-dir", state])
      const call = (name: string, args: Record<string, unknown>) => Effect.promise(() => client.callTool({ name, arguments: args }))

      const tools = (yield* Effect.promise(() => client.listTools())).tools
      const update = tools.find((t) => t.name === "task_update")
      if (update !== undefined) {
        const keys = Object.keys(update.inputSchema.properties ?? {})
        assert.includeMembers(keys, ["task_id", "active_form", "add_blocks", "add_blocked_by"])
        assert.notInclude(keys, "taskId")
      }

      assert.include(textOf(yield* call("task_create", { subject: "Write", description: "d", active_form: "Writing" })), "Task #1 created")
      assert.include(textOf(yield* call("task_create", { subject: "Ship", description: "d", activeForm: "Shipping" })), "Task #2 created")
      const snake = yield* call("task_update", { task_id: "2", add_blocked_by: ["1"] })
      assert.isUndefined(snake.isError, textOf(snake))
      const camel = yield* call("task_update", { taskId: "1", status: "in_progress", activeForm: "Writing it" })
      assert.isUndefined(camel.isError, textOf(camel))
      assert.include(textOf(camel), "Task #1 updated (status: in_progress")
      assert.strictEqual(textOf(yield* call("task_list", { blockedBy: "1" })), "#2 [pending] — Ship (blocked by #1)")
      assert.strictEqual(textOf(yield* call("task_list", { blocked_by: "1" })), "#2 [pending] — Ship (blocked by #1)")

      const both = yield* call("task_update", { task_id: "1", taskId: "2" })
      assert.isTrue(both.isError)
      assert.strictEqual(both._meta?.["toolwright/errorType"], "invalid_tool_params")
      assert.include(textOf(both), "params.taskId: is the deprecated name of task_id")

      const board = JSON.parse(fs.readFileSync(path.join(state, "tasks", "board.json"), "utf8"))
      assert.strictEqual(board.tasks[0].activeForm, "Writing it")
      assert.strictEqual(board.tasks[1].activeForm, "Shipping")
    }), 60_000)
})
