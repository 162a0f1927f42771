import { assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import { Effect } from "effect"
import { connectServeWith, tempDir } from "../support/serve.js"
import { eventually } from "./helpers.js"

type Content = Array<{ type: string; text: string }>
const textOf = (result: unknown) => (result as { readonly content: Content }).content.map((p) => p.text).join("\n")

describe("auto-background of foreground commands, through `toolwright serve`", () => {
  it.live("a command that prompts is moved to the background, and send_message completes it", () =>
    Effect.gen(function*() {
      const root = yield* tempDir()
      const state = yield* tempDir()
      const { client } = yield* connectServeWith({
        args: ["--root", root, "--state-dir", state],
        extraEnv: { TOOLWRIGHT_AUTO_BACKGROUND_IDLE_MS: "1000" }
      })
      const call = (name: string, args: Record<string, unknown>) => Effect.promise(() => client.callTool({ name, arguments: args }))
      const moved = yield* call("run_shell_command", { command: `read -p "Name? " x; echo "hi $x"`, timeout: 60_000 })
      const text = textOf(moved)
      assert.isUndefined(moved.isError, text)
      assert.include(text, "It is waiting for input")
      assert.include(text, "Name?")
      assert.include(text, "send_message")
      const id = /as task (bg_[0-9a-f]{8})/.exec(text)![1]!
      const outputFile = /Its output continues in (.+)\.$/m.exec(text)![1]!
      yield* call("tool_search", { query: "select:send_message,task_stop" })
      const sent = yield* call("send_message", { task_id: id, message: "Ada" })
      assert.isUndefined(sent.isError, textOf(sent))
      assert.isTrue(yield* eventually(() => fs.readFileSync(outputFile, "utf8").includes("hi Ada")), fs.readFileSync(outputFile, "utf8"))
      const status = outputFile.replace(/\.output$/, ".status")
      assert.isTrue(yield* eventually(() => fs.readFileSync(status, "utf8").includes("completed")))
    }), 60_000)

  it.live("with a wall time set, a long command is moved to the background instead of running to its timeout", () =>
    Effect.gen(function*() {
      const root = yield* tempDir()
      const state = yield* tempDir()
      const { client } = yield* connectServeWith({
        args: ["--root", root, "--state-dir", state],
        extraEnv: { TOOLWRIGHT_AUTO_BACKGROUND_AFTER_MS: "1500" }
      })
      const call = (name: string, args: Record<string, unknown>) => Effect.promise(() => client.callTool({ name, arguments: args }))
      const moved = yield* call("run_shell_command", { command: "echo started; sleep 30; echo never", timeout: 60_000 })
      const text = textOf(moved)
      assert.isUndefined(moved.isError, text)
      assert.include(text, "It was still running after")
      assert.include(text, "started")
      const id = /as task (bg_[0-9a-f]{8})/.exec(text)![1]!
      yield* call("tool_search", { query: "select:task_stop" })
      const stopped = yield* call("task_stop", { task_id: id })
      assert.include(textOf(stopped), `Final status: cancelled`)
    }), 60_000)
})
