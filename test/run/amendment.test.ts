/**
 * The pieces of amended approvals at their edges: the note and its diff bound, the elicitation
 * form's editable field and its size bound, reading the form back, and the editor's trailing
 * newline. (The whole flow is tested through the doors: test/serve/amend.e2e.test.ts and
 * test/cli/amend.e2e.test.ts.)
 */
import { assert, describe, it } from "@effect/vitest"
import { savedValue } from "../../src/cli/editor.js"
import { AMENDMENT_DIFF_MAX_CHARS, amendmentNote, withAmendment } from "../../src/run/amendment.js"
import type { ApprovalRequest } from "../../src/run/index.js"
import { approvalForm, MAX_AMENDABLE_CHARS, outcomeFromForm } from "../../src/serve/elicitation.js"
import type { CallResult } from "../../src/tool/index.js"

const success: CallResult = {
  _tag: "Success",
  callId: "c1",
  name: "write_file",
  llmContent: [{ type: "text", text: "Successfully overwrote file: /w/a.txt." }],
  text: "",
  display: "",
  resultFilePaths: [],
  data: null
}

const execRequest = (proposal: string): ApprovalRequest => ({
  tool: { name: "run_shell_command" } as ApprovalRequest["tool"],
  description: proposal,
  details: { type: "exec", title: "Confirm Shell Command", command: proposal, rootCommand: "touch", amendable: { param: "command", proposal } }
})

describe("the note on an amended call", () => {
  it("counts the person's lines and characters and shows their diff, after the tool's text", () => {
    const applied = { param: "content" as const, proposal: "one\ntwo\n", value: "one\nTWO\nthree\n" }
    const result = withAmendment(success, applied)
    assert.strictEqual(result._tag, "Success")
    if (result._tag !== "Success") return
    assert.deepStrictEqual(result.userModified, {
      param: "content",
      proposal: "one\ntwo\n",
      applied: "one\nTWO\nthree\n",
      diffStat: { user_added_lines: 2, user_removed_lines: 1, user_added_chars: 8, user_removed_chars: 3 }
    })
    assert.deepStrictEqual(result.llmContent.map((p) => (p.type === "text" ? p.text : "")), [
      "Successfully overwrote file: /w/a.txt.",
      "The user modified your proposal before applying it: the content that was applied is theirs, not yours " +
      "(2 lines added, 1 line removed by the user). Their content, as a diff from your proposal:\n" +
      "@@ -1,2 +1,3 @@\n one\n-two\n+TWO\n+three\n" +
      "Build on the user's version from here on; do not put your original back."
    ])
  })

  it(`cuts the diff at AMENDMENT_DIFF_MAX_CHARS (${AMENDMENT_DIFF_MAX_CHARS}) and says so`, () => {
    const short = amendmentNote({ param: "content", proposal: "a\n", value: `${"b".repeat(100)}\n` }, true)
    assert.notInclude(short, "diff cut")
    const long = amendmentNote({ param: "content", proposal: "a\n", value: `${"b".repeat(AMENDMENT_DIFF_MAX_CHARS)}\n` }, true)
    assert.include(long, `\n… (diff cut at ${AMENDMENT_DIFF_MAX_CHARS} characters)\nBuild on the user's version`)
    const diff = long.slice(long.indexOf("@@"), long.indexOf("\n… (diff cut"))
    assert.strictEqual(diff.length, AMENDMENT_DIFF_MAX_CHARS)
  })

  it("follows a failure's message, and leaves a cancellation alone", () => {
    const applied = { param: "command" as const, proposal: "touch a", value: "rm a" }
    const failed = withAmendment({ _tag: "Failure", callId: "c", name: "run_shell_command", code: "execution_denied", message: "denied.", display: "denied." }, applied)
    assert.strictEqual(failed._tag === "Failure" && failed.message.split("\n\n")[1]!.split(":")[0], "The user modified your proposal before approving it")
    const cancelled: CallResult = { _tag: "Cancelled", callId: "c", name: "x", message: "no" }
    assert.strictEqual(withAmendment(cancelled, applied), cancelled)
  })
})

describe("the elicitation approval form", () => {
  it(`offers the proposal as an editable field up to MAX_AMENDABLE_CHARS (${MAX_AMENDABLE_CHARS}), not beyond`, () => {
    const at = approvalForm(execRequest("x".repeat(MAX_AMENDABLE_CHARS)))
    assert.strictEqual(at.requestedSchema.properties["command"]?.["default"], "x".repeat(MAX_AMENDABLE_CHARS))
    const over = approvalForm(execRequest("x".repeat(MAX_AMENDABLE_CHARS + 1)))
    assert.deepStrictEqual(Object.keys(over.requestedSchema.properties), ["decision"])
    assert.deepStrictEqual(at.requestedSchema.required, ["decision"])
  })

  it("reads a changed field as the amendment; an unchanged or missing one as none", () => {
    const request = execRequest("touch a")
    assert.deepStrictEqual(outcomeFromForm(request, { decision: "proceed_once", command: "touch b" }), {
      _tag: "proceed_once",
      amended: { param: "command", value: "touch b" }
    })
    assert.deepStrictEqual(outcomeFromForm(request, { decision: "proceed_always", command: "touch b" }), {
      _tag: "proceed_always",
      amended: { param: "command", value: "touch b" }
    })
    assert.deepStrictEqual(outcomeFromForm(request, { decision: "proceed_once", command: "touch a" }), { _tag: "proceed_once" })
    assert.deepStrictEqual(outcomeFromForm(request, { decision: "proceed_once" }), { _tag: "proceed_once" })
    assert.deepStrictEqual(outcomeFromForm(request, { decision: "cancel", command: "touch b" }), { _tag: "cancel", reason: "the user denied it" })
  })
})

describe("the text an editor saved", () => {
  it("drops the trailing newline the editor added to a proposal that had none, and nothing else", () => {
    assert.strictEqual(savedValue("bye", "ciao\n"), "ciao")
    assert.strictEqual(savedValue("bye", "ciao\r\n"), "ciao")
    assert.strictEqual(savedValue("bye", "ciao\n\n"), "ciao\n")
    assert.strictEqual(savedValue("one\n", "two\n"), "two\n")
    assert.strictEqual(savedValue("one\n", "two"), "two")
  })
})
