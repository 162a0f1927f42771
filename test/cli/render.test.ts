import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { TestClock } from "effect/testing"
import { NO_TERMINAL_REASON, parseParams, terminalApprover } from "../../src/cli/call.js"
import {
  colorEnabled,
  makeSpinner,
  renderApproval,
  renderDiff,
  renderProblem,
  renderStructured,
  renderSuccessBody,
  renderTodos,
  resultToJson,
  spinnerLine,
  stripAnsi
} from "../../src/cli/render.js"
import { parseScript } from "../../src/cli/run.js"
import { Kind } from "../../src/tool/kind.js"
import type { ToolInfo } from "../../src/tool/tool.js"

const diff = "Index: a.txt\n===\n--- a.txt\tCurrent\n+++ a.txt\tProposed\n@@ -1,2 +1,2 @@\n-hello\n+bye\n same\n\\ No newline at end of file"

describe("render", () => {
  it("colour: NO_COLOR wins, then FORCE_COLOR, then isTTY", () => {
    assert.isTrue(colorEnabled({ isTTY: true }, {}))
    assert.isFalse(colorEnabled({ isTTY: false }, {}))
    assert.isFalse(colorEnabled({ isTTY: true }, { NO_COLOR: "1", FORCE_COLOR: "1" }))
    assert.isTrue(colorEnabled({ isTTY: false }, { FORCE_COLOR: "1" }))
    assert.isFalse(colorEnabled({ isTTY: true }, { FORCE_COLOR: "0" }))
    assert.isTrue(colorEnabled({ isTTY: true }, { NO_COLOR: "" }))
  })

  it("diffs: + green, - red, hunks cyan, headers bold; plain without colour", () => {
    const lines = renderDiff(diff, true).split("\n")
    assert.strictEqual(lines[2], "\x1b[1m--- a.txt\tCurrent\x1b[0m")
    assert.strictEqual(lines[3], "\x1b[1m+++ a.txt\tProposed\x1b[0m")
    assert.strictEqual(lines[4], "\x1b[36m@@ -1,2 +1,2 @@\x1b[0m")
    assert.strictEqual(lines[5], "\x1b[31m-hello\x1b[0m")
    assert.strictEqual(lines[6], "\x1b[32m+bye\x1b[0m")
    assert.strictEqual(lines[7], " same")
    assert.strictEqual(lines[8], "\x1b[2m\\ No newline at end of file\x1b[0m")
    assert.strictEqual(renderDiff(diff, false), diff)
    assert.strictEqual(stripAnsi(renderDiff(diff, true)), diff)
  })

  it("todos as a checklist", () => {
    const todos = [
      { id: "1", content: "read", status: "completed" },
      { id: "2", content: "edit", status: "in_progress" },
      { id: "3", content: "test", status: "pending" }
    ]
    assert.strictEqual(renderTodos(todos, false), "[x] read\n[~] edit\n[ ] test")
    assert.strictEqual(renderTodos(todos, true), "\x1b[32m[x]\x1b[0m \x1b[2mread\x1b[0m\n\x1b[33m[~]\x1b[0m \x1b[1medit\x1b[0m\n[ ] test")
    assert.strictEqual(renderTodos([], false), "(no todos)")
  })

  it("structured displays; ANSI kept only with colour", () => {
    assert.isUndefined(renderStructured("plain", true))
    assert.strictEqual(renderStructured({ _tag: "AnsiOutput", ansi: "\x1b[31mred\x1b[0m \x1b]0;title\x07x" }, false), "red x")
    assert.strictEqual(renderStructured({ _tag: "AnsiOutput", ansi: "\x1b[31mred\x1b[0m" }, true), "\x1b[31mred\x1b[0m")
    assert.strictEqual(
      renderStructured({ _tag: "FileDiff", fileName: "a.txt", diff: "", originalContent: "x", newContent: "x" }, false),
      "a.txt: no changes"
    )
  })

  it("a success shows the structured display, else the model's text and media lines", () => {
    const base = { _tag: "Success" as const, callId: "1", name: "t", text: "", resultFilePaths: [], data: undefined }
    assert.strictEqual(
      renderSuccessBody({ ...base, llmContent: [{ type: "text", text: "hi" }, { type: "image", data: "aGk=", mimeType: "image/png" }], display: "short" }, false),
      "hi\n[image image/png, 2 bytes]"
    )
    assert.strictEqual(renderSuccessBody({ ...base, llmContent: [], display: "only display" }, false), "only display")
    assert.strictEqual(
      renderSuccessBody({ ...base, llmContent: [{ type: "text", text: "ok" }], display: { _tag: "TodoList", todos: [{ id: "1", content: "a", status: "pending" }] } }, false),
      "[ ] a"
    )
  })

  it("failures name the wire code; JSON keeps everything a program needs", () => {
    const failure = { _tag: "Failure" as const, callId: "2", name: "edit", code: "edit_no_change" as const, message: "No change.", display: "No change." }
    assert.strictEqual(renderProblem(failure, false), "✗ edit failed [edit_no_change]: No change.")
    assert.strictEqual(renderProblem({ _tag: "Cancelled", callId: "3", name: "edit", message: "declined" }, false), "⊘ edit cancelled: declined")
    assert.deepStrictEqual(resultToJson(failure), { callId: "2", name: "edit", status: "failure", code: "edit_no_change", message: "No change." })
    assert.deepStrictEqual(resultToJson({ _tag: "Cancelled", callId: "3", name: "edit", message: "no" }), {
      callId: "3",
      name: "edit",
      status: "cancelled",
      code: "cancelled",
      message: "no"
    })
    const success = resultToJson({
      _tag: "Success",
      callId: "1",
      name: "t",
      llmContent: [{ type: "text", text: "x" }],
      text: "x",
      display: "x",
      resultFilePaths: ["/a"],
      data: { n: 10n, f: () => 1 }
    })
    assert.deepStrictEqual(success, {
      callId: "1",
      name: "t",
      status: "success",
      content: [{ type: "text", text: "x" }],
      display: "x",
      resultFilePaths: ["/a"],
      data: { n: "10" }
    })
  })

  it("the spinner line fits the width and shows the last line", () => {
    assert.strictEqual(spinnerLine(0, "run_shell_command", 1234, "building 3/10", 80), "⠋ run_shell_command 1.2s · building 3/10")
    const cut = spinnerLine(1, "sh", 0, "x".repeat(200), 40)
    assert.strictEqual(cut.length, 39)
    assert.isTrue(cut.startsWith("⠙ sh 0.0s · ") && cut.endsWith("x…"))
    assert.strictEqual(spinnerLine(2, "sh", 0, "", 40), "⠹ sh 0.0s")
  })

  it.effect("the spinner draws while output arrives and clears its line", () =>
    Effect.gen(function*() {
      const writes: Array<string> = []
      const spinner = yield* makeSpinner({ write: (t) => void writes.push(t), columns: 80 })
      yield* TestClock.adjust("100 millis")
      assert.deepStrictEqual(writes, [], "nothing is drawn before output arrives")
      yield* spinner.show("sh", "line one\nline two\n")
      yield* TestClock.adjust("80 millis")
      assert.match(writes[writes.length - 1]!, /^\r\x1b\[2K. sh \d+\.\ds · line two$/)
      yield* spinner.show("sh", { _tag: "AnsiOutput", ansi: "\x1b[1mbold last\x1b[0m" })
      yield* TestClock.adjust("80 millis")
      assert.match(writes[writes.length - 1]!, /· bold last$/)
      yield* spinner.clear
      assert.strictEqual(writes[writes.length - 1], "\r\x1b[2K")
      const count = writes.length
      yield* TestClock.adjust("1 second")
      assert.strictEqual(writes.length, count, "a cleared spinner stays clear")
    }))

  it("approval prompts show the diff, the command, the questions", () => {
    const tool = { name: "edit", kind: Kind.Edit } as unknown as ToolInfo
    const edit = renderApproval({
      tool,
      description: "Edit a.txt",
      details: { type: "edit", title: "Confirm Edit", fileName: "a.txt", filePath: "/a.txt", fileDiff: "-a\n+b\n", originalContent: "a", newContent: "b" }
    }, false)
    assert.strictEqual(edit, "? Confirm Edit\n  Edit a.txt\n-a\n+b")
    const exec = renderApproval({ tool, description: "Run", details: { type: "exec", title: "Confirm Shell", command: "rm -rf x", rootCommand: "rm" } }, false)
    assert.strictEqual(exec, "? Confirm Shell\n  Run\n  $ rm -rf x")
    const ask = renderApproval({
      tool,
      description: "Ask",
      details: {
        type: "ask_user_question",
        title: "Please answer",
        questions: [{ question: "Which?", header: "Lib", multiSelect: false, options: [{ label: "a", description: "first" }, { label: "b", description: "" }] }]
      }
    }, false)
    assert.strictEqual(ask, "? Please answer\n  Ask\n  Lib: Which?\n    1. a — first\n    2. b")
  })
})

describe("the CLI approver without a terminal", () => {
  const request = {
    tool: { name: "edit" } as ToolInfo,
    description: "Edit",
    details: { type: "info" as const, title: "Confirm", prompt: "Edit" }
  }
  it.effect("--yes approves; otherwise it refuses with a reason that says what to do", () =>
    Effect.gen(function*() {
      const yes = yield* terminalApprover({ yes: true, interactive: false, color: false }).confirm(request)
      assert.deepStrictEqual(yes, { _tag: "proceed_once" })
      const no = yield* terminalApprover({ yes: false, interactive: false, color: false }).confirm(request)
      assert.deepStrictEqual(no, { _tag: "cancel", reason: NO_TERMINAL_REASON, unasked: true })
      assert.include(NO_TERMINAL_REASON, "--yes")
    }))
})

describe("parsing", () => {
  it("call params are JSON", () => {
    assert.deepStrictEqual(parseParams(`{"a": 1}`), { ok: true, value: { a: 1 } })
    const bad = parseParams("{a: 1}")
    assert.isFalse(bad.ok)
    assert.include(!bad.ok ? bad.message : "", "the params are not valid JSON")
  })

  it("a script: one call per line, arrays are one batch, comments and blanks skipped", () => {
    const parsed = parseScript([
      "# a comment",
      `{"name": "read_file", "args": {"file_path": "a"}}`,
      "",
      `[{"name": "grep_search", "arguments": {"pattern": "x"}}, {"name": "glob", "id": "g"}]`
    ].join("\n"))
    assert.deepStrictEqual(parsed, {
      ok: true,
      steps: [
        { line: 2, calls: [{ callId: "2", name: "read_file", args: { file_path: "a" } }] },
        { line: 4, calls: [{ callId: "4.1", name: "grep_search", args: { pattern: "x" } }, { callId: "g", name: "glob", args: {} }] }
      ]
    })
  })

  it("a bad script is reported by line before anything runs", () => {
    const message = (text: string) => {
      const p = parseScript(text)
      return p.ok ? "parsed" : p.message
    }
    assert.match(message(`{"name": "a"}\n{oops`), /^line 2: not valid JSON/)
    assert.match(message(`{"tool": "a"}`), /^line 1: expected \{"name": "read_file", "args": \{"file_path": "a.txt"\}\} \(/)
    assert.match(message(`[{"name": "a"}, {"name": ""}]`), /^line 1, call 2: expected/)
    assert.strictEqual(message(`{"name": "a", "args": {}, "arguments": {}}`), `line 1: give "args" or "arguments", not both`)
    assert.strictEqual(message(`[]`), "line 1: an empty array has no calls")
    assert.match(message("# nothing\n\n"), /^the script has no calls/)
  })
})
