/**
 * The effect/ai door over the real built-in tools: a scripted model reads a file, edits it, runs a
 * shell command and searches, in one agent loop over a real temp workspace.
 */
import { assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { Effect, Layer } from "effect"
import { Approver, makeRecordingApprover } from "../../src/run/approver.js"
import * as SessionLayer from "../../src/run/sessionLayer.js"
import { runAgent, SessionToolkit } from "../../src/serve/effectAi.js"
import { makeTempDir } from "../support/session.js"
import { finish, lastToolResults, scriptedModel, text, toolCall } from "./effectAi.support.js"

describe("effect/ai door over the built-in tools", () => {
  it.live("a scripted model reads a file, edits it, runs a shell command and searches", () =>
    Effect.gen(function*() {
      const root = makeTempDir("tw-ai-tools-")
      fs.mkdirSync(path.join(root, "src"))
      const file = path.join(root, "src", "app.ts")
      fs.writeFileSync(file, "export const greeting = 'hello'\nexport const answer = 42\n")
      const recording = yield* makeRecordingApprover([], { _tag: "proceed_once" })
      const seenByModel: Array<ReadonlyArray<{ name: string; isFailure: boolean; text: string }>> = []
      const observe = (request: { prompt: Parameters<typeof lastToolResults>[0] }) => {
        seenByModel.push(lastToolResults(request.prompt))
      }
      const model = yield* scriptedModel([
        (request) => {
          assert.includeMembers([...request.toolNames], ["edit", "grep_search", "read_file", "run_shell_command", "tool_search"])
          return [toolCall("read", "read_file", { file_path: "src/app.ts" }), finish()]
        },
        (request) => {
          observe(request)
          return [toolCall("edit", "edit", { file_path: "src/app.ts", old_string: "'hello'", new_string: "'hi there'" }), finish()]
        },
        (request) => {
          observe(request)
          return [toolCall("sh", "run_shell_command", { command: "cat src/app.ts && echo shell-ok", description: "show the file" }), finish()]
        },
        (request) => {
          observe(request)
          // two read-only calls in one step: one scheduler batch, run in parallel
          return [toolCall("grep", "grep_search", { pattern: "hi there" }), toolCall("grep2", "grep_search", { pattern: "answer" }), finish()]
        },
        (request) => {
          observe(request)
          return [text("The greeting is now 'hi there'."), finish("stop")]
        }
      ])
      const session = SessionToolkit.layer.pipe(
        Layer.provideMerge(SessionLayer.layer({ roots: [root], stateDir: makeTempDir("tw-ai-tools-state-"), mode: "default" })),
        Layer.provide(Layer.succeed(Approver, recording.approver))
      )
      const result = yield* runAgent({ prompt: "Change the greeting to 'hi there' and check it." }).pipe(
        Effect.provide(Layer.merge(session, model.layer))
      )

      assert.strictEqual(result.stoppedBy, "model")
      assert.strictEqual(result.text, "The greeting is now 'hi there'.")
      const [afterRead, afterEdit, afterShell, afterSearch] = seenByModel
      assert.isFalse(afterRead![0]!.isFailure, afterRead![0]!.text)
      assert.include(afterRead![0]!.text, "export const greeting = 'hello'")
      assert.isFalse(afterEdit![0]!.isFailure, afterEdit![0]!.text)
      assert.strictEqual(fs.readFileSync(file, "utf8"), "export const greeting = 'hi there'\nexport const answer = 42\n")
      assert.isFalse(afterShell![0]!.isFailure, afterShell![0]!.text)
      assert.include(afterShell![0]!.text, "export const greeting = 'hi there'")
      assert.include(afterShell![0]!.text, "shell-ok")
      assert.deepStrictEqual(afterSearch!.map((r) => [r.name, r.isFailure]), [["grep_search", false], ["grep_search", false]])
      assert.include(afterSearch![0]!.text, "app.ts")
      assert.include(afterSearch![0]!.text, "hi there")
      assert.include(afterSearch![1]!.text, "answer = 42")
      assert.strictEqual(result.steps[3]!.batch!.results.length, 2)
      // the edit was put to the approver with its diff
      const asked = yield* recording.requests
      const editRequest = asked.find((r) => r.tool.name === "edit")
      assert.strictEqual(editRequest?.details.type, "edit")
    }), 60_000)
})
