/**
 * Amended approvals at the CLI's terminal prompt, through the BUILT binary on a real
 * pseudo-terminal (`npm run build` first): "e" opens `$EDITOR` (a small script that rewrites the
 * file, run as a real process) on the proposal, and the saved version is applied.
 */
import { assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import * as pty from "node-pty"
import { Effect } from "effect"
import { stripAnsi } from "../../src/cli/render.js"
import { cleanEnv } from "../support/cli.js"
import { cliPath, tempDir } from "../support/serve.js"

/** Runs the built CLI on a pseudo-terminal with `env` added; each answer is typed when its prompt appears. */
const runOnPty = (
  args: ReadonlyArray<string>,
  options: { readonly cwd: string; readonly env: Record<string, string>; readonly answers: ReadonlyArray<readonly [RegExp, string]> }
) =>
  Effect.callback<{ readonly code: number; readonly output: string }>((resume) => {
    const term = pty.spawn(process.execPath, [cliPath, ...args], { cols: 200, rows: 30, cwd: options.cwd, env: { ...cleanEnv(), ...options.env } })
    let output = ""
    let seen = 0
    const pending = [...options.answers]
    term.onData((data) => {
      output += data
      const next = pending[0]
      if (next && next[0].test(output.slice(seen))) {
        pending.shift()
        seen = output.length
        term.write(next[1])
      }
    })
    term.onExit(({ exitCode }) => resume(Effect.succeed({ code: exitCode, output })))
    return Effect.sync(() => term.kill())
  })

const workspace = Effect.gen(function*() {
  const root = yield* tempDir("tw-amend-cli-")
  const state = yield* tempDir("tw-amend-cli-state-")
  const bin = yield* tempDir("tw-amend-editor-")
  fs.writeFileSync(path.join(root, "a.txt"), "hello world\nsecond line\n")
  const script = (name: string, lines: ReadonlyArray<unknown>) => {
    fs.writeFileSync(path.join(root, name), lines.map((l) => JSON.stringify(l)).join("\n") + "\n")
    return name
  }
  /** An "editor": a shell script run on the temp file holding the proposal. */
  const editor = (body: string) => {
    const file = path.join(bin, "editor.sh")
    fs.writeFileSync(file, `#!/bin/sh\n${body}\n`, { mode: 0o755 })
    return file
  }
  return { root, script, editor, base: ["--state-dir", state] }
})

/** The JSON result lines of a `--json` run on a terminal (the prompts are on the same screen). */
const jsonLines = (output: string): Array<Record<string, unknown>> =>
  stripAnsi(output).split(/\r?\n/).filter((l) => l.startsWith("{\"callId\"")).map((l) => JSON.parse(l) as Record<string, unknown>)

describe("toolwright run on a terminal: editing a proposal before approving it", () => {
  it.live("e opens $EDITOR on the proposed new_string; the saved version is written and reported", () =>
    Effect.gen(function*() {
      const w = yield* workspace
      // the editor ends the saved text with a newline, as editors do; the proposal had none, so it is dropped
      const editor = w.editor(`printf 'ciao\\n' > "$1"`)
      const file = w.script("fix.jsonl", [
        { name: "read_file", args: { file_path: "a.txt" } },
        { name: "edit", args: { file_path: "a.txt", old_string: "hello", new_string: "bye" } }
      ])
      const r = yield* runOnPty(["run", file, "--json", ...w.base], {
        cwd: w.root,
        env: { EDITOR: editor },
        answers: [[/Allow\? \[y\]es once, \[a\]lways for edit in this run, \[e\]dit new_string, \[N\]o: /, "e\r"]]
      })
      assert.strictEqual(r.code, 0, r.output)
      assert.strictEqual(fs.readFileSync(path.join(w.root, "a.txt"), "utf8"), "ciao world\nsecond line\n")
      assert.include(stripAnsi(r.output), "Applying your edited new_string.")
      const edit = jsonLines(r.output).find((j) => j["name"] === "edit")!
      assert.strictEqual(edit["status"], "success")
      assert.deepStrictEqual(edit["userModified"], {
        param: "new_string",
        diffStat: { user_added_lines: 1, user_removed_lines: 1, user_added_chars: 4, user_removed_chars: 3 }
      })
      // the file's stats: the model's line (hello → bye world) and the person's (bye → ciao world)
      assert.deepStrictEqual((edit["data"] as { diffStat: unknown }).diffStat, {
        model_added_lines: 1,
        model_removed_lines: 1,
        model_added_chars: 9,
        model_removed_chars: 11,
        user_added_lines: 1,
        user_removed_lines: 1,
        user_added_chars: 10,
        user_removed_chars: 9
      })
      const content = edit["content"] as Array<{ text: string }>
      assert.strictEqual(
        content.at(-1)!.text,
        "The user modified your proposal before applying it: the new_string that was applied is theirs, not yours " +
          "(1 line added, 1 line removed by the user). Their new_string, as a diff from your proposal:\n" +
          "@@ -1,1 +1,1 @@\n-bye\n+ciao\n" +
          "Build on the user's version from here on; do not put your original back."
      )
    }), 60_000)

  it.live("a command edited in $EDITOR runs instead of the proposal; an editor that fails asks again", () =>
    Effect.gen(function*() {
      const w = yield* workspace
      const editor = w.editor(`printf 'touch amended.txt\\n' > "$1"`)
      const file = w.script("cmd.jsonl", [{ name: "run_shell_command", args: { command: "touch proposed.txt" } }])
      const r = yield* runOnPty(["run", file, ...w.base], { cwd: w.root, env: { VISUAL: editor }, answers: [[/\[e\]dit command, \[N\]o: /, "e\r"]] })
      assert.strictEqual(r.code, 0, r.output)
      assert.isTrue(fs.existsSync(path.join(w.root, "amended.txt")))
      assert.isFalse(fs.existsSync(path.join(w.root, "proposed.txt")))

      const failing = w.editor("exit 3")
      const again = yield* runOnPty(["run", file, ...w.base], {
        cwd: w.root,
        env: { EDITOR: failing },
        answers: [[/\[e\]dit command, \[N\]o: /, "e\r"], [/\[e\]dit command, \[N\]o: /, "n\r"]]
      })
      const shown = stripAnsi(again.output)
      assert.strictEqual(again.code, 1, shown)
      assert.include(shown, `Could not edit the command: the editor (${failing}) exited with code 3.`)
      assert.include(shown, "The user declined this run_shell_command call: declined at the terminal")
      assert.isFalse(fs.existsSync(path.join(w.root, "proposed.txt")))
    }), 60_000)
})
