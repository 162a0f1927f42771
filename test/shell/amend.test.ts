/**
 * Amended commands through the scheduler with a scripted approver: an amendment answered with
 * "always" is remembered for the amended command's parts (not the proposal's); an amendment the
 * call does not offer, and an amended command that fails the tool's validation, are refused with
 * the tool's typed errors and nothing runs.
 */
import { assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { Effect } from "effect"
import { call, codeOf, textOf, withSession } from "./helpers.js"

describe("run_shell_command: amended approvals", () => {
  it.live("\"always\" with an amendment covers the amended command, not the proposal", () =>
    withSession({
      settings: { pty: "off" },
      mode: "default",
      answers: [{ _tag: "proceed_always", amended: { param: "command", value: "touch amended.txt" } }, { _tag: "cancel", reason: "no" }]
    }, (s) =>
      Effect.gen(function*() {
        const first = yield* call("run_shell_command", { command: "touch proposed.txt" })
        assert.strictEqual(codeOf(first), "Success", textOf(first))
        assert.isTrue(fs.existsSync(path.join(s.root, "amended.txt")))
        assert.isFalse(fs.existsSync(path.join(s.root, "proposed.txt")))
        // the amended command again: covered by the "always", not asked
        assert.strictEqual(codeOf(yield* call("run_shell_command", { command: "touch amended.txt" })), "Success")
        assert.strictEqual((yield* s.requests).length, 1)
        // the proposal itself was never approved: asked (and declined)
        assert.strictEqual(codeOf(yield* call("run_shell_command", { command: "touch proposed.txt" })), "Cancelled")
        assert.strictEqual((yield* s.requests).length, 2)
        assert.isFalse(fs.existsSync(path.join(s.root, "proposed.txt")))
      })), 30_000)

  it.live("an amendment of a parameter the call does not offer, or one the tool rejects, is invalid_tool_params; nothing runs", () =>
    withSession({
      settings: { pty: "off" },
      mode: "default",
      answers: [
        { _tag: "proceed_once", amended: { param: "new_string", value: "touch other.txt" } },
        { _tag: "proceed_once", amended: { param: "command", value: "   " } }
      ]
    }, (s) =>
      Effect.gen(function*() {
        const wrong = yield* call("run_shell_command", { command: "touch proposed.txt" })
        assert.strictEqual(codeOf(wrong), "invalid_tool_params")
        assert.strictEqual(
          textOf(wrong),
          `The approval amended "new_string", which this run_shell_command call does not offer for amendment; it did not run. ` +
            `Retry the call; the user will be asked again.`
        )
        const empty = yield* call("run_shell_command", { command: "touch proposed.txt" })
        assert.strictEqual(codeOf(empty), "invalid_tool_params")
        assert.isTrue(
          textOf(empty).startsWith(
            "Command cannot be empty.\n\nThe user modified your proposal before approving it: the command above is theirs, not yours " +
              "(1 line added, 1 line removed by the user)."
          ),
          textOf(empty)
        )
        assert.deepStrictEqual(fs.readdirSync(s.root), [])
      })), 30_000)
})
