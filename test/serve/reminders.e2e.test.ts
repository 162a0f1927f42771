import { assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { LoggingMessageNotificationSchema } from "@modelcontextprotocol/sdk/types.js"
import { Effect } from "effect"
import { eventually } from "../shell/helpers.js"
import { connectServe, tempDir } from "../support/serve.js"

type Content = Array<{ type: string; text: string }>
const partsOf = (result: unknown) => (result as { readonly content: Content }).content.map((part) => part.text)

describe("reminders the model sees, through `toolwright serve`", () => {
  it.live("a finished background shell reaches the model once, on the next tool result, with its exit code and output file", () =>
    Effect.gen(function*() {
      const root = yield* tempDir()
      const state = yield* tempDir()
      fs.writeFileSync(path.join(root, "a.txt"), "alpha\n")
      const client = yield* connectServe(["--root", root, "--state-dir", state])
      const logged: Array<unknown> = []
      client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logged.push(n.params.data))
      const call = (name: string, args: Record<string, unknown>) => Effect.promise(() => client.callTool({ name, arguments: args }))

      const started = partsOf(yield* call("run_shell_command", { command: "echo from-bg; exit 3", is_background: true })).join("\n")
      const id = /^id: (bg_[0-9a-f]{8})$/m.exec(started)![1]!
      const outputFile = /^output file: (.+)$/m.exec(started)![1]!
      const statusFile = outputFile.replace(/\.output$/, ".status")
      assert.isTrue(yield* eventually(() => fs.existsSync(statusFile) && fs.readFileSync(statusFile, "utf8").includes("failed")))

      const first = partsOf(yield* call("read_file", { file_path: "a.txt" }))
      assert.include(first[0]!, "alpha")
      const reminder = first.at(-1)!
      assert.match(reminder, /^<system-reminder>\n[\s\S]*\n<\/system-reminder>$/)
      assert.include(reminder, `Background task ${id} ended`)
      assert.include(reminder, "exit code 3")
      assert.include(reminder, outputFile)
      assert.lengthOf(first.filter((part) => part.includes("<system-reminder>")), 1)

      const second = partsOf(yield* call("read_file", { file_path: "a.txt" }))
      assert.isFalse(second.some((part) => part.includes(id)), "a reminder is attached once")
      // the host's log still hears the full <task-notification>
      assert.isTrue(yield* eventually(() => logged.some((data) => String(data).includes(`<task-id>${id}</task-id>`))))
    }), 60_000)
})
