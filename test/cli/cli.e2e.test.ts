/**
 * The `toolwright` CLI for people, through the BUILT binary (`npm run build` first): `call`, `run`
 * on JSONL scripts (read then edit in one session), `--json`, exit codes, and, on a real
 * pseudo-terminal, the approval prompt and the spinner.
 */
import { assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import * as pty from "node-pty"
import { Effect } from "effect"
import { stripAnsi } from "../../src/cli/render.js"
import { cleanEnv, runCli } from "../support/cli.js"
import { cliPath, repoRoot, tempDir } from "../support/serve.js"

const toolsModule = path.join(repoRoot, "test", "cli", "fixtures", "tools.mjs")

/** Runs the built CLI on a pseudo-terminal; `answer` is typed when `prompt` appears. */
const runOnPty = (args: ReadonlyArray<string>, options: { readonly cwd: string; readonly answers?: ReadonlyArray<readonly [RegExp, string]> }) =>
  Effect.callback<{ readonly code: number; readonly output: string }>((resume) => {
    const term = pty.spawn(process.execPath, [cliPath, ...args], {
      cols: 100,
      rows: 30,
      cwd: options.cwd,
      env: cleanEnv()
    })
    let output = ""
    const pending = [...(options.answers ?? [])]
    term.onData((data) => {
      output += data
      const next = pending[0]
      if (next && next[0].test(output)) {
        pending.shift()
        term.write(next[1])
      }
    })
    term.onExit(({ exitCode }) => resume(Effect.succeed({ code: exitCode, output })))
    return Effect.sync(() => term.kill())
  })

const workspace = Effect.gen(function*() {
  const root = yield* tempDir("tw-cli-")
  const state = yield* tempDir("tw-cli-state-")
  fs.writeFileSync(path.join(root, "a.txt"), "hello world\nsecond line\n")
  const script = (name: string, lines: ReadonlyArray<unknown>) => {
    fs.writeFileSync(path.join(root, name), lines.map((l) => (typeof l === "string" ? l : JSON.stringify(l))).join("\n") + "\n")
    return name
  }
  const read = (name = "a.txt") => fs.readFileSync(path.join(root, name), "utf8")
  return { root, state, script, read, base: ["--state-dir", state] }
})

const readA = { name: "read_file", args: { file_path: "a.txt" } }
const editA = { name: "edit", args: { file_path: "a.txt", old_string: "hello", new_string: "bye" } }

describe("toolwright run (a JSONL script in one session)", () => {
  it.live("reads and then edits a file: one result after another, the edit as a diff", () =>
    Effect.gen(function*() {
      const w = yield* workspace
      const file = w.script("fix.jsonl", ["# read, then edit what was read", readA, editA])
      const r = yield* runCli(["run", file, "--yes", ...w.base], { cwd: w.root })
      assert.strictEqual(r.code, 0, r.stderr)
      assert.strictEqual(w.read(), "bye world\nsecond line\n")
      const out = r.stdout.split("\n")
      assert.strictEqual(out[0], "✓ read_file [1/2] line 2")
      assert.strictEqual(out[1], "hello world")
      assert.strictEqual(out.indexOf("✓ edit [2/2] line 3"), 3)
      assert.includeMembers(out, ["@@ -1,2 +1,2 @@", "-hello world", "+bye world", " second line"])
      assert.strictEqual(r.stderr, "")
    }), 60_000)

  it.live("colours the diff when asked to (FORCE_COLOR)", () =>
    Effect.gen(function*() {
      const w = yield* workspace
      const r = yield* runCli(["run", w.script("fix.jsonl", [readA, editA]), "--yes", ...w.base], { cwd: w.root, env: { FORCE_COLOR: "1" } })
      assert.strictEqual(r.code, 0, r.stderr)
      assert.include(r.stdout, "\x1b[31m-hello world\x1b[0m\n\x1b[32m+bye world\x1b[0m")
    }), 60_000)

  it.live("without a terminal and without --yes, an edit is refused with a clear message; the script stops there", () =>
    Effect.gen(function*() {
      const w = yield* workspace
      const r = yield* runCli(["run", w.script("fix.jsonl", [readA, editA, readA]), ...w.base], { cwd: w.root })
      assert.strictEqual(r.code, 1)
      assert.strictEqual(w.read(), "hello world\nsecond line\n")
      assert.match(r.stderr, /^⊘ edit cancelled: .*stdin is not a terminal\. Rerun with --yes/)
      assert.strictEqual(r.stdout.split("\n").filter((l) => l.startsWith("✓")).length, 1, "the third call did not run")
    }), 60_000)

  it.live("--json prints one object per result; --keep-going runs the rest and still exits 1", () =>
    Effect.gen(function*() {
      const w = yield* workspace
      const file = w.script("fix.jsonl", [readA, { name: "edit", args: { file_path: "a.txt", old_string: "absent", new_string: "x" } }, [readA, { ...readA, id: "again" }]])
      const r = yield* runCli(["run", file, "--json", "--keep-going", "--yes", ...w.base], { cwd: w.root })
      assert.strictEqual(r.code, 1)
      const lines = r.stdout.trim().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>)
      assert.deepStrictEqual(lines.map((l) => [l["callId"], l["name"], l["status"], l["code"]]), [
        ["1", "read_file", "success", undefined],
        ["2", "edit", "failure", "edit_no_occurrence_found"],
        ["3.1", "read_file", "success", undefined],
        ["again", "read_file", "success", undefined]
      ])
      assert.deepStrictEqual(lines[0]!["content"], [{ type: "text", text: "hello world\nsecond line" }])
      assert.strictEqual(r.stderr, "")
    }), 60_000)

  it.live("a bad line is a usage error (exit 2) naming the line, and nothing runs", () =>
    Effect.gen(function*() {
      const w = yield* workspace
      const r = yield* runCli(["run", w.script("bad.jsonl", [readA, editA, "{not json"]), "--yes", ...w.base], { cwd: w.root })
      assert.strictEqual(r.code, 2)
      assert.match(r.stderr, /^error: bad\.jsonl: line 3: not valid JSON/)
      assert.strictEqual(r.stdout, "")
      assert.strictEqual(w.read(), "hello world\nsecond line\n")
      const missing = yield* runCli(["run", "nope.jsonl", ...w.base], { cwd: w.root })
      assert.strictEqual(missing.code, 2)
      assert.match(missing.stderr, /^error: cannot read the script nope\.jsonl/)
    }), 60_000)

  it.live("the script can come from stdin", () =>
    Effect.gen(function*() {
      const w = yield* workspace
      const r = yield* runCli(["run", "-", "--yes", ...w.base], { cwd: w.root, input: `${JSON.stringify(readA)}\n${JSON.stringify(editA)}\n` })
      assert.strictEqual(r.code, 0, r.stderr)
      assert.strictEqual(w.read(), "bye world\nsecond line\n")
    }), 60_000)
})

describe("toolwright call (one call in a fresh session)", () => {
  it.live("prints the result; failures print the wire code and exit 1; bad JSON exits 2", () =>
    Effect.gen(function*() {
      const w = yield* workspace
      const ok = yield* runCli(["call", "read_file", `{"file_path": "a.txt"}`, ...w.base], { cwd: w.root })
      assert.deepStrictEqual([ok.code, ok.stdout, ok.stderr], [0, "hello world\nsecond line\n", ""])
      // a fresh session: the file was never read in it
      const edit = yield* runCli(["call", "edit", JSON.stringify(editA.args), "--yes", ...w.base], { cwd: w.root })
      assert.strictEqual(edit.code, 1)
      assert.match(edit.stderr, /^✗ edit failed \[edit_requires_prior_read\]: /)
      const unknown = yield* runCli(["call", "no_such_tool", ...w.base], { cwd: w.root })
      assert.strictEqual(unknown.code, 1)
      assert.match(unknown.stderr, /^✗ no_such_tool failed \[tool_not_registered\]: Tool "no_such_tool" not found/)
      const bad = yield* runCli(["call", "read_file", "{file_path: a.txt}", ...w.base], { cwd: w.root })
      assert.strictEqual(bad.code, 2)
      assert.match(bad.stderr, /^error: the params are not valid JSON/)
      const json = yield* runCli(["call", "read_file", `{"file_path": "missing.txt"}`, "--json", ...w.base], { cwd: w.root })
      assert.strictEqual(json.code, 1)
      assert.deepStrictEqual(Object.keys(JSON.parse(json.stdout)), ["callId", "name", "status", "code", "message"])
    }), 60_000)

  it.live("params from stdin; the todo list as a checklist; terminal output with its colours", () =>
    Effect.gen(function*() {
      const w = yield* workspace
      const todos = { todos: [{ id: "1", content: "Read the code", status: "completed" }, { id: "2", content: "Fix it", status: "in_progress" }, { id: "3", content: "Test it", status: "pending" }] }
      const r = yield* runCli(["call", "todo_write", "-", ...w.base], { cwd: w.root, input: JSON.stringify(todos) })
      assert.strictEqual(r.code, 0, r.stderr)
      assert.strictEqual(r.stdout, "[x] Read the code\n[~] Fix it\n[ ] Test it\n")
      const ansi = yield* runCli(["call", "ansi_tool", "--tools-module", toolsModule, ...w.base], { cwd: w.root, env: { FORCE_COLOR: "1" } })
      assert.strictEqual(ansi.stdout, "\x1b[31mred\x1b[0m text\n")
      const plain = yield* runCli(["call", "ansi_tool", "--tools-module", toolsModule, ...w.base], { cwd: w.root })
      assert.strictEqual(plain.stdout, "red text\n")
    }), 60_000)
})

describe("on a terminal", () => {
  it.live("asks before an edit and shows its diff: y applies it, n declines it", () =>
    Effect.gen(function*() {
      const w = yield* workspace
      const file = w.script("fix.jsonl", [readA, editA])
      const no = yield* runOnPty(["run", file, ...w.base], { cwd: w.root, answers: [[/Allow\? /, "n\r"]] })
      assert.strictEqual(no.code, 1)
      const shown = stripAnsi(no.output)
      assert.include(shown, "? Confirm Edit: a.txt")
      assert.include(shown, "-hello world\r\n+bye world")
      assert.include(no.output, "\x1b[32m+bye world\x1b[0m", "a terminal gets colours")
      assert.include(shown, "⊘ edit cancelled: The user declined this edit call: declined at the terminal")
      assert.strictEqual(w.read(), "hello world\nsecond line\n")
      const yes = yield* runOnPty(["run", file, ...w.base], { cwd: w.root, answers: [[/Allow\? /, "y\r"]] })
      assert.strictEqual(yes.code, 0, yes.output)
      assert.strictEqual(w.read(), "bye world\nsecond line\n")
    }), 60_000)

  it.live("shows a spinner with the last line while a call prints live output, then the result", () =>
    Effect.gen(function*() {
      const w = yield* workspace
      const r = yield* runOnPty(["call", "live_tool", `{"lines": 6}`, "--tools-module", toolsModule, ...w.base], { cwd: w.root })
      assert.strictEqual(r.code, 0, r.output)
      assert.match(r.output, /[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] live_tool \d+\.\ds · progress line \d/)
      // the spinner line is cleared before the result is printed
      const result = r.output.lastIndexOf("progress line 1\r\n")
      assert.isAbove(result, r.output.lastIndexOf("\x1b[2K"))
      assert.include(r.output.slice(result), "progress line 6")
    }), 60_000)
})
