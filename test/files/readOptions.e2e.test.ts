/**
 * read_file's options and the notebook_edit prior-read message, through `toolwright serve` as a
 * host calls them. Run `npm run build` first.
 */
import { assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { Effect } from "effect"
import { connectServe, tempDir } from "../support/serve.js"

type Content = Array<{ type: string; text?: string }>
const textOf = (result: unknown) => ((result as { content: Content }).content).map((c) => c.text ?? "").join("")

describe("read_file options over toolwright serve", () => {
  it.live("line_numbers: true prefixes cat -n style, numbered from the offset; without it nothing changes", () =>
    Effect.gen(function*() {
      const root = yield* tempDir()
      const state = yield* tempDir()
      fs.writeFileSync(path.join(root, "a.txt"), Array.from({ length: 12 }, (_, i) => `line ${i + 1}`).join("\n") + "\n")
      const client = yield* connectServe(["--root", root, "--state-dir", state])
      const call = (args: Record<string, unknown>) => Effect.promise(() => client.callTool({ name: "read_file", arguments: args }))

      assert.strictEqual(textOf(yield* call({ file_path: "a.txt", limit: 2 })).split("---\n\n")[1], "line 1\nline 2\n\n")
      const numbered = textOf(yield* call({ file_path: "a.txt", offset: 9, limit: 2, line_numbers: true }))
      assert.include(numbered, "    10\tline 10\n    11\tline 11")
      const whole = textOf(yield* call({ file_path: "a.txt", offset: 0, line_numbers: true }))
      assert.isTrue(whole.startsWith("     1\tline 1\n     2\tline 2\n"), whole)
      assert.include(whole, "    12\tline 12")
    }), 60_000)

  it.live("notebook_edit after only a grep hit: read_file it first (not 'truncated'); after read_file it edits", () =>
    Effect.gen(function*() {
      const root = yield* tempDir()
      const state = yield* tempDir()
      const nb = {
        cells: [{ cell_type: "code", id: "c1", metadata: {}, execution_count: null, outputs: [], source: ["needle = 1\n"] }],
        metadata: {},
        nbformat: 4,
        nbformat_minor: 5
      }
      fs.writeFileSync(path.join(root, "n.ipynb"), JSON.stringify(nb, null, 1) + "\n")
      const client = yield* connectServe(["--root", root, "--state-dir", state])
      const call = (name: string, args: Record<string, unknown>) => Effect.promise(() => client.callTool({ name, arguments: args }))

      const hit = yield* call("grep_search", { pattern: "needle" })
      assert.include(textOf(hit), "n.ipynb")
      const refused = yield* call("notebook_edit", { notebook_path: "n.ipynb", cell_id: "c1", new_source: "needle = 2" })
      assert.isTrue(refused.isError)
      assert.strictEqual(refused._meta?.["toolwright/errorType"], "edit_requires_prior_read")
      assert.include(textOf(refused), "Read it with the read_file tool first")
      assert.notInclude(textOf(refused), "truncated")

      yield* call("read_file", { file_path: "n.ipynb" })
      const edited = yield* call("notebook_edit", { notebook_path: "n.ipynb", cell_id: "c1", new_source: "needle = 2" })
      assert.isUndefined(edited.isError, textOf(edited))
    }), 60_000)
})
