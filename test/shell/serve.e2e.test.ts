import { assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { Effect, Exit, Scope } from "effect"
import { connectServe, tempDir } from "../support/serve.js"
import { eventually, survivors } from "./helpers.js"

type Content = Array<{ type: string; text: string }>
const textOf = (result: unknown) => ((result as { readonly content: Content }).content)[0]!.text

describe("the shell tools through `toolwright serve` (built CLI, yolo)", () => {
  it.live("runs commands, reports failures with their wire codes, and drives a background shell", () =>
    Effect.gen(function*() {
      const root = yield* tempDir()
      const state = yield* tempDir()
      fs.writeFileSync(path.join(root, "hello.txt"), "hello\n")
      const scope = yield* Scope.make()
      const client = yield* connectServe(["--root", root, "--state-dir", state]).pipe(Scope.provide(scope))
      const callTool = (name: string, args: Record<string, unknown>) => Effect.promise(() => client.callTool({ name, arguments: args }))

      const listed = yield* Effect.promise(() => client.listTools())
      const shell = listed.tools.find((t) => t.name === "run_shell_command")
      assert.isDefined(shell)
      assert.deepStrictEqual(Object.keys((shell!.inputSchema as { properties: object }).properties).sort(), ["command", "description", "directory", "is_background", "sandbox", "timeout"])
      assert.isUndefined(listed.tools.find((t) => t.name === "task_stop"))

      const ok = yield* callTool("run_shell_command", { command: "cat hello.txt && echo done" })
      assert.isUndefined(ok.isError)
      assert.match(textOf(ok), /^Command: cat hello\.txt && echo done\nDirectory: \(root\)\nOutput: hello\r?\ndone\n\nError: \(none\)\nExit Code: 0\nSignal: \(none\)\nProcess Group PGID: \d+$/)

      const failed = yield* callTool("run_shell_command", { command: "exit 4" })
      assert.isTrue(failed.isError)
      assert.strictEqual(failed._meta?.["toolwright/errorType"], "shell_execute_error")
      const timedOut = yield* callTool("run_shell_command", { command: "echo waiting; sleep 1.9", timeout: 300 })
      assert.strictEqual(timedOut._meta?.["toolwright/errorType"], "execution_timeout")
      assert.match(textOf(timedOut), /^Command timed out after 300ms before it could complete\. Below is the output before it timed out:\nwaiting/)
      const refused = yield* callTool("run_shell_command", { command: "pkill node" })
      assert.strictEqual(refused._meta?.["toolwright/errorType"], "invalid_tool_params")

      // background: start, reveal the deferred tools, answer its prompt, stop another
      const started = yield* callTool("run_shell_command", { command: "echo ready; read -r who; echo \"hi $who\"; sleep 30", is_background: true })
      const id = /^id: (bg_[0-9a-f]{8})$/m.exec(textOf(started))![1]!
      const outputFile = /^output file: (.+)$/m.exec(textOf(started))![1]!
      const pid = Number(/^pid: (\d+)$/m.exec(textOf(started))![1])
      yield* callTool("tool_search", { query: "select:send_message,task_stop" })
      assert.isTrue(yield* eventually(() => fs.readFileSync(outputFile, "utf8").includes("ready")))
      const sent = yield* callTool("send_message", { task_id: id, message: "serve" })
      assert.isUndefined(sent.isError, textOf(sent))
      assert.isTrue(yield* eventually(() => fs.readFileSync(outputFile, "utf8").includes("hi serve")))

      const other = yield* callTool("run_shell_command", { command: "sleep 60", is_background: true })
      const otherId = /^id: (bg_[0-9a-f]{8})$/m.exec(textOf(other))![1]!
      const stopped = yield* callTool("task_stop", { task_id: otherId })
      assert.include(textOf(stopped), `Cancellation requested for background shell "${otherId}". Final status: cancelled`)
      const unknown = yield* callTool("task_stop", { task_id: "bg_00000000" })
      assert.strictEqual(unknown._meta?.["toolwright/errorType"], "task_stop_not_found")

      // closing the connection ends the session: the still-running background shell dies
      assert.lengthOf(survivors([pid]), 1)
      yield* Scope.close(scope, Exit.void)
      assert.isTrue(yield* eventually(() => survivors([pid]).length === 0, 10_000))
    }), 60_000)
})
