/**
 * The search tools through `toolwright serve` (the built CLI) and the MCP SDK client: listed,
 * callable, and grep-then-edit without a read_file. Run `npm run build` first.
 */
import { assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { Effect } from "effect"
import { connectServe, tempDir } from "../support/serve.js"

type Content = Array<{ type: string; text?: string }>

const textOf = (result: unknown): string => ((result as { content?: Content }).content ?? [])[0]?.text ?? ""

describe("search tools over toolwright serve", () => {
  it.live("grep_search, then edit a file seen only through grep; a file never seen is refused", () =>
    Effect.gen(function*() {
      const root = yield* tempDir()
      const state = yield* tempDir()
      fs.mkdirSync(path.join(root, "src"))
      const seen = path.join(root, "src", "config.ts")
      const unseen = path.join(root, "src", "other.ts")
      fs.writeFileSync(seen, "export const retries = 3\nexport const timeoutMs = 1000\n")
      fs.writeFileSync(unseen, "export const timeoutMs = 5000\n")
      const client = yield* connectServe(["--root", root, "--state-dir", state])

      const tools = (yield* Effect.promise(() => client.listTools())).tools
      for (const name of ["grep_search", "glob", "list_directory"]) {
        const tool = tools.find((t) => t.name === name)
        assert.isDefined(tool, name)
        assert.isTrue(tool!.annotations?.readOnlyHint, name)
      }

      const grep = yield* Effect.promise(() => client.callTool({ name: "grep_search", arguments: { pattern: "retries", path: "src" } }))
      assert.isUndefined(grep.isError)
      assert.strictEqual(textOf(grep), `Found 1 match for pattern "retries" in path "src":\n---\nsrc/config.ts:1:export const retries = 3`)

      const edit = yield* Effect.promise(() =>
        client.callTool({ name: "edit", arguments: { file_path: "src/config.ts", old_string: "retries = 3", new_string: "retries = 5" } })
      )
      assert.isUndefined(edit.isError, textOf(edit))
      assert.strictEqual(fs.readFileSync(seen, "utf8"), "export const retries = 5\nexport const timeoutMs = 1000\n")

      const blind = yield* Effect.promise(() =>
        client.callTool({ name: "edit", arguments: { file_path: "src/other.ts", old_string: "5000", new_string: "6000" } })
      )
      assert.isTrue(blind.isError)
      assert.strictEqual(blind._meta?.["toolwright/errorType"], "edit_requires_prior_read")
      assert.include(textOf(blind), "has not been read in this session")
      assert.strictEqual(fs.readFileSync(unseen, "utf8"), "export const timeoutMs = 5000\n")

      const glob = yield* Effect.promise(() => client.callTool({ name: "glob", arguments: { pattern: "**/*.ts" } }))
      assert.match(textOf(glob), /^Found 2 file\(s\) matching "\*\*\/\*\.ts" in the workspace directory/)
      const list = yield* Effect.promise(() => client.callTool({ name: "list_directory", arguments: { path: "src" } }))
      assert.strictEqual(textOf(list), `Listed 2 item(s) in ${path.join(root, "src")}:\n---\nconfig.ts\nother.ts`)

      const bad = yield* Effect.promise(() => client.callTool({ name: "grep_search", arguments: { pattern: "(" } }))
      assert.isTrue(bad.isError)
      assert.strictEqual(bad._meta?.["toolwright/errorType"], "invalid_tool_params")
    }), 60_000)
})
