/**
 * Amended approvals through the serve door: the client's elicitation handler changes the proposed
 * `new_string` / `content` / `command` in the approval form, and the amended call goes through the
 * tool's own checks and the policy; the result tells the model what the person changed.
 */
import { assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import type { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js"
import { Effect } from "effect"
import { connectServe, tempDir } from "../support/serve.js"

interface Asked {
  readonly message: string
  readonly properties: Record<string, Record<string, unknown>>
}

/** A served session whose elicitation handler answers with `answer(form)`; the forms are recorded. */
const serveAsking = (extra: ReadonlyArray<string>, answer: (asked: Asked) => Record<string, unknown>) =>
  Effect.gen(function*() {
    const root = yield* tempDir("tw-amend-")
    const state = yield* tempDir("tw-amend-state-")
    const client: Client = yield* connectServe(["--root", root, "--state-dir", state, "--approval", "default", ...extra], { elicitation: {} })
    const asked: Array<Asked> = []
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      const form = {
        message: request.params.message,
        properties: (request.params as { requestedSchema: { properties: Record<string, Record<string, unknown>> } }).requestedSchema.properties
      }
      asked.push(form)
      return { action: "accept", content: answer(form) }
    })
    const call = (name: string, args: Record<string, unknown>) =>
      Effect.promise(() => client.callTool({ name, arguments: args }) as Promise<CallResult>)
    return { root, asked, call }
  })

interface CallResult {
  readonly content: unknown
  readonly isError?: boolean
  readonly _meta?: Record<string, unknown>
}

const textOf = (result: CallResult) => (result.content as Array<{ type: string; text: string }>).map((p) => p.text).join("\n")

describe("toolwright serve: a person amends a proposal in the elicitation form", () => {
  it.live("an edit's new_string: the form holds the proposal, the person's version is written, the model is told", () =>
    Effect.gen(function*() {
      const s = yield* serveAsking([], () => ({ decision: "proceed_once", new_string: "ciao" }))
      const file = path.join(s.root, "a.txt")
      fs.writeFileSync(file, "hello world\nsecond line\n")
      yield* s.call("read_file", { file_path: file })
      const result = yield* s.call("edit", { file_path: file, old_string: "hello", new_string: "bye" })
      assert.isUndefined(result.isError, textOf(result))
      assert.strictEqual(fs.readFileSync(file, "utf8"), "ciao world\nsecond line\n")
      assert.deepStrictEqual(s.asked[0]!.properties["new_string"]?.["default"], "bye")
      assert.strictEqual(s.asked[0]!.properties["new_string"]?.["type"], "string")
      const parts = result.content as Array<{ type: string; text: string }>
      assert.strictEqual(
        parts.at(-1)!.text,
        "The user modified your proposal before applying it: the new_string that was applied is theirs, not yours " +
          "(1 line added, 1 line removed by the user). Their new_string, as a diff from your proposal:\n" +
          "@@ -1,1 +1,1 @@\n-bye\n+ciao\n" +
          "Build on the user's version from here on; do not put your original back."
      )
      assert.include(parts[0]!.text, `The file: ${file} has been updated.`)
      assert.deepStrictEqual(result._meta?.["toolwright/userModified"], {
        param: "new_string",
        diffStat: { user_added_lines: 1, user_removed_lines: 1, user_added_chars: 4, user_removed_chars: 3 }
      })
    }), 60_000)

  it.live("a write_file's content: the file holds the person's content; unchanged answers apply the proposal", () =>
    Effect.gen(function*() {
      const s = yield* serveAsking([], (form) =>
        form.message.includes("b.txt")
          ? { decision: "proceed_once", content: "one\nTWO\nthree\n" }
          : { decision: "proceed_once", content: form.properties["content"]?.["default"] })
      const b = path.join(s.root, "b.txt")
      const written = yield* s.call("write_file", { file_path: b, content: "one\ntwo\n" })
      assert.isUndefined(written.isError, textOf(written))
      assert.strictEqual(fs.readFileSync(b, "utf8"), "one\nTWO\nthree\n")
      assert.include(textOf(written), `Successfully created and wrote to new file: ${b}.`)
      assert.include(
        textOf(written),
        "The user modified your proposal before applying it: the content that was applied is theirs, not yours " +
          "(2 lines added, 1 line removed by the user). Their content, as a diff from your proposal:\n" +
          "@@ -1,2 +1,3 @@\n one\n-two\n+TWO\n+three\n"
      )
      assert.deepStrictEqual(written._meta?.["toolwright/userModified"], {
        param: "content",
        diffStat: { user_added_lines: 2, user_removed_lines: 1, user_added_chars: 8, user_removed_chars: 3 }
      })
      // the form sent back as it came (the field at its default): the proposal is applied, no note
      const c = path.join(s.root, "c.txt")
      const plain = yield* s.call("write_file", { file_path: c, content: "as proposed\n" })
      assert.strictEqual(fs.readFileSync(c, "utf8"), "as proposed\n")
      assert.notInclude(textOf(plain), "The user modified")
      assert.isUndefined(plain._meta?.["toolwright/userModified"])
    }), 60_000)

  it.live("a command: the person's command runs instead of the model's", () =>
    Effect.gen(function*() {
      const s = yield* serveAsking([], () => ({ decision: "proceed_once", command: "touch amended.txt" }))
      const result = yield* s.call("run_shell_command", { command: "touch proposed.txt" })
      assert.isUndefined(result.isError, textOf(result))
      assert.isTrue(fs.existsSync(path.join(s.root, "amended.txt")))
      assert.isFalse(fs.existsSync(path.join(s.root, "proposed.txt")))
      assert.strictEqual(s.asked[0]!.properties["command"]?.["default"], "touch proposed.txt")
      assert.include(
        textOf(result),
        "The user modified your proposal before applying it: the command that was applied is theirs, not yours " +
          "(1 line added, 1 line removed by the user). Their command, as a diff from your proposal:\n" +
          "@@ -1,1 +1,1 @@\n-touch proposed.txt\n+touch amended.txt\n" +
          "Build on the user's version from here on; do not put your original back."
      )
    }), 60_000)

  it.live("an amended command the policy denies is denied: the approval does not approve it", () =>
    Effect.gen(function*() {
      const s = yield* serveAsking(["--deny", "run_shell_command(rm *)"], () => ({ decision: "proceed_once", command: "rm keep.txt" }))
      fs.writeFileSync(path.join(s.root, "keep.txt"), "keep\n")
      const result = yield* s.call("run_shell_command", { command: "touch proposed.txt" })
      assert.isTrue(result.isError)
      assert.strictEqual(result._meta?.["toolwright/errorType"], "execution_denied")
      assert.isTrue(fs.existsSync(path.join(s.root, "keep.txt")))
      assert.isFalse(fs.existsSync(path.join(s.root, "proposed.txt")))
      const text = textOf(result)
      assert.isTrue(
        text.startsWith(
          `toolwright requires permission to use run_shell_command, but that permission was declined (the permission rule "run_shell_command(rm *)" denies it).\n\n` +
            "The user modified your proposal before approving it: the command above is theirs, not yours (1 line added, 1 line removed by the user)."
        ),
        text
      )
      assert.deepStrictEqual((result._meta?.["toolwright/userModified"] as { param: string }).param, "command")
    }), 60_000)

  it.live("an amended new_string equal to old_string is the edit's usual no-change error; nothing is written", () =>
    Effect.gen(function*() {
      const s = yield* serveAsking([], () => ({ decision: "proceed_once", new_string: "hello" }))
      const file = path.join(s.root, "a.txt")
      fs.writeFileSync(file, "hello world\n")
      yield* s.call("read_file", { file_path: file })
      const result = yield* s.call("edit", { file_path: file, old_string: "hello", new_string: "bye" })
      assert.isTrue(result.isError)
      assert.strictEqual(result._meta?.["toolwright/errorType"], "edit_no_change")
      assert.strictEqual(fs.readFileSync(file, "utf8"), "hello world\n")
      assert.include(textOf(result), `No changes to apply. The old_string and new_string are identical in file: ${file}`)
      assert.include(textOf(result), "The user modified your proposal before approving it: the new_string above is theirs")
    }), 60_000)
})
