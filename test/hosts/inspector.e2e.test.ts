/**
 * The MCP Inspector CLI (a real MCP host, pinned, installed from npm by the test) against the built
 * `toolwright serve`: tools/list, resources/list and tool calls — each call a new serve process, so
 * an edit works only in a named session (`--session`) that remembers the read of the call before.
 */
import { assert, describe, it } from "@effect/vitest"
import { execFile } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { Effect } from "effect"
import { HOSTS, installHost } from "../support/hosts.js"
import { cliPath, tempDir } from "../support/serve.js"

const inspect = (inspector: string, serveArgs: ReadonlyArray<string>, method: ReadonlyArray<string>) =>
  Effect.callback<{ readonly code: number; readonly json: any; readonly stderr: string }>((resume) => {
    execFile(
      process.execPath,
      [inspector, process.execPath, cliPath, "serve", ...serveArgs, "--method", ...method],
      { timeout: 60_000, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        let json: unknown
        try {
          json = JSON.parse(stdout)
        } catch {
          json = { unparsed: stdout }
        }
        resume(Effect.succeed({ code: error === null ? 0 : Number(error.code ?? 1), json, stderr }))
      }
    )
  })

const textOf = (result: any): string => (result.content ?? []).map((c: any) => c.text ?? "").join("")

describe("MCP Inspector CLI 0.15 against toolwright serve", () => {
  it.live("tools/list, resources/list, and read then edit across two one-shot processes of a named session", () =>
    Effect.gen(function*() {
      const inspector = yield* installHost(HOSTS.inspector)
      const root = yield* tempDir("tw-insp-")
      const state = yield* tempDir("tw-insp-state-")
      fs.writeFileSync(path.join(root, "notes.txt"), "hello notes\n")
      const base = ["--root", root, "--state-dir", state]

      const list = yield* inspect(inspector, base, ["tools/list"])
      assert.strictEqual(list.code, 0, list.stderr)
      const names: Array<string> = list.json.tools.map((t: { name: string }) => t.name)
      for (const name of ["read_file", "edit", "run_shell_command", "grep_search", "tool_search"]) assert.include(names, name)
      assert.notInclude(names, "task_stop", "a deferred tool is listed only after tool_search reveals it")
      const search = list.json.tools.find((t: { name: string }) => t.name === "tool_search")
      assert.strictEqual(search.annotations?.readOnlyHint, true, "tool_search only reads: hosts that auto-allow read-only tools must not refuse it")

      const resources = yield* inspect(inspector, base, ["resources/list"])
      assert.strictEqual(resources.code, 0, resources.stderr)
      assert.isArray(resources.json.resources)

      const read = yield* inspect(inspector, [...base, "--session", "insp"], ["tools/call", "--tool-name", "read_file", "--tool-arg", "file_path=notes.txt"])
      assert.strictEqual(read.code, 0, read.stderr)
      assert.strictEqual(textOf(read.json), "hello notes")

      const editArgs = ["tools/call", "--tool-name", "edit", "--tool-arg", "file_path=notes.txt", "old_string=hello", "new_string=goodbye"]
      const unnamed = yield* inspect(inspector, base, editArgs)
      assert.strictEqual(unnamed.json.isError, true)
      assert.strictEqual(unnamed.json._meta?.["toolwright/errorType"], "edit_requires_prior_read")
      assert.strictEqual(fs.readFileSync(path.join(root, "notes.txt"), "utf8"), "hello notes\n")

      const edit = yield* inspect(inspector, [...base, "--session", "insp"], editArgs)
      assert.notStrictEqual(edit.json.isError, true, JSON.stringify(edit.json))
      assert.strictEqual(fs.readFileSync(path.join(root, "notes.txt"), "utf8"), "goodbye notes\n")
    }), 300_000)
})
